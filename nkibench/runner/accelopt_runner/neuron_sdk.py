"""Detecting the Neuron SDK on this host (no device access, no heavy imports): the neuronxcc package, its
version, the NeuronCore count, and the tools (neuron-profile, neuron-ls) under PATH or /opt/aws/neuron/bin."""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import subprocess

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


def detect(refresh: bool = False) -> dict:
    """{"available": bool, "reason": str, "neuronx_cc": version, "neuron_cores": n, ...}."""
    if "v" in _cache and not refresh:
        return _cache["v"]
    spec = None
    try:
        spec = importlib.util.find_spec("neuronxcc")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        info = {"available": False, "reason": "the Python package neuronxcc (neuronx-cc) is not importable by this "
                                              "interpreter; activate a Neuron venv (e.g. /opt/aws_neuronx_venv_*) "
                                              "and point the host's runner interpreter at its python3"}
    else:
        cores, how = _core_count()
        info = {"available": True, "reason": "", "neuronx_cc": _version(), "neuron_cores": cores,
                "cores_from": how, "neuron_profile": which("neuron-profile"), "neuron_bench": which("neuron-bench"),
                "package": os.path.dirname(spec.origin) if spec.origin else None}
    _cache["v"] = info
    return info
