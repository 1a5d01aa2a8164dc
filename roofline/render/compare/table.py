"""Terminal rendering (rich, the terminal's width) of kernel comparisons, regression diffs and application summaries.

Reports are shown as letters (A, B, ...) with a legend, so that two reports fit side by side; every "n/a"
is explained below its table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roofline.analysis.work import Measure, WorkCheck
from roofline.compare.noise import Change
from roofline.compare.pairing import Comparison, ExpectedBasis, KernelPair, ReportRef, UnderBound
from roofline.compare.projection import Projection, SharedMemoryFit
from roofline.compare.projection_launches import (
    DRAM_FLOOR,
    LEFT_OUT_WORDS,
    OTHER_KERNEL,
    RUNS_ON,
    LaunchProjection,
    WorkloadProjection,
)
from roofline.compare.ranking import RECOVERABLE_COUNTS, TIME_TO_GAIN_COUNTS, AppSummary, SummaryRow
from roofline.compare.regression import DiffResult, Verdict
from roofline.core.kernel_names import KernelName
from roofline.core.labels import NAMES, letter
from roofline.core.resources import DRAM_BYTES, Resource
from roofline.core.thresholds import LAUNCH_OVERHEAD_S
from roofline.core.units import counted, pct, pct_apart, pct_change, ratio, runs, seconds, share_pct, si
from roofline.documents.summary_store import StoreReportDoc, StoreSummaryJson, StoreSummaryRowDoc
from roofline.render.compare.prose import (
    clock_apart_text,
    gate_note_text,
    not_judged_text,
    own_gpu_text,
    ratio_text,
    unchecked_text,
    work_note_text,
    work_summary,
)
from roofline.render.names import bound_word, group_name
from roofline.render.terminal import Cell, Chain, add_rows, escape, hanging, plain_table, record, warning_lines

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

MAX_UNMATCHED_NAMES = 6
TIMES_FROM_PCT = 1000.0  # a time change from +1000% on reads as a ratio ("584x"), not a percent
GROUP_WORDS = {"kernel": "kernel", "function": "function", "nvtx": "NVTX range"}  # what a summary's rows are
_BOUND = {"compute": "comp", "memory": "mem", "balanced": "bal", "latency": "lat", "small_grid": "grid"}


def comparison_text(c: Comparison, width: int = 80) -> str:
    """A comparison as plain text: legend, time and roofline tables per report vs the base, projections."""
    return record(lambda console: _print_comparison(console, c), width)


def diff_text(d: DiffResult, width: int = 80) -> str:
    """A regression diff as plain text: verdict line, one row per kernel, then the reasons."""
    return record(lambda console: _print_diff(console, d), width)


def summary_text(summaries: Sequence[AppSummary], width: int = 80) -> str:
    """Whole-application summaries as plain text: the top kernel groups of each report."""
    return record(lambda console: _print_summaries(console, summaries), width)


# --- compare ---------------------------------------------------------------------------------------------
def _print_comparison(console: Console, c: Comparison) -> None:
    _print_legend(console, c.reports)
    console.print(f"matching: {c.matching}; times are per launch (the median of the kernel's launches)",
                  highlight=False)
    for line in pairing_lines(c):
        console.print(escape(line), highlight=False)
    for i in range(1, len(c.reports)):
        _print_versus(console, c, i)
    if len(c.reports) == 1:
        console.print(_rich(roof_grid(c, 0), console.width), crop=False)
    if c.project_to:
        console.print(f"[bold]Projection onto {c.project_to}[/bold] at its {clock_words(c)} (a model of the time "
                      "there, not a measurement)", highlight=False)
        console.print(_projection_table(c, console.width), crop=False)
        for line in projection_notes(c):
            console.print(escape(line), highlight=False)
    for line in _comparison_notes(c):
        console.print(line, highlight=False)


def pairing_lines(c: Comparison) -> list[str]:
    """The pairing used, where it is not plain name matching: per pair, its key and the kernels on each side."""
    methods = Counter(p.method for p in c.pairs)
    if not set(methods) - {"name"} and all(len({s.name for s in p.sides if s}) == 1 for p in c.pairs):
        return []
    lines = ["pairing used: " + ", ".join(f"{how} ({n})" for how, n in methods.items())]
    for p in c.pairs:
        sides = "; ".join(f"{letter(i)}: {s.name}" for i, s in enumerate(p.sides) if s)
        lines.append(f"  {p.key} ({p.matched_by}) = {sides}{_pooled_note(p)}")
    return lines


def _pooled_note(p: KernelPair) -> str:
    """A warning where a pair's key joins several kernels of one report into its row: one median over launches of
    different kernels, where one of them may regress unseen."""
    counts = [f"{len(s.names)} in {letter(i)}" for i, s in enumerate(p.sides) if s and len(s.names) > 1]
    if not counts:
        return ""
    return (f" (one row for several kernels: {', '.join(counts)}; its median mixes them, so one kernel's change "
            "can hide; a pattern per kernel keeps them apart)")


def _print_versus(console: Console, c: Comparison, i: int) -> None:
    """The work, time, throughput and roofline tables of report i against the base, or why there are none."""
    if not any(p.sides[i] for p in c.pairs):
        console.print(f"[bold]{letter(0)} and {letter(i)} share no kernel[/bold] ({c.matching} matching)",
                      highlight=False)
        return
    for grid in versus_grids(c, i):
        console.print(_rich(grid, console.width), crop=False)
    for line in (*expectation_lines(c, i), *clock_lines(c, i)):
        console.print(escape(line), highlight=False)


def _print_legend(console: Console, reports: Sequence[ReportRef]) -> None:
    for i, r in enumerate(reports):
        head, *rest = unit_wrap(f"{letter(i)}: {legend_text(r)}", console.width)
        console.print(f"[bold]{letter(i)}[/bold]{escape(head[len(letter(i)):])}", highlight=False, soft_wrap=True)
        for line in rest:
            console.print(escape(line), highlight=False, soft_wrap=True)
        for line in warning_lines(r.warnings):
            console.print(f"   {line}", highlight=False)


# a number and the word after it (its unit, or what it counts), and the label before a version or a capability
_NUMBER_UNIT = re.compile(r"(\d[\d,.]*|\bncu|\bCC) (?=[A-Za-z%]|(?<=ncu )\d|(?<=CC )\d)")
_GLUE = "\x00"


def unit_wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` wrapped to ``width`` columns, never between a number and its unit ("4 launches", "77.4 us"), its
    continuation lines after ``indent``."""
    import textwrap

    glued = _NUMBER_UNIT.sub(lambda m: m.group(1) + _GLUE, text)
    lines = textwrap.wrap(glued, max(20, width), subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def legend_text(r: ReportRef) -> str:
    """A report in one line: label, GPU, ncu version, launches, spec and ceiling set."""
    from roofline.specs.catalog import DERIVED_ID, DERIVED_LABEL

    spec = ("no spec matched: peaks " + DERIVED_LABEL if r.spec_id == DERIVED_ID else
            f"spec {r.spec_id}" if r.spec_id else "no spec")
    ncu = f"ncu {r.ncu_version}" if r.ncu_version else "ncu version unknown"
    return (f"{r.label}  {r.device} (CC {r.compute_capability or '?'}), {ncu}, {counted(r.launches, 'launch')}, "
            f"{spec}, {r.ceilings_used} ceilings")


@dataclass(frozen=True)
class Grid:
    """A comparison table before it is drawn (terminal or Markdown): per row, the names of its pair's kernels (one,
    or each side's where they differ: ``KernelPair.names_to``), then its other cells."""

    title: str
    header: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


def _rich(grid: Grid, width: int) -> Table:
    """A grid as a terminal table, its names fitted to ``width``, no header nor cell broken (``keep_whole``)."""
    table = plain_table(grid.title, grid.header, grid.caption)
    return add_rows(table, [[name_cell(n), *row] for n, row in zip(grid.names, grid.rows, strict=True)], width,
                    whole=True)


def name_cell(names: Sequence[str]) -> KernelName | Chain:
    """A kernel's name as a table cell, or a chain of names where a pair joins kernels of other names."""
    return KernelName(names[0]) if len(names) == 1 else Chain(tuple(KernelName(n) for n in names))


def versus_grids(c: Comparison, i: int) -> list[Grid]:
    """Report i against the base: work first, then the time of the pairs of the same work, the throughput of those
    of different work, and the roofline."""
    compared = [p for p in c.pairs if p.sides[i] and not p.different_work(i)]
    unknown = [p for p in compared if not p.work_known(i)]
    same = [p for p in compared if p not in unknown]
    different = [p for p in c.pairs if p.sides[i] and p.different_work(i)]
    return [work_grid(c, i), *([time_grid(c, same, i)] if same else []),
            *([time_grid(c, unknown, i, work_known=False)] if unknown else []),
            *([throughput_grid(c, different, i)] if different else []), roof_grid(c, i)]


WORK_COLUMNS = (("threads", "threads"), (DRAM_BYTES, "DRAM"), ("instructions", "inst."))


def work_grid(c: Comparison, i: int) -> Grid:
    """Work first: FLOPs per launch on each side, the ratios of the other measures, what decided and the verdict on
    the work; notes on measures compared under a common definition or left out for lack of one."""
    a, b = letter(0), letter(i)
    rows = []
    notes: dict[str, None] = {}
    shown = [p for p in c.pairs if p.sides[i]]
    for p in shown:
        check = p.work[i]
        measures = {m.key: m for m in check.measures} if check else {}
        notes.update(dict.fromkeys(f"{p.label_to(i)}: {work_note_text(n)}" for n in (check.notes if check else ())))
        rows.append((*(_flops_cell(flops, partial) for flops, partial in
                       zip(check.flops if check else (None, None), check.flops_partial if check else (False, False),
                           strict=True)),
                     *(_measure_cell(measures.get(key)) for key, _ in WORK_COLUMNS), _decided_by(check),
                     _work_word(p, i)))
    return Grid(f"Work per launch, {a} -> {b}",
                ("kernel", f"FLOPs {a}", f"FLOPs {b}", *(name for _, name in WORK_COLUMNS), "by", "work"),
                tuple(p.names_to(i) for p in shown), tuple(rows),
                f"{', '.join(name for _, name in WORK_COLUMNS)} = {b}/{a}, the ratio of the threads launched, DRAM "
                "bytes and warp instructions; work = DIFFERENT where the FLOPs of a precision (without FLOPs: the "
                f"threads launched, grid x block) differ by more than {100 * c.work_tolerance:g}% (--work-tolerance) "
                "and so does the work on the resource that bounds both sides by their verdicts (DRAM, L2 or L1 "
                "bytes, a precision's FLOPs, instructions); by = what decided; the rest is shown, it does not decide"
                + ("; FLOPs >= X: the precisions measured, another not measured (JSON: its reason)"
                   if any(any(chk.flops_partial) for p in shown if (chk := p.work[i]) is not None) else "")
                + "".join(f"; {n}" for n in notes))


def _flops_cell(flops: float | None, partial: bool) -> str:
    """A side's FLOPs per launch: ">= X" where a precision was not measured (the total is a lower bound)."""
    return f">= {si(flops)}" if partial and flops is not None else si(flops)


def _decided_by(check: WorkCheck | None) -> str:
    """What decided, short: "DRAM", "FP32", "inst.", "FLOPs", "threads" ("" when nothing could)."""
    return _resource(check.basis) if check is not None and check.basis else ""


def _measure_cell(m: Measure | None) -> str:
    return "n/a" if m is None else ratio_text(m)


def _work_word(p: KernelPair, i: int) -> str:
    if not p.work_known(i):
        return "unknown"
    return "DIFFERENT" if p.different_work(i) else "same"


def time_grid(c: Comparison, pairs: Sequence[KernelPair], i: int, work_known: bool = True) -> Grid:
    """Pairs of the same work (a speedup of times), or with ``work_known`` False, of work that could not be compared
    (the same ratio of times, which is a speedup only if the work is the same)."""
    a, b = letter(0), letter(i)
    confidence = f"{100 * c.confidence:g}%"
    rows = tuple((seconds(p.base.median_s.value), seconds(p.side(i).median_s.value),
                  _times(p.speedup[i].value), interval_text(p.headline(i)), _times(p.expected_speedup[i].value),
                  _fixed(p.kept_up[i].value)) for p in pairs)
    title, column = ("same work", "speedup") if work_known else ("work not compared: a ratio of times, a speedup only "
                                                                 "if the work is the same", f"{a}/{b} time")
    return Grid(f"Time per launch, {a} -> {b} ({title})",
                ("kernel", a, b, column, f"{confidence} interval", "expected", "kept up"),
                tuple(p.names_to(i) for p in pairs), rows,
                f"{column} = 1 / the median of the pairwise launch-time ratios {b}/{a} (Hodges-Lehmann), with its "
                f"{confidence} interval (Mann-Whitney U, alpha {c.alpha:g}; untested: one launch per side, or too few "
                f"to reach alpha); expected = {expected_words(pairs, i)}, only where a roof governs both (compute or "
                f"memory bound); kept up = {column} / expected")


def expected_words(pairs: Sequence[KernelPair], i: int) -> str:
    """How the expected speedups of report ``i`` in a table of ``pairs`` are made (``KernelPair.expected_basis``):
    by ``project``'s model, or as the ratio of the roof times and why; each way one of the rows takes, per kernel
    where they differ."""
    bases = dict.fromkeys(p.expected_basis[i] for p in pairs if i < len(p.expected_basis) and p.expected_basis[i])
    words = [basis_words(basis, i) for basis in bases if basis is not None]
    if not words:
        return "none in this table (each n/a says why under the tables)"
    return words[0] if len(words) == 1 else "per kernel (JSON expected_basis), " + " or ".join(words)


def basis_words(basis: ExpectedBasis, i: int) -> str:
    """One way an expected speedup of report ``i`` is made, in words."""
    a, b = letter(0), letter(i)
    if basis is ExpectedBasis.PROJECTION:
        return (f"{a}'s launches of the kernel / their projection onto {b}'s GPU at its base clock, the one ncu "
                f"locks (roofline project {a} --to {b}'s GPU --clock base: each launch's units at {b}'s rates)")
    if basis is ExpectedBasis.BASE:
        return f"1: {a} is the base"
    why = {ExpectedBasis.ROOF_TIME_ONE_GPU: "",
           ExpectedBasis.ROOF_TIME_WORK_APART: ", each side's own work at its own GPU's roofs",
           ExpectedBasis.ROOF_TIME_NO_TARGET_SPEC: f" (no projection: no device spec names {b}'s GPU, and "
                                                   "roofline project --to takes a spec id)",
           ExpectedBasis.ROOF_TIME_NO_BASE_CLOCK: f" (no projection: {b}'s spec gives no base clock, the one ncu "
                                                  "locks, to project at)",
           ExpectedBasis.ROOF_TIME_NO_SOURCE_SPEC: f" (no projection: {a}'s GPU has no spec, and its device "
                                                   "attributes do not give its rates)"}
    return f"roof time {a} / roof time {b}" + why[basis]


def throughput_grid(c: Comparison, pairs: Sequence[KernelPair], i: int) -> Grid:
    """Pairs of different work: work per second on each side and their ratio (not a speedup of times)."""
    a, b = letter(0), letter(i)
    confidence = f"{100 * c.confidence:g}%"
    rows = []
    for p in pairs:
        unit = p.headline_unit(i)
        headline = p.headline(i)
        base_rate, rate = p.throughputs[i] or (None, None)
        rows.append((UNIT_WORDS.get(unit, unit), si(base_rate), si(rate), _times(headline.ratio if headline else None),
                     interval_text(headline), _times(p.expected_throughput[i]), _fixed(p.kept_up[i].value)))
    return Grid(f"Throughput, {a} -> {b} (different work: not a speedup of times)",
                ("kernel", "unit", a, b, f"{b}/{a}", f"{confidence} interval", "expected", "kept up"),
                tuple(p.names_to(i) for p in pairs), tuple(rows),
                "throughput = work per launch / median launch time, in the unit column's: the resource that governs "
                "both sides where both have one (bytes, FLOPs or instructions per second), else FLOP/s, else DRAM "
                f"bytes/s, else threads/s (not always what decided the work: the work table's by); {b}/{a} = the "
                f"speedup x the work ratio; expected = {_throughput_expected(pairs, i)}")


def _throughput_expected(pairs: Sequence[KernelPair], i: int) -> str:
    """What the throughput table's expected column is, in words: the attainable throughput ratio from the roofs, or
    none where no row has one."""
    if all(p.expected_speedup[i].value is None for p in pairs):
        return expected_words(pairs, i)
    return (f"the attainable throughput ratio from the roofs ({expected_words(pairs, i)}, x the work ratio), only "
            "where a roof governs both")


# Short enough for a table column at 80 characters
UNIT_WORDS = {"DRAM bytes/s": "DRAM B/s", "L2 bytes/s": "L2 B/s", "L1 bytes/s": "L1 B/s", "threads/s": "thread/s",
              "instructions/s": "inst/s"}


def interval_text(change: Change | None) -> str:
    """"1.48-1.55x", or "untested" (one launch per side, or too few launches to reach alpha)."""
    if change is None:
        return "n/a"
    if change.low is None or change.high is None:
        return "untested"
    return f"{change.low:.3g}-{change.high:.3g}x"


def expectation_lines(c: Comparison, i: int) -> list[str]:
    """Why a pair has no expected speedup (every n/a of the column), and the launch-overhead share of its
    launch-bound sides."""
    lines, overheads = [], False
    for p in (p for p in c.pairs if p.sides[i]):
        reason = p.expected_speedup[i].reason
        if p.expected_speedup[i].value is not None:
            continue
        shares = [f"{letter(s)} {100 * v.value:.0f}%" for s in (0, i) if (v := p.launch_overhead[s]).value is not None]
        overhead = f"; launch overhead {', '.join(shares)} of launch + run time" if shares else ""
        overheads = overheads or bool(shares)
        lines.append(f"{p.label_to(i)}: {reason}{overhead}")
    if overheads:
        lines.append(OVERHEAD_NOTE)
    return lines


def clock_lines(c: Comparison, i: int) -> list[str]:
    """Per pair expected by projection whose report ``i`` ran beyond 3% of the base clock the projection assumes on
    its GPU: the clock it ran at, as its kept up counts that change of clock too."""
    lines = []
    for p in c.pairs:
        ran = p.expected_clock[i] if i < len(p.expected_clock) else None
        if ran is not None and ran.apart:
            lines.append(f"{p.label_to(i)}: {clock_apart_text(ran, letter(i))}")
    return lines


OVERHEAD_NOTE = (f"launch overhead = L / (L + d): an assumed host launch cost L of about {seconds(LAUNCH_OVERHEAD_S)} "
                 "per launch (NVIDIA, 'Getting Started with CUDA Graphs') against the median run time d, launches "
                 "issued back to back")


def roof_grid(c: Comparison, i: int) -> Grid:
    a, b = letter(0), letter(i)
    sides = (0,) if i == 0 else (0, i)
    rows = []
    shown = [p for p in c.pairs if p.sides[i]]
    for p in shown:
        stats = [p.side(s) for s in sides]
        rows.append((*(si(s.total_flop_per_s) for s in stats), *(ratio(s.intensity["dram"].value) for s in stats),
                     *(pct(s.roof.pct_of_roof) for s in stats),
                     ">".join(_BOUND.get(s.verdict.bound or "", "n/a") for s in stats)))
    return Grid(f"Roofline, {a}" + (f" -> {b}" if i else ""),
                ("kernel", *(f"FLOP/s {letter(s)}" for s in sides), *(f"AI {letter(s)}" for s in sides),
                 *(f"roof {letter(s)}" for s in sides), "bound"), tuple(p.names_to(i) for p in shown), tuple(rows),
                "AI = FLOP per DRAM byte; roof = percent of the report's own roof")


def _projection_table(c: Comparison, width: int) -> Table:
    named = [proj.governing for p in c.pairs for proj in p.projections if proj is not None]
    table = plain_table("", ("kernel", "from", "measured", "projected", "interval", "by", "L2", "bound"),
                        "measured, projected = the mean time per launch here and there (roofline project's model: "
                        "each launch's units at the target's rates, waves and tail, the clock held under load, "
                        "achievable bandwidth); by = the unit that governs most of it there; L2 = the DRAM bytes "
                        "there over here for the target's L2 size (= kept); bound = the kernel's measured work per "
                        "launch (its launches' sum over their count) at the target's datasheet peaks at that clock "
                        "(the per-kernel model's roofline bound; where the interval reaches under it, a line below "
                        "says why)" + by_words(named))
    rows: list[list[Cell]] = []
    for p in c.pairs:
        for i, (side, proj) in enumerate(zip(p.sides, p.projections, strict=True)):
            if side is None or proj is None:
                continue
            rows.append([name_cell(p.names), letter(i), seconds(side.per_launch_s.value),
                         seconds(proj.projected_s.value), _interval_s(proj), by_cell(proj.governing),
                         _l2_cell(proj), seconds(proj.bound_s.value)])
    return add_rows(table, rows, width, whole=True)


UNDER_BOUND_WORDS = {
    UnderBound.OTHER_KERNEL: "another kernel likely runs there (its library's choice for that GPU), whose work the "
                             "measured work does not bound: the interval holds it",
    UnderBound.L2_TERM: "the bound counts the DRAM bytes the target's smaller L2 adds (the L2 column), the interval's "
                        "floor the measured DRAM bytes",
    UnderBound.FLOORS_APART: "the interval's floor is each launch's work at the target's peaks at its boost clock, "
                             "the bound the kernel's summed work at the clock chosen",
}


def projection_notes(c: Comparison) -> list[str]:
    """Under compare's projection table: each row without a projection and why, each row whose interval reaches
    under its bound and why, and what the bounds leave out, with the kernels each note is about."""
    lines: list[str] = []
    left_out: dict[str, list[str]] = {}
    rows: list[str] = []
    for p in c.pairs:
        for i, proj in enumerate(p.projections):
            if proj is None or p.sides[i] is None:
                continue
            row = f"{p.label} ({letter(i)})"
            rows.append(row)
            if proj.projected_s.value is None:
                lines.append(f"{row}: no projection: {proj.projected_s.reason}")
            under = p.under_bound[i] if i < len(p.under_bound) else None
            if under is not None:
                lines.append(f"{row}: the interval reaches under the bound: {UNDER_BOUND_WORDS[under]}")
            if proj.left_out:
                left_out.setdefault(", ".join(proj.left_out), []).append(row)
    return lines + [f"the bound of {'every row' if kept == rows else ', '.join(kept)} leaves out: {text}"
                    for text, kept in left_out.items()]


def clock_words(c: Comparison) -> str:
    """The target clock the projections assume, in words."""
    if c.clock == "base":
        return "base clock, the one ncu locks while profiling (--clock base): the time ncu would measure there"
    if c.clock == "sustained":
        return "sustained clock, held under load (--clock boost|base: the others)"
    return ("boost clock, the most it runs at, under a load light enough to hold it (--clock sustained: the clock "
            "it holds under load)")


LAUNCH_HEADER = ("kernel", "n", "grid", "measured", "projected", "interval", "by")
LAUNCH_CAPTION = ("n = the launches of the group; grid = blocks x threads per block; per launch: each unit's work "
                  "at the target's rate of that unit, the tail in whole blocks per SM, the source's time over its "
                  "floor kept; by = the unit that governs there (one wave: at most one block per SM on both GPUs, the "
                  "measured time at the clocks' ratio); total = the sum of launches x projected")
KERNEL_HEADER = ("kernel", "launches", "measured", "projected", "interval", "by")
KERNEL_CAPTION = ("measured, projected = the kernel's launches summed, each launch projected (none from another's "
                  "size); by = the unit that governs most of its projected time there")
EVERYWHERE_HEADER = ("GPU", "projected", "interval", "speedup", "by", "GHz", "note")
TEXT_COLUMNS = ("work", "unit", "bound", "by", "grid", "note")  # headers of columns of words, left-aligned


def numeric_columns(header: Sequence[str]) -> tuple[bool, ...]:
    """Per column of a table whose first column holds names: whether it holds figures (right-aligned)."""
    return (False, *(h not in TEXT_COLUMNS for h in header[1:]))


def _workload_table(w: WorkloadProjection, width: int) -> Table:
    """Every group of identical launches projected (``compare.projection_launches``), its count and the total."""
    return _rich(launch_grid(w), width)


def launch_grid(w: WorkloadProjection, title: str = "") -> Grid:
    """Every group of identical launches projected, its count; each NVTX range's total and the workload's."""
    names: list[tuple[str, ...]] = [(x.name,) for x in w.launches]
    rows = [(str(x.count), f"{x.grid or '?'} x {x.block or '?'}", seconds(x.measured_s), seconds(x.projected_s),
             _span(x.low_s, x.high_s), by_cell(x.governing)) for x in w.launches]
    names += [(f"NVTX {r.name}",) for r in w.ranges]
    rows += [(str(r.launches), "", seconds(r.measured_s), seconds(r.projected_s), _span(r.low_s, r.high_s), "")
             for r in w.ranges]
    names.append(("total",))
    rows.append((str(w.launch_count), "", seconds(w.measured_s), seconds(w.projected_s), _span(w.low_s, w.high_s),
                 ""))
    return Grid(title, LAUNCH_HEADER, tuple(names), tuple(rows),
                LAUNCH_CAPTION + by_words(x.governing for x in w.launches))


def _kernel_table(w: WorkloadProjection, width: int) -> Table:
    """Per kernel name: its launches, measured and projected totals, interval and governing unit
    (``WorkloadProjection.kernels``, summed from the per-launch projection)."""
    return _rich(kernel_grid(w), width)


def kernel_grid(w: WorkloadProjection, title: str = "") -> Grid:
    """Per kernel name: its launches, measured and projected totals, interval and governing unit."""
    return Grid(title, KERNEL_HEADER, tuple((k.name,) for k in w.kernels),
                tuple((str(k.count), seconds(k.measured_s), seconds(k.projected_s), _span(k.low_s, k.high_s),
                       by_cell(k.governing)) for k in w.kernels),
                KERNEL_CAPTION + by_words(k.governing for k in w.kernels))


# the units a "by" cell names shorter than the documents' ``governing`` does, so that the tables fit 80 columns
BY_WORDS = {DRAM_FLOOR: "DRAM floor"}


def by_cell(unit: str | None) -> str:
    """The unit that governs, as a "by" cell: "DRAM floor" for ``projection_launches.DRAM_FLOOR``, "FP32 (tensor)"
    for Tensor work timed on the FP32 lanes (a stand-in term, ``RUNS_ON``), else its name; "n/a" for None."""
    if unit is None:
        return "n/a"
    key, on, lanes = unit.partition(RUNS_ON)
    return f"{lanes.removesuffix(' lanes')} ({key})" if on else BY_WORDS.get(unit, unit)


def by_words(named: Iterable[str | None]) -> str:
    """The legend's words for the "by" cells ``by_cell`` shortens, where one names them (each with the name the
    JSON gives it), else ""."""
    shown = {unit for unit in named if unit}
    words = [f"{by_cell(DRAM_FLOOR)} = the launch's DRAM bytes at the target's achievable DRAM bandwidth (what a "
             "stream copy reaches there; on the report's own GPU the rate the launch reached, where higher), the "
             f"least time the model gives it, named where it sets the time (JSON governing: {DRAM_FLOOR})"
             ] if DRAM_FLOOR in shown else []
    for unit in sorted(u for u in shown if RUNS_ON in u):
        key, _, lanes = unit.partition(RUNS_ON)
        words.append(f"{by_cell(unit)} = {key} work timed on the {lanes}, the target having no figure of its type "
                     f"(JSON governing: {unit})")
    return "".join(f"; {w}" for w in words)


def _span(low: float | None, high: float | None) -> str:
    """"1.2-1.9 ms": one unit where both ends share it, "235 us-1.2 ms" where they do not; "n/a" without both."""
    if low is None or high is None:
        return "n/a"
    a, b = seconds(low), seconds(high)
    return f"{a.split()[0]}-{b}" if a.split()[-1] == b.split()[-1] else f"{a}-{b}"


def everywhere_words(c: Comparison) -> str:
    """What ``project --to all`` shows, in words (after its title, ``everywhere_title``)."""
    measured = next((w for w in c.everywhere if w.launches), None)
    return (f"fastest first: every launch at each GPU's {clock_words(c)} (a model, not a measurement)"
            + (f"; measured here: {seconds(measured.measured_s)}" if measured else ""))


def everywhere_title(c: Comparison) -> str:
    """"Workload on 20 GPUs", and how many more have no projection (listed under the table)."""
    shown = len(everywhere_rows(c))
    left = len(c.everywhere) - shown
    return f"Workload on {counted(shown, 'GPU')}" + (f" ({left} more without a projection, below)" if left else "")


def _print_everywhere(console: Console, c: Comparison) -> None:
    """``project --to all`` (or several ids): the workload's total on each GPU, fastest first."""
    console.print(f"[bold]{escape(everywhere_title(c))}[/bold], {escape(everywhere_words(c))}", highlight=False)
    console.print(_everywhere_table(c, console.width), crop=False)
    for line in caveat_lines(c):
        console.print(escape(line), highlight=False)
    for w in c.everywhere:
        if not w.launches:
            console.print(f"{w.target}: {escape(w.reason)}", highlight=False)
    left = everywhere_left_out(c.everywhere)
    if left is not None:
        console.print(escape(left_out_words(left)), highlight=False)


def everywhere_left_out(ws: Sequence[WorkloadProjection]) -> WorkloadProjection | None:
    """A projection that leaves launches out of its totals (the source report's launches without a time or a time
    model: the same on every GPU), to say which once; None where none does."""
    return next((w for w in ws if w.launches and w.left_out_kernels), None)


def everywhere_rows(c: Comparison) -> list[tuple[str, ...]]:
    """One row per GPU with a projection (``EVERYWHERE_HEADER``): total, interval, speedup, governing unit, clock and
    the caveats of its total (``caveat_cell``)."""
    return [(w.target, seconds(w.projected_s), _span(w.low_s, w.high_s), _times(w.speedup), by_cell(w.governing),
             f"{w.clock_hz / 1e9:.3g}", caveat_cell(c, w)) for w in c.everywhere
            if w.launches and w.low_s is not None and w.high_s is not None and w.clock_hz is not None]


# the notes on a GPU's total, a letter each (the table fits 80 columns): a kernel that cannot launch there as built
# (its blocks' shared memory), another kernel likely there (its library's choice)
NO_FIT, OTHER = "S", "L"


def caveat_cell(c: Comparison, w: WorkloadProjection) -> str:
    """A GPU's notes: "S" where a kernel's blocks, as built, ask for more shared memory than a block may have there,
    "L" where its library would likely run another kernel for some launches; "" for neither."""
    marks = [NO_FIT] if c.unfit(w.target) else []
    marks += [OTHER] if any(k.other_kernel for k in w.kernels) else []
    return " ".join(marks)


OTHER_KERNEL_SHORT = {"tensor_type": "no Tensor figure of its data type there",
                      "architecture": "a library kernel built for another architecture",
                      "persistent": "a persistent grid, which its library sizes to the GPU"}


def caveat_lines(c: Comparison) -> list[str]:
    """Per kernel, the GPUs it cannot launch on as built and why, and those where its library would likely run
    another kernel and why (the ``note`` column's marks, named), the GPUs in the table's order."""
    order = [w.target for w in c.everywhere if w.projected_s is not None]  # the rows the marks stand in
    lines = []
    for kernel in dict.fromkeys(f.kernel for f in c.fits if f.unfit and f.target in order):
        unfit = sorted((f for f in c.fits if f.kernel == kernel and f.unfit and f.target in order),
                       key=lambda f: order.index(f.target))
        limits = sorted({f.fit.limit_bytes for f in unfit if isinstance(f.fit, SharedMemoryFit)})
        need = next(f.fit.need_bytes for f in unfit if isinstance(f.fit, SharedMemoryFit))
        allowed = f"{limits[0]:,} B" if len(limits) == 1 else f"{limits[0]:,}-{limits[-1]:,} B"
        lines.append(f"{kernel}: cannot launch as built on {_gpu_list([f.target for f in unfit])}: its blocks ask "
                     f"for {need:,} B of shared memory, a block may have {allowed} there; the time is that of a "
                     "build that fits")
    others: dict[str, list[WorkloadProjection]] = {}
    for w in c.everywhere:
        for k in w.kernels:
            if k.other_kernel:
                others.setdefault(k.name, []).append(w)
    for name, ws in others.items():
        keys = dict.fromkeys(key for w in ws for k in w.kernels if k.name == name for key in k.other_kernel)
        lines.append(f"{name}: its library would likely run another kernel on {_gpu_list([w.target for w in ws])} "
                     f"({'; '.join(OTHER_KERNEL_SHORT[key] for key in keys)}): the interval holds such cases")
    return lines


def _gpu_list(ids: Sequence[str]) -> str:
    """GPUs by spec id, the count first where there are several, a long list cut (``_name_list``)."""
    return ids[0] if len(ids) == 1 else f"{len(ids)} GPUs: {_name_list(ids)}"


def everywhere_caption(c: Comparison) -> str:
    """The legend of the table of GPUs (its rows: ``c.everywhere``); what its caveats mean, where a row has one; why
    the report's own GPU's row is not 1x."""
    ws, own = c.everywhere, c.own_gpu
    caveats = {mark for row in everywhere_rows(c) for mark in row[-1].split()}
    words = {NO_FIT: f"{NO_FIT} = a kernel cannot launch there as built (its blocks ask for more shared memory than "
                     "a block may have there: the time is that of a build that fits)",
             OTHER: f"{OTHER} = its library would likely run another kernel for some launches (the interval holds "
                    "such cases)"}
    return ("projected = the sum over launches of count x projected there (compare.projection_launches); speedup = "
            "measured total / projected total (above 1x: faster there); by = the unit that governs most of the "
            "projected time; interval = the sum of the launches' interval ends; GHz = the SM clock taken there"
            + by_words(w.governing for w in ws if w.launches)
            + (f"; note: {'; '.join(words[m] for m in (NO_FIT, OTHER) if m in caveats)}, each named below"
               if caveats else "")
            + (f"; {own_gpu_text(own)}" if own is not None else ""))


def _everywhere_table(c: Comparison, width: int) -> Table:
    """One row per GPU: the total, its interval, the speedup over the measured total, the governing unit, the clock
    and the caveats; the legend says why the report's own GPU's row is not 1x."""
    table = plain_table("", EVERYWHERE_HEADER, everywhere_caption(c))
    return add_rows(table, [list(r) for r in everywhere_rows(c)], width, whole=True)


def _l2_cell(p: Projection) -> str:
    """The L2 term's factor on the DRAM bytes ("1.3x", "1.003x": a factor the notes name as a cause is never shown
    as kept), "=" where it keeps them, "n/a" without one."""
    if p.l2 is None:
        return "n/a"
    return "=" if p.l2.factor == 1.0 else f"{p.l2.factor:.4g}x"


def _interval_s(p: Projection) -> str:
    """"1.2-1.9 ms", or "n/a" without a projection."""
    return _span(p.low_s.value, p.high_s.value)


def _resource(key: str | None) -> str:
    """A resource or what decided a work check, short: "DRAM", "FP32", "inst.", "FLOPs", "threads", "launch"."""
    if key is None:
        return "n/a"
    r = Resource.of(key)
    return NAMES[r.name] if r.name else {"instructions": "inst.", "flops": "FLOPs"}.get(r.kind, r.kind)


def projection_words(c: Comparison) -> str:
    """What a projection onto one GPU shows, in words (after its title, "Projection onto X")."""
    return f"each kernel's launches at its {clock_words(c)} (a model, not a measurement)"



def left_out_words(w: WorkloadProjection) -> str:
    """The launches a projection leaves out and why, in one line."""
    parts = []
    for cause, words in LEFT_OUT_WORDS.items():
        kernels = [f"{k.name} ({counted(k.launches, 'launch')})" for k in w.left_out_kernels if k.cause is cause]
        parts += [f"{words}: {', '.join(kernels)}"] if kernels else []
    return f"left out of the totals, {counted(w.left_out, 'launch')}: {'; '.join(parts)}"


def workload_words(w: WorkloadProjection) -> str:
    """The clock and the DRAM bandwidths a workload's projection assumes, each with its source."""
    source = "n/a" if w.source_dram_bytes_per_s is None else si(w.source_dram_bytes_per_s, "B/s")
    clock = "n/a" if w.clock_hz is None else f"{w.clock_hz / 1e9:.3g} GHz"
    shares = [f"{x.name} at {si(x.clock_hz, 'Hz')}" for x in w.launches
              if x.clock_hz is not None and w.clock_hz is not None and x.clock_hz < w.clock_hz]
    held = (f", but {counted(w.power_held, 'launch group')} at a share of it ({'; '.join(shares)}: each ran below "
            "the source's base clock, held there by power, and keeps that share)") if w.power_held else ""
    reached = (f"; this is the report's own GPU: {counted(w.dram_reached, 'launch group')} moved DRAM bytes faster "
               f"here than that achievable figure, up to {si(w.dram_reached_bytes_per_s, 'B/s')}, and keep the rate "
               "each reached as its DRAM floor") if w.dram_reached else ""
    return (f"every launch at the {w.clock} clock {clock} ({w.clock_source}){held}; DRAM at "
            f"{'n/a' if w.dram_bytes_per_s is None else si(w.dram_bytes_per_s, 'B/s')} achievable ({w.dram_source}), "
            f"against the source's {source} ({w.source_dram_source}){reached}")


def no_projection_words(w: WorkloadProjection) -> str:
    """Why a workload has no projection there."""
    return f"no workload projection: {w.reason}"


def other_kernel_words(w: WorkloadProjection) -> list[tuple[str, str]]:
    """Per launch group whose target would likely run another kernel: its name and why, in words (for Tensor work
    of a type the target's spec gives no figure of, the stand-in term's own words, which name the type)."""
    def why(x: LaunchProjection, key: str) -> str:
        stand_in = next((t.how for t in x.terms if t.stand_in), "") if key == "tensor_type" else ""
        return stand_in or OTHER_KERNEL[key]

    return [(x.name, f"another kernel likely on {w.target} ({'; '.join(why(x, k) for k in x.other_kernel)}): "
                     "its class's interval holds such cases") for x in w.launches if x.other_kernel]


def projection_text(c: Comparison, width: int = 80) -> str:
    """``roofline project``: each kernel's projected time on the target GPU, its interval and basis."""
    return record(lambda console: _print_projection(console, c), width)


def _print_projection(console: Console, c: Comparison) -> None:
    _print_legend(console, c.reports)
    if c.everywhere:
        _print_everywhere(console, c)
        return
    console.print(f"[bold]Projection onto {c.project_to}[/bold]: {escape(projection_words(c))}", highlight=False)
    if c.workload is not None and c.workload.launches:
        w = c.workload
        console.print(_kernel_table(w, console.width), crop=False)
        console.print(f"[bold]Workload on {w.target}[/bold]: {escape(workload_words(w))}", highlight=False)
        console.print(_workload_table(w, console.width), crop=False)
        for name, why in other_kernel_words(w):
            console.print(escape(f"{name}: {why}"), highlight=False)
        if c.own_gpu is not None:
            console.print(escape(own_gpu_text(c.own_gpu)), highlight=False)
    elif c.workload is not None:
        console.print(escape(no_projection_words(c.workload)), highlight=False)
    if c.workload is not None and c.workload.left_out_kernels:
        console.print(escape(left_out_words(c.workload)), highlight=False)
    for line in unfit_lines(c):
        console.print(escape(line), highlight=False)
    for line in _comparison_notes(c):
        console.print(line, highlight=False)


def unfit_lines(c: Comparison) -> list[str]:
    """Per kernel that cannot launch on the one target as built, why (its projection's shared-memory check)."""
    return list(dict.fromkeys(f"{p.label}: {unfit_text(pr.shared_memory)}" for p in c.pairs for pr in p.projections
                              if pr and isinstance(pr.shared_memory, SharedMemoryFit) and not pr.shared_memory.fits))


def unfit_text(u: SharedMemoryFit) -> str:
    """Why a kernel as built cannot launch on the target, in words."""
    return (f"cannot launch there as built: its blocks ask for {u.need_bytes:,} B of shared memory, a CC "
            f"{u.compute_capability} GPU allows {u.limit_bytes:,} B per block; the time is that of a build that fits")


def _comparison_notes(c: Comparison) -> list[str]:
    """Why values are n/a (per report, distinct reasons), unmatched kernels."""
    lines = []
    for i in range(len(c.reports)):
        sides = [p.side(i) for p in c.pairs if p.sides[i]]
        unplaced = [s for s in sides if s.roof.pct_of_roof is None]
        lines += [f"[bold]{letter(i)}[/bold]: percent of roof n/a: {r}" for r in dict.fromkeys(s.why_no_roof
                                                                                           for s in unplaced)]
    for i, names in enumerate(c.unmatched):
        if names:
            lines.append(f"only in {letter(i)} ({len(names)}): {_name_list(names)}")
    if not c.pairs:
        lines.append("[bold]no kernel in common[/bold]: pair them with --match order|regex:PATTERN or --map A=B")
    return lines


def _name_list(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_UNMATCHED_NAMES])
    return shown + (f", ... ({len(names) - MAX_UNMATCHED_NAMES} more)" if len(names) > MAX_UNMATCHED_NAMES else "")


def _times(value: float | None) -> str:
    """A speedup or ratio: two decimals, or two significant digits under 0.1 (0.0031x, never 0.00x)."""
    if value is None:
        return "n/a"
    return f"{value:.2f}x" if value >= 0.1 or value == 0 else f"{value:#.2g}x"  # 0.050x, as 0.053x


def _fixed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


# --- diff ------------------------------------------------------------------------------------------------
def _print_diff(console: Console, d: DiffResult) -> None:
    c = d.comparison
    _print_legend(console, c.reports)
    for note in d.setup_notes:
        console.print(f"[yellow]{escape(note)}[/yellow]", highlight=False)
    words = verdict_words(d)
    verdict = f"[bold red]{words}[/bold red]" if d.exit_code else f"[bold green]{words}[/bold green]"
    console.print(f"{verdict} (exit {d.exit_code}); thresholds: {threshold_text(d)}; matching: {escape(c.matching)}",
                  highlight=False)
    for line in pairing_lines(c):  # the kernels each pair joins, where they are not one name on both sides
        console.print(escape(line), highlight=False)
    console.print(_diff_table(d, console.width), crop=False)
    total = total_text(d)
    if total:
        console.print(("[bold red]regressed[/bold red] " if d.total_regressed else "") + escape(total), highlight=False)
    for v in d.regressions:
        console.print(f"[bold red]regressed[/bold red] {escape(v.pair.label)}: {escape('; '.join(v.reasons))}",
                      highlight=False)
    for v in d.verdicts:
        if v.not_gated is not None:
            console.print(f"not gated: {escape(v.pair.label)}: {escape(gate_note_text(v.not_gated))}", highlight=False)
    _print_line_shifts(console, d)
    for v in (v for v in d.verdicts if per_work_text(v)):
        work = work_summary(v.pair.work[1]) if v.pair.work and v.pair.work[1] else "different work"
        console.print(f"{escape(v.pair.label)}: {escape(work)}; {escape(per_work_text(v))}", highlight=False)
    for v in (v for v in d.verdicts if work_unknown(v)):
        summary = work_summary(v.pair.work[1]) if v.pair.work[1] else ""
        change = ("its time change is no speedup of the same work" if v.slowdown_pct.value is not None
                  else "its time was not measured either")
        console.print(f"{escape(v.pair.label)} ({status_word(v)}): {escape(summary)}; {change}", highlight=False)
    for text in dict.fromkeys(unchecked_text(u) for v in d.verdicts for u in v.unchecked):
        console.print(f"[yellow]{escape(text)}[/yellow]", highlight=False)
    for n in d.not_judged:
        console.print(f"[bold red]not judged[/bold red] {escape(not_judged_text(n, d.thresholds.min_share_pct))}",
                      highlight=False)
    for i, names in enumerate((d.only_in(0), d.only_in(1))):
        if names:
            console.print(f"only in {'BASE' if i == 0 else 'NEW'} ({escape(unmatched_count(d, i))}): "
                          f"{escape(_name_list(names))}", highlight=False)
    console.print(noise_note(d), highlight=False)


def unmatched_count(d: DiffResult, i: int) -> str:
    """How many kernels only report ``i`` runs, with NEW's own kernels' time and share, and whether
    --fail-if-new-share gates that share."""
    n, extra = len(d.only_in(i)), d.only_in_new
    if i == 0 or extra is None:
        return str(n)
    limit = d.thresholds.new_share_pct
    if limit is None:
        return f"{n}, {seconds(extra.seconds)}, {share_pct(extra.share)} of NEW's kernel time, not gated"
    verdict = f"> {limit:g}%: REGRESSED" if d.only_in_new_regressed else f"<= {limit:g}%: ok"
    return f"{n}, {seconds(extra.seconds)}, {pct_apart(100.0 * extra.share, limit)} of NEW's kernel time, {verdict}"


def _print_line_shifts(console: Console, d: DiffResult) -> None:
    """The source lines that gained or lost warp samples, per kernel sampled on lines in both reports."""
    for v in d.shifted:
        console.print(f"lines of {escape(v.pair.label)} (share of warp samples, A -> B):", highlight=False)
        width = max(len(s.where) for s in v.line_shifts or ())
        for s in v.line_shifts or ():
            console.print(escape(f"  {s.where:<{width}} {pct(100 * s.base_share):>6} -> {pct(100 * s.new_share):>6}"
                                 f"  {s.change_pts:+.1f} pts"), highlight=False)


def _diff_table(d: DiffResult, width: int) -> Table:
    confidence = f"{100 * d.comparison.confidence:g}%"
    table = plain_table("BASE (A) -> NEW (B), time per launch (median)",
                        ("kernel", "A", "B", "change", f"{confidence} interval", "status"))
    rows: list[list[Cell]] = []
    for v in d.verdicts:
        base, new = v.pair.side(0), v.pair.side(1)
        rows.append([name_cell(v.pair.names_to(1)), seconds(base.median_s.value), seconds(new.median_s.value),
                     headline_change(v.change), change_interval(v.change), status_word(v)])
    return add_rows(table, rows, width, whole=True)


def verdict_words(d: DiffResult) -> str:
    """"no regression", "1 kernel regressed", "the total regressed", "2 kernels and the total regressed", "NEW's
    own kernels regressed" (--fail-if-new-share); "not judged: ..." where nothing regressed but a kernel the gate
    would judge has no time on a side."""
    count = len(d.regressions)
    kernels = f"{count} kernel{'s' if count > 1 else ''}" if count else ""
    total = "the total" if d.total_regressed else ""
    own = "NEW's own kernels" if d.only_in_new_regressed else ""
    named = [w for w in (kernels, total, own) if w]
    if not named:
        if d.not_judged:
            count = len(d.not_judged)
            return f"not judged: {count} kernel{'s' if count > 1 else ''} without a time, a regression would pass"
        return "no regression"
    return f"{', '.join(named[:-1])} and {named[-1]} regressed" if len(named) > 1 else f"{named[0]} regressed"


def status_word(v: Verdict) -> str:
    """REGRESSED, ok, or why the slower gate left the kernel out (different work, small share, work unknown), or
    "not measured" where a side has no launch time (whatever its work)."""
    if v.regressed:
        return "REGRESSED"
    if v.not_gated is not None:
        return "diff. work" if v.pair.different_work(1) else "small"
    if v.slowdown_pct.value is None:
        return "not measured"
    return "work?" if work_unknown(v) else "ok"


def work_unknown(v: Verdict) -> bool:
    """Whether the pair's work could not be compared (different kernels, no FLOP counts): a time change is then no
    speedup, whatever the work measures that differ (threads, instructions) suggest."""
    check = v.pair.work[1] if len(v.pair.work) > 1 else None
    return check is not None and not check.basis and not check.different


def per_work_text(v: Verdict) -> str:
    """For a pair of different work gated with --gate-different-work: the change the gate judged, e.g.
    "time per unit of work (threads) -86.5%, gated (--gate-different-work)"; "" for other pairs."""
    if not (v.pair.different_work(1) and v.gated and v.per_work_ratio is not None):
        return ""
    return (f"{v.per_work_pct.via} {change_text(v.per_work_ratio, v.per_work_pct.value)}, gated "
            "(--gate-different-work)")


def change_interval(change: Change | None) -> str:
    """The interval of a time change, "+12.9..+17.6%" (or "713x..790x" for large ones), or "untested"."""
    if change is None:
        return "n/a"
    if change.low is None or change.high is None or change.low_pct is None or change.high_pct is None:
        return "untested"
    low, high = change_text(change.low, change.low_pct), change_text(change.high, change.high_pct)
    if change.low_pct < TIMES_FROM_PCT and change.high_pct < TIMES_FROM_PCT:
        return f"{pct_change(change.low_pct).removesuffix('%')}..{high}"
    return f"{low}..{high}"


def change_text(ratio_: float | None, pct_: float | None) -> str:
    """A time ratio NEW / BASE and its percent change as a change: "+12.3%", "-4.0%", or "584x" from +1000% on; a
    change that rounds to zero is "+0.0%", never "-0.0%"."""
    if ratio_ is None or pct_ is None:
        return "n/a"
    text = f"{ratio_:.0f}x" if pct_ >= TIMES_FROM_PCT else f"{pct_:+.1f}%"
    return "+0.0%" if text == "-0.0%" else text


def headline_change(change: Change | None) -> str:
    """A kernel's time change (``change_text``), "n/a" without one."""
    return "n/a" if change is None else change_text(change.ratio, change.pct)


def threshold_text(d: DiffResult) -> str:
    """The thresholds in words, e.g. 'slower > 10% (kernels >= 1% of the time), total slower > 5%'."""
    t = d.thresholds
    parts = [f"slower > {t.slower_pct:g}% (kernels with >= {t.min_share_pct:g}% of the time)",
             f"total slower > {t.total_slower_pct:g}%"]
    if t.roof_drop_pct is not None:
        parts.append(f"roof drop > {t.roof_drop_pct:g} points")
    if t.new_share_pct is not None:
        parts.append(f"kernels only in NEW > {t.new_share_pct:g}% of its kernel time")
    return ", ".join(parts)


def total_text(d: DiffResult) -> str:
    """The total: the BASE time of the kernels it counts (the small ones too) and the same at NEW's speed."""
    t = d.total
    if t is None:
        return ""
    small = any(v.share_pct is not None and v.share_pct < d.thresholds.min_share_pct for v in d.verdicts)
    return (f"total: {counted(t.kernels, 'kernel')}{' (the small ones too)' if small else ''} "
            f"{'takes' if t.kernels == 1 else 'take'} "
            f"{seconds(t.base_s)} in BASE and "
            f"{seconds(t.at_new_speed_s)} at NEW's speed (BASE's launches, each kernel at its median time ratio): "
            f"{pct_change(t.change_pct, d.thresholds.total_slower_pct)} "
            f"({'>' if d.total_regressed else '<='} {d.thresholds.total_slower_pct:g}%)")


def noise_note(d: DiffResult) -> str:
    c = d.comparison
    return (f"change = the median of the pairwise launch-time ratios NEW/BASE - 1 (Hodges-Lehmann), not the ratio "
            "of the two medians shown: the two part where a side's launch times spread apart (an even number "
            "of pairs takes the geometric mean of the two middle ratios); with several "
            f"launches on each side a kernel regresses only when the one-sided Mann-Whitney U test of 'slower by more "
            f"than the threshold' rejects at alpha {c.alpha:g}, i.e. the interval's lower end clears it; untested: "
            "one launch per side, or too few to reach alpha (gated on the median ratio)")


# --- summary ---------------------------------------------------------------------------------------------
def _print_summaries(console: Console, summaries: Sequence[AppSummary]) -> None:
    """Each report's summary, then what the recoverable time counts, once."""
    for s in summaries:
        _print_summary(console, s)
    console.print(f"[dim]{TIME_TO_GAIN_COUNTS}[/dim]", highlight=False)
    console.print(f"[dim]{RECOVERABLE_COUNTS}[/dim]", highlight=False)
    console.print(f"[dim]{POOLED_ROOF}[/dim]", highlight=False)


def _print_summary(console: Console, s: AppSummary) -> None:
    r = s.report
    groups = GROUP_WORDS[s.by] + ("s" if s.group_count != 1 else "")
    console.print(f"[bold]{r.label}[/bold]  {r.device}  {counted(r.launches, 'launch')} in {s.group_count} {groups}, "
                  f"total {seconds(r.total_time_s)}", highlight=False)
    for line in warning_lines(r.warnings):
        console.print(line, highlight=False)
    console.print(f"ranked by {s.ranked_by}{_placed_by_recoverable(s)}", highlight=False)
    console.print(_summary_table(s, console.width), crop=False)
    for line in _why_na(s, console.width):
        console.print(line, highlight=False)
    for row in (row for row in s.rows if row.unestimated_launches):
        recoverable = "" if row.unestimated_recoverable_s is None else \
            f" ({seconds(row.unestimated_recoverable_s)} recoverable)"
        console.print(escape(f"#{row.rank}: {row.unestimated_launches} of its {len(row.group.launches)} launches "
                             f"have no estimated advice item{recoverable}, not in its time to gain"), highlight=False)
    hidden = s.group_count - len(s.rows)
    timed = "measured time" if any(row.group.total_s is None for row in s.rows) else "time"  # ncu timed not all
    covered = f"shown: {_pct_of(s.shown_share)} of the {timed}"
    console.print(covered + (f"; {hidden} more not shown (--top)" if hidden > 0 else "") +
                  (f"; to gain in all: {seconds(s.time_to_gain_s)}{_without_gain(s)}"
                   if s.time_to_gain_s is not None else "") +
                  (f"; recoverable in all: {seconds(s.recoverable_s)}" if s.recoverable_s is not None else "") +
                  (f"; small grids: {seconds(s.small_grid_s)}" if s.small_grid_s else ""),
                  highlight=False)
    console.print()


POOLED_ROOF = ("roof = percent of the closest FP/byte roof of a group's launches pooled (their work over their "
               "time; the report's table of kernels with several launches gives their median); bound = the verdict "
               "of the pooled launches")


def _summary_table(s: AppSummary, width: int) -> Table:
    """Rank, group, launches, total time, share of the report, time to gain, percent of roof, bound."""
    table = plain_table(f"Top {len(s.rows)} by {GROUP_WORDS[s.by]}",
                        ("#", "name", "n", "total", "share", "to gain", "roof", "bound"), name_column=1)
    rows: list[list[Cell]] = []
    for row in s.rows:
        g = row.group
        rows.append([str(row.rank), group_name(g.name, g.functions, g.by), str(len(g.launches)), seconds(g.total_s),
                     _pct_of(g.time_share), _gain_cell(row), pct(row.stats.roof.pct_of_roof),
                     bound_word(row.stats.verdict.bound)])
    return add_rows(table, rows, width, whole=True)


# the table's cells that can read n/a, and the field of the summary document (``-f json``) each shows
NA_CELLS = (("total", "total_s"), ("share", "time_share"), ("to gain", "time_to_gain_s"), ("roof", "pct_of_roof"),
            ("bound", "bound"))


def _why_na(s: AppSummary, width: int) -> list[str]:
    """Why the table's n/a cells are n/a, as ``report`` says it under its tables: per reason (the document's, under
    each row's ``missing``), the columns and the rows it empties."""
    from roofline.documents.compare import summary_row

    found: dict[tuple[str, str], list[int]] = {}
    for row in s.rows:
        doc = summary_row(row)
        for column, key in NA_CELLS:
            key = "ranked_by_value_s" if key == "time_to_gain_s" and _by_recoverable(row) else key
            if getattr(doc, key) is None and doc.missing.get(key):
                found.setdefault((doc.missing[key], column), []).append(row.rank)
    merged: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    for (why, column), ranks in found.items():
        merged.setdefault((why, tuple(ranks)), []).append(column)
    if not merged:
        return []
    lines = ["[bold]Why n/a[/bold] (--format json gives each reason under its row's missing):"]
    return lines + [line for (why, ranks), columns in merged.items()
                    for line in hanging(f"  {', '.join(columns)} [{_ranks(ranks)}]: {why}", width)]


def _ranks(ranks: Sequence[int]) -> str:
    """Rows by rank, runs shortened: "#1-#4, #7"."""
    return ", ".join(f"#{first}-#{last}" if last > first else f"#{first}" for first, last in runs(ranks))



def _by_recoverable(row: SummaryRow) -> bool:
    """Whether a row without a time to gain was placed by its recoverable time (``ranking.placed_by``)."""
    return row.time_to_gain_s is None and row.ranked_by_kind == "recoverable"


def _gain_cell(row: SummaryRow) -> str:
    """A row's time to gain; without one, the recoverable time that placed it, in parentheses (the line above the
    table says so: a wider cell would take its room from the names)."""
    if _by_recoverable(row):
        return f"({seconds(row.ranked_by_value_s)})"
    return seconds(row.time_to_gain_s)


def _placed_by_recoverable(s: AppSummary) -> str:
    """After "ranked by time to gain": how the shown rows without an estimate were placed, where there are some."""
    if not any(_by_recoverable(row) for row in s.rows):
        return ""
    return f"; a {GROUP_WORDS[s.by]} without an estimate by its recoverable time, shown in parentheses"


def _without_gain(s: AppSummary) -> str:
    """After "to gain in all": the groups it leaves out, placed by their recoverable time."""
    if not s.groups_without_gain:
        return ""
    return (f" (without {counted(s.groups_without_gain, GROUP_WORDS[s.by])} with no estimate, "
            f"{seconds(s.without_gain_recoverable_s)} recoverable)")


def _pct_of(fraction: float | None) -> str:
    return pct(None if fraction is None else 100.0 * fraction)


# --- summary STORE ---------------------------------------------------------------------------------------
STORE_WHOLE = 100_000  # no width given (a file): a width no kernel name reaches, every name whole
STORE_COLUMNS = ("#", "name", "n", "total", "share", "to gain", "recoverable", "roof")
STORE_LEGEND = ("to gain and recoverable as summary gives them from the report files (roofline summary FILE explains "
                "each); roof = the median of the launches' percent of roof; n/a: the store holds no such figure "
                "(summary STORE -f json gives the reason under each row's missing, and each group's small-grid "
                "time, median, shortest and longest launch)")


def store_summary_text(doc: StoreSummaryJson, width: int | None = None) -> str:
    """`summary STORE`: the ``store_summary`` document (``documents.summary_store``) as the file summary writes a
    report: per report a line (file, GPU, launches, total), then its groups, times in units, shares in percent,
    "n/a" for a figure the store does not hold; ``width`` columns wide (None: every name whole)."""
    return record(lambda console: _print_store_summary(console, doc), width or STORE_WHOLE)


def _print_store_summary(console: Console, doc: StoreSummaryJson) -> None:
    rows: dict[str, list[StoreSummaryRowDoc]] = {}
    for row in doc.rows:
        rows.setdefault(row.path, []).append(row)
    for report in doc.reports:
        console.print(escape(_store_heading(report, doc, len(rows.get(report.path, ())))), highlight=False)
        if report.path in rows:
            console.print(_store_table(rows[report.path], console.width), crop=False)
        console.print()
    console.print(f"[dim]{escape(STORE_LEGEND)}[/dim]", highlight=False)


def _store_heading(report: StoreReportDoc, doc: StoreSummaryJson, shown: int) -> str:
    """A report's line: its file (labels may repeat across a store), GPU, launches and total time, and the groups
    shown (or why none)."""
    top = f"top {shown} by {GROUP_WORDS[doc.by]}" if shown else "no valid launch"
    return (f"{report.path}  {report.device}  {counted(report.launches, 'launch')}, total "
            f"{seconds(report.total_time_s)}; {top}")


def _store_table(rows: list[StoreSummaryRowDoc], width: int) -> Table:
    """Rank, group, launches, total time, share of the report, time to gain, recoverable time, median roof."""
    table = plain_table("", STORE_COLUMNS, name_column=1)
    cells: list[list[Cell]] = [
        [str(r.rank), KernelName(r.name), str(r.count), seconds(r.total_s),
         _pct_of(r.time_share), seconds(r.time_to_gain_s),
         seconds(r.recoverable_s), pct(r.median_pct_of_roof)] for r in rows]
    return add_rows(table, cells, width, whole=True)
