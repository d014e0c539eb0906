"""Benchmark: every NKIBench task's baseline, timing-only at full size, one after the other through one real
`serve` runner (what `accelopt suite --timing-only --jobs 1` asks of a local slot). Prints the wall time of the
suite and of each task, and the phases the results report; asserts nothing.

Give another checkout to time its runner and nkisim instead of this one's, e.g. a worktree of an older commit:

  /usr/bin/python3 tests/bench/suite_timing_only.py [CHECKOUT]
"""
import json
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]).resolve()
sys.path.insert(0, str(REPO / "tests" / "nkibench"))
from runner_helpers import runner_env  # noqa: E402


def main():
    tasks = sorted(p.parent.name for p in (REPO / "nkibench" / "tasks").glob("*/task.json"))
    serve = subprocess.Popen([sys.executable, "-m", "accelopt_runner", "serve"], env=runner_env(), cwd=str(REPO),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def evaluate(ident, task):
        kernel = (REPO / "nkibench" / "tasks" / task / "baseline.py").read_text()
        serve.stdin.write(json.dumps({"op": "eval", "id": ident, "task": {"name": task}, "kernel": kernel,
                                      "size": "full", "timing_only": True}) + "\n")
        serve.stdin.flush()
        while True:
            r = json.loads(serve.stdout.readline())
            if r.get("op") == "result":
                return r

    try:
        evaluate("warm-up", "silu")  # starts the slot's zygotes, as a search's first candidate would
        t0, phases = time.monotonic(), {}
        for i, task in enumerate(tasks):
            a = time.monotonic()
            r = evaluate(i, task)
            print(f"  {task:24s} {time.monotonic() - a:6.2f} s  {r['status']}", flush=True)
            for k, v in (r.get("phase_s") or {}).items():
                phases[k] = phases.get(k, 0.0) + v
        total = time.monotonic() - t0
    finally:
        serve.stdin.write('{"op": "shutdown"}\n')
        serve.stdin.flush()
        serve.wait(60)
    print(f"suite_timing_only ({REPO}): {len(tasks)} tasks in {total:.1f} s; phases "
          + ", ".join(f"{k} {v:.2f} s" for k, v in sorted(phases.items())))


if __name__ == "__main__":
    main()
