"""`serve`: the JSON-lines loop (../README.md, "Protocol"). One request per stdin line, one response per stdout line;
logs go to stderr. Evals run one at a time on a worker thread, each in its own child (sandbox.py), so the reader
stays responsive to cancel and shutdown. Details of the protocol choices are in ../README.md."""
from __future__ import annotations

import collections
import json
import logging
import os
import platform
import re
import subprocess
import sys
import threading
import time

from . import PROTOCOL_VERSION, RUNNER_VERSION, jobs, limits, neuron_sdk, protocol, sandbox, taskspec
from .evaluate import empty_result

log = logging.getLogger("accelopt_runner.serve")


def hello(cfg: dict) -> dict:
    import numpy
    backends = {}
    unavailable = {}
    try:
        from nkisim.perf import TARGETS
        backends["sim"] = {"targets": sorted(TARGETS)}
    except Exception as e:  # noqa: BLE001
        unavailable["sim"] = f"nkisim cannot be imported: {type(e).__name__}: {e}"
    info = neuron_sdk.detect()
    if info["available"]:
        backends["neuron"] = {"neuronx_cc": info["neuronx_cc"], "neuron_cores": info["neuron_cores"],
                              "targets": ["trn1", "trn2"], "neuron_profile": bool(info.get("neuron_profile")),
                              "neuron_explorer": bool(info.get("neuron_explorer")), "nrtpy": bool(info.get("nrtpy")),
                              "nki_classic": info.get("nki_classic"), "nki_current": info.get("nki_current"),
                              "sdk_release": info.get("sdk_release"), "sdk_release_from": info.get("sdk_release_from"),
                              "generations": info.get("generations", []),
                              "generation_notes": info.get("generation_notes", {})}
    else:
        unavailable["neuron"] = f"Neuron SDK not found on this host: {info['reason']}"
    sb = sandbox.bwrap_status(cfg.get("no_sandbox", False))
    mem = cfg.get("memory") or limits.resolve(cfg.get("memory_limit_mb"))
    extra = {"slurm": slurm_info()} if os.environ.get("SLURM_JOB_ID") else {}
    return {**extra,"op": "hello", "runner_version": RUNNER_VERSION, "protocol_version": PROTOCOL_VERSION,
            "python": platform.python_version(), "numpy": numpy.__version__, "backends": backends,
            "unavailable": unavailable,
            "sandbox": {"active": sb["active"], "bwrap": sb["bwrap"], "reason": sb["reason"],
                        "required": sb["required"],
                        "zygote": bool(cfg.get("zygote")),
                        "memory_limit_mb": mem["memory_limit_mb"], "rlimits": True},
            "limits": {"max_message_bytes": cfg["max_message_bytes"], "max_kernel_bytes": limits.MAX_KERNEL_BYTES,
                       "max_json_depth": protocol.MAX_DEPTH, "max_seeds": jobs.MAX_SEEDS,
                       "timeout_s_range": [jobs.TIMEOUT_MIN_S, jobs.TIMEOUT_MAX_S],
                       "memory_limit_mb": mem["memory_limit_mb"], "memory_limit_source": mem["source"],
                       "physical_memory_mb": mem["physical_memory_mb"], "slots": mem["slots"],
                       "neuron_memory_limit_mb": cfg.get("neuron_memory_limit_mb", 0),
                       "timeout_s": cfg.get("timeout_s"),  # null: jobs.default_timeout_s per eval
                       "roofline_compat": cfg.get("roofline_compat") or "none"},
            "blas": {**limits.blas_library(), "threads_per_eval": limits.blas_threads(mem["slots"])},
            "tasks_dir": cfg.get("tasks_dir"), "tasks": taskspec.list_tasks(cfg.get("tasks_dir")),
            "ops": list(OPS)}


# The ops a client may send (hello lists them, so a client can tell whether this runner knows task_check).
OPS = ("hello", "eval", "port", "task_check", "cancel", "shutdown")
QUEUED_OPS = ("eval", "port", "task_check")  # they run children: one at a time, in the order they came


def slurm_info() -> dict:
    """The SLURM allocation this runner runs in (a workbench SLURM host starts one runner under salloc to hold the
    allocation, and one per slot under srun): its job id, its nodes one by one, and the partitions sinfo lists."""
    info = {"job_id": os.environ.get("SLURM_JOB_ID", ""), "nodelist": os.environ.get("SLURM_JOB_NODELIST", ""),
            "nodes": [], "partitions": []}

    def run(args):
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
            return p.stdout.split() if p.returncode == 0 else []
        except (OSError, subprocess.TimeoutExpired):
            return []
    if info["nodelist"]:
        info["nodes"] = run(["scontrol", "show", "hostnames", info["nodelist"]]) or [info["nodelist"]]
    info["partitions"] = run(["sinfo", "-h", "-o", "%P"])
    return info


def evaluate_request(req: dict, cfg: dict, cancel: threading.Event) -> dict:
    """One eval request to one result dict (also used by the `eval` subcommand)."""
    t0 = time.monotonic()
    try:
        job = jobs.normalize(req, cfg)
    except (jobs.BadRequest, taskspec.TaskError) as e:
        r = empty_result(req)
        r.update(status="infra_error", error=f"bad eval request: {e}", wall_s=time.monotonic() - t0)
        return r
    pre = jobs.prechecks(job)
    if pre is not None:
        pre["wall_s"] = time.monotonic() - t0
        return pre
    verified_key = _declaration_key(job)
    if verified_key in _VERIFIED_DECLARATIONS:
        job["declaration_verified"] = True
    sb = sandbox.bwrap_status(cfg.get("no_sandbox", False))
    res = sandbox.run_child(job, cancel, sb, cfg.get("python"), cfg.get("keep_workdirs", False),
                            zygote=cfg.get("zygote", False))
    if res.pop("declaration_verified", False) and verified_key is not None:
        if len(_VERIFIED_DECLARATIONS) >= 256:
            _VERIFIED_DECLARATIONS.clear()
        _VERIFIED_DECLARATIONS.add(verified_key)
    res["sandbox"] = bool(sb["active"])
    res["wall_s"] = time.monotonic() - t0
    return res


# Tasks whose declared input shapes a sandboxed eval child found equal to what their reference builds: a
# timing-only eval of the same task (same spec, same files) trusts them without building the small inputs again,
# which took a third of a short eval (swiglu small: 39 of 107 ms).
_VERIFIED_DECLARATIONS: set = set()


def _declaration_key(job: dict):
    """The task as the check saw it: its spec and the reference and task.json files' sizes and times, so an
    edited task is checked again. None when the eval is not timing-only."""
    if not job.get("timing_only"):
        return None
    spec = job.get("task_spec") or {}
    stamps = []
    for path in (spec.get("reference_path"), os.path.join(spec["dir"], "task.json") if spec.get("dir") else None):
        try:
            st = os.stat(path) if path else None
            stamps.append((path, st.st_size, st.st_mtime_ns) if st else None)
        except OSError:
            stamps.append((path, None))
    return json.dumps([spec, stamps, job.get("backend"), job.get("target")], sort_keys=True, default=str)


_ID_RE = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})')
_OP_RE = re.compile(rb'"op"\s*:\s*"([a-z_]{1,20})"')


class Server:
    def __init__(self, cfg: dict, stdin=None, stdout=None):
        self.cfg = cfg
        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout
        self.out_lock = threading.Lock()
        self.cv = threading.Condition()
        self.queue: collections.deque = collections.deque()
        self.running = None  # (id, cancel event)
        self.stopping = False

    def send(self, obj: dict):
        line = json.dumps(obj, allow_nan=False, separators=(",", ":"), default=str)
        with self.out_lock:
            self.stdout.write(line + "\n")
            self.stdout.flush()

    def error(self, message: str, id_=None, **extra):
        self.send({"op": "error", "id": id_, "status": "infra_error", "error": message, **extra})

    def _reject(self, line: bytes, message: str, head_only: bool = False):
        """Answer a line that cannot be taken as a request. When it is recognisably an eval with an id (found by a
        pattern, since the line does not parse), that eval gets its `infra_error` result, so a client waiting for
        it is not left waiting; otherwise an `error` line. head_only: line holds only the first 4 KiB of a line
        over the size limit, where the op may not be (a client that sorts keys sends "op" after "kernel")."""
        m_id, m_op = _ID_RE.search(line), _OP_RE.search(line)
        id_ = None
        if m_id:
            try:
                id_ = json.loads(m_id.group(1).decode("utf-8"))
            except ValueError:
                id_ = None
        op = m_op.group(1).decode() if m_op else None
        if id_ is not None and (op == "eval" or (op is None and head_only)):
            r = empty_result({"id": id_})
            r.update(status="infra_error", error=message)
            self.send(r)
        else:
            self.error(message)

    def _worker(self):
        while True:
            with self.cv:
                while not self.queue and not self.stopping:
                    self.cv.wait()
                if not self.queue:
                    return
                req = self.queue.popleft()
                ev = threading.Event()
                self.running = (req.get("id"), ev)
            try:
                if req.get("op") == "port":
                    from .port import request as port_request
                    res = port_request.handle(req, self.cfg, ev)
                elif req.get("op") == "task_check":
                    from . import taskcheck
                    res = taskcheck.handle(req, self.cfg, ev)
                else:
                    res = evaluate_request(req, self.cfg, ev)
            except Exception as e:  # noqa: BLE001 - the server must keep serving
                log.exception("%s %s failed", req.get("op"), req.get("id"))
                if req.get("op") == "port":
                    from .port import request as port_request
                    res = port_request.empty(req)
                    res.update(status="error", error=f"runner error: {type(e).__name__}: {e}")
                elif req.get("op") == "task_check":
                    from . import taskcheck
                    res = taskcheck.empty(req)
                    res.update(ok=False, error=f"runner error: {type(e).__name__}: {e}")
                else:
                    res = empty_result(req)
                    res.update(status="infra_error", error=f"runner error: {type(e).__name__}: {e}")
            res["id"] = req.get("id")
            with self.cv:  # before the result goes out: a client may reuse the id as soon as it has the result
                self.running = None
            try:
                self.send(_clean(res))
            except (ValueError, TypeError) as e:
                self.error(f"result could not be encoded: {e}", req.get("id"))
            sandbox.tidy()  # the evaluation's folders, after its result

    def _read_line(self):
        """(bytes line or None at EOF, total length); lines above the limit are consumed and returned truncated."""
        limit = self.cfg["max_message_bytes"]
        buf = self.stdin.readline(limit + 1)
        if not buf:
            return None, 0
        if len(buf) <= limit or buf.endswith(b"\n"):
            return buf, len(buf)
        head, total = buf[:4096], len(buf)
        while True:
            chunk = self.stdin.readline(1 << 20)
            total += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                break
        return head, total

    def serve(self) -> int:
        worker = threading.Thread(target=self._worker, daemon=True, name="eval-worker")
        worker.start()
        limit = self.cfg["max_message_bytes"]
        while True:
            try:
                line, total = self._read_line()
            except (OSError, ValueError):
                line, total = None, 0
            if line is None:
                log.info("stdin closed; shutting down")
                self._shutdown(worker, reply=False)
                return 0
            if total > limit:
                self._reject(line, f"message of {total} bytes exceeds the runner's limit of {limit} bytes "
                                   f"(--max-message-mib); it was ignored. A kernel may be at most "
                                   f"{limits.MAX_KERNEL_BYTES} bytes of UTF-8 source", head_only=True)
                continue
            text = line.strip()
            if not text:
                continue
            try:
                req = protocol.parse(text)
            except protocol.ProtocolError as e:
                self._reject(text, str(e))
                continue
            op = req.get("op")
            if op == "hello":
                self.send(hello(self.cfg))
            elif op in QUEUED_OPS:
                # a port runs two evals (the original and the port), a task check a probe and two evals: in the
                # same queue, one after the other
                id_ = req.get("id")
                if id_ is None or isinstance(id_, (dict, list, bool)):
                    got = "none" if id_ is None else json.dumps(id_)[:60]
                    self.error(f"{'an' if op == 'eval' else 'a'} {op} needs an 'id' (a string or number that no "
                               f"queued or running eval has), "
                               f"got {got}")
                    continue
                with self.cv:
                    busy = (self.running is not None and _same_id(self.running[0], id_)) or \
                        any(_same_id(q.get("id"), id_) for q in self.queue)
                    if not busy:
                        self.queue.append(req)
                        self.cv.notify()
                if busy:
                    # id null: this line must not be taken for the result of the eval that holds the id
                    self.error(f"an eval with id {json.dumps(id_)[:200]} is already queued or running; this "
                               f"eval was not started. Give each eval an id of its own", None,
                               request_id=id_)
                    continue
            elif op == "cancel":
                if req.get("id") is None or isinstance(req.get("id"), (dict, list, bool)):
                    got = "none" if req.get("id") is None else json.dumps(req.get("id"))[:60]
                    self.error(f"a cancel needs the 'id' of the eval to cancel (a string or number), got {got}")
                    continue
                self._cancel(req.get("id"))
            elif op == "shutdown":
                self._shutdown(worker, reply=True)
                return 0
            elif "op" not in req or op is None:
                self.error("the message has no 'op'; every message is an object with \"op\": hello, eval, port, "
                           "task_check, cancel or shutdown", _echo_id(req.get("id")))
            elif not isinstance(op, str):
                self.error(f"'op' must be a string (hello, eval, port, task_check, cancel or shutdown), got "
                           f"{json.dumps(op)[:60]}", _echo_id(req.get("id")))
            else:
                self.error(f"unknown op {op[:60]!r} (expected hello, eval, port, task_check, cancel or shutdown)",
                           _echo_id(req.get("id")))

    def _cancel(self, id_):
        with self.cv:
            # the same JSON value, as for a duplicate eval: in Python True == 1, so `==` let a cancel of id true stop
            # the eval with id 1
            if self.running and _same_id(self.running[0], id_):
                self.running[1].set()  # the worker kills the child and sends the cancelled result
                return
            for req in list(self.queue):
                if _same_id(req.get("id"), id_):
                    self.queue.remove(req)
                    r = _cancelled(req, "cancelled by the client before it started")
                    self.send(r)
                    return
        self.error(f"cancel: no queued or running eval with id {json.dumps(id_)[:200]}", _echo_id(id_))

    def _shutdown(self, worker, reply: bool):
        with self.cv:
            self.stopping = True
            pending = list(self.queue)
            self.queue.clear()
            if self.running:
                self.running[1].set()
            self.cv.notify_all()
        for req in pending:
            r = _cancelled(req, "cancelled: the runner is shutting down")
            self.send(r)
        worker.join(30)
        sandbox.tidy()
        sandbox.close_zygote()
        if reply:
            self.send({"op": "bye"})


def _cancelled(req: dict, why: str) -> dict:
    """The answer to a queued eval or port that will not run: its own result line kind."""
    if req.get("op") == "port":
        from .port import request as port_request
        r = port_request.empty(req)
        r.update(status="error", error=why, cancelled=True)
        return r
    if req.get("op") == "task_check":
        from . import taskcheck
        r = taskcheck.empty(req)
        r.update(ok=False, error=why, cancelled=True)
        return r
    r = empty_result(req)
    r.update(status="infra_error", error=why, cancelled=True)
    return r


def _echo_id(id_):
    """An id to echo in an error line: a string or number as given; anything else as null (an error line's id must
    not look like an eval's)."""
    return id_ if isinstance(id_, (str, int, float)) and not isinstance(id_, bool) else None


def _same_id(a, b) -> bool:
    """Ids are the same JSON value: 1 and 1.0 are, "1" and 1 are not."""
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                              and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _clean(o):
    from .child import sanitize
    return sanitize(o)
