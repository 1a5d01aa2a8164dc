"""Terminal rendering (rich, the terminal's width) of kernel comparisons, regression diffs and application summaries.

Reports are shown as letters (A, B, ...) with a legend, so that two reports fit side by side; every "n/a"
is explained below its table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from roofline.labels import letter, set_name
from roofline.pairing import Comparison, KernelStats, ReportRef, why_no_roof
from roofline.ranking import RECOVERABLE_COUNTS, AppSummary
from roofline.regression import DiffResult
from roofline.render.names import KernelName
from roofline.render.terminal import Cell, add_rows, plain_table, record, warning_lines
from roofline.units import pct, ratio, seconds, si

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

SUFFIXES = (".txt",)
MAX_UNMATCHED_NAMES = 6
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
    console.print(f"matching: {c.matching}; times are per launch (mean over the kernel's launches)", highlight=False)
    for i in range(1, len(c.reports)):
        _print_versus(console, c, i)
    if len(c.reports) == 1:
        console.print(_roof_table(c, 0, console.width))
    methods = Counter(p.matched_by.split(" ")[0] for p in c.pairs)
    if set(methods) - {"name"}:
        console.print("matched by: " + ", ".join(f"{how} ({n})" for how, n in methods.items()), highlight=False)
    if c.project_to:
        console.print(f"[bold]Projection onto {c.project_to}[/bold] (roofline LOWER BOUND, not a measurement)",
                      highlight=False)
        console.print(_projection_table(c, console.width))
    for line in _comparison_notes(c):
        console.print(line, highlight=False)


def _print_versus(console: Console, c: Comparison, i: int) -> None:
    """The time and roofline tables of report i against the base, or why there are none."""
    if any(p.sides[i] for p in c.pairs):
        console.print(_time_table(c, i, console.width))
        console.print(_roof_table(c, i, console.width))
    else:
        console.print(f"[bold]{letter(0)} and {letter(i)} share no kernel[/bold] ({c.matching} matching)",
                      highlight=False)


def _print_legend(console: Console, reports: Sequence[ReportRef]) -> None:
    for i, r in enumerate(reports):
        spec = f"spec {r.spec_id}" if r.spec_id else "no spec"
        console.print(f"[bold]{letter(i)}[/bold]: {r.label}  {r.device} (CC {r.compute_capability or '?'}), "
                      f"{r.launches} launches, {spec}, {set_name(r.ceilings_used)} ceilings", highlight=False)
        for line in warning_lines(r.warnings):
            console.print(f"   {line}", highlight=False)


def _time_table(c: Comparison, i: int, width: int) -> Table:
    a, b = letter(0), letter(i)
    table = plain_table(f"Time per launch, {a} -> {b}", ("kernel", a, b, "speedup", "expected", "kept up"),
                   f"speedup = time {a} / time {b}; expected = roof time {a} / roof time {b} (from the "
                   "ceilings alone); kept up = speedup / expected")
    rows: list[list[Cell]] = [
        [KernelName(p.label), seconds(p.base.per_launch_s.value), seconds(p.side(i).per_launch_s.value),
         _times(p.speedup[i].value), _times(p.expected_speedup[i].value), _fixed(p.kept_up[i].value)]
        for p in c.pairs if p.sides[i]]
    return add_rows(table, rows, width)


def _roof_table(c: Comparison, i: int, width: int) -> Table:
    a, b = letter(0), letter(i)
    sides = (0,) if i == 0 else (0, i)
    columns = ["kernel", *(f"FLOP/s {letter(s)}" for s in sides), *(f"AI {letter(s)}" for s in sides),
               *(f"roof {letter(s)}" for s in sides), "bound"]
    table = plain_table(f"Roofline, {a}" + (f" -> {b}" if i else ""), columns,
                   "AI = FLOP per DRAM byte; roof = percent of the report's own roof")
    rows: list[list[Cell]] = []
    for p in (p for p in c.pairs if p.sides[i]):
        stats = [p.side(s) for s in sides]
        rows.append([KernelName(p.label), *(_flop_rate(s) for s in stats),
                     *(ratio(s.intensity["dram"].value) for s in stats), *(pct(s.roof.pct_of_roof) for s in stats),
                     ">".join(_BOUND.get(s.verdict.bound or "", "n/a") for s in stats)])
    return add_rows(table, rows, width)


def _projection_table(c: Comparison, width: int) -> Table:
    table = plain_table("", ("kernel", "from", "measured", "bound", "max gain", "limit"),
                   "max gain = measured / bound: the most the target GPU could speed this kernel up")
    rows: list[list[Cell]] = []
    for p in c.pairs:
        for i, (side, proj) in enumerate(zip(p.sides, p.projections, strict=True)):
            if side is None or proj is None:
                continue
            rows.append([KernelName(p.label), letter(i), seconds(side.per_launch_s.value),
                         seconds(proj.bound_s.value), _times(proj.max_speedup.value), proj.limiter or "n/a"])
    return add_rows(table, rows, width)


def _comparison_notes(c: Comparison) -> list[str]:
    """Why values are n/a (per report, distinct reasons), what projections leave out, unmatched kernels."""
    lines = []
    for i in range(len(c.reports)):
        sides = [p.side(i) for p in c.pairs if p.sides[i]]
        unplaced = [s for s in sides if s.roof.pct_of_roof is None]
        lines += [f"[bold]{letter(i)} n/a[/bold]: {r}" for r in dict.fromkeys(map(why_no_roof, unplaced))]
    left_out = dict.fromkeys(", ".join(pr.left_out) for p in c.pairs for pr in p.projections if pr and pr.left_out)
    lines += [f"projection leaves out: {text}" for text in left_out]
    for i, names in enumerate(c.unmatched):
        if names:
            lines.append(f"only in {letter(i)} ({len(names)}): {_name_list(names)}")
    if not c.pairs:
        lines.append("[bold]no kernel in common[/bold]: pair them with --match order|regex:PATTERN or --map A=B")
    return lines


def _name_list(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_UNMATCHED_NAMES])
    return shown + (f", ... ({len(names) - MAX_UNMATCHED_NAMES} more)" if len(names) > MAX_UNMATCHED_NAMES else "")


def _flop_rate(s: KernelStats) -> str:
    known = [v.value for v in s.flop_per_s.values() if v.value is not None]
    return si(sum(known)) if known else "n/a"


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _fixed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


# --- diff ------------------------------------------------------------------------------------------------
def _print_diff(console: Console, d: DiffResult) -> None:
    c = d.comparison
    _print_legend(console, c.reports)
    count = len(d.regressions)
    verdict = f"[bold red]{count} regression(s)[/bold red]" if count else "[bold green]no regression[/bold green]"
    console.print(f"{verdict} beyond {threshold_text(d)} (exit {d.exit_code}); matching: {c.matching}",
                  highlight=False)
    console.print(_diff_table(d, console.width))
    for v in d.regressions:
        console.print(f"[bold red]regressed[/bold red] {v.pair.label}: {'; '.join(v.reasons)}", highlight=False)
    for text in dict.fromkeys(u for v in d.verdicts for u in v.unchecked):
        console.print(f"[yellow]{text}[/yellow]", highlight=False)
    for i, names in enumerate(c.unmatched):
        if names:
            console.print(f"only in {'BASE' if i == 0 else 'NEW'} ({len(names)}): {_name_list(names)}", highlight=False)


def _diff_table(d: DiffResult, width: int) -> Table:
    table = plain_table("BASE (A) -> NEW (B), time per launch",
                   ("kernel", "A", "B", "change", "roof A", "roof B", "verdict"))
    rows: list[list[Cell]] = []
    for v in d.verdicts:
        base, new = v.pair.side(0), v.pair.side(1)
        rows.append([KernelName(v.pair.label), seconds(base.per_launch_s.value), seconds(new.per_launch_s.value),
                     _signed(v.slowdown_pct.value), pct(base.roof.pct_of_roof), pct(new.roof.pct_of_roof),
                     "REGRESSED" if v.regressed else "ok"])
    return add_rows(table, rows, width)


def threshold_text(d: DiffResult) -> str:
    """The thresholds in words, e.g. 'slower > 5%, roof drop > 10 points'."""
    t = d.thresholds
    parts = ([f"slower > {t.slower_pct:g}%"] if t.slower_pct is not None else []) + \
            ([f"roof drop > {t.roof_drop_pct:g} points"] if t.roof_drop_pct is not None else [])
    return ", ".join(parts) or "no threshold (nothing gated)"


def _signed(value: float | None) -> str:
    """Percent change of time: +12.3% slower, -4.0% faster."""
    return "n/a" if value is None else f"{value:+.1f}%"


# --- summary ---------------------------------------------------------------------------------------------
def _print_summaries(console: Console, summaries: Sequence[AppSummary]) -> None:
    for s in summaries:
        _print_summary(console, s)


def _print_summary(console: Console, s: AppSummary) -> None:
    r = s.report
    console.print(f"[bold]{r.label}[/bold]  {r.device}  {r.launches} launches in {s.group_count} "
                  f"{'kernels' if s.by == 'kernel' else 'NVTX ranges'}, total {seconds(r.total_time_s)}",
                  highlight=False)
    for line in warning_lines(r.warnings):
        console.print(line, highlight=False)
    console.print(f"ranked by {s.ranked_by}", highlight=False)
    console.print(_summary_table(s, console.width))
    hidden = s.group_count - len(s.rows)
    covered = f"shown: {_pct_of(s.shown_share)} of the time"
    console.print(covered + (f"; {hidden} more not shown (--top)" if hidden > 0 else "") +
                  (f"; recoverable in all: {seconds(s.recoverable_s)}" if s.recoverable_s is not None else "") +
                  (f"; small grids: {seconds(s.small_grid_s)}" if s.small_grid_s else ""),
                  highlight=False)
    console.print(f"[dim]{RECOVERABLE_COUNTS}[/dim]", highlight=False)
    console.print()


def _summary_table(s: AppSummary, width: int) -> Table:
    """Rank, group, launches, total time, share of the report, recoverable time, percent of roof, bound."""
    table = plain_table(f"Top {len(s.rows)} by {s.by}", ("#", "name", "n", "total", "share", "recov.", "roof", "bound"),
                   name_column=1)
    rows: list[list[Cell]] = []
    for row in s.rows:
        g = row.group
        rows.append([str(row.rank), KernelName(g.name), str(len(g.launches)), seconds(g.total_s),
                     _pct_of(g.time_share), seconds(g.recoverable_s), pct(row.stats.roof.pct_of_roof),
                     row.stats.verdict.bound or "n/a"])
    return add_rows(table, rows, width)


def _pct_of(fraction: float | None) -> str:
    return pct(None if fraction is None else 100.0 * fraction)
