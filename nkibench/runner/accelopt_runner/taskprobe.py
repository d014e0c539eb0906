"""The task check's look at a task's reference (child role "probe", in the judge's sandbox: the reference is task
code and never runs in the serving process, nor beside a kernel). At the small size: does it load, run and give
finite outputs; is it deterministic for a seed; what does it build. taskcheck.py turns the answer into checks.

Result: status "probed" with reference_kind, inputs (what forward takes), kernel_inputs (after
transform_to_nki_inputs), outputs, each [{"shape", "dtype"}]; or status "failed" with failed_check and error."""
from __future__ import annotations

import numpy as np

from .evaluate import CLOCK, PHASE, EvalTimeout, _copy_inputs, empty_result, reference_failure
from .taskspec import LoadedTask, TaskError


class _Failed(Exception):
    def __init__(self, check: str, message: str):
        super().__init__(message)
        self.check = check


def _describe(xs) -> list:
    return [{"shape": list(np.shape(x)), "dtype": np.asarray(x).dtype.name} for x in xs]


def _same(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True


def run(job: dict, workdir: str) -> dict:
    res = empty_result(job)
    try:
        res.update(_probe(job, workdir))
        res.update(status="probed", error=None)
    except _Failed as f:
        res.update(status="failed", failed_check=f.check, error=str(f))
    return res


def _probe(job: dict, workdir: str) -> dict:
    spec = job["task_spec"]
    seed = int(job["seeds"][0])
    PHASE["now"] = "loading the task reference"
    CLOCK.start("load")
    try:
        task = LoadedTask(spec, workdir)
    except (EvalTimeout, MemoryError):
        raise
    except TaskError as e:
        raise _Failed("reference_loads", str(e)) from None
    except BaseException as e:  # noqa: BLE001 - the reference's module code: its file and line
        raise _Failed("reference_loads", str(reference_failure(e, spec, workdir, "failed to load"))) from None

    def once(s: int):
        PHASE["now"] = f"running the task reference (seed {s})"
        CLOCK.start("reference")
        try:
            inputs = task.get_inputs(s)
            outs = task.forward(_copy_inputs(inputs))
            kin = task.to_nki(inputs)
        except (EvalTimeout, MemoryError):
            raise
        except BaseException as e:  # noqa: BLE001
            raise _Failed("reference_runs", str(reference_failure(e, spec, workdir, f"failed for seed {s}"))) \
                from None
        return inputs, outs, kin

    inputs, outs, kin = once(seed)
    for i, o in enumerate(outs):
        a = np.asarray(o)
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            n_nan, n_inf = int(np.count_nonzero(np.isnan(a))), int(np.count_nonzero(np.isinf(a)))
            raise _Failed("reference_runs", f"the reference's output {i} holds {n_nan} NaN and {n_inf} inf "
                                            f"value(s) at the small size (seed {seed}); a reference must give finite "
                                            f"outputs on the inputs it is given: check its arithmetic and its inputs")
    inputs2, outs2, _ = once(seed)
    if not _same(inputs, inputs2):
        raise _Failed("deterministic", f"the reference built different inputs for the same seed ({seed}) twice; "
                                       f"draw them only from the seed (numpy.random.default_rng(seed), or "
                                       f"torch.manual_seed, which the runner sets), not from time or os.urandom")
    if not _same(outs, outs2):
        raise _Failed("deterministic", f"the reference gave different outputs for the same inputs (seed {seed}, "
                                       f"twice); forward must depend on its inputs alone")
    inputs3, _, _ = once(seed + 1)
    if _same(inputs, inputs3):
        raise _Failed("deterministic", f"the reference built the same inputs for seeds {seed} and {seed + 1}; its "
                                       f"inputs must come from the seed, or every eval checks the kernel on one "
                                       f"case (a cached result would pass)")
    names = [d.get("name") if isinstance(d, dict) else None for d in spec.get("input_decl") or []]
    if task.torch is not None:  # the tensors of get_inputs(), then the model's parameters by their names
        names = (names + [None] * task.torch.n_tensors)[:task.torch.n_tensors] + task.torch.param_names
    return {"reference_kind": task.kind, "input_names": names, "inputs": _describe(inputs),
            "kernel_inputs": _describe(kin), "outputs": _describe(outs)}
