"""Validating and normalising an eval request into the job the child runs, and the checks that need no child
(task resolution, the Neuron SDK's presence, syntax and static checks)."""
from __future__ import annotations

import ast
import os

from . import checks, kernelfn, limits, neuron_sdk, roofline, taskspec
from .evaluate import empty_result, seeds_default

BACKENDS = ("sim", "neuron")
TARGETS = ("trn1", "trn2", "trn3")
TIMEOUT_MIN_S = 0.5  # an eval's wall-clock limit (timeout_s, --timeout-s, eval --timeout) lies in this range
TIMEOUT_MAX_S = 7 * 86400.0
MAX_SEEDS = 64


class BadRequest(ValueError):
    pass


def _int(req, key, default, lo, hi):
    v = req.get(key, default)
    if v is None:
        v = default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi or int(v) != v:
        raise BadRequest(f"'{key}' must be an integer in [{lo}, {hi}], got {_show(v)}")
    return int(v)


def _num(req, key, default, lo, hi, unit=""):
    v = req.get(key, default)
    if v is None:
        v = default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:  # nan fails the range
        raise BadRequest(f"'{key}' must be a number{unit} in [{lo:g}, {hi:g}], got {_show(v)}")
    return float(v)


def _bool(req, key, default=False):
    v = req.get(key, default)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise BadRequest(f"'{key}' must be true or false, got {_show(v)}")
    return v


def _show(v) -> str:
    t = repr(v)
    return t if len(t) <= 60 else t[:60] + f"… ({type(v).__name__} of {len(v) if hasattr(v, '__len__') else '?'})"


def check_kernel_text(kernel) -> str:
    """The kernel's source, or BadRequest saying what is wrong with it (what, where, what to do)."""
    if not isinstance(kernel, str):
        raise BadRequest(f"'kernel' must be the kernel's Python source text (a JSON string), got "
                         f"{'nothing' if kernel is None else type(kernel).__name__}")
    if not kernel.strip():
        raise BadRequest("the kernel is empty" + (" (only whitespace)" if kernel else "") +
                         "; send the NKI source that defines `kernel`")
    try:
        size = len(kernel.encode("utf-8"))
    except UnicodeEncodeError as e:
        line = kernel.count("\n", 0, e.start) + 1
        raise BadRequest(f"the kernel is not valid Unicode text: line {line} holds an unpaired surrogate "
                         f"(\\u{ord(kernel[e.start]):04x}); send the source as UTF-8 text") from None
    if size > limits.MAX_KERNEL_BYTES:
        raise BadRequest(f"the kernel is {size} bytes of UTF-8 source, over the runner's limit of "
                         f"{limits.MAX_KERNEL_BYTES} bytes ({limits.MAX_KERNEL_BYTES // (1024 * 1024)} MiB); "
                         f"send a smaller kernel")
    nul = kernel.find("\0")
    if nul >= 0:
        line = kernel.count("\n", 0, nul) + 1
        col = nul - (kernel.rfind("\n", 0, nul) + 1) + 1
        raise BadRequest(f"the kernel contains a NUL character (line {line}, column {col}); Python source cannot "
                         f"hold one: send the source text without it")
    return kernel


def default_timeout_s(size: str, timing_only: bool, n_seeds: int) -> float:
    """An eval's wall-clock limit when neither the request nor --timeout-s sets one: 600 s, or for a full-size
    numeric eval 300 s + 600 s per seed — each seed runs the float64 reference and the kernel's numeric run at full
    size, 5-9 minutes for matmul or lora on a slow BLAS (Debian's reference libblas). The app's CLI uses the same
    rule for its --timeout default."""
    if timing_only or size != "full":
        return 600.0
    return 300.0 + 600.0 * max(1, n_seeds)


def normalize(req: dict, cfg: dict) -> dict:
    """The child's job from an eval request. Raises BadRequest or taskspec.TaskError."""
    kernel = check_kernel_text(req.get("kernel"))
    backend = req.get("backend") or "sim"
    if backend not in BACKENDS:
        raise BadRequest(f"'backend' must be one of {', '.join(BACKENDS)}, got {_show(backend)}")
    target = req.get("target") or "trn1"
    if target not in TARGETS:
        raise BadRequest(f"'target' must be one of {', '.join(TARGETS)}, got {_show(target)}")
    seeds = req.get("seeds")
    if seeds is None:
        seeds = seeds_default(_int(req, "num_seeds", 3, 1, MAX_SEEDS))
    if not isinstance(seeds, list) or not seeds or len(seeds) > MAX_SEEDS or \
            not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2 ** 32 for s in seeds):
        raise BadRequest(f"'seeds' must be a list of 1-{MAX_SEEDS} integers in [0, 2^32), got {_show(seeds)}")
    size = req.get("size") or "full"
    timing_only = _bool(req, "timing_only")
    default_timeout = cfg.get("timeout_s")
    if default_timeout is None:
        default_timeout = default_timeout_s(size, timing_only, len(seeds))
    timeout = _num(req, "timeout_s", default_timeout, TIMEOUT_MIN_S, TIMEOUT_MAX_S, " of seconds")
    host = cfg.get("memory") or limits.resolve()  # the host's memory and slots, resolved once by serve/eval
    if backend == "sim":
        if cfg.get("memory_limit_mb") is None:
            default_mem, mem_source = host["memory_limit_mb"], host["source"]
        else:
            default_mem = cfg["memory_limit_mb"]
            mem_source = cfg.get("memory_limit_source") or "--memory-limit-mb"
    else:
        default_mem, mem_source = cfg.get("neuron_memory_limit_mb", 0), "--neuron-memory-limit-mb"
    mem = _int(req, "memory_limit_mb", default_mem, 0, 1 << 24)
    if 0 < mem < 256:
        raise BadRequest("'memory_limit_mb' must be 0 (no limit) or at least 256")
    if req.get("memory_limit_mb") is not None:
        mem_source = "the eval request's memory_limit_mb"
    ncpu = os.cpu_count() or 1
    rel_tol = req.get("rel_tol")
    if rel_tol is not None and (isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float)) or
                                not 0 < rel_tol < 1):
        raise BadRequest(f"'rel_tol' must be a number in (0, 1), got {_show(rel_tol)}")
    function = req.get("function")
    if function is not None and not kernelfn.valid_name(function):
        raise BadRequest(f"'function' must be the name of the kernel function (a Python identifier), got "
                         f"{_show(function)}")
    spec = taskspec.resolve(req.get("task"), size, cfg.get("tasks_dir"))
    return {
        "id": req.get("id"), "kernel": kernel, "function": function, "backend": backend, "target": target,
        "core": _int(req, "core", 0, 0, 4096), "seeds": seeds, "rel_tol": rel_tol,
        "warmup": _int(req, "warmup", 2, 0, 10000), "iters": _int(req, "iters", 10, 1, 100000),
        "spread_tol": _num(req, "spread_tol", 0.01, 0.0, 100.0),
        "max_attempts": _int(req, "max_attempts", 3, 1, 100),
        "timing_only": timing_only, "timeout_s": timeout,
        "timeline_cap": _int(req, "timeline_cap", 0, 0, 1000000),
        "roofline_compat": _compat(req, cfg),
        "task_spec": spec,
        "limits": {"memory_limit_mb": mem, "memory_limit_source": mem_source,
                   "blas_threads": limits.blas_threads(host["slots"]),
                   "cpu_limit_s": _int(req, "cpu_limit_s", int(timeout * max(2, ncpu)) + 30, 1, 1 << 30),
                   "file_size_mb": cfg.get("file_size_mb", 1024 if backend == "neuron" else 256),
                   "output_cap_chars": cfg.get("output_cap_chars", 16384), "grace_s": 5.0},
    }


def _compat(req: dict, cfg: dict) -> str:
    """The request's roofline_compat, else the host's setting (--roofline-compat, $ACCELOPT_ROOFLINE_COMPAT)."""
    v = req.get("roofline_compat")
    if v is None:
        return cfg.get("roofline_compat") or ""
    if v not in roofline.COMPAT_MODES:
        raise BadRequest(f"'roofline_compat' must be one of {', '.join(repr(m) for m in roofline.COMPAT_MODES)} "
                         f"(\"accelopt\": the original's peak constants), got {v!r}")
    return "" if v == "none" else v


def sdk_label(backend: str) -> str:
    """What produced a result's numbers, for its provenance (issue 34): nkisim, or the Neuron SDK release."""
    if backend != "neuron":
        return "nkisim"
    info = neuron_sdk.detect()
    cur = (info.get("nki_current") or {}).get("version")
    parts = [f"nki {cur}"] if cur else []
    if info.get("neuronx_cc"):
        parts.append(f"neuronx-cc {info['neuronx_cc']}")
    release = info.get("sdk_release") or "unknown release"
    return f"Neuron SDK {release}" + (f" ({', '.join(parts)})" if parts else "")


def prechecks(job: dict):
    """A result dict when the job fails before any child is needed, else None."""
    res = empty_result(job)
    res.update(backend=job["backend"], target=job["target"], task=job["task_spec"].get("name"))
    if job["backend"] == "neuron":
        info = neuron_sdk.detect()
        if not info["available"]:
            res.update(status="infra_error", error=f"Neuron SDK not found on this host: {info['reason']}")
            return res
    job["sdk"] = res["sdk"] = sdk_label(job["backend"])
    src = job["kernel"]
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        text = f": {e.text.strip()}" if e.text else ""
        res.update(status="compile_error", line=e.lineno, error=f"line {e.lineno}: syntax error: {e.msg}{text}")
        return res
    except (ValueError, RecursionError, MemoryError) as e:
        res.update(status="compile_error", error=f"the kernel source cannot be parsed: {e}")
        return res
    findings = checks.check_kernel(src, job["task_spec"].get("dtype"), tree=tree)
    if findings:
        res.update(status="rejected", line=findings[0].line or None, error=checks.format_findings(findings),
                   findings=[{"line": f.line, "kind": f.kind, "message": f.message} for f in findings[:50]])
        return res
    if job["backend"] == "neuron":
        from . import generations
        kg = generations.of_source(src, tree)
        if kg["mixed"]:
            imp = kg["imports"]
            res.update(status="compile_error", error=(
                f"the kernel mixes NKI generations: it imports {imp['classic']} (classic) and {imp['current']} "
                f"(current); port it wholly to one of them (the current API on Neuron SDK 2.28 and later)"))
            return res
        job["generation"] = kg["generation"]
        res["generation"] = kg["generation"]
        info = neuron_sdk.detect()
        why = generations.refusal(kg["generation"], info)
        if why:
            res.update(status="compile_error", error=why,
                       port={"from": kg["generation"], "to": "current" if kg["generation"] == "classic" else None,
                             "host_generations": list(info.get("generations") or [])})
            return res
        warn = generations.note(kg["generation"], info)
        if warn:
            job.setdefault("warnings", []).append(warn)
        job["neff_judge"] = bool(info.get("nrtpy"))
        if not job["neff_judge"]:
            job.setdefault("warnings", []).append(
                "trust: this host has no nrtpy (Neuron SDK 2.33 and later), so the kernel's own process ran, "
                "checked and timed it, and what a kernel does to its interpreter could change its verdict and "
                "latency; install nrtpy in the runner's Python to have a judge that never runs the kernel's Python "
                "run its NEFF")
    try:  # which function is the kernel (nkisim/kernelfn.py); the children load that one by name
        job["function"] = kernelfn.choose(tree, job.get("function"), job["task_spec"].get("function"))
    except kernelfn.NoKernelFunction as e:
        res.update(status="compile_error", error=str(e))
        return res
    return None
