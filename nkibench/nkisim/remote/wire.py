"""The messages between the kernel's process and the nkisim server: one JSON object per line.

Values are plain JSON where JSON can say them; everything else is a one-key object whose key starts with "$":
  {"$t": [...]} tuple, {"$l": [...]} list, {"$d": [[k, v], ...]} dict, {"$s": [start, stop, step]} slice,
  {"$e": 0} Ellipsis, {"$f": "nan" | "inf" | "-inf"} a non-finite float, {"$h": n} a handle (an object that stays
  in the server), {"$cb": n} a function of the kernel's (the server calls it back), {"$np": "float32"} a numpy
  dtype or scalar type, {"$npf": "add"} a numpy function, {"$py": "float"} int, float or bool as a type, {"$nps": ["float32", value]} a numpy scalar,
  {"$a": [dtype, shape, base64]} a numpy array (kernel to server only, for constants the kernel builds).
No pickles, and nothing the receiver runs: a decoder only rebuilds these.
"""
from __future__ import annotations

import base64
import json
import math
import os

MAX_LINE = 64 * 1024 * 1024  # a constant array the kernel builds may be large; a line above this is refused
MAX_DEPTH = 32


class WireError(ValueError):
    """A message that is not what this module writes."""


class Channel:
    """Lines over a pair of pipe file descriptors."""

    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd
        self.buf = bytearray()

    def send(self, obj) -> None:
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            n = os.write(self.wfd, view)
            view = view[n:]

    def recv(self):
        """The next message, or None at end of stream."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 1]
                try:
                    msg = json.loads(line)
                except ValueError as e:
                    raise WireError(f"malformed message: {e}") from None
                if not isinstance(msg, dict):
                    raise WireError("a message must be a JSON object")
                return msg
            if len(self.buf) > MAX_LINE:
                raise WireError(f"a message longer than {MAX_LINE} bytes")
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk

    def close(self):
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass


def float_value(x: float):
    if math.isfinite(x):
        return x
    return {"$f": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def float_of(tag: str) -> float:
    if tag not in ("nan", "inf", "-inf"):
        raise WireError(f"unknown float {tag!r}")
    return float(tag)


def array_value(a) -> dict:
    import numpy as np
    a = np.ascontiguousarray(a)
    if a.dtype.kind not in "biuf" or a.dtype.itemsize > 8:
        raise TypeError(f"an array of dtype {a.dtype} cannot be passed to an NKI call")
    return {"$a": [a.dtype.str, list(a.shape), base64.b64encode(a.tobytes()).decode("ascii")]}


def array_of(spec):
    import numpy as np
    if not (isinstance(spec, list) and len(spec) == 3 and isinstance(spec[0], str) and isinstance(spec[1], list)
            and isinstance(spec[2], str)):
        raise WireError("malformed array")
    dt = np.dtype(spec[0])
    if dt.kind not in "biuf" or dt.hasobject:
        raise WireError(f"an array of dtype {dt} is not accepted")
    shape = tuple(spec[1])
    if not all(isinstance(s, int) and 0 <= s < 2 ** 31 for s in shape) or len(shape) > 8:
        raise WireError("malformed array shape")
    raw = base64.b64decode(spec[2].encode("ascii"), validate=True)
    if len(raw) != int(np.prod(shape, dtype=np.int64)) * dt.itemsize:
        raise WireError("an array's data does not match its shape")
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def numpy_type_name(v):
    """The numpy dtype name of a dtype or scalar type, else None."""
    try:
        import numpy as np
    except ImportError:
        return None
    if isinstance(v, np.dtype):
        return v.name if v.kind in "biufc" else None
    if isinstance(v, type) and issubclass(v, np.generic) and v is not np.generic:
        try:
            return np.dtype(v).name
        except TypeError:
            return None
    return None


def compound(v, item, exact: bool):
    """A tuple, list, dict, slice or Ellipsis as its tagged value, each element through item; None for anything
    else. exact: those types only, not their subclasses (the server hands out an NKI object that subclasses tuple,
    nl.mgrid's grid, as a handle with its attributes)."""
    kind = type(v) if exact else next((t for t in (tuple, list, dict, slice) if isinstance(v, t)), None)
    if kind is tuple:
        return {"$t": [item(x) for x in v]}
    if kind is list:
        return {"$l": [item(x) for x in v]}
    if kind is dict:
        return {"$d": [[item(k), item(x)] for k, x in v.items()]}
    if kind is slice:
        return {"$s": [item(v.start), item(v.stop), item(v.step)]}
    if v is Ellipsis:
        return {"$e": 0}
    return None


def numpy_scalar(v):
    """A numpy bool, integer or float scalar as its tagged value, else None."""
    import numpy as np
    if not isinstance(v, np.generic):
        return None
    if isinstance(v, np.bool_):
        return {"$nps": ["bool", bool(v)]}
    if v.dtype.kind in "iu":
        return {"$nps": [v.dtype.name, int(v)]}
    if v.dtype.kind == "f":
        return {"$nps": [v.dtype.name, float_value(float(v))]}
    return None
