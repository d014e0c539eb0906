"""The per-eval memory limit of the sim backend (RLIMIT_AS of the eval's child), derived from the host.

A full-size NKIBench eval holds the task's inputs, the reference output, the kernel's output and nkisim's
buffers at once (bmm / bmm_softmax: about 3 GiB); a fixed 4 GiB address-space limit is too tight for that on a
machine that could hold it easily. The default is therefore

    max(FLOOR_MB, FRACTION x physical memory / slots)    rounded down to 256 MiB

where physical memory is the smaller of the machine's RAM and the cgroup's memory limit, and slots is how many
evals may run at once on this host (one `serve` per slot): `--slots`, else $ACCELOPT_RUNNER_SLOTS, else the
number of CPUs this process may run on (a host runs at most one CPU-bound eval per CPU usefully).

Overrides, strongest first: the eval request's `memory_limit_mb`, the `--memory-limit-mb` option of
serve/eval/probe, $ACCELOPT_RUNNER_MEMORY_LIMIT_MB (settable per host: `accelopt hosts add ... --env
ACCELOPT_RUNNER_MEMORY_LIMIT_MB=16384`). 0 means no limit.
"""
from __future__ import annotations

import os

# The largest kernel an eval accepts: its source's size in bytes as UTF-8 (the app's kernel files and its CLI
# must refuse larger ones the same way). A request line is JSON, so the kernel arrives escaped: a newline, tab or
# quote takes 2 bytes, a non-ASCII character up to 3 times its UTF-8 size when the client writes \uXXXX escapes.
# The default line limit, MAX_MESSAGE_MIB, leaves room for that, so a kernel within this limit reaches the check
# that names its size rather than the line-size refusal.
MAX_KERNEL_BYTES = 4 * 1024 * 1024
MAX_MESSAGE_MIB = 16  # default --max-message-mib

FRACTION = 0.75
FLOOR_MB = 4096
ENV_MEMORY = "ACCELOPT_RUNNER_MEMORY_LIMIT_MB"
ENV_SLOTS = "ACCELOPT_RUNNER_SLOTS"
_UNLIMITED = 1 << 60


def _read_int(path: str):
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def cgroup_memory_limit_bytes():
    """The memory limit of this process's cgroup (v2 memory.max or v1 memory.limit_in_bytes), or None."""
    paths = []
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) != 3:
                    continue
                _, controllers, rel = parts
                rel = rel.lstrip("/")
                if controllers == "":  # v2
                    paths.append(os.path.join("/sys/fs/cgroup", rel, "memory.max"))
                elif "memory" in controllers.split(","):
                    paths.append(os.path.join("/sys/fs/cgroup/memory", rel, "memory.limit_in_bytes"))
    except OSError:
        pass
    # inside a container the cgroup's own folder is usually mounted as the root
    paths += ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    found = [v for v in (_read_int(p) for p in paths) if v is not None and 0 < v < _UNLIMITED]
    return min(found) if found else None


def physical_memory_mb():
    """RAM this process can use in MiB: the machine's, capped by its cgroup's limit; None if unknown."""
    total = None
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        pass
    cg = cgroup_memory_limit_bytes()
    if cg is not None:
        total = cg if total is None else min(total, cg)
    return int(total // (1024 * 1024)) if total else None


def cpu_slots() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _env_int(name: str):
    v = os.environ.get(name, "").strip()
    if not v:
        return None
    try:
        n = int(v)
    except ValueError:
        raise ValueError(f"${name} must be a whole number, got {v!r}") from None
    if n < 0:
        raise ValueError(f"${name} must not be negative, got {n}")
    return n


def resolve(option_mb=None, slots=None) -> dict:
    """The effective default sim memory limit and where it came from:
    {"memory_limit_mb", "source", "physical_memory_mb", "slots", "fraction", "floor_mb"}.
    option_mb: the --memory-limit-mb value (None: not given). Raises ValueError for a bad environment value."""
    phys = physical_memory_mb()
    if slots is None:
        slots = _env_int(ENV_SLOTS)
        slot_src = f"${ENV_SLOTS}" if slots else "CPUs"
        if not slots:
            slots = cpu_slots()
    else:
        slot_src = "--slots"
    slots = max(1, int(slots))
    info = {"physical_memory_mb": phys, "slots": slots, "fraction": FRACTION, "floor_mb": FLOOR_MB}
    if option_mb is not None:
        return {**info, "memory_limit_mb": int(option_mb), "source": "--memory-limit-mb"}
    env = _env_int(ENV_MEMORY)
    if env is not None and 0 < env < 256:
        raise ValueError(f"${ENV_MEMORY} must be 0 (no limit) or at least 256, got {env}")
    if env is not None:
        return {**info, "memory_limit_mb": env, "source": f"${ENV_MEMORY}"}
    if not phys:
        return {**info, "memory_limit_mb": FLOOR_MB, "source": "floor (the host's memory size is unknown)"}
    derived = int(phys * FRACTION / slots) // 256 * 256
    mb = max(FLOOR_MB, derived)
    how = (f"derived: {int(FRACTION * 100)}% of {phys} MiB of memory / {slots} slot(s) ({slot_src})"
           + (f", raised to the floor of {FLOOR_MB} MiB" if derived < FLOOR_MB else ""))
    return {**info, "memory_limit_mb": mb, "source": how}


def blas_threads(slots) -> int:
    """Threads for numpy's BLAS in one eval: the CPUs shared out over the slots, so that evals running side by side
    do not oversubscribe the cores (OpenBLAS starts one thread per CPU by default)."""
    return max(1, cpu_slots() // max(1, int(slots or 1)))


BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_FAST_BLAS = ("openblas", "mkl", "blis", "atlas", "accelerate")


def blas_library() -> dict:
    """The BLAS numpy uses here, from the libraries mapped into this process after importing numpy:
    {"library": file path or "", "optimized": bool or None (unknown)}. A reference BLAS makes full-size numeric
    evals of the matmul tasks take minutes per seed (../tasks/README.md, BLAS)."""
    import numpy  # noqa: F401 - maps numpy's BLAS
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() or "mkl" in line.lower()}
    except OSError:
        return {"library": "", "optimized": None}
    libs = sorted(p for p in libs if p.startswith("/"))
    if not libs:
        return {"library": "", "optimized": None}
    fast = [p for p in libs if any(k in os.path.realpath(p).lower() for k in _FAST_BLAS)]
    return {"library": os.path.realpath((fast or libs)[0]), "optimized": bool(fast)}


def how_to_raise(limits: dict) -> str:
    """The advice an out-of-memory message ends with: which setting sets the limit."""
    mb = limits.get("memory_limit_mb")
    src = limits.get("memory_limit_source") or ""
    if not mb:
        return "there is no memory limit on this eval; the host itself ran out of memory"
    where = f"the limit is {mb} MiB" + (f" ({src})" if src else "")
    return (f"{where}; raise it with the eval request's memory_limit_mb, the runner's --memory-limit-mb option or "
            f"the environment variable {ENV_MEMORY} (for a workbench host: `accelopt hosts add NAME --local --env "
            f"{ENV_MEMORY}={max(2 * int(mb), FLOOR_MB)}`, or export it before starting accelopt); 0 means no limit")
