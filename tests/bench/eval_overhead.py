"""Benchmark (CTest label bench): the wall time of one evaluation on a warm local slot, through a real `serve`
runner as the workbench's local host starts it, with each evaluation forked from the slot's zygote and, for
comparison, started cold (--no-zygote). Prints its figures; asserts nothing.

  warm:         a pause of 0.3 s before each evaluation, as a slot sees between a search's candidates
  back-to-back: the next evaluation sent as soon as the last result arrived

"in eval" is the time the evaluation's own phases took (loading the task and the kernel, inputs, the numeric run,
the check, timing, metrics), as the result's phase_s reports it; "overhead" is the rest of the wall time: the
process, the sandbox and the protocol.

  /usr/bin/python3 tests/bench/eval_overhead.py [evaluations per figure, default 20]
"""
import json
import pathlib
import statistics
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "nkibench"))
from runner_helpers import ADD_KERNEL, ADD_REFERENCE, runner_env  # noqa: E402

TRIVIAL = {"name": "add_128x128", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128}}
SILU = (REPO / "nkibench" / "tasks" / "silu" / "baseline.py").read_text()


def measure(flags, task, kernel, n, pause_s, **fields):
    p = subprocess.Popen([sys.executable, "-m", "accelopt_runner", "serve", *flags], env=runner_env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    walls, phases = [], []
    try:
        for i in range(n + 2):  # the first two warm the slot (and start its zygote) and are not counted
            time.sleep(pause_s)
            t0 = time.monotonic()
            p.stdin.write(json.dumps({"op": "eval", "id": i, "task": task, "kernel": kernel, **fields}) + "\n")
            p.stdin.flush()
            r = json.loads(p.stdout.readline())
            wall = (time.monotonic() - t0) * 1000
            if r["status"] != "ok":
                raise SystemExit(f"evaluation failed: {r['status']}: {r['error']}")
            if i >= 2:
                walls.append(wall)
                phases.append(1000 * sum((r.get("phase_s") or {}).values()))
    finally:
        p.stdin.write('{"op": "shutdown"}\n')
        p.stdin.flush()
        p.wait(30)
    return statistics.median(walls), max(walls), statistics.median(phases)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(f"eval_overhead: {n} evaluations per figure; milliseconds (median wall, max wall, median in eval, "
          f"median overhead)")
    cases = [("trivial kernel (add 128x128), timing only", TRIVIAL, ADD_KERNEL, {"timing_only": True}),
             ("trivial kernel (add 128x128), checked, 1 seed", TRIVIAL, ADD_KERNEL, {"seeds": [1]}),
             ("silu small, timing only", {"name": "silu"}, SILU, {"size": "small", "timing_only": True}),
             ("silu small, checked, 1 seed", {"name": "silu"}, SILU, {"size": "small", "seeds": [1]})]
    for label, task, kernel, fields in cases:
        print(label)
        for mode, flags in (("zygote", []), ("cold", ["--no-zygote"])):
            for how, pause in (("warm", 0.3), ("back-to-back", 0.0)):
                med, worst, inside = measure(flags, task, kernel, n, pause, **fields)
                print(f"  {mode:6} {how:12}  wall {med:6.1f}  max {worst:6.1f}  in eval {inside:5.1f}  "
                      f"overhead {med - inside:6.1f}", flush=True)


if __name__ == "__main__":
    main()
