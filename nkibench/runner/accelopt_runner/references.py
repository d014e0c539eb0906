"""The reference forms a user's task may bring besides ours (get_inputs + forward), in the judge's child only:

* numpy, `forward(*inputs)` alone: the inputs are built from task.json's declared shapes and dtypes, seeded
  (declared_inputs);
* PyTorch in the KernelBench convention: `class Model(nn.Module)`, `get_inputs()`, `get_init_inputs()`, on the CPU
  (TorchReference). The kernel gets the tensors of get_inputs() followed by the model's parameters in
  named_parameters() order, as numpy arrays.
"""
from __future__ import annotations

import ast
import os
import sys

import numpy as np

from . import roofline


class ReferenceError_(ValueError):
    """The reference cannot be used as it is (what, and what to do)."""


def imports_torch(path: str) -> bool:
    """Whether the reference's source imports torch (decided without running it, so a host without PyTorch can say
    so instead of failing with an ImportError in the middle of the module)."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return False
    for n in ast.walk(tree):
        if isinstance(n, ast.Import) and any(a.name.split(".")[0] == "torch" for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "torch" and not n.level:
            return True
    return False


def require_torch():
    """torch, or ReferenceError_ saying how to install it for this interpreter."""
    try:
        import torch
    except ImportError:
        raise ReferenceError_(f"this reference uses PyTorch, which is not installed for {sys.executable}; install "
                              f"it (Debian: apt-get install python3-torch; pip: pip install torch)") from None
    # the eval's share of the CPUs (the runner sets OPENBLAS_NUM_THREADS per eval), so evals side by side do not
    # oversubscribe the cores
    try:
        n = int(os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or 1)
        torch.set_num_threads(max(1, n))
    except (ValueError, RuntimeError):
        pass
    return torch


def is_torch_model(mod) -> bool:
    torch = sys.modules.get("torch")
    model = getattr(mod, "Model", None)
    return torch is not None and isinstance(model, type) and issubclass(model, torch.nn.Module)


def _dtype_kind_fill(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0, 16, size=shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def declared_shape(d: dict, params: dict) -> tuple:
    expr = d.get("shape_expr")
    if not isinstance(expr, list):
        raise ReferenceError_(f"input {d.get('name') or '?'} declares no shape; a reference without get_inputs "
                              f"needs every input's \"shape\" (or \"shape_expr\") in task.json")
    return tuple(int(roofline.eval_expr(e, params)) for e in expr)


def declared_inputs(decl: list, params: dict, seed: int, task_dtype: str) -> list:
    """Inputs for a reference without get_inputs, from task.json: float dtypes standard normal, int dtypes uniform
    in [0, 16), bool a fair coin, drawn in declaration order from numpy.random.default_rng(seed)."""
    if not isinstance(decl, list) or not decl:
        raise ReferenceError_("the reference defines no get_inputs() and task.json declares no inputs; declare "
                              "each input's \"shape\" and \"dtype\" under \"inputs\", or define get_inputs(seed, "
                              "params)")
    rng = np.random.default_rng(seed & 0xFFFFFFFF)
    return [_dtype_kind_fill(rng, declared_shape(d, params), d.get("dtype") or task_dtype or "float32")
            for d in decl]


_MATMUL_OPS = ("mm", "bmm", "addmm", "matmul", "conv", "linear", "baddbmm", "addbmm", "einsum")


def _is_matmul(name: str) -> bool:
    op = name.split("::")[-1].lower()
    return any(op == m or op.startswith(m) for m in _MATMUL_OPS)


class TorchReference:
    """A KernelBench-style module. Per seed: torch.manual_seed(seed) before Model(*get_init_inputs()) and again before
    the inputs are drawn; the model built for a seed computes that seed's reference."""

    def __init__(self, mod, spec: dict):
        self.torch = require_torch()
        self.mod = mod
        self.spec = spec
        for fn in ("get_inputs", "get_init_inputs"):
            if not callable(getattr(mod, fn, None)):
                raise ReferenceError_(f"the PyTorch reference defines class Model but no {fn}(); KernelBench's "
                                      f"convention has module-level get_inputs() and get_init_inputs()")
        self.model = None
        self.n_tensors = 0
        self.param_names = []
        self.flops = None  # {"matmul_flops", "vector_flops"} of the last counted forward

    def _small(self) -> bool:
        """A small eval of a task that declares its inputs' shapes draws them itself (get_inputs() has one size)."""
        decl = self.spec.get("input_decl")
        return self.spec.get("size") == "small" and isinstance(decl, list) and bool(decl) and \
            all(isinstance(d, dict) and isinstance(d.get("shape_expr"), list) for d in decl)

    def get_inputs(self, seed: int, params: dict) -> list:
        torch = self.torch
        torch.manual_seed(seed & 0xFFFFFFFF)
        with torch.no_grad():
            self.model = self.mod.Model(*self.mod.get_init_inputs()).cpu().eval()
        torch.manual_seed(seed & 0xFFFFFFFF)
        if self._small():
            tensors = self._small_inputs(params)
        else:
            tensors = list(self.mod.get_inputs())
        self.n_tensors = len(tensors)
        arrays = [t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t for t in tensors]
        named = list(self.model.named_parameters())
        self.param_names = [n for n, _ in named]
        arrays += [p.detach().cpu().numpy().copy() for _, p in named]
        return arrays

    def _small_inputs(self, params: dict) -> list:
        """torch.randn (randint for ints) at the declared small shapes, in the dtypes task.json declares; an input
        declared without a dtype takes get_inputs()'s (drawn once, at full size, only to learn it)."""
        torch = self.torch
        decl = self.spec.get("input_decl") or []
        known = {}
        if any(not d.get("dtype") for d in decl):
            known = {i: t.dtype for i, t in enumerate(self.mod.get_inputs()) if isinstance(t, torch.Tensor)}
        out = []
        for i, d in enumerate(decl):
            shape = declared_shape(d, params)
            dt = getattr(torch, d["dtype"]) if d.get("dtype") else known.get(i, torch.float32)
            if dt.is_floating_point:
                out.append(torch.randn(shape, dtype=dt))
            elif dt == torch.bool:
                out.append(torch.rand(shape) < 0.5)
            else:
                out.append(torch.randint(0, 16, shape, dtype=dt))
        return out

    def forward(self, inputs: list, count_flops: bool = False) -> list:
        torch = self.torch
        xs = [torch.from_numpy(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a
              for a in inputs[:self.n_tensors]]
        with torch.no_grad():
            if count_flops:
                out = self._counted(xs)
            else:
                out = self.model(*xs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [o.detach().cpu().numpy() if isinstance(o, torch.Tensor) else np.asarray(o) for o in outs]

    def _counted(self, xs):
        """One forward under torch's profiler with FLOP counting (torch 1.13: profile(with_flops=True)); mm, bmm,
        addmm, matmul, conv and linear count as matmul FLOPs, every other op as vector FLOPs."""
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
            out = self.model(*xs)
        mm = vec = 0
        for evt in prof.key_averages():
            f = int(getattr(evt, "flops", 0) or 0)
            if f <= 0:
                continue
            if _is_matmul(evt.key):
                mm += f
            else:
                vec += f
        self.flops = {"matmul_flops": mm, "vector_flops": vec}
        return out
