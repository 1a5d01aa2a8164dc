"""Optimization report as Markdown, built on a small document model that the HTML renderer shares.

``document`` turns report analyses into ``Block``s: the GPU and its ceilings (datasheet and kernel-clock side
by side), kernels ranked by time to gain, and per kernel its verdict over every unit and the roofline
position that explains it, what the warps wait on, occupancy, Tensor Core findings, ncu's own rule messages and
the advice of ``roofline.analysis.advice`` (ranked by estimated time saved, each with its condition and the measurement
behind it; where nothing was measured, none is given).
Inline markup in block text is limited to `code` and **bold** (``spans``), which both renderers understand; the
rest is text, which each renderer escapes, so a kernel name or a file name is never markup. Text from a report or
the user goes between backticks through ``cell``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from roofline.analysis.instructions import WIDTH_WALLS
from roofline.analysis.launches import KernelGroup, ReportAnalysis
from roofline.analysis.results import Advice, LaunchAnalysis, MemoryPicture
from roofline.analysis.verdict import BOUND_WORDS
from roofline.analysis.view import AdvisedKernel, ReportSetView, ReportView
from roofline.compare.ranking import RECOVERABLE_COUNTS
from roofline.core.kernel_names import fit_apart
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS, Ceilings
from roofline.core.thresholds import THIN_SAMPLES
from roofline.core.units import counted, hit_pct, pct, ratio, seconds, si
from roofline.render import GENERATOR
from roofline.render.names import bound_word, group_name, markdown_text, printable, short_group_name
from roofline.render.report.plot import NOTHING_TO_PLOT, PLOT_FIX, PlotData, plot_data
from roofline.render.report.prose import (
    ACROSS_TITLE,
    AT_LEAST,
    across_flagged_text,
    across_spread,
    across_total,
    advice_text,
    bound_of,
    cited,
    combined_text,
    datasheet_ratio_text,
    estimate_text,
    flop_note_text,
    intensity_caveat_text,
    inverted_level_text,
    left_out_names,
    memory_note_text,
    producer_text,
    scaled_roofs_note,
    sol_text,
    stall_text,
    verdict_parts,
)

RANKED_ROWS = 20  # kernels in the ranking table
NAME_CHARS = 80  # a kernel's name in the ranking table and its heading (the full demangled name follows it)
_MARKUP = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")  # the inline markup of block text: `code` and **bold**
_LINE_BREAK = re.compile(r"\r\n?|\n")  # Markdown's line ends: inside a block they would end a table row or start HTML
NO_ADVICE = "none: no measured cause in this report to act on"


@dataclass(frozen=True)
class Block:
    """One piece of a report: a heading (h1-h3), paragraph (p), list (ul), a list under a title that HTML
    folds (details), table, note, warning, plot, a source listing (code, shown as it is), or an inline SVG figure
    for HTML (svg: the element in ``text``)."""

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    numeric: tuple[bool, ...] = ()  # per table column: right-aligned
    plot: PlotData | None = None  # plot: the data (HTML draws it); text: the Markdown image line
    anchor: str = ""  # a kernel heading: the id of its section, which the plot's points link to
    links: tuple[tuple[str, str], ...] = ()  # plot: (kernel name, "#anchor") of the kernels with a section
    kernel: bool = False  # a kernel's heading: its section (HTML) starts here


def render(view: ReportSetView, images: Sequence[str] = ()) -> str:
    """The Markdown report; ``images``: per report, the path of its plot image relative to the Markdown file
    (written beside it by the command), embedded under the report's ceilings."""
    return text(with_left_out(view, with_across(view, document(view.reports, images=images))),
                "roofline report ... --format markdown")


def with_left_out(view: ReportSetView, blocks: list[Block]) -> list[Block]:
    """The document with, under its title, a warning per report file the command could not analyse."""
    warnings = [Block("warn", f"Left out: {cell(f.error)}") for f in view.left_out]  # the error names the file
    return [*blocks[:1], *warnings, *blocks[1:]]


def with_across(view: ReportSetView, blocks: list[Block]) -> list[Block]:
    """The document with, before its closing line, the kernels compared across its reports (several reports of one
    job), or the note why they are not; as it is with one report."""
    return [*blocks[:-1], *across_blocks(view), *blocks[-1:]]


def across_blocks(view: ReportSetView) -> list[Block]:
    """Each kernel's total time per report ([1], [2], ...; "missing" where the report did not run it), its spread
    and "!" where flagged, the reports' legend and the flagged kernels; the note why none is compared; nothing for
    one report."""
    analyses = [v.analysis for v in view.reports]
    note = view.across_note
    if not view.spreads:
        return [Block("h2", ACROSS_TITLE), Block("note", note)] if note else []
    paths = [a.report.path for a in analyses]
    rows = tuple((f"`{cell(s.name)}`", *(across_total(s, p) for p in paths), across_spread(s)) for s in view.spreads)
    header = ("kernel", *(f"[{i}]" for i in range(1, len(paths) + 1)), "spread")
    flagged = across_flagged_text(view.spreads)
    return [Block("h2", ACROSS_TITLE),
            Block("table", header=header, rows=rows, numeric=(False, *(True for _ in paths), True)),
            Block("ul", items=tuple(f"[{i}] `{cell(p)}`" for i, p in enumerate(paths, 1))),
            *([Block("p", f"! {flagged}")] if flagged else [])]


def text(blocks: Sequence[Block], regenerate: str) -> str:
    """Blocks as a Markdown document under the generator mark (``regenerate``: the command that writes it); plot
    blocks without an image line are left out."""
    parts = [f"<!-- {GENERATOR}; regenerate with `{regenerate}` -->"]
    parts += [_markdown(b) for b in blocks if b.kind != "plot" or b.text]
    return "\n\n".join(parts) + "\n"


def kernel_anchor(report: int, rank: int) -> str:
    """The id of a kernel's section: report index and rank (unique in a page of several reports)."""
    return f"r{report}-k{rank}"


# --- Document -----------------------------------------------------------------------------------------
def document(views: Sequence[ReportView], with_plot: bool = False, images: Sequence[str] = ()) -> list[Block]:
    """The whole report as blocks; ``with_plot`` adds each report's roofline plot data, ``images`` each report's
    plot image path (one per report)."""
    analyses = [v.analysis for v in views]
    names = ", ".join(f"`{cell(Path(a.report.path).name)}`" for a in analyses)
    launches = counted(sum(len(a.launches) for a in analyses), "kernel launch")
    blocks = [Block("h1", "Roofline optimization report"),
              Block("p", f"{names}: {launches}. The bound is the "
                         "verdict over every unit of the GPU (ncu's SpeedOfLight rule on the SM and memory "
                         "throughputs and the waves), with the busiest unit named; percent of roof (the shortest time "
                         "the FP and byte roofs allow over the measured time) explains it. "
                         f"{RECOVERABLE_COUNTS[0].upper()}{RECOVERABLE_COUNTS[1:]}. Kernels are ranked by their time "
                         "to gain: what each launch's first recommendation saves (the most one change saves), summed "
                         "over the kernel's launches, the figure `roofline summary` shows too. "
                         "Recommendations are ranked by the time they could save, each with its condition and the "
                         "measurement behind it.")]
    for i, v in enumerate(views):
        blocks += report_blocks(v, with_plot, i, images[i] if images else None)
    blocks.append(Block("p", f"{GENERATOR}."))
    return blocks


def summary_blocks(v: ReportView) -> list[Block]:
    """A report's name, GPU and kernel ranking: what a notebook shows of it (``html.notebook``)."""
    return [_title(v.analysis), Block("p", _gpu_line(v.analysis)), *_ranking(v)]


def _title(analysis: ReportAnalysis) -> Block:
    return Block("h2", f"`{cell(Path(analysis.report.path).name)}`")


def _ranking(v: ReportView) -> list[Block]:
    from roofline.documents.common import NO_GAIN

    numbers = v.plot_numbers if v.on_plot else ()  # no plot drawn: no column pointing at it
    blocks = [Block("h3", "Kernels ranked by time to gain"), ranking_table(v.ranking, v.gains, numbers)]
    if any(gain is None for gain in v.gains[:RANKED_ROWS]):
        blocks.append(Block("note", f"time to gain n/a: {NO_GAIN}."))
    return blocks


def report_blocks(v: ReportView, with_plot: bool = False, index: int = 0,
                  image: str | None = None) -> list[Block]:
    """One report (``index`` in the document): GPU, ceilings, plot (its data with ``with_plot``, else the
    ``image`` path when given; "" when the writer drew none, having nothing to plot), ranking, kernel sections, what
    was not measured."""
    a = v.analysis
    blocks = [_title(a)]
    blocks += [Block("warn", w) for w in a.report.warnings]
    if a.report.source == "model":
        blocks.append(Block("warn", f"Report model (JSON), not read from an .ncu-rep: {a.report.label or 'no label'}."))
    blocks += [Block("p", _gpu_line(a)), Block("h3", "Ceilings"), ceilings_table(v)]
    clock = v.ceilings.get("kernel-clock")
    if clock is not None and clock.clock_note and not (v.scaled is not None and v.scaled.every):
        blocks.append(Block("note", f"kernel-clock = the report's own peak counters x its {clock.clock_note}."))
    scaled = scaled_roofs_note(v.scaled)
    if scaled:
        blocks.append(Block("note", f"* {scaled}."))
    advised = v.advised
    data = plot_data([v]) if with_plot or image is not None else None
    if data is not None and not v.on_plot:
        blocks.append(Block("note", f"No roofline plot: no kernel {NOTHING_TO_PLOT} ({PLOT_FIX})."))
    elif with_plot:
        links = tuple((short_group_name(g.group.name, g.group.functions, g.group.by), f"#{kernel_anchor(index, rank)}")
                      for rank, g in enumerate(advised, 1))
        blocks.append(Block("plot", plot=data, links=links))
    elif image:
        blocks.append(Block("plot", f"![Roofline plot of {inline(Path(a.report.path).name)}]({image})"))
    blocks += _ranking(v)
    for rank, group in enumerate(advised, 1):
        blocks += kernel_blocks(rank, group, kernel_anchor(index, rank))
    unmeasured = not_measured(a, v.roof_keys)
    if unmeasured:
        blocks += [Block("h3", "Not measured in this report"), Block("ul", items=tuple(unmeasured))]
    invalid = tuple(f"`{k.launch.key}` `{cell(k.launch.name)}`: {k.launch.invalid}" for k in a.launches
                    if k.launch.invalid)
    if invalid:
        blocks += [Block("h3", "Invalid launches (left out of times, rankings and verdicts)"),
                   Block("ul", items=invalid)]
    return blocks


def _gpu_line(analysis: ReportAnalysis) -> str:
    d = analysis.device
    spec = (
        f"spec `{analysis.spec_id}` ({analysis.spec_match})" if analysis.spec_id else "no device spec matches this GPU"
    )
    return (f"**{d.name}**, CC {d.compute_capability or '?'}, {d.sm_count or '?'} SMs; "
            f"{counted(len(analysis.launches), 'launch')}, "
            f"{seconds(analysis.total_time_s)} in total. {spec}; percent of roof uses the "
            f"**{analysis.ceilings_used}** ceilings.")


def ceilings_table(v: ReportView) -> Block:
    """The report's datasheet and kernel-clock roofs side by side (``report_level_ceilings``), the calibrated ones
    where a calibration file gives them, and the measured-clock ones where percent of roof uses them."""
    sets, keys = v.ceilings, v.roof_keys
    sheet, measured, calibrated = sets.get("datasheet"), sets.get("kernel-clock"), sets.get("calibrated")
    own = sets.get("measured-clock") if v.analysis.ceilings_used == "measured-clock" else None
    rows = []
    for key in keys:
        unit = "FLOP/s" if key in PRECISIONS else "B/s"
        s_val, m_val = _roof(sheet, key), _roof(measured, key)
        either = measured or sheet
        dtype = either.tensor_dtype if key == "tensor" and either is not None else None
        label = NAMES[key] + (f" ({dtype.upper()})" if dtype else "")
        star = "*" if measured is not None and key in measured.scaled else ""
        ratio = datasheet_ratio_text(v, "kernel-clock", key)
        row: tuple[str, ...] = (label, si(s_val, unit), si(m_val, unit) + star, ratio)
        if calibrated is not None:
            c_val = _roof(calibrated, key)
            row += (si(c_val, unit), datasheet_ratio_text(v, "calibrated", key))
        if own is not None:
            row += (si(_roof(own, key), unit), datasheet_ratio_text(v, "measured-clock", key))
        rows.append(row)
    header: tuple[str, ...] = ("roof", "datasheet", "kernel-clock", "kernel-clock / datasheet")
    if calibrated is not None:
        header += ("calibrated", "calibrated / datasheet")
    if own is not None:
        header += ("measured-clock", "measured-clock / datasheet")
    return Block("table", header=header, rows=tuple(rows), numeric=(False, *[True] * (len(header) - 1)))


def _roof(c: Ceilings | None, key: str) -> float | None:
    return c.roof(key) if c is not None else None


def ranking_table(groups: Sequence[KernelGroup], gains: Sequence[float | None],
                  plot_numbers: Sequence[int] = ()) -> Block:
    """Kernels (launches grouped by name) with the most time to gain first: recoverable time, the time of small
    grids, and the time to gain (recoverable time plus what the small grids' advice estimates); with
    ``plot_numbers``, each kernel's number on the plot (kernels there go by time)."""
    rows: list[tuple[str, ...]] = []
    shown = groups[:RANKED_ROWS]
    names = fit_apart([group_name(g.name, g.functions, g.by) for g in shown], NAME_CHARS)  # rows never read alike
    for i, (g, gain, name) in enumerate(zip(shown, gains, names, strict=False), 1):
        k = g.longest
        v = k.verdict
        busiest = f"{v.busiest.name} {pct(v.busiest.pct)}" if v.busiest else "n/a"
        rows.append((str(i), f"`{cell(name)}`", str(len(g.launches)),
                     seconds(g.total_s),
                     pct(None if g.time_share is None else 100 * g.time_share),
                     bound_word(v.bound) + (" (roofline only)" if v.basis == "roofline" else ""), busiest,
                     pct(g.median_pct_of_roof), NAMES.get(k.roof.limiter or "", "n/a"), seconds(g.recoverable_s),
                     seconds(g.small_grid_s), seconds(gain)))
    header: tuple[str, ...] = ("#", "kernel", "launches", "time", "share", "bound", "busiest unit", "median % of roof",
                               "closest roof", "recoverable", "small grids", "time to gain")
    numeric: tuple[bool, ...] = (True, False, True, True, True, False, False, True, False, True, True, True)
    if plot_numbers:  # beside the rank: the kernel's number on the plot
        rows = [(r[0], f"#{n}", *r[1:]) for r, n in zip(rows, plot_numbers, strict=False)]
        header, numeric = (header[0], "plot", *header[1:]), (numeric[0], True, *numeric[1:])
    more = len(groups) - RANKED_ROWS
    if more > 0:
        rows.append(("", f"... {more} more kernels", *([""] * (len(header) - 2))))
    return Block("table", header=header, rows=tuple(rows), numeric=numeric)


def _gain_text(advised: AdvisedKernel) -> str:
    """", time to gain X" where a small grid's advice adds to the recoverable time as shown, else nothing."""
    gain, recoverable = advised.gain, advised.group.recoverable_s
    return f", time to gain {seconds(gain)}" if gain is not None and seconds(gain) != seconds(recoverable) else ""


def cell(text: str) -> str:
    """Text from a report or the user (a kernel or file name) as it goes into block text, between backticks or
    not: a backtick, which would end or start a code span, shown as '. The renderers escape everything else."""
    return text.replace("`", "'")


# --- One kernel ---------------------------------------------------------------------------------------
def kernel_blocks(rank: int, advised: AdvisedKernel, anchor: str = "") -> list[Block]:
    """A kernel's section (``anchor``: its id in HTML): where it sits, why, occupancy, Tensor Cores, ncu's rules,
    recommendations."""
    g, k = advised.group, advised.longest
    share = pct(None if g.time_share is None else 100 * g.time_share)
    which = (f"; figures below are for its longest launch ({k.launch.key}, {seconds(k.duration_s.value)})"
             if len(g.launches) > 1 else "")
    label = group_name(g.name, g.functions, g.by).fit(NAME_CHARS)  # the short name, then the full one
    blocks = [Block("h3", f"{rank}. `{cell(label)}`", anchor=anchor, kernel=True)]
    if k.launch.demangled_name and k.launch.demangled_name != label:
        blocks.append(Block("p", f"demangled: `{cell(k.launch.demangled_name)}`"))
    blocks += [Block("p", f"{counted(len(g.launches), 'launch')}, {seconds(g.total_s)} ({share} of the profiled time), "
                          f"recoverable {seconds(g.recoverable_s)}{_gain_text(advised)}{which}."),
               Block("p", verdict_text(k)), position_table(k, advised.l2_all_traffic_per_s),
               *([Block("note", f"{intensity_caveat_text(k)}.")] if k.intensity_leaves_out else []),
               Block("p", roof_text(advised))]
    blocks += [Block("note", f"{note}.")
               for note in (*map(flop_note_text, advised.notes), *map(inverted_level_text, k.inverted_levels))]
    blocks += [Block("warn", flag) for flag in k.flags]
    waits = stall_items(k, dict(advised.stall_names))
    if waits:
        blocks += [Block("p", "**What the warps wait on**"), Block("ul", items=waits)]
    blocks += hotspot_blocks(advised)
    occupancy = occupancy_items(k)
    if occupancy:
        blocks += [Block("p", "**Occupancy**"), Block("ul", items=occupancy)]
    if k.tensor_cores is not None:
        blocks += [Block("p", "**Tensor Cores**"), Block("ul", items=k.tensor_cores.findings)]
        if k.tensor_cores.warning:
            blocks.append(Block("warn", k.tensor_cores.warning))
    blocks += [Block("p", "**Instruction roofline**"), Block("ul", items=instruction_items(k))]
    blocks += memory_blocks(k)
    rules = rule_items(advised)
    if rules:
        blocks.append(Block("details", f"ncu rules ({len(rules)})", items=rules))
    blocks += [Block("p", "**Recommendations** (ranked by estimated time saved)"),
               Block("ul", items=tuple(advice_line(item) for item in k.advice) or (NO_ADVICE,))]
    together = combined_text(k.combined_saved_s, k.combined_floor_s, any(a.overlapping for a in k.advice))
    if together and len(k.advice) > 1:
        blocks.append(Block("p", f"**Combined**: {together}."))
    return blocks


def advice_line(item: Advice) -> str:
    """One recommendation with its estimate, its text and the condition that made it apply."""
    bound = f"; bound: {bound_of(item)}" if bound_of(item) else ""
    return f"**{estimate_text(item)}**: {advice_text(item)}{cited(item)} (when: {item.condition}{bound})"


def position_table(analysis: LaunchAnalysis, l2_all_traffic_per_s: float | None = None) -> Block:
    """Achieved rate, roof and percent of roof per used precision and per memory level, and the L2 rate at all
    traffic where the L2 bytes count another definition (the view's)."""
    c = analysis.ceilings.get(analysis.roof.ceilings)
    util, rows = analysis.roof.utilization_pct, []
    for p in PRECISIONS:
        if analysis.flop_per_s[p].value:
            rows.append(
                (NAMES[p], si(analysis.flop_per_s[p].value, "FLOP/s"), si(_roof(c, p), "FLOP/s"), pct(util.get(p)), "")
            )
    at_least = AT_LEAST if analysis.intensity_leaves_out else ""
    for level in LEVELS:
        value = analysis.intensity[level].value
        rows.append((NAMES[level], si(analysis.bytes_per_s[level].value, "B/s"), si(_roof(c, level), "B/s"),
                     pct(util.get(level)), f"{at_least if value is not None else ''}{ratio(value)}"))
    if l2_all_traffic_per_s is not None:
        rows.append(("L2, all traffic (stores included)", si(l2_all_traffic_per_s, "B/s"), "", "", ""))
    name = analysis.roof.ceilings
    return Block("table", header=("", "achieved", f"roof ({name})", "% of roof", "FLOP/byte"), rows=tuple(rows),
                 numeric=(False, True, True, True, True))


def verdict_text(analysis: LaunchAnalysis) -> str:
    """The verdict over every unit, the numbers that decide it and the busiest units."""
    v = analysis.verdict
    if v.bound is None:
        return f"**No verdict**: {v.reason}."
    detail = verdict_parts(v)[1]
    others = ", ".join(f"{u.name} {pct(u.pct)}" for u in v.top_units)
    busiest = f" Busiest units: {others}." if others else ""
    return f"**{BOUND_WORDS[v.bound].capitalize()}**: {detail}.{busiest}"


def roof_text(advised: AdvisedKernel) -> str:
    """The FP/byte roofline position, as the explanation beside the verdict."""
    k = advised.longest
    roof = k.roof
    if roof.limiter is None:
        return f"Roofline: no roof position ({roof.reason})."
    text = f"Roofline: {NAMES[roof.limiter]} at {pct(roof.pct_of_roof)} of its roof, the closest.{_ridge_text(advised)}"
    return text + (f" ({roof.reason}.)" if roof.reason else "")


LISTED_LINES = 3  # hot lines shown with their source text


def hotspot_blocks(advised: AdvisedKernel) -> list[Block]:
    """The source lines (or instructions) with the most warp samples, and the source text around the first ones
    where the report holds it; how to get lines where the binary has no line information."""
    h = advised.longest.hotspots
    if h is None or not advised.hotspots:
        return []
    rows = tuple(spot.row for spot in advised.hotspots)
    what = "lines" if h.lines else "instructions"
    sass = any(r.sass or r.producer for r in rows)  # no SASS anywhere: no empty columns, the reason in a note
    table = tuple((pct(100 * r.share), f"{r.samples:,}" + (" (thin)" if r.thin else ""), r.where, stall_text(r),
                   " ".join(printable(r.sass or "").split()),
                   " ".join(printable(producer_text(r.producer)).split()) if r.producer else "") for r in rows)
    columns = 6 if sass else 4
    blocks = [Block("p", f"**Hot spots** ({h.total_samples:,} warp samples; the {what} with the most)"),
              Block("table", header=("share", "samples", "where", "top stall", "SASS", "waits on")[:columns],
                    numeric=(True, True, False, False, False, False)[:columns],
                    rows=tuple(row[:columns] for row in table))]
    if not sass:
        blocks.append(Block("note", f"No SASS: {h.sass_missing or 'the report holds no disassembly'}."))
    thin = [r for r in rows if r.thin]
    if thin:
        blocks.append(Block("note", f"{', '.join(r.where for r in thin)}: rest{'s' if len(thin) == 1 else ''} on "
                                    f"fewer than {THIN_SAMPLES} warp samples (thin); their shares are rough."))
    for spot in advised.hotspots[:LISTED_LINES]:
        row, listing = spot.row, spot.listing
        if listing:
            blocks += [Block("p", f"`{row.where}`:"),
                       Block("code", "\n".join(f"{'>' if n == row.line else ' '}{n:>6}  {printable(text)}"
                                               for n, text in listing))]
    if not h.lines and h.source_missing:
        blocks.append(Block("note", f"No source lines: {h.source_missing}."))
    return blocks


def stall_items(analysis: LaunchAnalysis, names: dict[str, str]) -> tuple[str, ...]:
    """For latency and small-grid verdicts: the main stall reasons (``names``: each one's plain name) and the
    issue-slot figures."""
    s = analysis.stalls
    if s is None or analysis.verdict.bound not in ("latency", "small_grid"):
        return ()
    lines = [f"{names[r]} (`{r}`): {v:.3g} {s.source}, {100 * share:.0f}% of the stalls"
             for r, v, share in s.reasons[:3]]
    if s.issue_active_pct is not None:
        eligible = f", {s.eligible_per_scheduler:.2g} eligible warps per scheduler" \
            if s.eligible_per_scheduler is not None else ""
        lines.append(f"issue slots used in {pct(s.issue_active_pct)} of active cycles{eligible}")
    lines += [f"{key.replace('_', ' ')} not measured: {why}" for key, why in s.missing.items()]
    return tuple(lines)


def _ridge_text(advised: AdvisedKernel) -> str:
    k, ridge, precision = advised.longest, advised.ridge, advised.ridge_precision
    if ridge is None or precision is None or k.roof.limiter is None:
        return ""
    intensity = k.intensity[k.roof.limiter].value
    if intensity is None:
        return ""
    side = "below" if intensity < ridge else "above"
    alone = f" (of the measured FLOPs alone: {left_out_names(k)} not measured)" if k.intensity_leaves_out else ""
    return (f" Its intensity there, {ratio(intensity)} FLOP/byte{alone}, is {side} the {NAMES[precision]} ridge "
            f"point ({ratio(ridge)} FLOP/byte).")


def occupancy_items(analysis: LaunchAnalysis) -> tuple[str, ...]:
    """Occupancy findings, the changes that would raise the limit, and what was not measured."""
    o = analysis.occupancy
    if o is None:
        return ()
    if o.theoretical_pct is None and not o.limits:
        return ("not measured: the report has no occupancy metrics (re-profile with --section Occupancy "
                "--section LaunchStats)",)
    raise_limit = tuple(f"what would raise it: {w.text}" for w in o.what_if)
    unmeasured = tuple(f"{key.replace('_', ' ')} not measured: {why}" for key, why in o.missing.items())
    achieved = (f"achieved occupancy {pct(o.achieved_pct)}",) if o.achieved_apart is False else ()
    return (*o.findings, *achieved, *raise_limit, *unmeasured)


WIDE_WALLS = frozenset(name for name, _ in WIDTH_WALLS.values())  # the walls that follow the access width
WALL_WORDS = {"stride_0": "stride 0", "unit_stride": "unit stride", "scattered": "scattered",
              "no_conflict": "no conflict", "conflict_32_way": "32-way conflict"}


def instruction_items(launch_analysis: LaunchAnalysis) -> tuple[str, ...]:
    """The launch on the instruction roofline (``analysis.instructions``): warp and thread instruction rates against
    the issue peak, instructions per transaction per level, the access walls and the integer roofline; what is not
    measured says why."""
    r = launch_analysis.instruction_roofline
    if r is None:
        return ("not computed",)
    if r.warp_gips.value is None:
        lines = [f"warp instructions not measured: {r.warp_gips.reason}"]
    else:
        peak = r.peak_warp_gips.value
        share = (f", {pct(r.issue_pct.value)} of the issue peak ({ratio(peak)} GIPS)" if peak
                 else f" (no issue peak: {r.peak_warp_gips.reason})")
        threads = r.thread_gips_per_32.value
        per_32 = f"{ratio(threads)} GIPS" if threads is not None else f"not measured ({r.thread_gips_per_32.reason})"
        lines = [f"{ratio(r.warp_gips.value)} warp GIPS{share}; thread instructions / 32: {per_32}"]
        measured = [level for level in LEVELS if r.intensity[level].value is not None]
        if measured:
            lines.append("warp instructions per 32-byte transaction: "
                         + ", ".join(f"{NAMES[level]} {ratio(r.intensity[level].value)}" for level in measured)
                         + "; thread instructions / 32 per transaction: "
                         + ", ".join(f"{NAMES[level]} {ratio(r.thread_intensity[level].value)}" for level in measured
                                     if r.thread_intensity[level].value is not None))
        lines += [f"{NAMES[level]} transactions not measured: {r.transactions[level].reason}" for level in LEVELS
                  if r.transactions[level].value is None and r.intensity[level].value is None]
    for space, walls, unit in (("global", r.global_memory, "sectors"), ("shared", r.shared_memory, "wavefronts")):
        found = {op: v.value for op, v in walls.intensity.items() if v.value}
        if found:
            per = ", ".join(f"{op} {ratio(1 / v)}" for op, v in found.items())
            marks = ", ".join(f"{WALL_WORDS[name]} = {_wall_text(name, w, walls.width_walls)}"
                              for name, w in walls.walls.items())
            words = (", ".join(f"{op} {ratio(b)} B" for op, b in walls.width_bytes.items())
                     if walls.width_source == "sass" else "4-byte words")
            lines.append(f"{space} {unit} per warp instruction: {per} (walls for {words}: {marks})")
    lines.append(integer_text(launch_analysis))
    return tuple(lines)


def _wall_text(name: str, wall: float, per_op: Mapping[str, float]) -> str:
    """A wall in transactions per instruction; the width-dependent one per operation where loads and stores have
    widths counted from the SASS."""
    if name not in WIDE_WALLS or not per_op:
        return ratio(1 / wall)
    return ", ".join(f"{op} {ratio(1 / x)}" for op, x in per_op.items())


SOL_WORDS = {"sm": "SM", "memory": "memory", "dram": "DRAM", "l1": "L1/TEX", "l2": "L2"}
EDGE_WORDS = {"kernel_l1_bytes": ("kernel", "L1", "B"), "kernel_shared_wavefronts": ("kernel", "shared memory", ""),
              "l2_to_l1_bytes": ("L2", "L1", "B"), "l1_to_l2_bytes": ("L1", "L2", "B"),
              "dram_to_l2_bytes": ("DRAM", "L2", "B"), "l2_to_dram_bytes": ("L2", "DRAM", "B")}


def memory_blocks(analysis: LaunchAnalysis) -> list[Block]:
    """The memory chart (ncu's Memory Workload Analysis): hit rates and the traffic on each edge; [] where the report
    holds none of it."""
    p = analysis.memory
    if p is None:
        return []
    sol = [Block("p", "**Speed of Light** (ncu's percent of peak): " + ", ".join(
        f"{SOL_WORDS[unit]} {sol_text(v.value, unit in p.sol_over_active)}" for unit, v in p.sol_pct.items()
        if v.value is not None))] \
        if any(v.value is not None for v in p.sol_pct.values()) else []
    if all(v.value is None for v in (*p.hit_rate_pct.values(), *p.traffic.values())):
        return sol
    rates = ", ".join(f"{NAMES[level]} {hit_pct(v.value)}{_l2_by_op(p) if level == 'l2' else ''}"
                      if v.value is not None else f"{NAMES[level]} not measured"
                      for level, v in p.hit_rate_pct.items())
    rows = tuple((EDGE_WORDS[edge][0], EDGE_WORDS[edge][1],
                  si(v.value, EDGE_WORDS[edge][2]) + ("" if EDGE_WORDS[edge][2] else " wavefronts")
                  if v.value is not None else "not measured", _edge_pct(p, edge), p.definitions[edge])
                 for edge, v in p.traffic.items())
    notes = [Block("p", memory_note_text(note)) for note in p.notes]
    return [*sol, Block("p", f"**Memory** (hit rates: {rates})"),
            Block("table", header=("from", "to", "traffic", "% of peak", "counts"), rows=rows,
                  numeric=(False, False, True, True, False)), *notes]


def _l2_by_op(p: MemoryPicture) -> str:
    """The L2 hit rate of loads and of stores, in parentheses; "" where the report holds neither."""
    words = {"read": "loads", "write": "stores"}
    found = [f"{words[op]} {hit_pct(v.value)}" for op, v in p.l2_hit_rate_pct_by_op.items() if v.value is not None]
    return f" ({', '.join(found)})" if found else ""


def _edge_pct(p: MemoryPicture, edge: str) -> str:
    """An edge's percent of its path's peak, or "n/a"."""
    found = p.traffic_pct.get(edge)
    return pct(found.value) if found is not None and found.value is not None else "n/a"


def integer_text(analysis: LaunchAnalysis) -> str:
    """The integer roofline in a line: integer GIOPS against the integer pipe's peak, or why it is not measured."""
    r = analysis.instruction_roofline
    if r is None:
        return "integer instructions: not computed"
    i = r.integer
    if i.giops.value is None:
        return f"integer instructions not measured: {i.giops.reason}"
    peak = (f", {pct(i.pct_of_peak.value)} of the integer pipe's peak ({ratio(i.peak_giops.value)} GIOPS)"
            if i.peak_giops.value is not None else f" (no integer peak: {i.peak_giops.reason})")
    above = (": above it, as integer multiplies (IMAD) issue to the FMA pipe beside the ALU"
             if i.pct_of_peak.value is not None and i.pct_of_peak.value > 100 else "")
    return f"integer instructions: {ratio(i.giops.value)} GIOPS{peak}{above}"


def rule_items(advised: AdvisedKernel) -> tuple[str, ...]:
    """ncu's rule messages for the launch (all but the "ok" ones), once each; the rules ncu failed to run (kind
    "error": its section scripts' exceptions, with the profiling machine's paths) counted in one line (the JSON
    keeps each)."""
    shown = [r for r in advised.rules if r.kind != "error"]
    items = [f"**{r.kind}** {r.title + ': ' if r.title else ''}{r.text}" for r in shown]
    failed = len([r for r in advised.rules if r.kind == "error"])
    if failed:
        items.append(f"**error** ncu could not run {counted(failed, 'rule')} on this launch (its rule scripts "
                     "failed, as they do on metrics it did not measure); --format json lists each")
    return tuple(dict.fromkeys(items))


# --- What the report lacks ----------------------------------------------------------------------------
def not_measured(analysis: ReportAnalysis, keys: Sequence[str]) -> list[str]:
    """Distinct reasons for values the report cannot give, with how many launches each affects; FLOPs only of the
    precisions whose roofs are shown (``keys``: what the launches ran or could run)."""
    reasons: dict[str, set[str]] = {}
    for k in analysis.valid_launches:
        values = [(f"FLOPs {NAMES[p]}", k.flops[p]) for p in PRECISIONS if p in keys]
        values += [(f"bytes {NAMES[level]}", k.bytes[level]) for level in LEVELS] + [("duration", k.duration_s)]
        for key, v in values:
            if v.value is None:
                reasons.setdefault(f"{key}: {v.reason}", set()).add(k.launch.key)
        if k.verdict.bound is None:
            reasons.setdefault(f"bound: {k.verdict.reason}", set()).add(k.launch.key)
    total = len(analysis.valid_launches)
    return [f"{text} ({'all launches' if len(keys) == total else f'{len(keys)} of {total} launches'})"
            for text, keys in reasons.items()]


# --- Markdown -----------------------------------------------------------------------------------------
def spans(text: str) -> Iterator[tuple[str, str]]:
    """Block text in its parts: ("code", text), ("bold", text) or ("plain", text), in order: line breaks as spaces
    (in Markdown they would end a table row or start HTML), other control characters written as escapes
    (``names.printable``)."""
    text = printable(_LINE_BREAK.sub(" ", text))
    at = 0
    for m in _MARKUP.finditer(text):
        if m.start() > at:
            yield "plain", text[at:m.start()]
        yield ("code", m[1]) if m[1] is not None else ("bold", m[2])
        at = m.end()
    if at < len(text):
        yield "plain", text[at:]


def inline(text: str, in_table: bool = False) -> str:
    """Block text as Markdown on one line: code and bold as markup, every other character as itself (escaped
    where Markdown would read it as markup or HTML); ``in_table``: a table cell, where GFM splits at any pipe
    not escaped, code spans included."""
    out = []
    for kind, part in spans(text):
        if kind == "code":
            out.append("`" + (part.replace("|", "\\|") if in_table else part) + "`")
        else:
            escaped = markdown_text(part)
            out.append(f"**{escaped}**" if kind == "bold" else escaped)
    return "".join(out)




def _markdown(b: Block) -> str:
    if b.kind in ("h1", "h2", "h3"):
        return "#" * int(b.kind[1]) + " " + inline(b.text)
    if b.kind in ("ul", "details"):
        title = f"**{inline(b.text)}**\n\n" if b.kind == "details" else ""
        return title + "\n".join(f"- {inline(item)}" for item in b.items)
    if b.kind == "table":
        align = ["---:" if n else "---" for n in b.numeric] or ["---"] * len(b.header)
        lines = [row(b.header), "| " + " | ".join(align) + " |"] + [row(r) for r in b.rows]
        return "\n".join(lines)
    if b.kind == "warn":
        return f"> **Warning:** {inline(b.text)}"
    if b.kind == "note":
        return f"> {inline(b.text)}"
    if b.kind == "plot":  # the image line, Markdown already
        return b.text
    if b.kind == "code":  # a source listing, as it is: fenced by more backticks than any run in it
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", b.text)), default=0))
        return f"{fence}\n{b.text}\n{fence}"
    return inline(b.text)


def row(cells: Sequence[str]) -> str:
    """A GFM table row of block texts."""
    return "| " + " | ".join(inline(c, in_table=True) for c in cells) + " |"
