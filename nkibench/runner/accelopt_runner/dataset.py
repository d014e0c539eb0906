"""Reader for the original NKIBench dataset layout (accelopt-method §5 "Files"):

    <root>/summary.json          problem -> {seed yaml, cases {id -> {values, impls [{task, kernel}]}}}
    <root>/reference/*.py        get_inputs, forward, transform_to_nki_inputs, transform_nki_outputs
    <root>/kernels/*.py          baseline kernels defining `kernel`

The reader is tolerant, because we know summary.json only from its description: the top level may be a dict keyed
by problem or a list of entries carrying "problem"/"name"; cases may be a dict keyed by id or a list; a case's
parameters may be under "values", "params", "parameters" or "config"; implementations under "impls",
"implementations" or directly as "task"/"reference" and "kernel" keys; paths may be relative to the dataset root,
to its parent (an "NKIBench/" prefix), or bare file names under reference/ and kernels/. Without a usable
summary.json the files are found by name: reference/<problem>_*.py and kernels/<problem>_*_0.py, with the
parameters parsed from the file name (silu_numpy_M4096_N7168.py -> {"M": 4096, "N": 7168}).

The original harness has no task metadata beyond this, so dtype is float32 and rel_tol 2e-5 (3e-5 for mamba). The
roofline (for % of peak and bound) is evaluated over the case's parameters (its shapes) with the formulas of our own
task of the same name (tasks/<problem>/task.json), so a dataset task and ours are measured by the same roofline;
problems we do not ship fall back to the original's table (accelopt-method §5.4), which ours copies. The peak
constants are a separate setting (roofline.py: roofline_compat "accelopt" for the original's).
"""
from __future__ import annotations

import glob
import json
import os
import re
import stat

SUMMARY_MAX_BYTES = 16 * 1024 * 1024  # as the workbench reads it (DatasetLayout)

ORIGINAL_ROOFLINE = {
    "mamba": ("10*M*C*S", "0", "4*(2*C*M + C*S + 2*S*M + C*M)"),
    "silu": ("3*M*N", "0", "4*2*M*N"),
    "add_rmsnorm_matmul": ("6*M*K", "2*M*N*K", "4*(2*M*K + K*N + K + M*N)"),
    "matmul_add_rmsnorm": ("6*M*N", "2*M*N*K", "4*(M*K + N*K + 2*M*N + N)"),
    "rmsnorm_matmul": ("4*M*K", "2*M*N*K", "4*(M*K + K*N + M*N)"),
    "swiglu": ("5*M*N", "6*M*K*N", "4*(2*M*K + 3*K*N)"),
    "matmul": ("0", "2*M*N*K", "4*(M*N + N*K + M*K)"),
    "transpose_matmul": ("0", "2*M*N*K", "4*(M*N + N*K + M*K)"),
    "gqa_full": ("5*B*QH*N*N", "4*B*QH*N*N*D", "4*(2*B*QH*N*D + 2*B*KH*N*D)"),
    "rope": ("3*B*H*N*D", "0", "4*3*D*B*H*N"),
    "rope_single_freq_apply": ("3*B*H*N*D", "0", "4*3*D*B*H*N"),
    "bmm": ("0", "2*B*M*N*K", "4*(B*M*N + B*N*K + B*M*K)"),
    "bmm_softmax": ("5*B*M*N", "2*B*M*N*K", "4*(B*M*N + B*N*K + B*M*K)"),
    "lora": ("M*N", "2*M*N*K + 2*M*K*R + 2*M*N*R", "4*(M*K + K*N + K*R + R*N + M*N)"),
    "adamw": ("7*M*N", "0", "4*5*M*N"),
}


class DatasetError(ValueError):
    pass


def _first(d: dict, keys):
    for k in keys:
        if isinstance(d, dict) and k in d and d[k] not in (None, ""):
            return d[k]
    return None


def params_from_name(path: str) -> dict:
    base = os.path.splitext(os.path.basename(path))[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"(?:^|_)([A-Z][A-Za-z]*)(\d+)(?=_|$)", base)}


def _resolve(root: str, p, sub: str) -> str | None:
    if not isinstance(p, str) or not p:
        return None
    cands = [p] if os.path.isabs(p) else [os.path.join(root, p), os.path.join(os.path.dirname(root), p)]
    parts = p.replace("\\", "/").split("/")
    if len(parts) > 1:
        cands.append(os.path.join(root, *parts[1:]))  # "NKIBench/reference/x.py"
    cands.append(os.path.join(root, sub, os.path.basename(p)))
    if not p.endswith(".py"):
        cands.append(os.path.join(root, sub, os.path.basename(p) + ".py"))
    for c in cands:
        if os.path.isfile(c):
            return os.path.abspath(c)
    return None


def _entries(summary):
    """(problem name, entry) pairs from a summary of any of the tolerated shapes."""
    if isinstance(summary, dict):
        if isinstance(summary.get("problems"), (dict, list)):
            return _entries(summary["problems"])
        return [(str(k), v) for k, v in summary.items()]
    if isinstance(summary, list):
        out = []
        for e in summary:
            if isinstance(e, dict):
                name = _first(e, ("problem", "name", "task"))
                if name is not None:
                    out.append((str(name), e))
        return out
    return []


def _cases(entry):
    cases = _first(entry, ("cases", "case")) if isinstance(entry, dict) else None
    if cases is None and isinstance(entry, dict):
        # the entry itself may map case ids to cases
        if entry and all(isinstance(v, dict) for v in entry.values()) and \
                any(_first(v, ("values", "impls", "kernel")) is not None for v in entry.values()):
            cases = entry
    if isinstance(cases, dict):
        return [(str(k), v) for k, v in cases.items() if isinstance(v, dict)]
    if isinstance(cases, list):
        return [(str(_first(c, ("id", "case_id")) if _first(c, ("id", "case_id")) is not None else i), c)
                for i, c in enumerate(cases) if isinstance(c, dict)]
    return []


def _impls(case):
    impls = _first(case, ("impls", "implementations", "kernels"))
    if impls is None and _first(case, ("kernel",)) is not None:
        impls = [case]
    if isinstance(impls, dict):
        impls = [impls]
    out = []
    for im in impls or []:
        if isinstance(im, str):
            out.append({"task": None, "kernel": im})
        elif isinstance(im, dict):
            out.append({"task": _first(im, ("task", "reference", "numpy", "ref", "base_numpy")),
                        "kernel": _first(im, ("kernel", "impl", "program", "path"))})
    return out


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_summary(root: str) -> tuple:
    """(the parsed summary.json or None, why it was skipped or None). Only a regular file is read (a FIFO would
    block the reader, a link to /dev/zero never ends): anything else is skipped, and the dataset is read by its
    file names, which renames problems and loses their cases, so the caller says so. Text that is not JSON, or JSON
    nested too deep to be a summary, raises DatasetError."""
    summ = os.path.join(root, "summary.json")
    if not os.path.lexists(summ):
        return None, None
    try:  # non-blocking, and fstat on what was opened: a FIFO swapped in after a stat() cannot hang the reader
        fd = os.open(summ, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        return None, _skipped(summ, f"it cannot be opened ({e.strerror or e})")
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            link = f" (a link to {os.path.realpath(summ)})" if os.path.islink(summ) else ""
            return None, _skipped(summ, f"it is {_kind(st.st_mode)}{link}, not a regular file")
        if st.st_size > SUMMARY_MAX_BYTES:
            return None, _skipped(summ, f"it is {st.st_size} bytes, more than a summary's "
                                        f"{SUMMARY_MAX_BYTES // (1024 * 1024)} MiB")
        try:
            return json.loads(f.read().decode("utf-8")), None
        except RecursionError:
            raise DatasetError(f"cannot read {summ}: it nests too deep (JSON arrays or objects inside each other "
                               f"beyond Python's recursion limit); a summary is a table of problems, cases and "
                               f"files a few levels deep: fix or remove it") from None
        except (OSError, ValueError) as e:
            raise DatasetError(f"cannot read {summ}: {e}") from None


def _skipped(summ: str, why: str) -> str:
    return (f"dataset: {summ} was skipped: {why}; the problems are named from reference/ and kernels/ and their "
            f"parameters from the file names")


def list_problems(root: str) -> list:
    names = []
    try:
        summary, _ = read_summary(root)
        names = [n for n, _ in _entries(summary)] if summary is not None else []
    except DatasetError:
        names = []
    if not names:
        for p in sorted(glob.glob(os.path.join(root, "reference", "*.py"))):
            names.append(re.split(r"_numpy|_[A-Z]", os.path.basename(p)[:-3])[0])
    return sorted(set(names))


def _our_roofline(tasks_dir, problem: str):
    """Our task's roofline formulas for this problem, or None."""
    if not tasks_dir or not re.fullmatch(r"[A-Za-z0-9_]+", problem):
        return None
    try:
        with open(os.path.join(tasks_dir, problem, "task.json"), encoding="utf-8") as f:
            rf = json.load(f).get("roofline")
    except (OSError, ValueError, AttributeError):
        return None
    return rf if isinstance(rf, dict) else None


def roofline_for(problem: str, tasks_dir=None):
    """(formulas, where they came from) for a dataset problem; (None, why) when there are none."""
    ours = _our_roofline(tasks_dir, problem)
    if ours is not None:
        return ours, f"our task {problem} (task.json)"
    rf = ORIGINAL_ROOFLINE.get(problem)
    if rf is not None:
        return {"vector_flops": rf[0], "matmul_flops": rf[1], "min_bytes": rf[2]}, "the original's table"
    return None, (f"no roofline formulas for problem {problem!r}: neither a task of that name under "
                  f"{tasks_dir or 'the tasks folder'} nor the original's table has one; pass 'roofline' in the task")


def resolve(root: str, problem: str, case=None, impl: int = 0, tasks_dir=None) -> dict:
    """A task spec for one problem (and case) of an original NKIBench dataset. Raises DatasetError."""
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        raise DatasetError(f"dataset folder not found: {root}")
    ref = kern = None
    key = problem  # the problem's name in summary.json
    params: dict = {}
    case_id = None
    problems = []
    summary, skipped = read_summary(root)
    if summary is not None:
        entries = _entries(summary)
        problems = [n for n, _ in entries]
        entry = next((e for n, e in entries if n == problem), None)
        if entry is None:
            # A case named as its files are (silu_M4096_N7168, the CLI's suite lists kernels/ that way): the
            # problem whose case has those files, so its roofline and tolerance are the problem's.
            for n, e in entries:
                for cid, c in _cases(e):
                    names = [os.path.basename(str(im.get(k, ""))) for im in _impls(c) for k in ("kernel", "task")]
                    if case is None and any(x.startswith(problem + "_") for x in names):
                        key, entry, case = n, e, cid
                        break
                if entry is not None:
                    break
        if entry is not None:
            cases = _cases(entry)
            if case is not None:
                chosen = [c for c in cases if c[0] == str(case)]
                if not chosen:
                    raise DatasetError(f"problem {problem!r} has no case {case!r} (cases: "
                                       f"{', '.join(c[0] for c in cases) or 'none'})")
            else:
                chosen = cases[:1]  # default: the first case listed
            if chosen:
                case_id, c = chosen[0]
                vals = _first(c, ("values", "params", "parameters", "config"))
                if isinstance(vals, str):
                    try:
                        vals = json.loads(vals)
                    except ValueError:
                        vals = None
                params = dict(vals) if isinstance(vals, dict) else {}
                impls = _impls(c)
                if impls:
                    im = impls[min(max(int(impl), 0), len(impls) - 1)]
                    ref = _resolve(root, im["task"], "reference")
                    kern = _resolve(root, im["kernel"], "kernels")
    if ref is None:
        cands = sorted(glob.glob(os.path.join(root, "reference", f"{problem}_*.py"))) + \
            sorted(glob.glob(os.path.join(root, "reference", f"{problem}.py")))
        if not cands:
            known = problems or list_problems(root)
            if problem in known:
                # Listed, but its program is gone: saying "not found (problems: silu)" named it as both.
                raise DatasetError(f"problem {problem!r} of dataset {root} has no reference program: neither its "
                                   f"summary.json case nor reference/{problem}_*.py names a file that exists")
            raise DatasetError(f"problem {problem!r} not found in dataset {root} (problems: "
                               f"{', '.join(known) or 'none'})")
        ref = cands[0]
    if kern is None:
        cands = sorted(glob.glob(os.path.join(root, "kernels", f"{problem}_*_0.py"))) or \
            sorted(glob.glob(os.path.join(root, "kernels", f"{problem}*.py")))
        kern = cands[0] if cands else None
    if not params:
        params = params_from_name(ref) or (params_from_name(kern) if kern else {})
    rf, rf_source = roofline_for(key, tasks_dir)
    return {
        "kind": "dataset", "name": problem, "dir": root, "case": case_id,
        "reference_path": ref, "baseline_path": kern,
        "params": params, "dtype": "float32", "rel_tol": 3e-5 if key == "mamba" else 2e-5,
        "roofline": rf, "roofline_source": rf_source, "warnings": [skipped] if skipped else [],
    }
