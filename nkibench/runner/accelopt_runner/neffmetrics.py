"""What the Neuron tools say of one traced execution of a NEFF: the summary metrics (neuron-profile's summary-json
on the classic SDK, Neuron Explorer's Summary table on a current one) and why the per-instruction profile is not
read. Used by the judge's NEFF step (neffjudge.py) and by a host's one-process route (backend_neuron.py); it runs
the tools on files and never imports the kernel.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess

from . import neuron_sdk


def read(current: bool, neff: str, ntff: str, workdir: str, warnings: list) -> dict:
    """The metrics of the traced execution ntff of neff ({} when the tool or a file is missing); a note on how they
    were converted goes to warnings (once)."""
    if not os.path.isfile(neff) or not os.path.isfile(ntff):
        return {}
    explorer = neuron_sdk.which("neuron-explorer")
    profiler = neuron_sdk.which("neuron-profile")
    if current or not profiler:
        row = explorer_summary(explorer, neff, ntff, workdir) if explorer else None
        if not row:
            return {}
        m, note = explorer_metrics(row)
        if note and note not in warnings:
            warnings.append(note)
        return m
    try:
        p = subprocess.run([profiler, "view", "--output-format", "summary-json", "-n", neff, "-s", ntff],
                           cwd=workdir, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
        return summary_metrics(json.loads(p.stdout.decode("utf-8", errors="replace") or "null"))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def profile(current: bool) -> dict:
    if current:
        return {"source": "neuron-explorer", "available": False, "missing": dict(EXPLORER_MISSING)}
    return unavailable_profile()


def explorer_summary(tool: str, neff: str, ntff: str, workdir: str):
    """The Summary row of `neuron-explorer view`: Parquet when pyarrow is there, else its JSON output (supported
    through SDK 2.33)."""
    try:
        import pyarrow.parquet as pq
    except Exception:  # noqa: BLE001 - no Parquet reader: the JSON output
        pq = None
    try:
        if pq is not None:
            out = os.path.join(workdir, "explorer")
            subprocess.run([tool, "view", "-n", neff, "-s", ntff, "--output-file", out],
                           cwd=workdir, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
            files = sorted(glob.glob(os.path.join(out, "**", "Summary*.parquet"), recursive=True))
            if files:
                rows = pq.read_table(files[0]).to_pylist()
                return rows[0] if rows else None
        out = os.path.join(workdir, "explorer.json")
        p = subprocess.run([tool, "view", "-n", neff, "-s", ntff, "--output-format", "json",
                            "--output-file", out], cwd=workdir, capture_output=True, timeout=600,
                           stdin=subprocess.DEVNULL)
        paths = [out] if os.path.isfile(out) else []
        paths += sorted(glob.glob(os.path.join(out if os.path.isdir(out) else workdir,
                                               "device_profile_model_*.json")))
        for path in paths:
            with open(path, encoding="utf-8") as f:
                row = find_summary(json.load(f))
            if row:
                return row
        if p.stdout.strip():
            return find_summary(json.loads(p.stdout.decode("utf-8", errors="replace")))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    return None


# Why the neuron backend's profile is empty. We parse only neuron-profile's summary-json (passed on as `metrics`);
# every field below needs the per-instruction events of profile.ntff, which the runner does not read yet and which
# we could not check against a real device here (no Trainium hardware).
PROFILE_MISSING = {
    "instruction_count": "the runner reads only neuron-profile's summary-json; counting every instruction on all "
                         "engines and DMA queues needs the per-instruction events of profile.ntff, which it does "
                         "not parse",
    "engine_busy_ns": "engine_busy_ns is the sum of each engine's instruction durations (for dma, over all "
                      "queues); the summary-json's *_active_time metrics (passed on in metrics) are neuron-profile's "
                      "own activity measure, not that sum, and the sum needs the per-instruction start and end "
                      "times of profile.ntff, which the runner does not parse",
    "line_costs": "needs each instruction's duration, engine, bytes and the kernel source line that issued it; the "
                  "summary-json has no per-line data and the runner does not parse profile.ntff's "
                  "per-instruction events or map them back to NKI source lines",
    "timeline": "needs profile.ntff's per-instruction events (engine or DMA queue, opcode, start, duration); the "
                "runner reads only neuron-profile's summary-json, not the instruction trace",
}


def unavailable_profile() -> dict:
    return {"source": "neuron-profile", "available": False, "missing": dict(PROFILE_MISSING)}


def summary_metrics(data) -> dict:
    """The numeric fields of the first summary entry of a neuron-profile summary-json document."""
    s = data
    if isinstance(s, dict) and "summary" in s:
        s = s["summary"]
    if isinstance(s, list):
        s = s[0] if s else {}
    if isinstance(s, dict) and "total_time" not in s and s and isinstance(next(iter(s.values())), dict):
        s = next(iter(s.values()))  # {"<neff name>": {...}}: the first top-level entry
    out = {}
    if isinstance(s, dict):
        for k, v in s.items():
            if isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                out[k] = v
            elif isinstance(v, str):
                try:
                    out[k] = float(v)
                except ValueError:
                    pass
    return out


# The current route reads only Neuron Explorer's Summary table; these need its per-instruction tables.
EXPLORER_MISSING = {
    "instruction_count": "the runner reads only Neuron Explorer's Summary table; counting every instruction needs its "
                         "Instruction and DmaPacket tables (Parquet), which it does not read",
    "engine_busy_ns": "engine_busy_ns is the sum of each engine's instruction durations; the Summary's "
                      "*_engine_instruction_time is that sum per engine but not for the DMA queues, and the runner "
                      "does not read the Instruction/DmaPacket tables that would give all of them",
    "line_costs": "needs each instruction's NKI source line (Neuron Explorer's KernelInstructions table, in a NEFF "
                  "compiled with NKI_DEBUG_INFO), which the runner does not read",
    "timeline": "needs Neuron Explorer's Instruction and DmaPacket tables (per-instruction events), which the runner "
                "does not read",
}


def find_summary(data, depth: int = 0):
    """The first summary row in a Neuron Explorer JSON document: a `summary`/`Summary` entry (an object, or a list
    whose first item is one), else the first object holding total_time. The JSON layout of a device profile is not
    documented (?); the fields are those of the Summary table (Profile Parquet Schema Reference)."""
    if depth > 6:
        return None
    if isinstance(data, dict):
        for key in ("summary", "Summary"):
            v = data.get(key)
            if isinstance(v, list) and v and isinstance(v[0], dict):
                return v[0]
            if isinstance(v, dict) and v:
                return v
        if "total_time" in data:
            return data
        for v in data.values():
            r = find_summary(v, depth + 1)
            if r:
                return r
    elif isinstance(data, list):
        for v in data[:50]:
            r = find_summary(v, depth + 1)
            if r:
                return r
    return None


def explorer_metrics(row: dict):
    """Neuron Explorer's Summary row → the protocol's metrics (neuron-profile's names, `_percent` as fractions 0–1).
    Returns (metrics, warning or None).

    The Summary table's fields carry neuron-profile's names (total_time and *_active_time in seconds, *_bytes,
    *_flops, *_count, *_percent), so the names pass through. Its `_percent` fields have the unit "percent" and the
    schema does not say whether 50 % is 50 or 0.5 (?): when any `_percent` value exceeds 1 the row is taken as
    0–100 and every `_percent` field is divided by 100 (a warning says so); otherwise they are already fractions.
    Non-numeric fields (names, ids) are dropped, numeric strings are parsed."""
    m = summary_metrics(row)
    pct = [k for k in m if k.endswith("_percent")]
    note = None
    if any(float(m[k]) > 1.0 + 1e-9 for k in pct):
        for k in pct:
            m[k] = float(m[k]) / 100.0
        note = ("metrics: Neuron Explorer reported its _percent metrics on a 0-100 scale; converted to fractions "
                "0-1 like neuron-profile's")
    return m, note