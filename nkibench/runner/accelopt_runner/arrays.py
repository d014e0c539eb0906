"""Arrays handed between the processes of one evaluation as data: `<stem>.npz` (numpy arrays, never pickles) and
`<stem>.json` saying, position by position, which array or which plain JSON value (an int, a shape) went there and
whether the whole was one value or a tuple. Whatever the other side wrote, reading it back can only give arrays and
plain values, or an ArrayError."""
from __future__ import annotations

import json
import os

import numpy as np

MAX_VALUES = 64


class ArrayError(ValueError):
    pass


def save(stem: str, values, single: bool = False):
    """values: a list (or tuple) of numpy arrays and plain JSON values; single: they are one value, not a tuple."""
    arrays, layout = {}, []
    for i, v in enumerate(values):
        if isinstance(v, np.ndarray) or isinstance(v, np.generic):
            arrays[f"a{i}"] = np.asarray(v)
            layout.append({"array": f"a{i}"})
        else:
            layout.append({"value": v})
    np.savez(stem + ".npz", **arrays)
    with open(stem + ".json", "w", encoding="utf-8") as f:
        json.dump({"single": bool(single), "layout": layout}, f)


def load(stem: str) -> tuple:
    """(values as a list, single) from save(); ArrayError when the files are missing, not regular or malformed."""
    for ext in (".npz", ".json"):
        path = stem + ext
        if not os.path.isfile(path) or os.path.islink(path):
            raise ArrayError(f"{os.path.basename(path)} is missing")
    try:
        with open(stem + ".json", encoding="utf-8") as f:
            meta = json.load(f)
        layout = meta["layout"]
        if not isinstance(layout, list) or len(layout) > MAX_VALUES:
            raise ArrayError("its layout is not a list of at most 64 entries")
        with np.load(stem + ".npz", allow_pickle=False) as z:
            out = []
            for entry in layout:
                if "array" in entry:
                    out.append(np.array(z[str(entry["array"])]))
                elif isinstance(entry.get("value"), (int, float, str, bool, type(None), list)):
                    out.append(entry["value"])
                else:
                    raise ArrayError(f"an entry of an unknown kind: {str(entry)[:80]}")
        return out, bool(meta.get("single"))
    except ArrayError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ArrayError(f"{os.path.basename(stem)} cannot be read: {type(e).__name__}: {e}") from None
