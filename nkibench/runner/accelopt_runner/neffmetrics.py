"""What the Neuron tools say of one traced execution of a NEFF: the summary metrics (neuron-profile's summary-json
on the classic SDK, Neuron Explorer's Summary table on a current one) and the per-instruction profile (Neuron
Explorer's Instruction and DMA tables, explorerprofile.py; on the classic SDK, why it is not read). Used by the judge's NEFF step (neffjudge.py) and by a host's one-process route (backend_neuron.py); it runs
the tools on files and never imports the kernel.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess

from . import explorerprofile, neuron_sdk


def read(current: bool, neff: str, ntff: str, workdir: str, warnings: list) -> dict:
    """The metrics of the traced execution ntff of neff ({} when the tool or a file is missing); a note on how they
    were converted goes to warnings (once)."""
    if not os.path.isfile(neff) or not os.path.isfile(ntff):
        return {}
    explorer = neuron_sdk.which("neuron-explorer")
    profiler = neuron_sdk.which("neuron-profile")
    if current or not profiler:
        row = explorer_tables(explorer, neff, ntff, workdir).get("Summary") if explorer else None
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


def profile(current: bool, neff: str = "", ntff: str = "", workdir: str = "", kernel: tuple = ("kernel.py", 0, 0),
            timeline_cap: int = 0, total_time_ns: float | None = None) -> dict:
    """The per-instruction profile: on the current route from Neuron Explorer's Instruction and DMA tables
    (explorerprofile.py), else unavailable with the reason per field. kernel: (the kernel's file name as compiled,
    the header lines before the kernel as sent, the kernel's line count), to map NKI source locations."""
    if not current:
        return unavailable_profile()
    explorer = neuron_sdk.which("neuron-explorer")
    tables = explorer_tables(explorer, neff, ntff, workdir) if explorer and os.path.isfile(ntff) else {}
    if tables.get("Instruction"):
        return explorerprofile.build(tables, kernel[0], kernel[1], kernel[2] or (1 << 30), timeline_cap,
                                     tables.get("format") or "parquet", total_time_ns,
                                     explorer_metrics(tables.get("Summary") or {})[0])
    return {"source": "neuron-explorer", "available": False,
            "missing": explorer_missing(tables.get("format"), explorer is not None)}


_TABLES_CACHE: dict = {}


def explorer_tables(tool: str, neff: str, ntff: str, workdir: str) -> dict:
    """Neuron Explorer's tables of one traced execution, run once per trace (the metrics and the profile both read
    them): {"format": "parquet" | "json" | None, "Summary": row, "Instruction": rows, ...}."""
    try:
        st = os.stat(ntff)
        key = (os.path.abspath(ntff), st.st_mtime_ns, st.st_size)
    except OSError:
        return {}
    if key not in _TABLES_CACHE:
        _TABLES_CACHE.clear()
        _TABLES_CACHE[key] = _explorer_view(tool, neff, ntff, workdir)
    return _TABLES_CACHE[key]


def _explorer_view(tool: str, neff: str, ntff: str, workdir: str) -> dict:
    """Parquet when pyarrow is there, else the full-profile JSON (supported through SDK 2.33)."""
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
                tables = explorerprofile.read_parquet(out) or {}
                tables.update(format="parquet", Summary=rows[0] if rows else None)
                return tables
        out = os.path.join(workdir, "explorer.json")
        p = subprocess.run([tool, "view", "-n", neff, "-s", ntff, "--output-format", "json",
                            "--output-file", out], cwd=workdir, capture_output=True, timeout=600,
                           stdin=subprocess.DEVNULL)
        paths = [out] if os.path.isfile(out) else []
        paths += sorted(glob.glob(os.path.join(out if os.path.isdir(out) else workdir,
                                               "device_profile_model_*.json")))
        docs = []
        for path in paths:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        if not docs and p.stdout.strip():
            docs.append(json.loads(p.stdout.decode("utf-8", errors="replace")))
        for doc in docs:
            row = find_summary(doc)
            if row:
                tables = explorerprofile.read_json(doc) or {}
                tables.update(format="json", Summary=row)
                return tables
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}
    return {}


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


def explorer_missing(fmt, have_tool: bool) -> dict:
    """Why the current route has no per-instruction profile: each field needs Neuron Explorer's Instruction table
    (and DmaPacketAggregated for DMA), and this host could not get it."""
    if not have_tool:
        why = "neuron-explorer is not on this host's PATH (the Neuron SDK's aws-neuronx-tools provides it)"
    elif fmt == "json":
        why = ("this host has no pyarrow, so the runner asked neuron-explorer for its full-profile JSON, and that JSON "
               "held no Instruction rows (Neuron SDK 2.34+ no longer maintains that output)")
    else:
        why = ("neuron-explorer wrote no Instruction table for this trace (without pyarrow on the host the runner can "
               "only ask for the full-profile JSON, deprecated after SDK 2.33)")
    fix = ("; install pyarrow in the host's Python, or export Instruction.csv and DmaPacketAggregated.csv from the "
           "Explorer UI's Device Trace Viewer and run `accelopt profile import`")
    return {"instruction_count": "needs every instruction: " + why + fix,
            "engine_busy_ns": "needs each instruction's engine and duration: " + why + fix,
            "line_costs": "needs each instruction's nki_source_location (a NEFF compiled with NKI_DEBUG_INFO): "
                          + why + fix,
            "timeline": "needs the per-instruction events: " + why + fix}


def find_summary(data):
    """The first summary row in a Neuron Explorer JSON document: a `summary`/`Summary` entry (an object, or a list
    whose first item is one), else the first object holding total_time. The fields are those of the Summary table
    (Profile Parquet Schema Reference)."""
    def pick(obj: dict):
        for key in ("summary", "Summary"):
            v = obj.get(key)
            if isinstance(v, list) and v and isinstance(v[0], dict):
                return v[0]
            if isinstance(v, dict) and v:
                return v
        return obj if "total_time" in obj else None
    return explorerprofile.find_first(data, pick)


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