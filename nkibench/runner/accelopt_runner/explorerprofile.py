"""The protocol's `profile` (README, *Profile*) from Neuron Explorer's per-instruction tables of a device profile:
`Instruction` (one row per compute-engine instruction) and `DmaPacketAggregated` or `DmaPacket` (DMA transfers),
with the field names of the Profile Parquet Schema Reference (schema 7.x, Neuron SDK 2.31+). The rows come from
the Parquet tables (pyarrow), the full-profile JSON (SDKs through 2.33) or the CSV files the Explorer UI's
"Export to CSV" writes (standard library only: read_csv). Pure functions of the rows: no tool is run here.

What the tables cannot say is not invented: partitions and free sizes are not in them (0 in the timeline), an
instruction's NKI line needs a NEFF compiled with NKI_DEBUG_INFO (else it is line 0 and a note says so), and Sync
engine instructions (DMA triggers, semaphores) are counted but belong to none of the protocol's five engines.
"""
from __future__ import annotations

import csv
import json
import os
import re

ENGINES = ("tensor", "vector", "scalar", "gpsimd", "dma")
TABLES = ("Instruction", "DmaPacketAggregated", "DmaPacket", "Summary")
_LOCATION = re.compile(r"([^\s,\[\]\"']+):(\d+)")
# The Explorer's engine names (docs examples: "tensor", "Tensor") and the hardware's older ones.
_ENGINE_WORDS = (("tensor", "tensor"), ("pe", "tensor"), ("vector", "vector"), ("dve", "vector"),
                 ("scalar", "scalar"), ("act", "scalar"), ("gpsimd", "gpsimd"), ("pool", "gpsimd"))


class ExportError(Exception):
    """A file that is not what it should be: the message names the file, the row or column, and what to do."""


def engine_of(name) -> str | None:
    """One of the protocol's compute engines for an Explorer engine name, or None (Sync and anything unknown)."""
    word = re.sub(r"[^a-z]", "", str(name or "").lower())
    for prefix, engine in _ENGINE_WORDS:
        if word.startswith(prefix):
            return engine
    return None


def _int(row: dict, key: str, default=None):
    v = row.get(key)
    if v is None or v == "":
        return default
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return default


def source_line(location, kernel_file: str, offset: int, source_lines: int) -> int:
    """The kernel line (as sent, header taken off) of an nki_source_location: the first `file:line` naming the
    kernel's file; 0 when none does or the line is outside the kernel. The field is "a list of strings" (one
    instruction can come from several lines after fusion); its text form varies, so any `path:line` is taken."""
    if isinstance(location, (list, tuple)):
        location = " ".join(str(x) for x in location)
    base = os.path.basename(kernel_file)
    for path, line in _LOCATION.findall(str(location or "")):
        if os.path.basename(path) == base:
            n = int(line) - offset
            return n if 0 < n <= source_lines else 0
    return 0


def build(tables: dict, kernel_file: str, offset: int, source_lines: int, timeline_cap: int = 0,
          origin: str = "parquet", total_time_ns: float | None = None, summary: dict | None = None) -> dict:
    """The profile of the rows in `tables` ({"Instruction": [...], "DmaPacketAggregated" or "DmaPacket": [...]}).
    total_time_ns: the run's device time, when known, to say how much of it a CSV export covered; summary: the
    run's Summary metrics (seconds), whose `<engine>_engine_instruction_time` is the same sum of durations as
    engine_busy_ns, so a sampled export shows as a shortfall."""
    instrs = [r for r in tables.get("Instruction") or [] if _int(r, "start_ts") is not None]
    dma_table = "DmaPacketAggregated" if tables.get("DmaPacketAggregated") else "DmaPacket"
    dmas = [r for r in tables.get(dma_table) or [] if _int(r, "start_ts") is not None]
    notes = []
    lines_found = False
    by_start = {}
    events = []  # (start, end, unit, op, line, bytes)
    busy = {e: 0.0 for e in ENGINES}
    other = {}
    costs = {}

    def charge(line, engine, ns, nbytes):
        row = costs.setdefault(line, {"ns": {e: 0.0 for e in ENGINES}, "instructions": 0, "bytes": 0})
        if engine:
            row["ns"][engine] += ns
        row["instructions"] += 1
        row["bytes"] += nbytes

    for r in instrs:
        start = _int(r, "start_ts")
        end = _int(r, "end_ts", start)
        dur = _int(r, "duration_ns", end - start)
        engine = engine_of(r.get("engine") or r.get("timeline_track"))
        loc = r.get("nki_source_location")
        lines_found = lines_found or bool(loc)
        line = source_line(loc, kernel_file, offset, source_lines)
        nbytes = sum(_int(r, k, 0) for k in ("sbuf_read_bytes", "sbuf_write_bytes", "psum_read_bytes",
                                              "psum_write_bytes", "hbm_read_bytes", "hbm_write_bytes"))
        by_start.setdefault((_int(r, "pcore_idx", 0), start), line)
        unit = engine or str(r.get("engine") or "other").lower()
        if engine:
            busy[engine] += dur
        else:
            other[unit] = other.get(unit, 0.0) + dur
        charge(line, engine, dur, nbytes)
        events.append((start, start + dur, unit, str(r.get("opcode") or "").lower(), line, nbytes))
    for r in dmas:
        start = _int(r, "start_ts")
        end = _int(r, "end_ts", start)
        dur = _int(r, "duration_ns", end - start)
        line = by_start.get((_int(r, "pcore_idx", 0), _int(r, "trigger")), 0)
        nbytes = _int(r, "transfer_bytes", 0) or max(_int(r, "read_bytes", 0), _int(r, "write_bytes", 0))
        busy["dma"] += dur
        charge(line, "dma", dur, nbytes)
        events.append((start, start + dur, f"dma{_int(r, 'queue_idx', 0)}", "dma", line, nbytes))

    if not dmas:
        notes.append(f"dma: the {origin} holds no DMA table (DmaPacketAggregated or DmaPacket), so DMA time is 0 "
                     f"and the DMA transfers are not counted")
    elif not any(_int(r, "trigger") is not None for r in dmas):
        notes.append("dma: the DMA rows name no triggering instruction (trigger), so DMA time is on line 0")
    if instrs and not lines_found:
        notes.append("lines: no instruction has an nki_source_location; compile with NKI_DEBUG_INFO=True so the "
                     "NEFF maps instructions to kernel lines (all time is on line 0)")
    if other:
        notes.append("engines: " + ", ".join(f"{k} {v:.0f} ns" for k, v in sorted(other.items())) +
                     " of instructions on engines outside tensor/vector/scalar/gpsimd (counted, in no engine's time)")
    events.sort(key=lambda e: (e[0], e[2]))
    out = {"source": "neuron-explorer", "origin": origin, "available": True, "missing": {},
           "instruction_count": len(instrs) + len(dmas),
           "engine_busy_ns": {e: float(v) for e, v in busy.items()},
           "line_costs": [{"line": line, "ns": {e: float(v) for e, v in c["ns"].items()},
                           "instructions": c["instructions"], "bytes": c["bytes"]}
                          for line, c in sorted(costs.items())],
           "other_engine_ns": {k: float(v) for k, v in other.items()},
           "notes": notes}
    if events:
        span = max(e[1] for e in events) - min(e[0] for e in events)
        out["span_ns"] = float(span)
        if total_time_ns and origin == "csv export":
            cover = span / float(total_time_ns)
            out["coverage"] = cover
            if cover < 0.95:
                notes.append(f"coverage: the export spans {span:.0f} ns of the run's {total_time_ns:.0f} ns "
                             f"({100 * cover:.0f} %); counts and times cover what was exported")
    _compare_with_summary(out, summary or {}, origin)
    if timeline_cap > 0:
        out["timeline"] = _timeline(events, timeline_cap)
    return out


def _compare_with_summary(out: dict, summary: dict, origin: str):
    """`completeness`: per compute engine, the rows' busy time over the Summary's instruction time for it (the
    Explorer's own sum over every instruction); a note when rows are missing (the UI's export samples by default)."""
    ratios = {}
    for engine in ENGINES[:4]:
        expected = summary.get(f"{engine}_engine_instruction_time")
        if isinstance(expected, (int, float)) and not isinstance(expected, bool) and expected > 0:
            ratios[engine] = out["engine_busy_ns"][engine] / (float(expected) * 1e9)
    if not ratios:
        return
    out["completeness"] = ratios
    short = {e: r for e, r in ratios.items() if r < 0.95}
    if short:
        what = ", ".join(f"{e} {100 * r:.0f} %" for e, r in sorted(short.items()))
        fix = (" (a sampled or zoomed export: export the whole run with 'Sample at the timeline's resolution' "
               "turned off)" if origin == "csv export" else "")
        out["notes"].append(f"completeness: the rows hold less instruction time than the device's summary reports "
                            f"({what}){fix}")


def _string_table(values):
    """(distinct values in order of first appearance, each value's index into them): nkisim.perf.profile's
    string_table, here so that the converter needs nothing but the runner (explorer-profile runs before the runner
    finds nkibench)."""
    index = {}
    ids = [index.setdefault(v, len(index)) for v in values]
    return list(index), ids


def _timeline(events, cap: int) -> dict:
    head = events[:cap]
    t0 = head[0][0] if head else 0
    units, unit = _string_table([e[2] for e in head])
    ops, op = _string_table([e[3] for e in head])
    return {"units": units, "ops": ops, "unit": unit, "op": op, "line": [e[4] for e in head],
            "start_ns": [round(float(e[0] - t0), 2) for e in head],
            "dur_ns": [round(float(e[1] - e[0]), 2) for e in head],
            "partitions": [0] * len(head), "free": [0] * len(head), "bytes": [e[5] for e in head],
            "count": len(head), "truncated": len(events) > len(head)}


def table_name(path: str) -> str:
    """The table a file holds, from its name: Instruction.csv, BirInstruction_1.parquet → BirInstruction."""
    stem = os.path.basename(path).split(".", 1)[0]
    return re.sub(r"_\d+$", "", stem)


REQUIRED = {"Instruction": ("start_ts", "engine"), "DmaPacketAggregated": ("start_ts",), "DmaPacket": ("start_ts",)}


def read_csv(paths) -> dict:
    """The rows of the CSV files the Explorer UI's "Export to CSV" writes (Instruction.csv, DmaPacketAggregated.csv,
    DmaPacket.csv; each row starts with timeline_track, then the Parquet table's fields, raw values). Raises
    ExportError naming the file and what is wrong."""
    tables = {}
    for path in paths:
        name = table_name(path)
        if name not in REQUIRED:
            raise ExportError(f"{path}: not an Instruction, DmaPacketAggregated or DmaPacket export (the file name "
                              f"says which table it holds); export those tables from the Device Trace Viewer")
        try:
            with open(path, newline="", encoding="utf-8-sig") as f:
                reader = csv.DictReader(f)
                header = reader.fieldnames or []
                lacking = [c for c in REQUIRED[name] if c not in header]
                if lacking:
                    raise ExportError(f"{path}: no column {', '.join(lacking)} in its header; is it a Neuron "
                                      f"Explorer {name} export?")
                rows = []
                for n, row in enumerate(reader, start=2):
                    if row.get("start_ts") in (None, ""):
                        continue
                    if _int(row, "start_ts") is None:
                        raise ExportError(f"{path}:{n}: start_ts is {row.get('start_ts')!r}, not a number of "
                                          f"nanoseconds")
                    rows.append(row)
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise ExportError(f"{path}: cannot be read as CSV: {e}") from None
        tables.setdefault(name, []).extend(rows)
    if "Instruction" not in tables:
        raise ExportError("no Instruction.csv among the files: export the Instructions table (and the DMA transfers) "
                          "from the Device Trace Viewer")
    return tables


def read_parquet(directory: str):
    """The tables of a processed profile's Parquet directory (split tables read together), or None without
    pyarrow or without an Instruction table."""
    try:
        import pyarrow.parquet as pq
    except Exception:  # noqa: BLE001 - no Parquet reader on this host
        return None
    tables = {}
    for root, _, files in os.walk(directory):
        for f in sorted(files):
            name = table_name(f)
            if f.endswith(".parquet") and name in TABLES:
                tables.setdefault(name, []).extend(pq.read_table(os.path.join(root, f)).to_pylist())
    return tables if tables.get("Instruction") else None


def find_first(doc, pick, depth: int = 0):
    """The first non-empty pick(obj) over the objects of a JSON document, outer ones first (6 levels, the first 50
    items of a list). The JSON layout of a device profile is not documented (?), so its tables are searched for."""
    if depth > 6:
        return None
    if isinstance(doc, dict):
        hit = pick(doc)
        if hit:
            return hit
        children = doc.values()
    elif isinstance(doc, list):
        children = doc[:50]
    else:
        return None
    for v in children:
        hit = find_first(v, pick, depth + 1)
        if hit:
            return hit
    return None


def _rows_of(name: str):
    """A pick for find_first: the rows of table `name` (a list of objects holding start_ts under the table's name
    or its lower-case form; the row fields are the Parquet schema's)."""
    def pick(obj: dict):
        for key in (name, name.lower()):
            v = obj.get(key)
            if isinstance(v, list) and v and isinstance(v[0], dict) and "start_ts" in v[0]:
                return v
        return None
    return pick


def read_json(doc) -> dict | None:
    tables = {name: rows for name in TABLES[:3] for rows in [find_first(doc, _rows_of(name))] if rows}
    return tables if tables.get("Instruction") else None


def main(argv) -> int:
    """`accelopt_runner explorer-profile`: a profile from files the Explorer UI exported (see __main__)."""
    import argparse
    ap = argparse.ArgumentParser(prog="accelopt_runner explorer-profile")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--kernel", help="the kernel's source as sent, to map kernel.py lines")
    ap.add_argument("--kernel-file", default="kernel.py")
    ap.add_argument("--total-time-ns", type=float)
    ap.add_argument("--timeline-cap", type=int, default=0)
    ap.add_argument("--summary", help="a JSON file holding the run's Summary metrics (the evaluation's metrics)")
    a = ap.parse_args(argv)
    offset, source_lines = 0, 1 << 30
    if a.kernel:
        from .backend_sim import add_header
        try:
            with open(a.kernel, encoding="utf-8") as f:
                src = f.read()
        except OSError as e:
            print(json.dumps({"op": "profile", "ok": False, "error": f"{a.kernel}: {e.strerror}"}))
            return 1
        offset = add_header(src)[1]
        source_lines = len(src.splitlines())
    summary = {}
    if a.summary:
        try:
            with open(a.summary, encoding="utf-8") as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            print(json.dumps({"op": "profile", "ok": False, "error": f"{a.summary}: not a JSON summary: {e}"}))
            return 1
    try:
        prof = build(read_csv(a.files), a.kernel_file, offset, source_lines, a.timeline_cap, "csv export",
                     a.total_time_ns, summary if isinstance(summary, dict) else {})
    except ExportError as e:
        print(json.dumps({"op": "profile", "ok": False, "error": str(e)}))
        return 1
    print(json.dumps({"op": "profile", "ok": True, "profile": prof}))
    return 0
