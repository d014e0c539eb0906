"""Shared helpers for the runner tests: a small elementwise-add task built in a tmp dir, kernels for it, and a
client for a real `serve` subprocess."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import queue

REPO = pathlib.Path(__file__).resolve().parents[2]
RUNNER_DIR = REPO / "nkibench" / "runner"
FAKE_NEURON = REPO / "tests" / "fixtures" / "runner" / "fake_neuronxcc"
FAKE_NKI_CURRENT = REPO / "tests" / "fixtures" / "runner" / "fake_nki_current"  # the current-SDK twin

ADD_REFERENCE = textwrap.dedent('''\
    import numpy as np

    def get_inputs(seed, params):
        rng = np.random.default_rng(seed)
        n, d = params["N"], params["D"]
        return [rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, d)).astype(np.float32)]

    def forward(a, b):
        return a + b

    def transform_to_nki_inputs(inputs, params):
        return list(inputs)

    def transform_nki_outputs(outputs, params):
        return [np.reshape(outputs[0], (params["N"], params["D"]))]
    ''')

KERNEL_HEAD = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport numpy as np\n\n\n"
ADD_KERNEL = KERNEL_HEAD + textwrap.dedent('''\
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        n, d = a.shape
        for t in nl.affine_range(n // 128):
            x = nl.load(a[t * 128:(t + 1) * 128, :])
            y = nl.load(b[t * 128:(t + 1) * 128, :])
            nl.store(out[t * 128:(t + 1) * 128, :], value=nl.add(x, y))
        return out
    ''')


def add_kernel(body_before_return="", store_value="nl.add(x, y)", prelude=""):
    """The add kernel with a twist. Lines (without a prelude): @nki.jit 6, def 7, store 13, the extra body from 14."""
    body = "".join("    " + ln + "\n" for ln in body_before_return.splitlines())
    return (KERNEL_HEAD + prelude +
            "@nki.jit\n"
            "def kernel(a, b):\n"
            "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
            "    n, d = a.shape\n"
            "    for t in nl.affine_range(n // 128):\n"
            "        x = nl.load(a[t * 128:(t + 1) * 128, :])\n"
            "        y = nl.load(b[t * 128:(t + 1) * 128, :])\n"
            f"        nl.store(out[t * 128:(t + 1) * 128, :], value={store_value})\n"
            + body +
            "    return out\n")


def make_add_task(root: pathlib.Path, name="add") -> pathlib.Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "task.json").write_text(json.dumps({
        "name": name, "description": "elementwise add (runner test task)",
        "parameters": {"N": 256, "D": 512}, "small_parameters": {"N": 128, "D": 256},
        "rel_tol": 1e-6, "dtype": "float32",
        "roofline": {"vector_flops": "N*D", "matmul_flops": "0", "min_bytes": "4*3*N*D"}}))
    (d / "reference.py").write_text(ADD_REFERENCE)
    (d / "baseline.py").write_text(ADD_KERNEL)
    return d


def runner_env(extra_pythonpath=(), path_prefix=()):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(RUNNER_DIR), *map(str, extra_pythonpath)])
    if path_prefix:
        env["PATH"] = os.pathsep.join([*map(str, path_prefix), env.get("PATH", "")])
    return env


def run_cli(args, env=None, timeout=120, input_text=None):
    return subprocess.run([sys.executable, "-m", "accelopt_runner", *args], env=env or runner_env(),
                          capture_output=True, text=True, timeout=timeout, input=input_text)


class Serve:
    """A `serve` subprocess with a line reader thread."""

    def __init__(self, args=(), env=None):
        self.p = subprocess.Popen([sys.executable, "-m", "accelopt_runner", "serve", *args],
                                  env=env or runner_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0)
        self.q = queue.Queue()
        self.raw = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_err, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.raw.append(line)
            self.q.put(json.loads(line))
        self.q.put(None)

    def _drain_err(self):
        for _ in self.p.stderr:
            pass

    def send_raw(self, data: bytes):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        self.send_raw((json.dumps(obj) + "\n").encode())

    def recv(self, timeout=60):
        m = self.q.get(timeout=timeout)
        assert m is not None, "serve closed stdout"
        return m

    def eval(self, id_, task, kernel, timeout=90, **fields):
        self.send({"op": "eval", "id": id_, "task": task, "kernel": kernel, **fields})
        return self.recv(timeout)

    def close(self):
        if self.p.poll() is None:
            try:
                self.send({"op": "shutdown"})
            except OSError:
                pass
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()


def running_with(tag: str) -> list:
    """Host processes whose command line has tag as one of its words (a process started in a sandbox has a pid of
    its PID namespace, meaningless out here: tests find it by such a tag instead)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if tag.encode() in pathlib.Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry))
            except OSError:
                pass
    return found
