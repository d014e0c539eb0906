"""Detecting the Neuron SDK on this host (no device access, no heavy imports in the serving process): the neuronxcc
package and its version, the NKI generations it offers (classic `neuronxcc.nki`, current `nki`), the SDK release
they imply, the NeuronCore count, and the tools (neuron-profile, neuron-explorer, neuron-ls) under PATH or
/opt/aws/neuron/bin.

Which generations a host accepts (../README.md, *Neuron SDK generations*), from AWS's release notes:
  * `nki` (current NKI) exists from SDK 2.27 on; its version names the release (NKI_RELEASES);
  * `neuronxcc.nki` (classic) is supported up to 2.27, unsupported but still importable in 2.28 and 2.29, and a
    compile error to import from 2.30 on.
So: current when the `nki` package is importable; classic when `neuronxcc.nki` is there and the release is before
2.30 (2.28/2.29 with a note that AWS no longer supports it), or when there is no `nki` package at all (SDK <= 2.26).
When `nki` is there but its version names no known release, a short child process tries `import neuronxcc.nki`."""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import re
import subprocess
import sys

TOOLS_DIR = "/opt/aws/neuron/bin"
_cache: dict = {}


def which(tool: str):
    p = shutil.which(tool)
    if p:
        return p
    c = os.path.join(TOOLS_DIR, tool)
    return c if os.access(c, os.X_OK) else None


def _version():
    try:
        from importlib import metadata
        return metadata.version("neuronx-cc")
    except Exception:  # noqa: BLE001 - PackageNotFoundError or a broken install
        pass
    try:
        import neuronxcc  # the top-level package is light; neuronxcc.nki (slow) is only imported by the child
        return str(getattr(neuronxcc, "__version__", "unknown"))
    except Exception as e:  # noqa: BLE001
        return f"unknown ({type(e).__name__})"


def _cli_version():
    """`neuronx-cc --version`'s version number, or None."""
    tool = which("neuronx-cc")
    if not tool:
        return None
    try:
        p = subprocess.run([tool, "--version"], capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        m = re.search(r"(\d+\.\d+(?:\.\d+)*(?:\+\w+)?)", p.stdout.decode("utf-8", errors="replace") +
                      p.stderr.decode("utf-8", errors="replace"))
        return m.group(1) if m else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _core_count():
    ls = which("neuron-ls")
    if ls:
        try:
            p = subprocess.run([ls, "--json-output"], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
            data = json.loads(p.stdout.decode() or "null")
            if isinstance(data, dict):
                data = data.get("neuron_devices") or data.get("devices") or [data]
            if isinstance(data, list):
                n = sum(int(d.get("nc_count", d.get("neuroncore_count", 0)) or 0) for d in data
                        if isinstance(d, dict))
                if n:
                    return n, "neuron-ls"
        except (OSError, ValueError, subprocess.TimeoutExpired, TypeError):
            pass
    total = 0
    for f in glob.glob("/sys/class/neuron_device/neuron*/core_count"):
        try:
            with open(f) as fh:
                total += int(fh.read().strip())
        except (OSError, ValueError):
            pass
    if total:
        return total, "sysfs"
    devs = glob.glob("/dev/neuron[0-9]*")
    if devs:
        return 2 * len(devs), "/dev/neuron* x 2 (trn1 assumption)"
    return 0, "no Neuron device found"


# NKI component version -> Neuron SDK release. Verified against AWS's component release index: 0.3.0 in 2.29, 0.4.0
# in 2.30, 0.7.0 in 2.33; the others from the NKI release notes as collected in the reference notes (?).
NKI_RELEASES = {(0, 1): "2.27", (0, 2): "2.28", (0, 3): "2.29", (0, 4): "2.30", (0, 5): "2.31", (0, 6): "2.32",
                (0, 7): "2.33"}
CLASSIC_UNSUPPORTED = (2, 28)  # AWS: neuronxcc.nki no longer supported from 2.28
CLASSIC_ERROR = (2, 30)  # AWS: importing neuronxcc.nki is a compile error from 2.30


def _vtuple(v, n=3):
    m = re.match(r"\s*(\d+(?:\.\d+)*)", str(v or ""))
    if not m:
        return None
    t = tuple(int(x) for x in m.group(1).split("."))
    return t[:n]


def _find(name):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    except Exception:  # noqa: BLE001 - a package whose __init__ raises (neuronxcc.nki on SDK 2.30+)
        return None


_PROBE = r"""
import json, sys
out = {}
try:
    import nki
    out["nki_version"] = str(getattr(nki, "__version__", "") or "")
except Exception as e:
    out["nki_error"] = f"{type(e).__name__}: {e}"[:300]
if "--classic" in sys.argv:
    try:
        import neuronxcc.nki
        out["classic_import"] = "ok"
    except Exception as e:
        out["classic_import"] = f"{type(e).__name__}: {e}"[:300]
print(json.dumps(out))
"""


def _probe_child(classic: bool) -> dict:
    """Import `nki` (and, when asked, neuronxcc.nki) in a short child process, so the serving process never loads
    the NKI compiler. {} when the child fails."""
    try:
        env = dict(os.environ)  # the serving process's import path (it holds nkisim's folder, which a stand-in uses)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        p = subprocess.run([sys.executable, "-c", _PROBE] + (["--classic"] if classic else []), capture_output=True,
                           timeout=180, stdin=subprocess.DEVNULL, env=env)
        data = json.loads(p.stdout.decode("utf-8", errors="replace").strip().splitlines()[-1] or "{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return {}


def _nki_version():
    for dist in ("nki", "neuronx-nki"):  # the distribution's name is not documented (?): try both
        try:
            from importlib import metadata
            return metadata.version(dist), f"package metadata ({dist})"
        except Exception:  # noqa: BLE001
            pass
    d = _probe_child(False)
    if d.get("nki_version"):
        return d["nki_version"], "nki.__version__"
    return None, d.get("nki_error") or "nki.__version__ not found"


def release_of_nki(version):
    """The Neuron SDK release of an NKI version, e.g. "2.33"; ">2.33 (?)" beyond the table; None if unknown."""
    t = _vtuple(version, 2)
    if t is None:
        return None
    if t in NKI_RELEASES:
        return NKI_RELEASES[t]
    newest = max(NKI_RELEASES)
    if t > newest:
        return f">{NKI_RELEASES[newest]} (?)"
    return None


def _release_tuple(release):
    if not release:
        return None
    if release.startswith(">"):
        t = _vtuple(release[1:], 2)
        return (t[0], t[1] + 1) if t else None
    if release.startswith("<="):
        return _vtuple(release[2:], 2)
    return _vtuple(release, 2)


def generations(classic_present: bool, current_version, current_present: bool, release, classic_import=None):
    """(accepted generations, notes): the rules in this module's docstring."""
    gens, notes = [], {}
    rel = _release_tuple(release)
    if current_present:
        gens.append("current")
    if classic_present:
        if not current_present:
            gens.insert(0, "classic")
        elif rel is not None:
            if rel >= CLASSIC_ERROR:
                notes["classic"] = (f"Neuron SDK {release} refuses the classic neuronxcc.nki API: importing it is a "
                                    f"compile error since SDK 2.30")
            else:
                gens.insert(0, "classic")
                if rel >= CLASSIC_UNSUPPORTED:
                    notes["classic"] = (f"Neuron SDK {release} still imports neuronxcc.nki, but AWS no longer "
                                        f"supports it (since SDK 2.28); classic kernels run unsupported")
        elif classic_import == "ok":
            gens.insert(0, "classic")
            notes["classic"] = "the SDK release is unknown; neuronxcc.nki imports, so classic kernels are accepted"
        else:
            notes["classic"] = (f"the SDK release is unknown and import neuronxcc.nki failed: "
                                f"{classic_import or 'not tried'}")
    elif current_present:
        notes["classic"] = "no neuronxcc.nki on this host (Neuron SDK 2.28 and later no longer ship it)"
    if not current_present:
        notes["current"] = ("no `nki` package on this host: the current NKI API needs Neuron SDK 2.27 or later "
                            "(the NKI compiler)")
    return gens, notes


def nki_info() -> dict:
    """The NKI packages of this host, the SDK release they imply and the generations it accepts (hello's fields)."""
    classic_present = _find("neuronxcc.nki") is not None if _find("neuronxcc") is not None else False
    current_present = _find("nki") is not None
    version, version_from = (None, None)
    if current_present:
        version, version_from = _nki_version()
    if current_present:
        release = release_of_nki(version)
        release_from = f"nki {version} (NKI release table)" if release else None
    elif classic_present:
        release, release_from = "<=2.26", "neuronxcc.nki without the nki package (nki.* arrived in SDK 2.27)"
    else:
        release, release_from = None, None
    classic_import = None
    if classic_present and current_present and release is None:
        classic_import = _probe_child(True).get("classic_import")
    gens, notes = generations(classic_present, version, current_present, release, classic_import)
    return {"nki_classic": {"module": "neuronxcc.nki", "present": classic_present},
            "nki_current": {"module": "nki", "present": current_present, "version": version,
                            "version_from": version_from},
            "sdk_release": release, "sdk_release_from": release_from,
            "generations": gens, "generation_notes": notes}


def detect(refresh: bool = False) -> dict:
    """{"available": bool, "reason": str, "neuronx_cc": version, "neuron_cores": n, ...}."""
    if "v" in _cache and not refresh:
        return _cache["v"]
    spec = None
    try:
        spec = importlib.util.find_spec("neuronxcc")
    except (ImportError, ValueError):
        spec = None
    if spec is None and _find("nki") is None:
        info = {"available": False, "reason": "the Python package neuronxcc (neuronx-cc) is not importable by this "
                                              "interpreter; activate a Neuron venv (e.g. /opt/aws_neuronx_venv_*) "
                                              "and point the host's runner interpreter at its python3"}
    else:
        cores, how = _core_count()
        info = {"available": True, "reason": "", "neuronx_cc": _version(), "neuron_cores": cores,
                "cores_from": how, "neuron_profile": which("neuron-profile"), "neuron_bench": which("neuron-bench"),
                "neuron_explorer": which("neuron-explorer"), "nrtpy": _find("nrtpy") is not None,
                "package": os.path.dirname(spec.origin) if spec is not None and spec.origin else None}
        if spec is None:
            info["neuronx_cc"] = _cli_version() or "not installed"
        info.update(nki_info())
    _cache["v"] = info
    return info
