"""Parsing one request line of the JSON-lines protocol, refusing hostile input with a message that says what was
wrong instead of failing somewhere deeper (../README.md, Protocol).

A line is refused when it is not valid UTF-8, nests arrays/objects deeper than MAX_DEPTH (checked by a scan that
does not recurse, before json parses it: a 2 KB line of 990 brackets made json.loads raise RecursionError and took
the server down), is not JSON, uses NaN/Infinity (not JSON; Python's json accepts them), holds a number out of
range (1e999 parses to inf; integers are limited to 64-bit), repeats a key in one object (json silently keeps the
last), or is not an object at the top level.
"""
from __future__ import annotations

import json
import re

import numpy as np

MAX_DEPTH = 64  # an eval request needs 4 levels (request > task > roofline or parameters > value)
INT_LIMIT = 2 ** 63  # integer literals must lie in [-2^63, 2^63)

# A JSON string, or the rest of the line from an unterminated quote. Always matches where it starts (the closing
# quote is optional), so the scan is linear: nothing to backtrack.
_STRING = re.compile(rb'"(?:[^"\\]+|\\.)*"?', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class ProtocolError(ValueError):
    pass


def nesting_depth(data: bytes) -> int:
    """How deep arrays and objects nest in data, counting brackets outside strings; no recursion, linear time."""
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    a = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((a == ord("[")) | (a == ord("{")), 1, -1).astype(np.int64)
    return int(np.cumsum(steps).max())


def _constant(name):
    raise ProtocolError(f"{name} is not a JSON number (send a finite number, or null)")


def _float(text):
    v = float(text)
    if v != v or v in (float("inf"), float("-inf")):
        raise ProtocolError(f"the number {_short(text)} is out of range (larger than a 64-bit float holds)")
    return v


def _int(text):
    digits = len(text.lstrip("-"))
    if digits > 19:
        raise ProtocolError(f"the integer {_short(text)} ({digits} digits) is out of range (integers must lie "
                            f"in [-2^63, 2^63))")
    v = int(text)
    if not -INT_LIMIT <= v < INT_LIMIT:
        raise ProtocolError(f"the integer {text} is out of range (integers must lie in [-2^63, 2^63))")
    return v


def _object(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ProtocolError(f"the key {_short(repr(k))} appears twice in one object (each key once)")
        obj[k] = v
    return obj


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + f"… ({len(text)} characters)"


def parse(line: bytes) -> dict:
    """The request object of one line. Raises ProtocolError saying what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolError(f"the message is not valid UTF-8 (byte 0x{line[e.start]:02x} at offset {e.start}: "
                            f"{e.reason}); send JSON encoded as UTF-8") from None
    depth = nesting_depth(line)
    if depth > MAX_DEPTH:
        raise ProtocolError(f"the message nests arrays/objects {depth} levels deep; the runner accepts at most "
                            f"{MAX_DEPTH} (an eval request needs 4)")
    try:
        obj = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int,
                         object_pairs_hook=_object)
    except ProtocolError as e:
        raise ProtocolError(f"malformed JSON message: {e}") from None
    except RecursionError:  # the depth scan should have caught it; never let it take the server down
        raise ProtocolError(f"malformed JSON message: nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as e:  # json.JSONDecodeError, and int() past Python's digit limit
        raise ProtocolError(f"malformed JSON message: {e}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a message must be a JSON object ({{\"op\": ...}}), got a JSON "
                            f"{_JSON_TYPES.get(type(obj), type(obj).__name__)}")
    return obj


_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}
