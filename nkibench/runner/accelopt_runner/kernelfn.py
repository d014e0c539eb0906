"""The kernel-function rule of nkisim/kernelfn.py, for the serving process and the Neuron backend. Loaded from its
file rather than through the nkisim package, so neither pays for (nor depends on) importing the simulator: one
implementation of the rule wherever a kernel is loaded."""
from __future__ import annotations

import importlib.util
import os
import sys

from . import NKIBENCH_DIR


def _load():
    mod = sys.modules.get("nkisim.kernelfn")
    if mod is not None:
        return mod
    path = os.path.join(NKIBENCH_DIR, "nkisim", "kernelfn.py")
    for d in sys.path:  # --nkibench points sys.path at another nkisim: take the rule from that one
        cand = os.path.join(d or ".", "nkisim", "kernelfn.py")
        if os.path.isfile(cand):
            path = cand
            break
    sp = importlib.util.spec_from_file_location("accelopt_runner._nkisim_kernelfn", path)
    mod = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(mod)
    return mod


_rule = _load()
NoKernelFunction = _rule.NoKernelFunction
choose = _rule.choose
choose_in_source = _rule.choose_in_source
valid_name = _rule.valid_name
