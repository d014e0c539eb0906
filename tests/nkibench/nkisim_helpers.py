"""Shared helpers for the nkisim tests: run a kernel given as source text."""
import textwrap

import numpy as np

import nkisim

HEADER = ("import numpy as np\n"
          "import neuronxcc.nki as nki\n"
          "import neuronxcc.nki.language as nl\n"
          "import neuronxcc.nki.isa as nisa\n")
HEADER_LINES = HEADER.count("\n")


def src(body):
    return HEADER + textwrap.dedent(body)


def run(body, *args, **kw):
    return nkisim.run_kernel(src(body), list(args), **kw)


def ok(body, *args, **kw):
    r = run(body, *args, **kw)
    assert r.error is None, str(r.error)
    return r


def out(body, *args, **kw):
    r = ok(body, *args, **kw)
    return r.outputs[0] if len(r.outputs) == 1 else r.outputs


def line_of(body, needle):
    """1-based line (in the full source) of the first body line containing needle."""
    for i, ln in enumerate(src(body).splitlines(), 1):
        if needle in ln:
            return i
    raise AssertionError(needle)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
