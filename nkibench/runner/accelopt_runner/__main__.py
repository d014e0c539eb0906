"""python3 -m accelopt_runner serve|eval|probe  (see ../README.md)."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading

from . import DEFAULT_TASKS_DIR, NKIBENCH_DIR, jobs, limits, roofline

ENV_NO_ZYGOTE = "ACCELOPT_RUNNER_NO_ZYGOTE"  # 1: as --no-zygote (a host's setting, e.g. to compare)


def _config(a) -> dict:
    nkb = os.path.abspath(a.nkibench) if a.nkibench else NKIBENCH_DIR
    if nkb not in sys.path:
        sys.path.insert(0, nkb)  # nkisim
    if a.nkibench:
        os.environ["PYTHONPATH"] = os.pathsep.join([nkb] + [p for p in os.environ.get("PYTHONPATH", "").split(
            os.pathsep) if p])
    if a.nkibench and not os.path.isdir(os.path.join(nkb, "nkisim")):
        raise ValueError(f"--nkibench {a.nkibench} holds no nkisim/ folder; give the nkibench/ folder of a checkout "
                         f"or deployment")
    if a.tasks and not os.path.isdir(a.tasks):
        raise ValueError(f"--tasks {a.tasks} is not a folder; give the folder that holds the task folders (each with "
                         f"its task.json)")
    tasks = a.tasks or (os.path.join(nkb, "tasks") if a.nkibench else DEFAULT_TASKS_DIR)
    mem = limits.resolve(a.memory_limit_mb, a.slots)  # ValueError for a bad environment value
    compat = roofline.host_compat(a.roofline_compat)  # ValueError for a bad environment value
    return {"tasks_dir": os.path.abspath(tasks), "max_message_bytes": int(a.max_message_mib * 1024 * 1024),
            "memory_limit_mb": mem["memory_limit_mb"], "memory_limit_source": mem["source"], "memory": mem,
            "neuron_memory_limit_mb": a.neuron_memory_limit_mb,
            "timeout_s": a.timeout_s, "no_sandbox": a.no_sandbox, "keep_workdirs": a.keep_workdirs,
            "zygote": a.cmd == "serve" and not a.no_zygote and os.environ.get(ENV_NO_ZYGOTE, "") in ("", "0"),
            "output_cap_chars": a.output_cap_kib * 1024, "roofline_compat": compat}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_child"]:
        from .child import main as child_main
        return child_main(argv[1])
    if argv[:1] == ["explorer-profile"]:  # files on this machine, no kernel run: none of the options below
        from .explorerprofile import main as explorer_main
        return explorer_main(argv[1:])
    if argv[:1] == ["_zygote"]:
        from .zygote import main as zygote_main
        return zygote_main(argv[1], confined="--confined" in argv[2:])
    p = argparse.ArgumentParser(prog="python3 -m accelopt_runner",
                                description="AccelOpt Workbench host runner (JSON-lines protocol)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--nkibench", help="the nkibench/ folder holding nkisim/ and tasks/ (default: the one "
                                           "this runner is deployed in)")
    common.add_argument("--tasks", help="the tasks folder (default: <nkibench>/tasks)")
    common.add_argument("--max-message-mib", type=float, default=float(limits.MAX_MESSAGE_MIB),
                        help=f"largest accepted request line in MiB (default {limits.MAX_MESSAGE_MIB}; a kernel may "
                             f"be at most {limits.MAX_KERNEL_BYTES} bytes whatever this is)")
    common.add_argument("--memory-limit-mb", type=int, default=None,
                        help=f"RLIMIT_AS per sim eval in MiB (0: none). Default: ${limits.ENV_MEMORY}, else "
                             f"max({limits.FLOOR_MB}, {int(limits.FRACTION * 100)}%% of the host's memory / slots)")
    common.add_argument("--slots", type=int, default=None,
                        help=f"evals this host runs at once, for the derived memory limit (default: "
                             f"${limits.ENV_SLOTS}, else the number of CPUs)")
    common.add_argument("--neuron-memory-limit-mb", type=int, default=0,
                        help="RLIMIT_AS per neuron eval (default 0: none; the runtime maps device memory)")
    common.add_argument("--timeout-s", type=float, default=None,
                        help="default eval wall-clock limit in seconds (default: 600, or 300 + 600 per seed for a "
                             "full-size numeric eval)")
    common.add_argument("--output-cap-kib", type=int, default=16, help="kernel output kept per eval")
    common.add_argument("--no-sandbox", action="store_true",
                        help="run kernels without the sandbox, with the runner's own rights (they can read its files and "
                             "signal its processes); without this an eval is refused where the sandbox is missing")
    common.add_argument("--keep-workdirs", action="store_true", help="keep each eval's temporary folder (evals then "
                                                                     "start cold, not from the slot's zygote)")
    common.add_argument("--no-zygote", action="store_true",
                        help="serve: start each nkisim eval in a fresh Python instead of forking it from the slot's "
                             "pre-imported template (about 250 ms more per eval; for comparison and debugging). "
                             f"Also ${ENV_NO_ZYGOTE}=1")
    common.add_argument("--roofline-compat", choices=["accelopt", "none"], default=None,
                        help="peak constants of %% of peak: 'accelopt' = the original's (for comparison with the "
                             "paper), 'none' = ours (default: $ACCELOPT_ROOFLINE_COMPAT, else ours)")
    common.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("serve", parents=[common], help="JSON lines on stdin/stdout")
    sub.add_parser("probe", parents=[common], help="print the hello information as JSON")
    e = sub.add_parser("eval", parents=[common], help="run one eval and print its result line")
    e.add_argument("--job", help="a JSON file holding an eval request ('-' for stdin)")
    e.add_argument("--task", help="task name (under the tasks folder), or an absolute task/dataset folder")
    e.add_argument("--problem", help="problem name when --task is an NKIBench dataset folder")
    e.add_argument("--kernel", help="kernel source file (default: the task's baseline, see --api)")
    e.add_argument("--api", choices=["classic", "current"], default=None,
                   help="without --kernel: which NKI generation's baseline of the task to evaluate, 'classic' "
                        "(baseline.py, neuronxcc.nki; the default) or 'current' (baseline_current.py, nki.*)")
    e.add_argument("--backend", default=None)
    e.add_argument("--target", default=None)
    e.add_argument("--size", default=None, choices=["full", "small"])
    e.add_argument("--core", type=int, default=None)
    e.add_argument("--seeds", help="comma-separated seeds")
    e.add_argument("--warmup", type=int)
    e.add_argument("--iters", type=int)
    e.add_argument("--timing-only", action="store_true")
    e.add_argument("--timeline-cap", type=int, help="instructions in the profile's timeline (default 0: none)")
    e.add_argument("--timeout", type=float, dest="eval_timeout")
    e.add_argument("--id", default="cli")
    po = sub.add_parser("port", parents=[common],
                        help="port a classic kernel to the current NKI API and check it against the original")
    po.add_argument("--task", required=True, help="task name, or an absolute task folder (as eval --task)")
    po.add_argument("--kernel", required=True, help="the classic kernel source file (neuronxcc.nki)")
    po.add_argument("--candidate", help="a current-API port to check instead of porting by rules")
    po.add_argument("--out", help="write the port (the current kernel) here when the result has one")
    po.add_argument("--size", default="small", choices=["full", "small"])
    po.add_argument("--target", default=None)
    po.add_argument("--seeds", help="comma-separated seeds (default: 2 fresh ones)")
    po.add_argument("--timeout", type=float, dest="eval_timeout")
    po.add_argument("--id", default="cli")
    tc = sub.add_parser("task-check", parents=[common],
                        help="check a task folder (task.json, reference, baseline) and print its figures")
    tc.add_argument("dir", help="the task folder")
    tc.add_argument("--function", help="the kernel function's name (default: by the rule, see the README)")
    tc.add_argument("--kernel", help="the kernel to check the task with (default: the folder's baseline.py)")
    tc.add_argument("--backend", default=None)
    tc.add_argument("--target", default=None)
    tc.add_argument("--timeout", type=float, dest="eval_timeout", help="wall-clock limit of each eval, seconds")
    tc.add_argument("--id", default="cli")
    a = p.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if a.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if a.memory_limit_mb is not None and (a.memory_limit_mb < 0 or 0 < a.memory_limit_mb < 256):
        p.error("--memory-limit-mb must be 0 (no limit) or at least 256")
    if a.slots is not None and a.slots < 1:
        p.error("--slots must be at least 1")
    if not 0.001 <= a.max_message_mib <= 1024:  # also refuses nan
        p.error(f"--max-message-mib must be a number of MiB in [0.001, 1024], got {a.max_message_mib}")
    for opt, v in (("--timeout-s", a.timeout_s), ("--timeout", getattr(a, "eval_timeout", None))):
        if v is not None and not jobs.TIMEOUT_MIN_S <= v <= jobs.TIMEOUT_MAX_S:
            p.error(f"{opt} must be a number of seconds in [{jobs.TIMEOUT_MIN_S:g}, {jobs.TIMEOUT_MAX_S:g}], "
                    f"got {v}")
    try:
        cfg = _config(a)
    except ValueError as e:
        p.error(str(e))
    from . import serve
    if a.cmd == "probe":
        print(json.dumps(serve.hello(cfg), indent=2))
        return 0
    if a.cmd == "serve":
        # stdout carries protocol lines only: keep a private handle and point sys.stdout at stderr, so a stray
        # print anywhere in this process cannot corrupt the stream.
        out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        sys.stdout = sys.stderr
        return serve.Server(cfg, stdin=sys.stdin.buffer, stdout=out).serve()
    if a.cmd == "port":
        return _port_cmd(a, cfg)
    if a.cmd == "task-check":
        return _task_check_cmd(a, cfg)
    return _eval_cmd(a, cfg, serve)


def _port_cmd(a, cfg) -> int:
    """One port request from files; prints its port_result line (exit 0), 2 for usage errors."""
    from .port import request
    req = {"op": "port", "id": a.id, "size": a.size,
           "task": {"dir": a.task} if os.path.isabs(a.task) else {"name": a.task}}
    for key, path in (("kernel", a.kernel), ("candidate", a.candidate)):
        if path is None:
            continue
        try:
            req[key] = _read_bytes(path, limits.MAX_KERNEL_BYTES + 1).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            print(f"cannot read the {key} {path}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            return 2
    if a.target:
        req["target"] = a.target
    if a.eval_timeout is not None:
        req["timeout_s"] = a.eval_timeout
    if a.seeds:
        try:
            req["seeds"] = [int(x) for x in a.seeds.split(",") if x.strip()]
        except ValueError:
            print(f"--seeds must be comma-separated whole numbers in [0, 2^32), got {a.seeds!r}", file=sys.stderr)
            return 2
    res = request.handle(req, cfg)
    if a.out and res.get("kernel"):
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(res["kernel"])
    from .child import sanitize
    print(json.dumps(sanitize(res), separators=(",", ":")))
    return 0


def _task_check_cmd(a, cfg) -> int:
    """One task_check request; prints its task_check_result line: exit 0 when ok, 1 when a check failed, 2 for
    usage errors (no such folder, an unreadable kernel file)."""
    from . import taskcheck
    d = os.path.abspath(a.dir)
    if not os.path.isdir(d):
        print(f"task-check: {a.dir} is not a folder; give the task folder (the one holding task.json)",
              file=sys.stderr)
        return 2
    req = {"op": "task_check", "id": a.id, "task": {"dir": d}}
    if a.kernel:
        try:
            req["kernel"] = _read_bytes(a.kernel, limits.MAX_KERNEL_BYTES + 1).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            print(f"task-check: cannot read the kernel {a.kernel}: {getattr(e, 'strerror', None) or e}",
                  file=sys.stderr)
            return 2
    for k, v in (("function", a.function), ("backend", a.backend), ("target", a.target),
                 ("timeout_s", a.eval_timeout)):
        if v is not None:
            req[k] = v
    res = taskcheck.handle(req, cfg)
    from .child import sanitize
    print(json.dumps(sanitize(res), separators=(",", ":")))
    return 0 if res.get("ok") else 1


def _eval_cmd(a, cfg, serve) -> int:
    from . import protocol
    if a.job:
        try:
            data = sys.stdin.buffer.read() if a.job == "-" else _read_bytes(a.job)
            req = protocol.parse(data.strip())
        except OSError as e:
            print(f"cannot read the job {a.job}: {e.strerror or e}", file=sys.stderr)
            return 2
        except protocol.ProtocolError as e:
            print(f"the job {a.job} is not an eval request: {e}", file=sys.stderr)
            return 2
    else:
        req = {"id": a.id}
    if a.task:
        if os.path.isabs(a.task):
            req["task"] = {"dir": a.task, **({"name": a.problem} if a.problem else {})}
        else:
            req["task"] = {"name": a.task}
    for k, v in (("backend", a.backend), ("target", a.target), ("size", a.size), ("core", a.core),
                 ("warmup", a.warmup), ("iters", a.iters), ("timeout_s", a.eval_timeout),
                 ("timeline_cap", a.timeline_cap)):
        if v is not None:
            req[k] = v
    if a.timing_only:
        req["timing_only"] = True
    if a.seeds:
        try:
            req["seeds"] = [int(s) for s in a.seeds.split(",") if s.strip()]
        except ValueError:
            print(f"--seeds must be comma-separated whole numbers in [0, 2^32), got {a.seeds!r}", file=sys.stderr)
            return 2
    req.setdefault("id", a.id)
    if a.api and (a.kernel or "kernel" in req):
        print("--api picks the task's baseline; it cannot be combined with a kernel (--kernel, or 'kernel' in "
              "the job)", file=sys.stderr)
        return 2
    if a.kernel:
        try:
            data = _read_bytes(a.kernel, limits.MAX_KERNEL_BYTES + 1)
            req["kernel"] = data.decode("utf-8")
        except OSError as e:
            print(f"cannot read the kernel {a.kernel}: {e.strerror or e}", file=sys.stderr)
            return 2
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            print(f"the kernel {a.kernel} is not valid UTF-8 text (line {line}, byte 0x{data[e.start]:02x} at "
                  f"offset {e.start}: {e.reason}); save it as UTF-8", file=sys.stderr)
            return 2
        if len(data) > limits.MAX_KERNEL_BYTES:
            print(f"the kernel {a.kernel} is over the runner's limit of {limits.MAX_KERNEL_BYTES} bytes "
                  f"({limits.MAX_KERNEL_BYTES // (1024 * 1024)} MiB); use a smaller kernel", file=sys.stderr)
            return 2
    elif "kernel" not in req:
        from . import taskspec
        try:
            spec = taskspec.resolve(req.get("task"), req.get("size") or "full", cfg["tasks_dir"])
        except taskspec.TaskError as e:
            print(f"bad task: {e}", file=sys.stderr)
            return 2
        try:
            path = taskspec.baseline_path(spec, a.api or "classic")
        except taskspec.TaskError as e:
            print(f"no --kernel given, and {e}", file=sys.stderr)
            return 2
        req["kernel"] = open(path, encoding="utf-8").read()
    res = serve.evaluate_request(req, cfg, threading.Event())
    res["id"] = req.get("id")
    print(json.dumps(serve._clean(res), separators=(",", ":")))
    return 0


def _read_bytes(path: str, limit: int = -1) -> bytes:
    """A regular file's bytes; anything else is refused unopened (a FIFO would block until a writer comes)."""
    import stat
    mode = os.stat(path).st_mode  # OSError (no such file) as open() would raise it
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else \
            "a device or socket"
        raise OSError(0, f"it is {kind}, not a regular file")
    with open(path, "rb") as f:
        return f.read(limit)


if __name__ == "__main__":
    sys.exit(main())
