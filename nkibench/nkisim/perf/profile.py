"""Where the modelled time went: the cost of each kernel line, and the instruction timeline as columns.

Both read a finished Schedule next to its trace; neither changes the estimate. They are the data behind the
runner's `profile` object (nkibench/runner/README.md), and they are built for traces of millions of instructions:
one pass over the trace, a row per source line rather than a record per instruction.
"""
from __future__ import annotations

import math

from .scheduler import COMPUTE_ENGINES

ENGINE_COLUMNS = COMPUTE_ENGINES + ("dma",)
_DMA = len(COMPUTE_ENGINES)
_INSTRUCTIONS = _DMA + 1  # a line row is [ns per engine column..., instructions, bytes]
_BYTES = _DMA + 2


def _region_bytes(regions) -> int:
    # metrics.py's arithmetic, so that a line's bytes and the summary's memory traffic agree
    total = 0
    for _, _, pl, ph, fl, fh in regions:
        total += (ph - pl if ph > pl else 0) * (fh - fl if fh > fl else 0)
    return total


def instr_bytes(ins) -> int:
    """Bytes one instruction moves: a DMA its dma_bytes; a compute instruction what it reads plus what it writes."""
    if ins.engine == "dma":
        return int(ins.dma_bytes or 0)
    return _region_bytes(ins.reads) + _region_bytes(ins.writes)


def _column_of_unit(unit: str) -> int:
    if unit.startswith("dma"):
        return _DMA
    # the scheduler already runs unknown engines on vector, so a unit is always one of the names here
    return COMPUTE_ENGINES.index(unit) if unit in COMPUTE_ENGINES else 1


class LineCosts:
    """Per source line: modelled ns per engine, instruction count and bytes, over every instruction of a trace.

    The ns of an instruction is end - start as the scheduler placed it, so a compute engine's total is its
    busy_ns, and "dma" is the time DMA queues were busy, summed over the queues (transfers on different queues
    overlap, so it can exceed the run's length; the metrics' dma_active_time is the union instead)."""

    def __init__(self, rows: dict, instruction_count: int):
        self.rows = rows  # line -> [tensor, vector, scalar, gpsimd, dma ns, instructions, bytes]
        self.instruction_count = instruction_count

    def busy_ns(self) -> dict:
        """ns per engine column: the lines' figures summed with fsum, exactly rounded, so that the line costs a
        consumer adds up match it to floating-point tolerance whatever the order."""
        rows = list(self.rows.values())
        return {e: math.fsum(r[k] for r in rows) for k, e in enumerate(ENGINE_COLUMNS)}

    def remapped(self, map_line) -> "LineCosts":
        """The same costs keyed by map_line(line); lines mapping to one key are merged."""
        out = {}
        for line, row in self.rows.items():
            key = map_line(line)
            have = out.get(key)
            if have is None:
                out[key] = list(row)
            else:
                for k in range(len(row)):
                    have[k] += row[k]
        return LineCosts(out, self.instruction_count)

    def as_list(self) -> list:
        """[{line, ns: {engine: ns}, instructions, bytes}] sorted by line."""
        return [{"line": line, "ns": dict(zip(ENGINE_COLUMNS, row[:_INSTRUCTIONS])),
                 "instructions": row[_INSTRUCTIONS], "bytes": row[_BYTES]}
                for line, row in sorted(self.rows.items())]


def line_costs(instrs, sch) -> LineCosts:
    """One pass over the trace, accumulating into one row per source line."""
    starts, ends, units = sch.start, sch.end, sch.unit
    column = {}
    column_get = column.get
    rows = {}
    rows_get = rows.get
    count_at, bytes_at = _INSTRUCTIONS, _BYTES
    # The loop body is inlined rather than calling instr_bytes: at millions of instructions a call per
    # instruction is a visible share of the whole estimate.
    for ins, start, end, u in zip(instrs, starts, ends, units):
        k = column_get(u)
        if k is None:
            k = column[u] = _column_of_unit(u)
        row = rows_get(ins.line)
        if row is None:
            row = rows[ins.line] = [0.0] * len(ENGINE_COLUMNS) + [0, 0]
        row[k] += end - start
        row[count_at] += 1
        if ins.engine == "dma":
            row[bytes_at] += int(ins.dma_bytes or 0)
        else:
            b = 0
            for _, _, pl, ph, fl, fh in ins.reads:
                b += (ph - pl if ph > pl else 0) * (fh - fl if fh > fl else 0)
            for _, _, pl, ph, fl, fh in ins.writes:
                b += (ph - pl if ph > pl else 0) * (fh - fl if fh > fl else 0)
            row[bytes_at] += b
    return LineCosts(rows, len(instrs))


def _table(values):
    """(distinct values in order of first appearance, each value's index into them)."""
    index = {}
    ids = [index.setdefault(v, len(index)) for v in values]
    return list(index), ids


def _mapped_lines(lines, map_line):
    if map_line is None:
        return lines
    mapping = {line: map_line(line) for line in set(lines)}
    return [mapping[line] for line in lines]


def timeline_columns(instrs, sch, cap: int, map_line=None) -> dict:
    """The first `cap` instructions in trace order as columns: string tables for units and ops, then per event the
    unit and op index, line, start_ns and dur_ns (rounded to 0.01 ns), partitions, free elements and bytes.
    `count` is the events included, `truncated` whether the trace had more."""
    total = len(instrs)
    count = min(max(int(cap), 0), total)
    head = instrs[:count]
    units, unit_ids = _table(sch.unit[:count])
    ops, op_ids = _table([ins.op for ins in head])
    starts, ends = sch.start, sch.end
    return {
        "units": units, "ops": ops, "unit": unit_ids, "op": op_ids,
        "line": _mapped_lines([ins.line for ins in head], map_line),
        "start_ns": [round(starts[i], 2) for i in range(count)],
        # rounded itself, not as the difference of rounded ends: each is then within 0.005 ns of the model's
        "dur_ns": [round(ends[i] - starts[i], 2) for i in range(count)],
        "partitions": [ins.partitions for ins in head],
        "free": [ins.free_elems for ins in head],
        "bytes": [instr_bytes(ins) for ins in head],
        "count": count, "truncated": total > count,
    }
