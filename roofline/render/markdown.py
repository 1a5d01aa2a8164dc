"""Optimization report as Markdown, built on a small document model that the HTML renderer shares.

``document`` turns report analyses into ``Block``s: the GPU and its ceilings (datasheet and measured-clock
side by side), kernels ranked by recoverable time, and per kernel its roofline position, bound and why,
occupancy, Tensor Core findings, ncu's own rule messages and recommendations. Every recommendation is tied
to a measured cause and names the number behind it; where nothing was measured, none is given.
Inline markup in block text is limited to `code` and **bold**, which both renderers understand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from roofline import __version__
from roofline.analysis import (LATENCY_BOUND_BELOW_PCT, KernelGroup, LaunchAnalysis, ReportAnalysis,
                               rank_by_recoverable_time)
from roofline.diagnostics.occupancy import ACHIEVED_GAP_PTS, LIMITER_WORDS, TAIL_IDLE_PCT
from roofline.model import LEVELS, PRECISIONS, Ceilings
from roofline.render import GENERATED_BY
from roofline.render.plot import NAMES, SET_NAMES, median_ceilings, plot_data
from roofline.render.units import pct, ratio, seconds, si

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.plot import PlotData

RANKED_ROWS = 20  # kernels in the ranking table
DETAILED_KERNELS = 8  # kernels with a full section, by recoverable time
SHORT_LAUNCH_S = 5e-6  # launches this short are dominated by launch overhead
WEAK_FP64_RATIO = 8.0  # FP32 ceiling over FP64 ceiling from which FP64 is worth questioning
SKIPPED_RULE_KINDS = ("ok",)


@dataclass(frozen=True)
class Block:
    """One piece of a report: a heading (h1-h3), paragraph (p), list (ul), a list under a title that HTML
    folds (details), table, note, warning or plot."""

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    numeric: tuple[bool, ...] = ()  # per table column: right-aligned
    plot: "PlotData | None" = None


def render(analyses: Sequence[ReportAnalysis]) -> str:
    """The Markdown report (the plot is left to the HTML report and to `roofline plot`)."""
    parts = [f"<!-- {GENERATED_BY} {__version__}; regenerate with `roofline report ... --format markdown` -->"]
    parts += [_markdown(b) for b in document(analyses) if b.kind != "plot"]
    return "\n\n".join(parts) + "\n"


# --- Document -----------------------------------------------------------------------------------------
def document(analyses: Sequence[ReportAnalysis], with_plot: bool = False) -> list[Block]:
    """The whole report as blocks; ``with_plot`` adds each report's roofline plot data."""
    names = ", ".join(f"`{Path(a.report.path).name}`" for a in analyses)
    blocks = [Block("h1", "Roofline optimization report"),
              Block("p", f"{names}: {sum(len(a.launches) for a in analyses)} kernel launches. Percent of roof is "
                         "time-based (the shortest time the roofs allow over the measured time); recoverable time = "
                         "time x (1 - percent of roof). Each recommendation names the measurement behind it.")]
    for a in analyses:
        blocks += report_blocks(a, with_plot)
    blocks.append(Block("p", f"{GENERATED_BY} {__version__}."))
    return blocks


def report_blocks(a: ReportAnalysis, with_plot: bool = False) -> list[Block]:
    """One report: GPU, ceilings, plot, ranking, kernel sections, what was not measured."""
    blocks = [Block("h2", f"`{Path(a.report.path).name}`")]
    if a.report.source == "model":
        blocks.append(Block("warn", f"Report model, not an ncu measurement: {a.report.label or 'no label'}."))
    blocks += [Block("p", _gpu_line(a)), Block("h3", "Ceilings"), ceilings_table(a)]
    clock = median_ceilings(a.launches, "report")
    if clock is not None and clock.clock_note:
        blocks.append(Block("note", f"measured-clock = the report's own peak counters x its {clock.clock_note}."))
    if with_plot:
        blocks.append(Block("plot", plot=plot_data([a])))
    ranked = rank_by_recoverable_time(a.groups)
    blocks += [Block("h3", "Kernels ranked by recoverable time"), ranking_table(ranked)]
    for i, group in enumerate(ranked[:DETAILED_KERNELS], 1):
        blocks += kernel_blocks(i, group)
    unmeasured = not_measured(a)
    if unmeasured:
        blocks += [Block("h3", "Not measured in this report"), Block("ul", items=tuple(unmeasured))]
    return blocks


def _gpu_line(a: ReportAnalysis) -> str:
    d = a.device
    spec = f"spec `{a.spec_id}` ({a.spec_match})" if a.spec_id else "no device spec matches this GPU"
    return (f"**{d.name}**, CC {d.compute_capability or '?'}, {d.sm_count or '?'} SMs; {len(a.launches)} launch(es), "
            f"{seconds(a.total_time_s)} in total. {spec}; percent of roof uses the "
            f"**{SET_NAMES.get(a.ceilings_used, a.ceilings_used)}** ceilings.")


def ceilings_table(a: ReportAnalysis) -> Block:
    """Datasheet and measured-clock roofs side by side (measured: median over the launches)."""
    sheet, measured = median_ceilings(a.launches, "spec"), median_ceilings(a.launches, "report")
    rows = []
    for key in (*PRECISIONS, *LEVELS):
        unit = "FLOP/s" if key in PRECISIONS else "B/s"
        s_val, m_val = _roof(sheet, key), _roof(measured, key)
        dtype = (measured or sheet).tensor_dtype if key == "tensor" and (measured or sheet) else None
        label = NAMES[key] + (f" ({dtype.upper()})" if dtype else "")
        rows.append((label, si(s_val, unit), si(m_val, unit), f"{m_val / s_val:.2f}" if s_val and m_val else ""))
    return Block("table", header=("roof", "datasheet", "measured-clock", "measured / datasheet"), rows=tuple(rows),
                 numeric=(False, True, True, True))


def _roof(c: Ceilings | None, key: str) -> float | None:
    if c is None:
        return None
    return c.flop_per_s[key] if key in PRECISIONS else c.bytes_per_s[key]


def ranking_table(groups: Sequence[KernelGroup]) -> Block:
    """Kernels (launches grouped by name) with the most recoverable time first."""
    rows = []
    for i, g in enumerate(groups[:RANKED_ROWS], 1):
        k = longest(g)
        rows.append((str(i), f"`{_cell(g.name)}`", str(len(g.launches)), seconds(g.total_s),
                     pct(None if g.time_share is None else 100 * g.time_share), pct(g.median_pct_of_roof),
                     k.roof.bound or "n/a", NAMES.get(k.roof.limiter or "", "n/a"), seconds(g.recoverable_s)))
    header = ("#", "kernel", "launches", "time", "share", "median % of roof", "bound", "closest roof", "recoverable")
    more = len(groups) - RANKED_ROWS
    if more > 0:
        rows.append(("", f"... {more} more kernels", "", "", "", "", "", "", ""))
    return Block("table", header=header, rows=tuple(rows),
                 numeric=(True, False, True, True, True, True, False, False, True))


def longest(g: KernelGroup) -> LaunchAnalysis:
    """The group's longest launch: the one its kernel section describes."""
    return max(g.launches, key=lambda k: k.duration_s.value or 0.0)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


# --- One kernel ---------------------------------------------------------------------------------------
def kernel_blocks(rank: int, g: KernelGroup) -> list[Block]:
    """A kernel's section: where it sits, why, occupancy, Tensor Cores, ncu's rules, recommendations."""
    k = longest(g)
    share = pct(None if g.time_share is None else 100 * g.time_share)
    which = (f"; figures below are for its longest launch ({k.launch.key}, {seconds(k.duration_s.value)})"
             if len(g.launches) > 1 else "")
    blocks = [Block("h3", f"{rank}. `{_cell(g.name)}`"),
              Block("p", f"{len(g.launches)} launch(es), {seconds(g.total_s)} ({share} of the profiled time), "
                         f"recoverable {seconds(g.recoverable_s)}{which}."),
              position_table(k), Block("p", bound_text(k))]
    blocks += [Block("warn", flag) for flag in k.flags]
    occupancy = occupancy_items(k)
    if occupancy:
        blocks += [Block("p", "**Occupancy**"), Block("ul", items=occupancy)]
    if k.tensor_cores is not None:
        blocks += [Block("p", "**Tensor Cores**"), Block("ul", items=k.tensor_cores.findings)]
        if k.tensor_cores.warning:
            blocks.append(Block("warn", k.tensor_cores.warning))
    rules = rule_items(k)
    if rules:
        blocks.append(Block("details", f"ncu rules ({len(rules)})", items=rules))
    advice = recommendations(k)
    blocks += [Block("p", "**Recommendations**"),
               Block("ul", items=advice or ("none: no measured cause in this report to act on",))]
    return blocks


def position_table(k: LaunchAnalysis) -> Block:
    """Achieved rate, roof and percent of roof per used precision and per memory level."""
    c = k.ceilings.get(k.roof.ceilings)
    util, rows = k.roof.utilization_pct, []
    for p in PRECISIONS:
        if k.flop_per_s[p].value:
            rows.append((NAMES[p], si(k.flop_per_s[p].value, "FLOP/s"), si(_roof(c, p), "FLOP/s"), pct(util.get(p)),
                         ""))
    for level in LEVELS:
        rows.append((NAMES[level], si(k.bytes_per_s[level].value, "B/s"), si(_roof(c, level), "B/s"),
                     pct(util.get(level)), ratio(k.intensity[level].value)))
    name = SET_NAMES.get(k.roof.ceilings, k.roof.ceilings)
    return Block("table", header=("", "achieved", f"roof ({name})", "% of roof", "FLOP/byte"), rows=tuple(rows),
                 numeric=(False, True, True, True, True))


def bound_text(k: LaunchAnalysis) -> str:
    """The bound and the measurement that decides it."""
    roof = k.roof
    if roof.bound is None:
        return f"**No roof position**: {roof.reason}."
    closest = f"{NAMES[roof.limiter]} at {pct(roof.pct_of_roof)} of its roof"
    if roof.bound == "latency":
        text = (f"**Latency-bound**: no roof reaches {LATENCY_BOUND_BELOW_PCT:.0f}%; the closest is {closest}. The "
                "kernel saturates neither a pipeline nor a memory level, so the cause is in the occupancy, the grid "
                "or the warps' stalls.")
    elif roof.bound == "memory":
        text = f"**Memory-bound**: {closest}, the closest roof.{_ridge_text(k)}"
    else:
        text = f"**Compute-bound**: {closest}, the closest roof."
    return text + (f" ({roof.reason}.)" if roof.reason else "")


def _ridge_text(k: LaunchAnalysis) -> str:
    ridge, precision = ridge_point(k)
    intensity = k.intensity[k.roof.limiter].value
    if ridge is None or intensity is None:
        return ""
    side = "below" if intensity < ridge else "above"
    return (f" Its intensity there, {ratio(intensity)} FLOP/byte, is {side} the {NAMES[precision]} ridge point "
            f"({ratio(ridge)} FLOP/byte).")


def ridge_point(k: LaunchAnalysis) -> tuple[float | None, str | None]:
    """Ridge point of the main precision's ceiling against the limiting memory level's roof."""
    c, precision = k.ceilings.get(k.roof.ceilings), k.main_precision
    if c is None or precision is None or k.roof.limiter not in LEVELS:
        return None, precision
    peak, bandwidth = c.flop_per_s[precision], c.bytes_per_s[k.roof.limiter]
    return (peak / bandwidth if peak and bandwidth else None), precision


def occupancy_items(k: LaunchAnalysis) -> tuple[str, ...]:
    """Occupancy findings, the changes that would raise the limit, and what was not measured."""
    o = k.occupancy
    if o is None:
        return ()
    if o.theoretical_pct is None and not o.limits:
        return ("not measured: the report has no occupancy metrics (re-profile with --section Occupancy "
                "--section LaunchStats)",)
    raise_limit = tuple(f"what would raise it: {w.text}" for w in o.what_if)
    unmeasured = tuple(f"{key.replace('_', ' ')} not measured: {why}" for key, why in o.missing.items())
    achieved = (f"achieved occupancy {pct(o.achieved_pct)}",) if o.achieved_pct is not None and o.gap_pts is not None \
        and o.gap_pts <= ACHIEVED_GAP_PTS else ()
    return (*o.findings, *achieved, *raise_limit, *unmeasured)


_RULE_MARKUP = ((re.compile(r"@url:([^:@]+):[^@]*@"), r"\1"),  # a link becomes its title
                (re.compile(r"@(?:section|source):[^:@]*:([^@]*)@"), r"\1"))  # a section or source reference too


def clean_rule_text(text: str) -> str:
    """An ncu rule message as plain text: links and section references become their titles."""
    for pattern, repl in _RULE_MARKUP:
        text = pattern.sub(repl, text)
    return " ".join(text.replace("`", "'").split())


def rule_items(k: LaunchAnalysis) -> tuple[str, ...]:
    """ncu's rule messages for the launch (all but the "ok" ones), once each."""
    items = [f"**{r.kind}** {r.title + ': ' if r.title else ''}{clean_rule_text(r.message)}"
             for r in k.launch.rules if r.kind not in SKIPPED_RULE_KINDS]
    return tuple(dict.fromkeys(items))


# --- Recommendations ----------------------------------------------------------------------------------
def recommendations(k: LaunchAnalysis) -> tuple[str, ...]:
    """Concrete advice, each item tied to the measured cause and naming its number."""
    advice = [f"Re-profile before optimizing: {flag}." for flag in k.flags]
    if k.roof.bound == "memory":
        advice.append(_memory_advice(k))
    if k.tensor_cores is not None and k.tensor_cores.advice:
        advice.append(k.tensor_cores.advice)
    advice += _fp64_advice(k)
    if k.roof.bound == "compute" and len(advice) == len(k.flags):
        ceiling = NAMES[k.roof.limiter]
        advice.append(f"At {pct(k.roof.pct_of_roof)} of the {ceiling} ceiling at most {100 / k.roof.pct_of_roof:.2g}x "
                      f"is left: keep the {ceiling} pipe fed (instruction mix and stall reasons in --section "
                      "InstructionStats --section WarpStateStats); past the ceiling only fewer or cheaper operations "
                      "help.")
    if k.roof.bound in ("latency", None):
        advice += _latency_advice(k)
    duration = k.duration_s.value
    if duration is not None and duration < SHORT_LAUNCH_S:
        advice.append(f"Each launch takes {seconds(duration)}, the order of the launch overhead itself: fuse it with "
                      "neighbouring kernels or capture the sequence in a CUDA Graph.")
    return tuple(advice)


def _memory_advice(k: LaunchAnalysis) -> str:
    level = NAMES[k.roof.limiter]
    moved = si(k.bytes[k.roof.limiter].value, "B")
    if not k.total_flops:
        return (f"{level} traffic ({moved}) at {pct(k.roof.pct_of_roof)} of its roof sets the time and the kernel does "
                "no counted floating-point math: only moving fewer bytes helps (fusion with the producer or consumer "
                "kernel, narrower data types).")
    ridge, precision = ridge_point(k)
    target = f" towards the {NAMES[precision]} ridge point of {ratio(ridge)} FLOP/byte" if ridge else ""
    return (f"Cut {level} traffic: {moved} at {pct(k.roof.pct_of_roof)} of the {level} roof, at "
            f"{ratio(k.intensity[k.roof.limiter].value)} FLOP/byte. Raise the intensity{target} by reusing data "
            "from shared memory or registers (tiling), fusing kernels, or narrower data types.")


def _fp64_advice(k: LaunchAnalysis) -> list[str]:
    """FP64 work on a GPU whose FP64 ceiling is a small fraction of its FP32 one."""
    c = k.ceilings.get(k.roof.ceilings)
    if c is None or k.main_precision != "fp64" or not c.flop_per_s["fp64"] or not c.flop_per_s["fp32"]:
        return []
    times = c.flop_per_s["fp32"] / c.flop_per_s["fp64"]
    if times < WEAK_FP64_RATIO:
        return []
    return [f"Most of its FLOPs are FP64 ({si(k.flops['fp64'].value, 'FLOP')}), and this GPU's FP32 ceiling is "
            f"{times:.0f}x its FP64 one ({si(c.flop_per_s['fp32'], 'FLOP/s')} vs "
            f"{si(c.flop_per_s['fp64'], 'FLOP/s')}): "
            "use FP32 where the accuracy allows."]


def _latency_advice(k: LaunchAnalysis) -> list[str]:
    """Advice for a kernel below every roof, from its occupancy and grid measurements."""
    o, advice = k.occupancy, []
    if o is None:
        return advice
    if o.waves_per_sm is not None and o.tail_idle_pct is not None and o.tail_idle_pct >= TAIL_IDLE_PCT:
        fix = ("launch more, smaller blocks or run independent kernels concurrently (streams)" if o.waves_per_sm < 1
               else "size the grid to a whole number of waves, or use more, smaller blocks")
        advice.append(f"{o.waves_per_sm:.3g} waves per SM leave {o.tail_idle_pct:.0f}% of the block slots idle: {fix}.")
    if o.what_if and o.theoretical_pct is not None:
        limiters = " and ".join(LIMITER_WORDS[x] for x in o.limiters)
        advice.append(f"Theoretical occupancy is {pct(o.theoretical_pct)}, limited by {limiters}: "
                      f"{o.what_if[-1].text}.")
    if o.gap_pts is not None and o.gap_pts > ACHIEVED_GAP_PTS and not (o.waves_per_sm or 1) < 1:
        advice.append(f"Achieved occupancy {pct(o.achieved_pct)} trails the theoretical {pct(o.theoretical_pct)} by "
                      f"{o.gap_pts:.0f} points: balance the work across warps and blocks.")
    if not advice and k.roof.bound == "latency":
        advice.append(f"Nothing measured here explains the {pct(k.roof.pct_of_roof)} of roof: collect "
                      "--section WarpStateStats --section SchedulerStats to see why warps stall.")
    return advice


# --- What the report lacks ----------------------------------------------------------------------------
def not_measured(a: ReportAnalysis) -> list[str]:
    """Distinct reasons for values the report cannot give, with how many launches each affects."""
    reasons: dict[str, set[str]] = {}
    for k in a.launches:
        values = [(f"FLOPs {NAMES[p]}", k.flops[p]) for p in PRECISIONS]
        values += [(f"bytes {NAMES[level]}", k.bytes[level]) for level in LEVELS] + [("duration", k.duration_s)]
        for key, v in values:
            if v.value is None:
                reasons.setdefault(f"{key}: {v.reason}", set()).add(k.launch.key)
    total = len(a.launches)
    return [f"{text} ({'all launches' if len(keys) == total else f'{len(keys)} of {total} launches'})"
            for text, keys in reasons.items()]


# --- Markdown -----------------------------------------------------------------------------------------
def _markdown(b: Block) -> str:
    if b.kind in ("h1", "h2", "h3"):
        return "#" * int(b.kind[1]) + " " + b.text
    if b.kind in ("ul", "details"):
        title = f"**{b.text}**\n\n" if b.kind == "details" else ""
        return title + "\n".join(f"- {item}" for item in b.items)
    if b.kind == "table":
        align = ["---:" if n else "---" for n in b.numeric] or ["---"] * len(b.header)
        lines = [_row(b.header), _row(align)] + [_row(r) for r in b.rows]
        return "\n".join(lines)
    if b.kind == "warn":
        return f"> **Warning:** {b.text}"
    if b.kind == "note":
        return f"> {b.text}"
    return b.text


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
