"""Terminal rendering of report analyses with rich: ceilings side by side, one row per launch (its roofline
position and its verdict), grouped kernels, the advice for the kernels with the most time to gain (ranked,
each with its estimate), and the reasons behind every "n/a". Fits the width it is given (80 columns at least);
kernel names take the room the numbers leave, and launches of one kernel that would read the same show their
launch configuration."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from roofline.analysis.launches import KernelGroup, KernelSpread, ReportAnalysis
from roofline.analysis.results import LaunchAnalysis, MemoryPicture, Verdict
from roofline.analysis.view import AdvisedKernel, ReportSetView, ReportView
from roofline.core.kernel_names import KernelName, kernel_name
from roofline.core.labels import NAMES
from roofline.core.model import PRECISIONS, Ceilings
from roofline.core.thresholds import SHOWN_MIN_SHARE
from roofline.core.units import counted, hit_pct, pct, seconds, si
from roofline.render.names import bound_word, distinguish, group_name, launch_config
from roofline.render.report.prose import (
    ACROSS_TITLE,
    across_flagged_text,
    across_spread,
    across_total,
    advice_text,
    cited,
    combined_text,
    datasheet_ratio_text,
    estimate_text,
    flop_notes_text,
    inverted_level_text,
    launch_count,
    memory_note_text,
    producer_text,
    scaled_roofs_note,
    short_name,
    sol_text,
    stall_text,
    unavailable_line,
    verdict_pct,
)
from roofline.render.terminal import (
    Cell,
    add_rows,
    escape,
    fitted,
    hanging,
    print_hanging,
    record,
    unbroken,
    warning_lines,
)

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

MAX_LAUNCH_ROWS = 30  # larger reports show their longest launches; JSON always has all of them


def render(view: ReportSetView, width: int = 80) -> str:
    """All reports as plain text, then the kernels compared across reports when there are several."""

    def body(console: Console) -> None:
        for i, v in enumerate(view.reports):
            if i:
                console.print()
            _print_report(console, v)
        note = view.across_note
        if view.spreads:
            console.print()
            _print_spreads(console, view.reports, view.spreads)
        elif note:
            console.print()
            console.print(f"{ACROSS_TITLE}: {escape(note)}", highlight=False)

    return record(body, width)


def _print_spreads(console: Console, views: Sequence[ReportView], spreads: Sequence[KernelSpread]) -> None:
    """Kernel total time per report ([1], [2], ...; "missing" where the report did not run it), the spread, and '!'
    where it passes the threshold or the kernel is missing from a report."""
    from rich.table import Table

    table = Table(title=ACROSS_TITLE, title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    analyses = [v.analysis for v in views]
    table.add_column("kernel", no_wrap=True)
    for i in range(len(analyses)):
        table.add_column(f"[{i + 1}]", justify="right", no_wrap=True)
    table.add_column("spread", justify="right", no_wrap=True)
    rows: list[list[Cell]] = [[KernelName(s.name), *(across_total(s, a.report.path) for a in analyses),
                               across_spread(s)] for s in spreads]
    console.print(add_rows(table, rows, console.width))
    for i, a in enumerate(analyses):
        console.print(f"[{i + 1}] {escape(a.report.path)}", highlight=False)
    flagged = across_flagged_text(spreads)
    if flagged:
        console.print(f"[bold red]![/bold red] {escape(flagged)}", highlight=False)


def _print_report(console: Console, v: ReportView) -> None:
    a = v.analysis
    d = a.device
    console.print(f"[bold]{escape(a.report.path)}[/bold]", highlight=False)
    if a.report.source == "model":
        label = escape(a.report.label or "no label")
        console.print(f"[yellow]report model (JSON), not read from an .ncu-rep: {label}[/yellow]",
                      highlight=False)
    console.print(f"{escape(d.name)}  CC {d.compute_capability or '?'}  {d.sm_count or '?'} SMs  "
                  f"{counted(len(a.launches), 'launch')}  total {seconds(a.total_time_s)}", highlight=False)
    for line in warning_lines(a.report.warnings):
        console.print(line, highlight=False)
    spec_line = escape(f"spec {a.spec_id} ({a.spec_match})") if a.spec_id else "no device spec matches this GPU"
    console.print(f"{spec_line}; percent of roof uses the [bold]{a.ceilings_used}[/bold] ceilings",
                  highlight=False)
    sets = v.ceilings
    console.print(_ceilings_table(v))
    own = sets.get("measured-clock")
    clock = own.clock_note if own is not None else ""
    if clock and not (v.scaled is not None and v.scaled.every):  # else the note below says where they came from
        print_hanging(console, f"kernel-clock = the report's peak counters x {clock}", "dim")
    scaled = scaled_roofs_note(v.scaled)
    if scaled:
        print_hanging(console, f"* {scaled}", "dim")
    console.print(_launch_table(a, console.width))
    hidden = hidden_launches(a.launches)
    if hidden:
        console.print(f"[dim]... {hidden} not shown (--format json lists all)[/dim]", highlight=False)
    groups = [g for g in a.groups if len(g.launches) > 1]
    if groups:
        console.print(_groups_table(groups, console.width))
    for line in _problems(v, console.width):
        console.print(line, highlight=False, soft_wrap=True)
    _print_advice(console, v.advised)
    _print_memory(console, v.advised)
    _print_hotspots(console, v.advised)


def _print_memory(console: Console, kernels: Sequence[AdvisedKernel]) -> None:
    """The memory chart of the longest launch of each kernel given: L1 and L2 hit rates, then the traffic between
    the units (``MemoryPicture``), one line each; nothing where the report holds no hit rate."""
    shown = [g for g in kernels if g.longest.memory is not None
             and any(v.value is not None for v in (*g.longest.memory.hit_rate_pct.values(),
                                                   *g.longest.memory.sol_pct.values()))]
    if not shown:
        return
    console.print("[bold]Memory[/bold] (ncu's Speed of Light, hit rates and traffic; longest launch of the kernels "
                  "with the most time to gain):", highlight=False)
    for g in shown:
        k = g.longest
        p = k.memory
        assert p is not None  # shown
        name = kernel_name(k.launch.name, k.launch.demangled_name)
        console.print(f"  {k.launch.key} {fitted(name, console.width - len(k.launch.key) - 3)}", highlight=False)
        sol = [f"{SOL_LABELS[unit]} {sol_text(v.value, unit in p.sol_over_active)}" for unit, v in p.sol_pct.items()
               if v.value is not None]
        rates = [f"{NAMES[level]} hit {hit_pct(v.value)}{_by_op(p) if level == 'l2' else ''}"
                 for level, v in p.hit_rate_pct.items() if v.value is not None]
        traffic = [[f"{label} {si(p.traffic[edge].value, unit)}{_of_peak(p, edge)}" for edge, label, unit in labels
                    if p.traffic[edge].value is not None] for labels in MEMORY_EDGE_LINES]
        for items in ([f"SOL {sol[0]}", *sol[1:]] if sol else [], rates, *traffic):
            if items:  # each label with its value on one line, however narrow the terminal
                print_hanging(console, "    " + "  ".join(unbroken(item) for item in items))
        for note in p.notes:
            print_hanging(console, f"    {memory_note_text(note)}", "dim")


def _by_op(p: MemoryPicture) -> str:
    """The L2 hit rate of loads and of stores, in parentheses; "" where the report holds neither."""
    found = [f"{OP_WORDS[op]} {hit_pct(v.value)}" for op, v in p.l2_hit_rate_pct_by_op.items() if v.value is not None]
    return f" ({', '.join(found)})" if found else ""


def _of_peak(p: MemoryPicture, edge: str) -> str:
    """An edge's percent of its path's peak, in parentheses; "" where not measured."""
    found = p.traffic_pct.get(edge)
    return f" ({pct(found.value)} of peak)" if found is not None and found.value is not None else ""


OP_WORDS = {"read": "loads", "write": "stores"}


SOL_LABELS = {"sm": "SM", "memory": "memory", "dram": "DRAM", "l1": "L1", "l2": "L2"}
MEMORY_EDGE_LINES = ((("dram_to_l2_bytes", "DRAM->L2", "B"), ("l2_to_dram_bytes", "L2->DRAM", "B")),
                     (("l2_to_l1_bytes", "L2->L1", "B"), ("l1_to_l2_bytes", "L1->L2", "B")),
                     (("kernel_l1_bytes", "kernel->L1", "B"), ("kernel_shared_wavefronts", "shared wavefronts", "")))


def _print_advice(console: Console, kernels: Sequence[AdvisedKernel]) -> None:
    """The advice for the longest launch of each kernel given, one item per line under the kernel."""
    from rich.table import Table

    advised = [g for g in kernels if g.advice]
    if not advised:
        return
    console.print("[bold]Advice[/bold] (longest launch of the kernels with the most time to gain):",
                  highlight=False)
    for g in advised:
        k = g.longest
        name = kernel_name(k.launch.name, k.launch.demangled_name)
        console.print(f"  {k.launch.key} {fitted(name, console.width - len(k.launch.key) - 3)}", highlight=False)
        items = Table.grid(padding=(0, 1))
        items.add_column(no_wrap=True)
        items.add_column()
        for item in g.brief:
            items.add_row("    -", escape(f"[{estimate_text(item)}] {advice_text(item)}{cited(item)}"))
        together = combined_text(k.combined_saved_s, k.combined_floor_s, any(a.overlapping for a in g.brief))
        if together and len(g.brief) > 1:
            items.add_row("    =", escape(together))
        hidden = len(g.advice) - len(g.brief)
        if hidden:  # items that save under SHOWN_MIN_SHARE of the time, or nothing (``reconcile.worth_showing``)
            items.add_row("    -", f"{counted(hidden, 'more item' if g.brief else 'item')} each saving under "
                                   f"{100 * SHOWN_MIN_SHARE:.0f}% of its time (--format markdown or json lists them)")
        console.print(items)


def _print_hotspots(console: Console, kernels: Sequence[AdvisedKernel]) -> None:
    """The source lines (or instructions) with the most warp samples in the longest launch of each kernel given,
    and once how to get lines where a binary has no line information."""
    sampled = [g for g in kernels if g.hotspots]
    if not sampled:
        return
    console.print("[bold]Hot spots[/bold] (warp samples; longest launch of the kernels with the most time to "
                  "gain):", highlight=False)
    fixes: dict[str, list[str]] = {}  # why a launch's instructions have no source line -> those launches
    for g in sampled:
        k = g.longest
        h = k.hotspots
        assert h is not None  # sampled
        name = kernel_name(k.launch.name, k.launch.demangled_name)
        head = f"  {k.launch.key} {fitted(name, console.width - len(k.launch.key) - 30)}"
        console.print(f"{head}  {h.total_samples:,} samples", highlight=False)
        rows = [spot.row for spot in g.hotspots]
        where, stall = (max(len(text) for text in texts) for texts in zip(*((r.where, stall_text(r))
                                                                              for r in rows), strict=True))
        for row in rows:
            line = f"    {pct(100 * row.share):>6} {row.where:<{where}} {stall_text(row):<{stall}} "
            text = (line + " ".join((row.sass or "").split())).rstrip()
            console.print(escape(text if len(text) <= console.width else text[:console.width - 1] + "…"),
                          highlight=False)
            notes = ([producer_text(row.producer)] if row.producer else []) + (
                [f"rests on {row.samples} samples"] if row.thin else [])
            if notes:
                console.print(escape(f"{'':>11}{'; '.join(notes)}"[:console.width]), highlight=False)
        if not h.lines and h.source_missing:
            fixes.setdefault(h.source_missing, []).append(k.launch.key)
    for fix, keys in sorted(fixes.items()):
        print_hanging(console, f"No source lines for {', '.join(keys)}: {fix}.", "dim")


def _ceilings_table(v: ReportView) -> Table:
    """The report's datasheet and kernel-clock roofs (``report_level_ceilings``), the calibrated ones where a
    calibration file gives them, and the measured-clock ones where percent of roof uses them, each with its ratio to
    the datasheet; the rows of ``roof_keys`` alone."""
    from rich.table import Table

    table = Table(title="Ceilings", title_justify="left", box=None, pad_edge=False, padding=(0, 1))
    sets, keys = v.ceilings, v.roof_keys
    sheet, clock, calibrated = sets.get("datasheet"), sets.get("kernel-clock"), sets.get("calibrated")
    own = sets.get("measured-clock") if v.analysis.ceilings_used == "measured-clock" else None
    extra: tuple[str, ...] = ("calibrated", "ratio") if calibrated else ()
    extra += ("measured-clock", "ratio") if own else ()
    for col in ("roof", "datasheet", "kernel-clock", "ratio", *extra):
        table.add_column(col, justify="left" if col == "roof" else "right")
    for key in keys:
        unit = "FLOP/s" if key in PRECISIONS else "B/s"
        measured, datasheet = _roof(clock, key), _roof(sheet, key)
        star = "*" if clock is not None and key in clock.scaled else ""
        r = datasheet_ratio_text(v, "kernel-clock", key)
        dtype = next((c.tensor_dtype for c in (clock, sheet) if c is not None), None)
        label = NAMES[key] + (f" ({dtype})" if key == "tensor" and dtype else "")
        cells = [label, si(datasheet, unit), si(measured, unit) + star, r]
        if calibrated:
            cal = calibrated.roof(key)
            cells += [si(cal, unit), datasheet_ratio_text(v, "calibrated", key)]
        if own:  # the roofs percent of roof uses: the report's peak counters alone, no datasheet scaled in
            cells += [si(own.roof(key), unit), datasheet_ratio_text(v, "measured-clock", key)]
        table.add_row(*cells)
    return table


def _roof(c: Ceilings | None, key: str) -> float | None:
    return c.roof(key) if c is not None else None


def _launch_table(analysis: ReportAnalysis, width: int) -> Table:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
        ("#", "left"), ("kernel", "left"), ("time", "right"), ("share", "right"), ("roof", "right"),
        ("bound: busiest unit", "left"))
    for col, just in columns:  # the verdict wraps where names set apart by their launch leave it too little room
        table.add_column(col, justify=just, no_wrap=col != "bound: busiest unit")
    starred = any(k.verdict.basis == "roofline" for k in analysis.launches)
    table.caption = ("roof = percent of the closest FP/byte roof; bound = the verdict over every unit (ncu's "
                     "SpeedOfLight rule), with the busiest unit at percent of its peak"
                     + ("; * roofline only (no throughputs in the report)" if starred else ""))
    table.caption_justify = "left"
    shown = _shown(analysis.launches)
    names = distinguish([kernel_name(k.launch.name, k.launch.demangled_name) for k in shown],
                        [launch_config(k.launch.grid or _total(k.grid_size), k.launch.block or _total(k.block_size))
                         for k in shown])
    rows: list[list[Cell]] = [
        [k.launch.key, name, seconds(k.duration_s.value), pct(None if k.time_share is None else 100 * k.time_share),
         _roof_cell(k), "invalid" if k.launch.invalid else verdict_cell(k.verdict)]
        for k, name in zip(shown, names, strict=True)]
    return add_rows(table, rows, width)


def verdict_cell(v: Verdict) -> str:
    """"compute: FP64 67%", "small grid: L2 2%", "memory*: DRAM 91%" (* roofline only), or "n/a"."""
    if v.bound is None:
        return "n/a"
    star = "*" if v.basis == "roofline" else ""
    unit = f": {short_name(v.busiest)} {verdict_pct(v.busiest.pct)}" if v.busiest is not None else ""
    return f"{bound_word(v.bound)}{star}{unit}"


def hidden_launches(launches: Sequence[LaunchAnalysis]) -> str:
    """The launches the table leaves out, in words: "15 shorter launches", "14 shorter launches and 1 without a
    time" (a launch ncu did not measure is not shorter); "" when it shows them all."""
    shown = {id(k) for k in _shown(launches)}
    left = [k for k in launches if id(k) not in shown]
    untimed = sum(1 for k in left if k.duration_s.value is None)
    parts = [f"{counted(len(left) - untimed, 'shorter launch')}" if len(left) > untimed else "",
             f"{untimed} without a time" if untimed else ""]
    return " and ".join(p for p in parts if p)


def _shown(launches: Sequence[LaunchAnalysis]) -> list[LaunchAnalysis]:
    """Every launch, or the MAX_LAUNCH_ROWS longest ones in report order."""
    if len(launches) <= MAX_LAUNCH_ROWS:
        return list(launches)
    longest = sorted(launches, key=lambda k: -(k.duration_s.value or 0.0))[:MAX_LAUNCH_ROWS]
    keep = {id(k) for k in longest}
    return [k for k in launches if id(k) in keep]


def _roof_cell(analysis: LaunchAnalysis) -> str:
    """Percent of the closest roof and that roof ("7.4% FP64"); '!' marks a launch above a ceiling."""
    if analysis.roof.limiter is None:
        return "n/a"
    return f"{pct(analysis.roof.pct_of_roof)} {NAMES.get(analysis.roof.limiter, analysis.roof.limiter)}" + (
        "!" if analysis.flags else ""
    )


def _groups_table(groups: Sequence[KernelGroup], width: int) -> Table:
    from rich.table import Table

    table = Table(title="Kernels with several launches", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    for col in ("kernel", "count", "total", "share", "median", "min-max", "roof"):
        table.add_column(col, justify="left" if col == "kernel" else "right", no_wrap=True)
    rows: list[list[Cell]] = [
        [group_name(g.name, g.functions, g.by), str(len(g.launches)),
         seconds(g.total_s), pct(None if g.time_share is None else 100 * g.time_share), seconds(g.median_s),
         _min_max(g), pct(g.median_pct_of_roof)] for g in groups]
    table.caption = "median = the median launch's time; roof = the median of the launches' percent of roof"
    table.caption_justify = "left"
    return add_rows(table, rows, width)


def _min_max(g: KernelGroup) -> str:
    """The shortest and longest launch's time, "1.2 us-3.4 us"; one "n/a" where the launches have no time (the
    reason is under "Why n/a", as for the other times)."""
    return "n/a" if g.min_s is None or g.max_s is None else f"{seconds(g.min_s)}-{seconds(g.max_s)}"


def _problems(v: ReportView, width: int) -> list[str]:
    """Why values are n/a, then the flags, the notes and the invalid launches, each wrapped to ``width`` with its
    continuation lines indented."""
    a = v.analysis
    lines = []
    why = [unavailable_line(u, len(a.valid_launches)) for u in v.unavailable]
    if why:
        lines.append("[bold]Why n/a[/bold] (not measured, or no ceiling; --format json names each metric):")
        lines += [line for text in why for line in hanging(f"  {text}", width)]
    flagged = [(k.launch.key, flag) for k in a.launches for flag in k.flags]
    if flagged:
        lines.append("[bold red]Above a ceiling (!)[/bold red]:")
        lines += [line for key, flag in flagged for line in hanging(f"  {key}: {flag}", width)]
    notes = flop_notes_text(v.notes)
    lines += [line for note in notes for line in hanging(f"note: {note}", width)]
    levels: dict[str, set[str]] = defaultdict(set)
    for k in a.launches:
        for level in k.inverted_levels:
            levels[inverted_level_text(level)].add(k.launch.key)
    lines += [line for note, keys in levels.items()
              for line in hanging(f"memory levels [{launch_count(len(keys), len(a.launches))}]: {note}", width)]
    invalid = [k.launch for k in a.launches if k.launch.invalid]
    if invalid:
        lines.append("[bold yellow]Invalid launches[/bold yellow] (left out of times, rankings and verdicts):")
        lines += [line for k in invalid for line in hanging(f"  {k.key} {k.name}: {k.invalid}", width)]
    return lines


def _total(size: int | None) -> tuple[int] | None:
    """A launch's grid or block as its total alone, where the report lacks the dimensions (older ncu, basic set)."""
    return (size,) if size is not None else None
