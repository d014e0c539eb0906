"""Rule-based port of a classic NKI kernel (neuronxcc.nki) to the current API (nki.*), over Python's ast.

The classic language computes with values (`t = nisa.op(...)`, `nl.add(a, b)`), indexes with nl.arange/mgrid
arrays, masks the last tile and may place the partition dimension anywhere (block dimensions). The current one
writes every instruction into an explicit destination (`nisa.op(dst=t, ...)`), indexes with integers and slices,
has no masks and keeps the partition dimension first. Each construct has one small rule below; RULES names them
and the result lists the rules a port used. Where no rule applies the porter does not guess: the construct goes
to `unported` with its line and why, for the LLM executor to handle with a migration prompt.

Sizes and offsets stay symbolic (source text): a destination's shape comes from the shapes the classic code gives
its operands (an ndarray's shape, the sizes of nl.arange index expressions, an argument's `x.shape[d]`), its dtype
from the call's dtype= or its first operand (an argument's `x.dtype`), its buffer from the instruction (PSUM for the
Tensor engine, SBUF otherwise). Whether the result computes what the original did is the equality check's job
(equality.py): a port counts only when nkisim finds both equal."""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field, replace

RULES = {
    "imports": "neuronxcc.nki[.language|.isa|.typing] imports become nki[.language|.isa|.typing]",
    "jit_decorator": "@nki.jit forms: the decorator now comes from the nki package; mode= is dropped (ignored "
                     "since NKI 0.3.0)",
    "buffers": "nl.ndarray/nl.zeros: par_dim unwrapped, name=/lazy_initialization= dropped, buffer names as "
               "objects (nl.sbuf, nl.psum, nl.shared_hbm), numpy dtypes as nl dtypes",
    "block_dims": "a block-dimension tensor (partition dim not first) becomes one tile with the partition dim "
                  "first; every index moves the partition component to the front",
    "psum_zeros": "nl.zeros in PSUM accumulated with += becomes a plain PSUM tile: in nki.* the first matmul "
                  "into a PSUM location overwrites and later ones accumulate",
    "sbuf_zeros": "nl.zeros in SBUF becomes nl.ndarray + nisa.memset(dst=..., value=0)",
    "index_arange": "nl.arange/mgrid index expressions (and offsets added to them) become slices start:start+size",
    "mask_min_slices": "a mask `idx < bound` becomes a count min(size, bound - start); every access of the masked "
                       "instruction is sliced to that count on the masked axis",
    "isa_dst": "ISA calls that return a value write an explicit dst=: a destination is allocated with the "
               "shape/dtype/buffer the classic result had (or the assignment's target is the destination); "
               "positional operands become keywords, dtype=/mask= are dropped",
    "load_store_dma": "nl.load/nl.store become nisa.dma_copy(dst=..., src=...)",
    "copy": "nl.copy becomes nisa.tensor_copy",
    "elementwise": "nl.add/subtract/multiply/... become nisa.tensor_tensor (two tiles) or nisa.tensor_scalar (a "
                   "scalar or a [P, 1] column operand)",
    "activation": "nl.exp/sqrt/rsqrt/square/... become nisa.activation(op=nl.exp, ...); nl.reciprocal becomes "
                  "nisa.reciprocal",
    "reduce": "nl.sum/max/min over the last axis become nisa.tensor_reduce(op=nl.add/maximum/minimum, axis=1, "
              "keepdims=True); classic nisa.tensor_reduce gets the same op names",
    "transpose": "nl.transpose becomes nisa.nc_transpose into a PSUM tile",
    "matmul": "nl.matmul(x, y, transpose_x=True) becomes nisa.nc_matmul(dst=psum, stationary=x, moving=y)",
    "broadcast_partitions": "broadcast_to((P, F)) of a [1, F] row becomes a ones-row matmul into PSUM, 512 "
                            "columns per bank, copied to SBUF (the Tensor engine's partition broadcast)",
    "store_psum": "a store of a PSUM tile goes through an SBUF copy (DMA does not read PSUM in nki.*)",
    "flatten_nested": "nested value-returning calls are computed into their own destination first",
    "rebind_fresh_dst": "`t = op(t, ...)` writes a fresh destination and rebinds t, so the operand is not "
                        "overwritten before it is read",
}

ELEMENTWISE = {"add", "subtract", "multiply", "divide", "maximum", "minimum"}
ACTIVATIONS = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "silu", "square", "softplus",
               "erf", "sin", "cos", "gelu_apprx_tanh", "mish"}
REDUCE_OPS = {"sum": "add", "max": "maximum", "min": "minimum"}
# classic nisa positional parameter names (the order of the classic signatures)
ISA_PARAMS = {
    "activation": ["op", "data", "bias", "scale"],
    "tensor_scalar": ["data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1"],
    "tensor_tensor": ["data1", "data2", "op"],
    "reciprocal": ["data"],
    "tensor_reduce": ["op", "data", "axis", "negate", "keepdims"],
    "tensor_tensor_scan": ["data0", "data1", "initial", "op0", "op1", "reverse0", "reverse1"],
    "tensor_copy": ["src"],
    "nc_matmul": ["stationary", "moving", "is_stationary_onezero", "is_moving_onezero", "is_transpose"],
    "nc_transpose": ["data"],
    "scalar_tensor_tensor": ["data", "op0", "operand0", "op1", "operand1", "reverse0", "reverse1"],
}
# the operand whose shape (and dtype) the result has
ISA_SHAPE_FROM = {"activation": "data", "tensor_scalar": "data", "tensor_tensor": "data1", "reciprocal": "data",
                  "tensor_tensor_scan": "data0", "tensor_copy": "src", "scalar_tensor_tensor": "data"}
NP_DTYPES = {"float32", "float16", "bfloat16", "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool_"}


class PortError(Exception):
    """A kernel the porter refuses outright (not classic, a syntax error): `line` when one is known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


class Unported(Exception):
    def __init__(self, node, construct: str, why: str):
        super().__init__(why)
        self.line = getattr(node, "lineno", None)
        self.construct = construct
        self.why = why


@dataclass
class Idx:
    """A classic index expression: `size` positions from `start` (None: 0) on the partition ('p') or free ('f')
    axis of the iteration space."""
    start: str | None
    size: str
    axis: str


@dataclass
class Tile:
    shape: list | None  # source text per dimension (current order); None: unknown (an argument)
    dtype: str
    buffer: str  # "sbuf" | "psum" | "hbm"
    block: int | None = None  # classic position of the partition dim of a block-dimension tensor
    rank: int | None = None


@dataclass
class Mask:
    axis: str
    size: str
    count: str  # source text of the number of live positions


@dataclass
class Operand:
    text: str
    tile: Tile | None  # None: a scalar (number, Python value, op token)


def U(node) -> str:
    return ast.unparse(node)


def _is_attr(node, mod: str, name: str | None = None) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == mod and \
        (name is None or node.attr == name)


def _call_of(node, mod: str):
    """`name` for a call `mod.name(...)`, else None."""
    if isinstance(node, ast.Call) and _is_attr(node.func, mod):
        return node.func.attr
    return None


def _slice_text(start: str | None, size: str) -> str:
    if start is None:
        return f"0:{size}"
    return f"{start}:{U(ast.parse(f'({start}) + ({size})', mode='eval').body)}"


def _min_count(size: str, bound: str, start: str | None) -> str:
    expr = f"min({size}, ({bound}) - ({start}))" if start is not None else f"min({size}, {bound})"
    return U(ast.parse(expr, mode="eval").body)


def _dtype_text(node) -> str:
    """np.float32 / "float32" / nl.float32 -> nl.float32 (the current API's dtype objects)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy") \
            and node.attr in NP_DTYPES:
        return f"nl.{node.attr}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NP_DTYPES:
        return f"nl.{node.value}"
    return U(node)


class _Kernel:
    """Ports one function body."""

    def __init__(self, porter, fn: ast.FunctionDef):
        self.p = porter
        self.fn = fn
        self.idx: dict[str, Idx] = {}
        self.tiles: dict[str, Tile] = {}
        self.masks: dict[str, Mask] = {}
        self.out: list[str] = []  # statements generated for the current source statement
        params = [a.arg for a in fn.args.args]
        tensors = _tensor_params(fn, params)
        for a in params:
            if a in tensors:
                self.tiles[a] = Tile(None, f"{a}.dtype", "hbm")

    # --- helpers ---------------------------------------------------------------------------------------------
    def rule(self, name):
        self.p.rules.setdefault(name, None)

    def emit(self, line: str):
        self.out.append(line)

    def alloc(self, name: str, tile: Tile, node):
        if tile.shape is None:
            raise Unported(node, U(node), "the shape of the result is not known (an operand of unknown shape)")
        shape = ", ".join(tile.shape) + ("," if len(tile.shape) == 1 else "")
        self.emit(f"{name} = nl.ndarray(({shape}), dtype={tile.dtype}, buffer=nl.{tile.buffer})")
        self.tiles[name] = Tile(list(tile.shape), tile.dtype, tile.buffer)

    # --- index expressions -----------------------------------------------------------------------------------
    def index(self, node) -> Idx | None:
        """The Idx of an index expression, None for anything else (a scalar)."""
        if isinstance(node, ast.Name) and node.id in self.idx:
            return self.idx[node.id]
        if isinstance(node, ast.Subscript) and _call_of(node.value, "nl") == "arange":
            return self._arange(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            li, ri = self.index(node.left), self.index(node.right)
            if li and ri:
                raise Unported(node, U(node), "a sum of two index expressions (a 2-D index pattern) has no slice form")
            if li and self.scalar(node.right):
                off = U(node.right) if isinstance(node.op, ast.Add) else f"-({U(node.right)})"
                start = off if li.start is None else f"{li.start} + {off}"
                return Idx(U(ast.parse(start, mode="eval").body), li.size, li.axis)
            if ri and isinstance(node.op, ast.Add) and self.scalar(node.left):
                start = U(node.left) if ri.start is None else f"{U(node.left)} + {ri.start}"
                return Idx(U(ast.parse(start, mode="eval").body), ri.size, ri.axis)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and any(
                isinstance(n, ast.Name) and n.id in self.idx for n in ast.walk(node)):
            raise Unported(node, U(node), "an index expression other than `start + nl.arange(...)` (a stride, a "
                                          "product or a non-affine form) has no rule; write it with slices or .ap()")
        return None

    def _arange(self, node):
        call = node.value
        if len(call.args) != 1 or call.keywords:
            raise Unported(node, U(node), "nl.arange with start/stop/step has no rule")
        size = U(call.args[0])
        sl = node.slice
        if isinstance(sl, ast.Tuple) and len(sl.elts) == 2:
            a, b = sl.elts
            if isinstance(a, ast.Slice) and isinstance(b, ast.Constant) and b.value is None:
                return Idx(None, size, "p")
            if isinstance(b, ast.Slice) and isinstance(a, ast.Constant) and a.value is None:
                return Idx(None, size, "f")
        raise Unported(node, U(node), "nl.arange must be [:, None] (partition) or [None, :] (free) to port")

    def scalar(self, node) -> bool:
        """No tile, index expression or NKI value in node: a Python value the port keeps as it is (a tile's
        .shape/.dtype and the loop iterators nl.affine_range & co. are Python values too)."""
        for n in _walk_values(node):
            if isinstance(n, ast.Name) and (n.id in self.idx or n.id in self.tiles or n.id in self.masks):
                return False
            if isinstance(n, ast.Call) and (_call_of(n, "nisa") or
                                            (_call_of(n, "nl") and _call_of(n, "nl") not in SCALAR_NL)):
                return False
        return True

    # --- operands ---------------------------------------------------------------------------------------------
    def operand(self, node, mask: Mask | None) -> Operand:
        if isinstance(node, ast.Name) and node.id in self.tiles:
            t = self.tiles[node.id]
            return Operand(self._mask_whole(node.id, t, mask, node), t)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.tiles:
            return self.view(node, mask)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "reshape" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in self.tiles:
            t = self.tiles[node.func.value.id]
            if t.buffer != "hbm" or len(node.args) != 1 or not isinstance(node.args[0], (ast.Tuple, ast.List)):
                raise Unported(node, U(node), "reshape of an on-chip tile has no rule")
            return Operand(U(node), Tile([U(e) for e in node.args[0].elts], t.dtype, "hbm"))
        if isinstance(node, ast.Call) and (_call_of(node, "nl") or _call_of(node, "nisa") or _is_broadcast(node)):
            self.rule("flatten_nested")
            tmp = self.p.fresh("t")
            self.produce(node, None, tmp, mask)
            t = self.tiles[tmp]
            return Operand(self._mask_whole(tmp, t, mask, node), t)
        if isinstance(node, ast.Name) and node.id in self.masks:
            raise Unported(node, node.id, "a mask used as a value has no rule")
        if not self.scalar(node):
            raise Unported(node, U(node), "an expression over tiles or index expressions that is not an NKI call "
                                          "has no rule")
        return Operand(U(node), None)

    def _mask_whole(self, name, t: Tile, mask: Mask | None, node) -> str:
        """A whole tile under a mask: sliced to the live count on the masked axis (dim 0 for the partition axis,
        the last dim for the free one); a size-1 (broadcast) dim is left alone."""
        if mask is None:
            return name
        if t.shape is None or len(t.shape) != 2:
            raise Unported(node, name, "a masked instruction over a tile that is not 2-D has no rule")
        dim = 0 if mask.axis == "p" else 1
        if t.shape[dim] == "1":
            return name
        if t.shape[dim] != mask.size:
            raise Unported(node, name, f"the mask covers {mask.size} positions, the operand's dimension is "
                                       f"{t.shape[dim]}")
        self.rule("mask_min_slices")
        parts = [":", ":"]
        parts[dim] = f"0:{mask.count}"
        return f"{name}[{', '.join(parts)}]"

    def view(self, node: ast.Subscript, mask: Mask | None) -> Operand:
        name = node.value.id
        t = self.tiles[name]
        comps = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if t.block is not None:
            if len(comps) != t.rank:
                raise Unported(node, U(node), "an index of a block-dimension tensor with fewer components than its "
                                              "rank has no rule")
            self.rule("block_dims")
            comps = [comps[t.block]] + comps[:t.block] + comps[t.block + 1:]
        texts, shape = [], []
        for d, c in enumerate(comps):
            ix = self.index(c)
            if ix is not None:
                self.rule("index_arange")
                size = ix.size
                if mask is not None and ix.axis == mask.axis and ix.size == mask.size:
                    self.rule("mask_min_slices")
                    size = mask.count
                texts.append(_slice_text(ix.start, size))
                shape.append(ix.size)
            elif isinstance(c, ast.Slice):
                if c.step is not None:
                    raise Unported(node, U(node), "a strided slice has no rule")
                lo = U(c.lower) if c.lower is not None else "0"
                if c.upper is not None:
                    hi = U(c.upper)
                elif t.shape is not None and d < len(t.shape):
                    hi = t.shape[d]
                else:
                    hi = f"{name}.shape[{d}]"
                texts.append(U(c))
                shape.append(hi if lo == "0" else U(ast.parse(f"({hi}) - ({lo})", mode="eval").body))
            elif self.scalar(c):
                texts.append(U(c))  # an integer index drops the dimension
            else:
                raise Unported(node, U(node), f"index component `{U(c)}` has no rule")
        if t.shape is not None and len(comps) < len(t.shape):
            shape += t.shape[len(comps):]
        view = Tile(shape, t.dtype if t.shape is not None or t.buffer != "hbm" else f"{name}.dtype", t.buffer)
        return Operand(f"{name}[{', '.join(texts)}]", view)

    def mask_of(self, call: ast.Call):
        kw = next((k for k in call.keywords if k.arg == "mask"), None)
        if kw is None:
            return None
        m = kw.value
        if isinstance(m, ast.Name) and m.id in self.masks:
            return self.masks[m.id]
        return self.make_mask(m)

    def make_mask(self, m) -> Mask:
        if isinstance(m, ast.Compare) and len(m.ops) == 1 and isinstance(m.ops[0], ast.Lt):
            ix = self.index(m.left)
            if ix is not None and self.scalar(m.comparators[0]):
                self.rule("mask_min_slices")
                return Mask(ix.axis, ix.size, _min_count(ix.size, U(m.comparators[0]), ix.start))
        raise Unported(m, U(m), "only masks of the form `index < bound` (the last tile) have a rule")

    # --- producers: a value-returning classic call, written into dst ----------------------------------------------
    def produce(self, call: ast.Call, dst: str | None, name: str | None, outer_mask: Mask | None = None,
                accumulate: bool = False):
        """Emit the current form of `call`, writing into dst (a view, text) or into a new tile bound to name."""
        mask = self.mask_of(call) if any(k.arg == "mask" for k in call.keywords) else outer_mask
        kw = {k.arg: k.value for k in call.keywords if k.arg not in ("mask",)}
        nl_name, isa_name = _call_of(call, "nl"), _call_of(call, "nisa")
        if _is_broadcast(call):
            return self.broadcast(call, dst, name, mask)
        if nl_name == "load":
            return self.move(call, kw, dst, name, mask, "load_store_dma", kw.get("src"), "nisa.dma_copy",
                             "nl.load of something that is not a tensor the rules can follow")
        if nl_name == "copy" or isa_name == "tensor_copy":
            return self.move(call, kw, dst, name, mask, "copy", kw.get("src", kw.get("data")), "nisa.tensor_copy",
                             "a copy of something that is not a tile the rules can follow")
        if nl_name in ELEMENTWISE:
            return self.elementwise(call, nl_name, kw, dst, name, mask)
        if nl_name in ACTIVATIONS or nl_name == "reciprocal":
            self.rule("activation")
            x = self.operand(call.args[0] if call.args else kw.get("x"), mask)
            if x.tile is None:
                raise Unported(call, U(call), f"nl.{nl_name} of a scalar has no rule")
            dt = _dtype_text(kw["dtype"]) if "dtype" in kw else x.tile.dtype
            res = Tile(x.tile.shape, dt, "sbuf")
            if nl_name == "reciprocal":
                return self._finish(call, dst, name, res, mask, lambda d: f"nisa.reciprocal(dst={d}, data={x.text})",
                                    [x])
            return self._finish(call, dst, name, res, mask,
                                lambda d: f"nisa.activation(dst={d}, op=nl.{nl_name}, data={x.text})", [x])
        if nl_name in REDUCE_OPS:
            self.rule("reduce")
            x = self.operand(call.args[0] if call.args else kw.get("x"), mask)
            axis = kw.get("axis", call.args[1] if len(call.args) > 1 else None)
            res = self._reduced(call, x, axis, kw)
            op = REDUCE_OPS[nl_name]
            return self._finish(call, dst, name, res, mask, lambda d: (
                f"nisa.tensor_reduce(dst={d}, op=nl.{op}, data={x.text}, axis=1, keepdims=True)"), [x])
        if nl_name == "transpose":
            self.rule("transpose")
            x = self.operand(call.args[0] if call.args else kw.get("x"), mask)
            if x.tile is None or x.tile.shape is None or len(x.tile.shape) != 2:
                raise Unported(call, U(call), "nl.transpose of an operand that is not a known 2-D tile has no rule")
            dt = _dtype_text(kw["dtype"]) if "dtype" in kw else x.tile.dtype
            res = Tile([x.tile.shape[1], x.tile.shape[0]], dt, "psum")
            return self._finish(call, dst, name, res, mask, lambda d: f"nisa.nc_transpose(dst={d}, data={x.text})",
                                [x])
        if nl_name == "matmul":
            self.rule("matmul")
            tx = kw.get("transpose_x")
            if not (isinstance(tx, ast.Constant) and tx.value is True):
                raise Unported(call, U(call), "nl.matmul without transpose_x=True needs x transposed first (the "
                                              "Tensor engine contracts over partitions); no rule")
            x = self.operand(call.args[0], mask)
            y = self.operand(call.args[1], mask)
            if x.tile is None or y.tile is None or x.tile.shape is None or y.tile.shape is None:
                raise Unported(call, U(call), "nl.matmul operands of unknown shape")
            res = Tile([x.tile.shape[-1], y.tile.shape[-1]], "nl.float32", "psum")
            return self._finish(call, dst, name, res, mask, lambda d: (
                f"nisa.nc_matmul(dst={d}, stationary={x.text}, moving={y.text})"), [x, y], accumulate=accumulate)
        if isa_name in ISA_PARAMS:
            return self.isa(call, isa_name, dst, name, mask, accumulate)
        what = f"nl.{nl_name}" if nl_name else f"nisa.{isa_name}" if isa_name else U(call.func)
        raise Unported(call, what, f"{what} has no porting rule")

    def _reduced(self, call, x: Operand, axis, kw) -> Tile:
        if x.tile is None or x.tile.shape is None or len(x.tile.shape) != 2:
            raise Unported(call, U(call), "a reduction over an operand that is not a known 2-D tile has no rule")
        ax = axis
        if isinstance(ax, (ast.List, ast.Tuple)) and len(ax.elts) == 1:
            ax = ax.elts[0]
        if not (isinstance(ax, ast.Constant) and ax.value in (1, -1)) and not \
                (isinstance(ax, ast.UnaryOp) and isinstance(ax.op, ast.USub) and U(ax) == "-1"):
            raise Unported(call, U(call), "only reductions over the free (last) axis of a 2-D tile have a rule")
        dt = _dtype_text(kw["dtype"]) if "dtype" in kw else x.tile.dtype
        return Tile([x.tile.shape[0], "1"], dt, "sbuf")

    def move(self, call, kw, dst, name, mask, rule, src_keyword, op, refused):
        """nl.load and nl.copy: an SBUF tile of the source's shape (and the dtype asked for), written by `op`."""
        self.rule(rule)
        src = self.operand(call.args[0] if call.args else src_keyword, mask)
        if src.tile is None:  # e.g. the result of a helper function: the rules cannot tell its shape or memory
            raise Unported(call, U(call), refused)
        dt = _dtype_text(kw["dtype"]) if "dtype" in kw else src.tile.dtype
        res = Tile(src.tile.shape, dt, "sbuf")
        return self._finish(call, dst, name, res, mask, lambda d: f"{op}(dst={d}, src={src.text})", [src])

    def elementwise(self, call, op, kw, dst, name, mask):
        self.rule("elementwise")
        args = list(call.args)
        if len(args) != 2:
            raise Unported(call, U(call), f"nl.{op} needs two operands to port")
        a, b = self.operand(args[0], mask), self.operand(args[1], mask)
        if a.tile is None and b.tile is None:
            raise Unported(call, U(call), f"nl.{op} of two scalars has no rule")
        reverse = False
        if a.tile is None:
            a, b, reverse = b, a, True
        dt = _dtype_text(kw["dtype"]) if "dtype" in kw else a.tile.dtype
        res = Tile(a.tile.shape, dt, "sbuf")
        rev = ", reverse0=True" if reverse and op in ("subtract", "divide") else ""
        if b.tile is None or _is_column(b.tile, a.tile):
            return self._finish(call, dst, name, res, mask, lambda d: (
                f"nisa.tensor_scalar(dst={d}, data={a.text}, op0=nl.{op}, operand0={b.text}{rev})"), [a, b])
        if _is_column(a.tile, b.tile):
            res = Tile(b.tile.shape, dt, "sbuf")
            rev = ", reverse0=True" if op in ("subtract", "divide") else ""
            return self._finish(call, dst, name, res, mask, lambda d: (
                f"nisa.tensor_scalar(dst={d}, data={b.text}, op0=nl.{op}, operand0={a.text}{rev})"), [a, b])
        if a.tile.shape is not None and b.tile.shape is not None and a.tile.shape != b.tile.shape:
            raise Unported(call, U(call), f"nl.{op} of tiles of shapes {a.tile.shape} and {b.tile.shape} (an "
                                          f"implicit broadcast) has no rule")
        return self._finish(call, dst, name, res, mask, lambda d: (
            f"nisa.tensor_tensor(dst={d}, data1={a.text}, data2={b.text}, op=nl.{op})"), [a, b])

    def isa(self, call, op, dst, name, mask, accumulate):
        self.rule("isa_dst")
        params = ISA_PARAMS[op]
        if len(call.args) > len(params):
            raise Unported(call, U(call), f"nisa.{op} with more positional arguments than the rule knows")
        args = dict(zip(params, call.args))
        for k in call.keywords:
            if k.arg is None:
                raise Unported(call, U(call), "**kwargs in an ISA call has no rule")
            if k.arg not in ("mask", "dtype"):
                args[k.arg] = k.value
        ops = {k: self.operand(v, mask) for k, v in args.items()}
        dt_kw = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if op in ISA_SHAPE_FROM:
            src = ops.get(ISA_SHAPE_FROM[op])
            if src is None or src.tile is None:
                raise Unported(call, U(call), f"nisa.{op}: its {ISA_SHAPE_FROM[op]} operand is not a tile")
            res = Tile(src.tile.shape, _dtype_text(dt_kw) if dt_kw is not None else src.tile.dtype, "sbuf")
        elif op == "tensor_reduce":
            self.rule("reduce")
            res = self._reduced(call, ops["data"], args.get("axis"), {"dtype": dt_kw} if dt_kw is not None else {})
            o = args.get("op")
            if isinstance(o, ast.Attribute) and _is_attr(o, "nl") and o.attr in REDUCE_OPS:
                ops["op"] = Operand(f"nl.{REDUCE_OPS[o.attr]}", None)
            ops["axis"] = Operand("1", None)
            ops["keepdims"] = Operand("True", None)
        elif op in ("nc_matmul", "nc_transpose"):
            st = ops.get("stationary" if op == "nc_matmul" else "data")
            mv = ops.get("moving") if op == "nc_matmul" else None
            if st is None or st.tile is None or st.tile.shape is None or \
                    (op == "nc_matmul" and (mv is None or mv.tile is None or mv.tile.shape is None)):
                raise Unported(call, U(call), f"nisa.{op} operands of unknown shape")
            if op == "nc_matmul":
                res = Tile([st.tile.shape[-1], mv.tile.shape[-1]], "nl.float32", "psum")
            else:
                res = Tile([st.tile.shape[-1], st.tile.shape[0]], st.tile.dtype, "psum")
        else:
            raise Unported(call, U(call), f"nisa.{op} has no porting rule")
        body = ", ".join(f"{k}={v.text}" for k, v in ops.items())
        return self._finish(call, dst, name, res, mask, lambda d: f"nisa.{op}(dst={d}, {body})", list(ops.values()),
                            accumulate=accumulate)

    def broadcast(self, call, dst, name, mask):
        self.rule("broadcast_partitions")
        if isinstance(call.func, ast.Attribute) and call.func.attr == "broadcast_to" and not _is_attr(call.func, "nl"):
            src_node, shape_node = call.func.value, (call.args[0] if call.args else None)
        else:
            src_node, shape_node = call.args[0], (call.args[1] if len(call.args) > 1 else None)
        if mask is not None:
            raise Unported(call, U(call), "a masked broadcast has no rule")
        src = self.operand(src_node, None)
        if not isinstance(shape_node, (ast.Tuple, ast.List)) or len(shape_node.elts) != 2 or src.tile is None or \
                src.tile.shape is None or len(src.tile.shape) != 2 or src.tile.shape[0] != "1" or \
                src.tile.buffer != "sbuf":
            raise Unported(call, U(call), "only broadcast_to((P, F)) of a [1, F] SBUF row has a rule (the "
                                          "partition broadcast)")
        P, F = (U(e) for e in shape_node.elts)
        res = Tile([P, F], src.tile.dtype, "sbuf")
        target = dst
        if target is None:
            target = name
            self.alloc(name, res, call)
        ones, c, w, ps = self.p.fresh("ones"), self.p.fresh("c"), self.p.fresh("w"), self.p.fresh("bc_ps")
        self.emit(f"{ones} = nl.ndarray((1, {P}), dtype=nl.float32, buffer=nl.sbuf)")
        self.emit(f"nisa.memset(dst={ones}, value=1.0)")
        self.emit(f"for {c} in nl.affine_range(({F} + 511) // 512):")
        self.emit(f"    {w} = min(512, {F} - {c} * 512)")
        self.emit(f"    {ps} = nl.ndarray(({P}, 512), dtype=nl.float32, buffer=nl.psum)")
        self.emit(f"    nisa.nc_matmul(dst={ps}[0:{P}, 0:{w}], stationary={ones}, "
                  f"moving={src.text}[0:1, {c} * 512:{c} * 512 + {w}], is_stationary_onezero=True)")
        self.emit(f"    nisa.tensor_copy(dst={target}[0:{P}, {c} * 512:{c} * 512 + {w}], src={ps}[0:{P}, 0:{w}])")

    def _finish(self, call, dst, name, res: Tile, mask, make, operands, accumulate=False):
        if dst is None:
            # a new tile: allocated whole (the classic result's shape); under a mask only its live part is written
            used = {o.text.split("[")[0] for o in operands}
            target = name
            if name in used:
                self.rule("rebind_fresh_dst")
                target = self.p.fresh(name)
            self.alloc(target, res, call)
            d = self._mask_whole(target, self.tiles[target], mask, call)
            self.emit(make(d))
            if target != name:
                self.emit(f"{name} = {target}")
                self.tiles[name] = self.tiles[target]
            return
        self.emit(make(dst))

    # --- statements ---------------------------------------------------------------------------------------------
    def stmt(self, s) -> list | None:
        """The current lines for statement s (None: keep its source as is; [] drop it)."""
        self.out = []
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            return self.assign(s, s.targets[0], s.value)
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add):
            return self.augassign(s)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            call = s.value
            if _call_of(call, "nl") == "store":
                return self.store(call)
            if _call_of(call, "nl") or _call_of(call, "nisa"):
                raise Unported(s, U(call.func), f"{U(call.func)} as a statement has no porting rule")
        if isinstance(s, (ast.For, ast.While, ast.If, ast.With)):
            if not self.scalar(s.iter if isinstance(s, ast.For) else s.test if hasattr(s, "test") else
                               ast.Constant(0)):
                raise Unported(s, U(s).splitlines()[0], "a loop or condition over tiles/index expressions has no rule")
            return None
        if isinstance(s, (ast.Return, ast.Pass, ast.Break, ast.Continue)):
            return None
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            raise Unported(s, f"def {s.name}", "a function or class defined inside the kernel has no rule")
        if any(isinstance(n, ast.Name) and (n.id in self.idx or n.id in self.masks) for n in ast.walk(s)) or \
                any(isinstance(n, ast.Call) and (_call_of(n, "nl") or _call_of(n, "nisa")) for n in ast.walk(s)):
            raise Unported(s, U(s).splitlines()[0], "this statement over NKI values has no porting rule")
        return None

    def assign(self, s, tgt, val) -> list | None:
        if isinstance(tgt, ast.Tuple) and isinstance(val, ast.Subscript) and _is_attr(val.value, "nl", "mgrid"):
            return self.mgrid(s, tgt, val)
        if isinstance(tgt, ast.Name):
            name = tgt.id
            ix = self.index(val) if not isinstance(val, ast.Call) else None
            if ix is not None:
                self.rule("index_arange")
                self.idx[name] = ix
                return []
            if isinstance(val, ast.Compare):
                m = self.make_mask(val)
                self.masks[name] = replace(m, count=name)
                return [f"{name} = {m.count}"]
            cr = _call_of(val, "nl")
            if cr in ("ndarray", "zeros"):
                return self.create(s, name, val, cr)
            if cr == "shared_constant":
                self.tiles[name] = Tile(None, f"{name}.dtype", "hbm")
                return None
            if isinstance(val, ast.Call) and (_call_of(val, "nl") or _call_of(val, "nisa") or _is_broadcast(val)):
                self.produce(val, None, name)
                return self.out
            if isinstance(val, ast.Name) and val.id in self.tiles:
                self.tiles[name] = self.tiles[val.id]
                return None
            if self.scalar(val):
                self.tiles.pop(name, None)
                return None
            raise Unported(s, U(s), "an assignment over tiles that is not an NKI call has no rule")
        if isinstance(tgt, ast.Subscript) and isinstance(tgt.value, ast.Name) and tgt.value.id in self.tiles:
            if not (isinstance(val, ast.Call) and (_call_of(val, "nl") or _call_of(val, "nisa") or
                                                   _is_broadcast(val))):
                raise Unported(s, U(s), "a store into a tile of something other than an NKI call has no rule")
            mask = self.mask_of(val)
            d = self.view(tgt, mask)
            self.produce(val, d.text, None)
            return self.out
        if self.scalar(s):
            return None
        raise Unported(s, U(s), "this assignment has no porting rule")

    def mgrid(self, s, tgt, val):
        sl = val.slice.elts if isinstance(val.slice, ast.Tuple) else [val.slice]
        if len(sl) != 2 or len(tgt.elts) != 2 or not all(isinstance(e, ast.Slice) and e.step is None for e in sl):
            raise Unported(s, U(s), "only `ip, jf = nl.mgrid[a:b, c:d]` has a rule")
        self.rule("index_arange")
        for t, e, axis in zip(tgt.elts, sl, ("p", "f")):
            lo = U(e.lower) if e.lower is not None else "0"
            size = U(e.upper) if lo == "0" else U(ast.parse(f"({U(e.upper)}) - ({lo})", mode="eval").body)
            self.idx[t.id] = Idx(None if lo == "0" else lo, size, axis)
        return []

    def create(self, s, name, call, kind):
        self.rule("buffers")
        kw = {k.arg: k.value for k in call.keywords}
        shape_node = call.args[0] if call.args else kw.get("shape")
        dtype_node = call.args[1] if len(call.args) > 1 else kw.get("dtype")
        buf_node = call.args[2] if len(call.args) > 2 else kw.get("buffer")
        if dtype_node is None or shape_node is None:
            raise Unported(s, U(call), f"nl.{kind} needs a shape and a dtype to port")
        if not isinstance(shape_node, (ast.Tuple, ast.List)):
            # a computed shape (x.shape): no par_dim in it; the tile's dims are then only known at run time
            if kind == "zeros":
                raise Unported(s, U(call), "nl.zeros with a computed shape has no rule")
            buf = U(buf_node) if buf_node is not None else "nl.sbuf"
            mem = "hbm" if "hbm" in buf else buf.replace("nl.", "")
            self.tiles[name] = Tile(None, _dtype_text(dtype_node), mem)
            return [f"{name} = nl.ndarray({U(shape_node)}, dtype={_dtype_text(dtype_node)}, buffer={buf})"]
        elts, block = [], None
        for i, e in enumerate(shape_node.elts):
            if _call_of(e, "nl") == "par_dim":
                block = i
                elts.append(U(e.args[0]))
            else:
                elts.append(U(e))
        buf = "sbuf"
        if buf_node is not None:
            b = buf_node.value if isinstance(buf_node, ast.Constant) else \
                buf_node.attr if _is_attr(buf_node, "nl") else None
            if b not in ("sbuf", "psum", "hbm", "shared_hbm", "private_hbm"):
                raise Unported(s, U(buf_node), "an unknown buffer")
            buf = b
        rank = len(elts)
        if block:  # the partition dim first (the only place nki.* allows it)
            self.rule("block_dims")
            elts = [elts[block]] + elts[:block] + elts[block + 1:]
        dt = _dtype_text(dtype_node)
        shape = ", ".join(elts) + ("," if len(elts) == 1 else "")
        mem = "hbm" if "hbm" in buf else buf
        self.tiles[name] = Tile(elts, dt, mem, block if block else None, rank)
        lines = [f"{name} = nl.ndarray(({shape}), dtype={dt}, buffer=nl.{buf})"]
        if kind == "zeros":
            if mem == "psum":
                self.rule("psum_zeros")
            else:
                self.rule("sbuf_zeros")
                zero = "0" if "int" in dt else "0.0"
                if mem == "hbm":
                    raise Unported(s, U(call), "nl.zeros in HBM has no rule")
                lines.append(f"nisa.memset(dst={name}, value={zero})")
        return lines

    def augassign(self, s):
        val = s.value
        is_mm = _call_of(val, "nisa") == "nc_matmul" or _call_of(val, "nl") == "matmul"
        if not is_mm:
            raise Unported(s, U(s), "`+=` of anything but a matmul into PSUM has no rule")
        tgt = s.target
        mask = self.mask_of(val)
        if isinstance(tgt, ast.Name) and tgt.id in self.tiles:
            d = self._mask_whole(tgt.id, self.tiles[tgt.id], mask, s)
        elif isinstance(tgt, ast.Subscript) and isinstance(tgt.value, ast.Name) and tgt.value.id in self.tiles:
            d = self.view(tgt, mask).text
        else:
            raise Unported(s, U(s), "`+=` into something that is not a tile")
        root = tgt.id if isinstance(tgt, ast.Name) else tgt.value.id
        if self.tiles[root].buffer != "psum":
            raise Unported(s, U(s), "matmul accumulation into a tile outside PSUM has no rule")
        self.produce(val, d, None, accumulate=True)
        return self.out

    def store(self, call):
        self.rule("load_store_dma")
        mask = self.mask_of(call)
        kw = {k.arg: k.value for k in call.keywords}
        dst_node = call.args[0] if call.args else kw.get("dst")
        val_node = call.args[1] if len(call.args) > 1 else kw.get("value")
        d = self.operand(dst_node, mask)
        v = self.operand(val_node, mask)
        if v.tile is None:
            raise Unported(call, U(call), "nl.store of a scalar has no rule")
        src = v.text
        if v.tile.buffer == "psum":
            self.rule("store_psum")
            tmp = self.p.fresh("st")
            self.alloc(tmp, replace(v.tile, buffer="sbuf"), call)
            tm = self._mask_whole(tmp, self.tiles[tmp], mask, call) if "[" not in v.text else tmp
            self.emit(f"nisa.tensor_copy(dst={tm}, src={v.text})")
            src = tm
        self.emit(f"nisa.dma_copy(dst={d.text}, src={src})")
        return self.out


SCALAR_NL = {"affine_range", "sequential_range", "static_range", "program_id", "num_programs", "program_ndim"}


def _walk_values(node):
    """ast.walk without the insides of `X.shape` / `X.dtype` / `X.ndim` (Python values of a tile)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "dtype", "ndim"):
            continue
        todo.extend(ast.iter_child_nodes(n))


def _is_broadcast(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "broadcast_to"


def _is_column(col: Tile, full: Tile) -> bool:
    """col is a [P, 1] column beside a [P, F] tile: a per-partition scalar operand (tensor_scalar)."""
    return col.shape is not None and full.shape is not None and len(col.shape) == 2 and len(full.shape) == 2 and \
        col.shape[1] == "1" and full.shape[1] != "1"


def _tensor_params(fn, params) -> set:
    """The kernel parameters used as tensors (subscripted, .shape/.dtype/.reshape, passed to nl.load/store); the
    others are Python scalars (eps), used as instruction immediates."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
            out.add(n.value.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                n.attr in ("shape", "dtype", "reshape", "broadcast_to"):
            out.add(n.value.id)
        elif isinstance(n, ast.Call) and _call_of(n, "nl") in ("load", "store"):
            for a in n.args[:1]:
                if isinstance(a, ast.Name):
                    out.add(a.id)
    return out & set(params)


IMPORT_MAP = {"neuronxcc.nki": "nki", "neuronxcc.nki.language": "nki.language", "neuronxcc.nki.isa": "nki.isa",
              "neuronxcc.nki.typing": "nki.typing"}


class Porter:
    def __init__(self, source: str):
        self.src = source
        self.rules: dict = {}
        self.unported: list = []
        self.names: set = set()
        self.replace: dict = {}  # first line -> (last line, indent, new lines)
        self.bound: set = set()  # nl / nisa bound by the ported imports
        self.last_import = 0  # last line of an NKI import

    def fresh(self, base: str) -> str:
        """A name the source does not use: base_p, base_p2, ..."""
        i = 1
        while True:
            n = f"{base}_p" if i == 1 else f"{base}_p{i}"
            if n not in self.names:
                self.names.add(n)
                return n
            i += 1

    def note(self, e: Unported):
        self.unported.append({"line": e.line, "construct": e.construct, "why": e.why})

    def run(self) -> dict:
        try:
            tree = ast.parse(self.src)
        except SyntaxError as e:
            raise PortError(f"line {e.lineno}: syntax error: {e.msg}", e.lineno) from None
        from ..generations import of_source
        gen = of_source(self.src, tree)
        if gen["mixed"]:
            imp = gen["imports"]
            raise PortError(f"the kernel mixes NKI generations (it imports {imp['classic']} and {imp['current']}): "
                            f"the porter takes a classic kernel (neuronxcc.nki) only")
        if gen["generation"] == "current":
            raise PortError(f"the kernel is already written against the current API (it imports "
                            f"{gen['imports']['current']}); there is nothing to port (send it as 'candidate' to "
                            f"check it against the original)")
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
                     {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
        has_import = False
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                has_import |= self.port_import(node)
            elif isinstance(node, ast.FunctionDef):
                self.port_function(node)
            elif any(isinstance(n, ast.Call) and (_call_of(n, "nl") or _call_of(n, "nisa")) for n in ast.walk(node)):
                self.note(Unported(node, U(node).splitlines()[0], "module-level NKI code has no porting rule"))
        if self.unported:
            return {"ok": False, "kernel": None, "rules": list(self.rules), "unported": self.unported}
        missing = [f"import nki.{m} as {a}" for m, a in (("language", "nl"), ("isa", "nisa")) if a not in self.bound]
        if has_import and missing:
            # the port calls nisa.* (and nl.*) even where the original did not import them
            end, col, new = self.replace[max(k for k in self.replace if k <= self.last_import)]
            self.replace[max(k for k in self.replace if k <= self.last_import)] = (end, col, new + missing)
        text = self.splice()
        if not has_import:
            text = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n" + text
            self.rules.setdefault("imports", None)
        text = self.drop_unused_numpy(text)
        ast.parse(text)  # the port must itself parse
        return {"ok": True, "kernel": text, "rules": list(self.rules), "unported": []}

    def port_import(self, node) -> bool:
        lines = []
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in IMPORT_MAP:
                    new = IMPORT_MAP[a.name]
                    alias = a.asname
                    lines.append(f"import {new}" + (f" as {alias}" if alias and alias != new else ""))
                elif a.name.startswith("neuronxcc"):
                    self.note(Unported(node, f"import {a.name}", "no current counterpart of this module"))
                else:
                    lines.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
        else:
            mod = node.module or ""
            if mod == "neuronxcc" and all(a.name == "nki" for a in node.names):
                lines.append("import nki" + (f" as {node.names[0].asname}" if node.names[0].asname else ""))
            elif mod in IMPORT_MAP:
                for a in node.names:
                    full = f"{mod}.{a.name}"
                    if full in IMPORT_MAP:
                        lines.append(f"import {IMPORT_MAP[full]} as {a.asname or a.name}")
                    else:
                        lines.append(f"from {IMPORT_MAP[mod]} import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            elif mod.startswith("neuronxcc"):
                self.note(Unported(node, f"from {mod} import ...", "no current counterpart of this module"))
            else:
                return False
        for ln in lines:
            # the rules read and write nl.* / nisa.*: a kernel binding the NKI modules to other names is not guessed at
            for mod, alias in (("nki.language", "nl"), ("nki.isa", "nisa")):
                if ln.startswith(f"import {mod} as ") and ln.split(" as ")[1] != alias:
                    self.note(Unported(node, ln.replace("import nki", "import neuronxcc.nki"),
                                       f"the porter's rules expect {mod} bound as {alias}; rename the alias first"))
            if ln.startswith("import nki.language as nl"):
                self.bound.add("nl")
            if ln.startswith("import nki.isa as nisa"):
                self.bound.add("nisa")
        if any("nki" in ln for ln in lines):
            self.last_import = max(self.last_import, node.end_lineno)
            self.rules.setdefault("imports", None)
            self.replace[node.lineno] = (node.end_lineno, node.col_offset, lines)
            return True
        return False

    def port_function(self, fn: ast.FunctionDef):
        uses_nki = any(isinstance(n, ast.Call) and (_call_of(n, "nl") or _call_of(n, "nisa")) for n in ast.walk(fn))
        for d in fn.decorator_list:
            c = d.func if isinstance(d, ast.Call) else d
            if _is_attr(c, "nki"):
                if c.attr != "jit":
                    self.note(Unported(d, f"@nki.{c.attr}", f"@nki.{c.attr} is classic-only; the current API has "
                                                            f"@nki.jit and nki.simulate(kernel)"))
                    continue
                self.rules.setdefault("jit_decorator", None)
                if isinstance(d, ast.Call):
                    keep = [k for k in d.keywords if k.arg != "mode"]
                    new = "@nki.jit" + (f"({', '.join(U(k) for k in keep)})" if keep else "")
                    self.replace[d.lineno] = (d.end_lineno, d.col_offset - 1, [new])
        if not uses_nki:
            return
        k = _Kernel(self, fn)
        self.body(k, fn.body)

    def body(self, k: _Kernel, stmts):
        for s in stmts:
            try:
                lines = k.stmt(s)
            except Unported as e:
                if e.line is None:
                    e.line = s.lineno
                self.note(e)
                continue
            if lines is not None:
                end = s.end_lineno if not hasattr(s, "body") else s.body[0].lineno - 1
                self.replace[s.lineno] = (end, s.col_offset, lines)
            for attr in ("body", "orelse"):
                sub = getattr(s, attr, None)
                if sub and isinstance(s, (ast.For, ast.While, ast.If, ast.With)):
                    self.body(k, sub)

    def splice(self) -> str:
        lines = self.src.splitlines()
        comments = _trailing_comments(self.src)
        out, i = [], 0
        while i < len(lines):
            ln = i + 1
            if ln in self.replace:
                end, col, new = self.replace[ln]
                pad = " " * col
                for j in range(ln, end + 1):
                    if j in comments:
                        out.append(pad + comments[j])
                out += [pad + x for x in new]
                i = end
                continue
            out.append(lines[i])
            i += 1
        return "\n".join(out) + "\n"

    @staticmethod
    def drop_unused_numpy(text: str) -> str:
        tree = ast.parse(text)
        used = any(isinstance(n, ast.Name) and n.id == "np" for n in ast.walk(tree))
        if used:
            return text
        keep = [ln for ln in text.splitlines() if ln.strip() not in ("import numpy as np",)]
        return "\n".join(keep) + "\n"


def _trailing_comments(src: str) -> dict:
    """line -> `# comment` for comments after code on that line (kept above a rewritten statement)."""
    out = {}
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    code_lines = set()
    for t in toks:
        if t.type == tokenize.COMMENT:
            if t.start[0] in code_lines:
                out[t.start[0]] = t.string
        elif t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
            code_lines.add(t.start[0])
    return out


def port_source(source: str) -> dict:
    """{"ok": bool, "kernel": current source | None, "rules": [names], "unported": [{line, construct, why}]}.
    Raises PortError for a kernel that is not classic NKI or does not parse."""
    return Porter(source).run()
