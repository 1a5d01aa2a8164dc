"""GitHub-flavoured Markdown of comparisons and regression diffs.

A comparison (``roofline compare --format markdown``, and the blocks its HTML page is made of): the reports, the
pairing used, and per report against the base its work, time (same work) or throughput (different work) and
roofline tables, with why a pair has no roofline expectation. A diff, for a pull-request comment: a verdict line,
one table row per kernel (regressions first) with its work and noise interval, the total, the reasons, and what was
not gated or could not be checked."""

from __future__ import annotations

from collections.abc import Sequence

from roofline.compare.pairing import Comparison
from roofline.compare.regression import DiffResult, Verdict
from roofline.core.kernel_names import PAIR_ARROW
from roofline.core.labels import letter
from roofline.core.units import pct, seconds
from roofline.render import GENERATOR
from roofline.render.compare.plot import nothing_to_compare
from roofline.render.compare.prose import gate_note_text, not_judged_text, unchecked_text, work_summary
from roofline.render.compare.table import (
    Grid,
    change_interval,
    clock_lines,
    expectation_lines,
    headline_change,
    legend_text,
    noise_note,
    numeric_columns,
    pairing_lines,
    per_work_text,
    threshold_text,
    total_text,
    unmatched_count,
    verdict_words,
    versus_grids,
)
from roofline.render.report.markdown import Block, cell, inline, row, text

COLUMNS = ("kernel", "base / launch", "new / launch", "change", "interval", "work", "roof base", "roof new", "status")
MAX_UNMATCHED_NAMES = 10


def comparison_markdown(c: Comparison, image: str = "") -> str:
    """A comparison as a Markdown document; ``image``: the plot's path relative to the document, embedded (none:
    where no paired kernel has a place on the plot, the document says why)."""
    return text(comparison_blocks(c, image=image, no_plot="" if image else nothing_to_compare(c)),
                "roofline compare ... --format markdown")


def comparison_blocks(c: Comparison, image: str = "", svg: str = "", no_plot: str = "") -> list[Block]:
    """A comparison as document blocks: the plot as an ``image`` line (Markdown) or an inline ``svg`` (HTML), or
    ``no_plot``, why there is none."""
    names = " → ".join(f"`{cell(r.label)}`" for r in c.reports)
    blocks = [Block("h1", f"Roofline comparison: {names}"),
              Block("ul", items=tuple(f"**{letter(i)}**: {cell(legend_text(r))}" for i, r in enumerate(c.reports))),
              *(Block("warn", f"`{cell(r.label)}`: {cell(w)}") for r in c.reports for w in r.warnings),
              Block("p", f"Matching: {cell(c.matching)}. Times are per launch: the median of each kernel's launches. "
                         "Work is compared first; pairs of different work are compared by throughput, not by time.")]
    pairing = pairing_lines(c)
    if pairing:
        blocks.append(Block("details", cell(pairing[0]), items=tuple(cell(line.strip()) for line in pairing[1:])))
    if svg:
        blocks.append(Block("svg", svg))
    elif image:
        blocks.append(Block("plot", f"![Comparison plot]({image})"))
    elif no_plot:
        blocks.append(Block("p", f"No comparison plot: {cell(no_plot)}."))
    for i in range(1, len(c.reports)):
        blocks.append(Block("h2", f"{letter(0)} → {letter(i)}"))
        if not any(p.sides[i] for p in c.pairs):
            blocks.append(Block("p", f"No kernel in common ({cell(c.matching)} matching)."))
            continue
        for grid in versus_grids(c, i):
            blocks += grid_blocks(grid)
        expectations = expectation_lines(c, i)
        if expectations:
            blocks += [Block("h3", "No roofline expectation"), Block("ul", items=tuple(map(cell, expectations)))]
        clocks = clock_lines(c, i)
        if clocks:
            blocks += [Block("h3", "Expected at another clock"), Block("ul", items=tuple(map(cell, clocks)))]
    for r, names_only in zip(c.reports, c.unmatched, strict=True):
        if names_only:
            shown = ", ".join(f"`{cell(n)}`" for n in names_only[:MAX_UNMATCHED_NAMES])
            more = f" and {len(names_only) - MAX_UNMATCHED_NAMES} more" if len(names_only) > MAX_UNMATCHED_NAMES else ""
            blocks.append(Block("p", f"Only in `{cell(r.label)}` ({len(names_only)}): {shown}{more}"))
    return [*blocks, Block("p", f"{GENERATOR}.")]


def grid_blocks(grid: Grid, heading: str = "h3") -> list[Block]:
    """A comparison table as a heading (``heading``: its level), a table (kernel names as code) and its caption."""
    rows = tuple((f"`{cell(PAIR_ARROW.join(n))}`", *(cell(x) for x in r)) for n, r in zip(grid.names, grid.rows,
                                                                                         strict=True))
    return [Block(heading, cell(grid.title)),
            Block("table", header=grid.header, rows=rows, numeric=numeric_columns(grid.header)),
            Block("note", cell(grid.caption))]


def diff_markdown(d: DiffResult) -> str:
    """The whole comment as Markdown text."""
    base, new = d.comparison.reports
    status = f":x: **{verdict_words(d)}**" if d.exit_code else f":white_check_mark: **{verdict_words(d)}**"
    lines = [
        "### " + inline(f"roofline diff: `{cell(base.label)}` → `{cell(new.label)}`"),
        "",
        inline(f"{status}; thresholds: {threshold_text(d)}; matching: {d.comparison.matching}."),
        inline(f"Base: {base.device} ({_ncu(base.ncu_version)}); new: {new.device} ({_ncu(new.ncu_version)}). "
               "Times are per launch (median); roof = percent of each GPU's own roof."),
        *("> " + inline(f"**Warning** (`{cell(r.label)}`): {w}") for r in (base, new) for w in r.warnings),
        *("> " + inline(f"**Note**: {note}") for note in d.setup_notes),
        *_pairing(d),
        "",
        *table(d.verdicts),
        *(["", inline(f"{':x: ' if d.total_regressed else ''}{total_text(d)}")] if d.total else []),
        *_details(d),
        "",
        f"<sub>{inline(noise_note(d))}</sub>",
    ]
    return "\n".join(lines) + "\n"


def _pairing(d: DiffResult) -> list[str]:
    """The pairing used (``pairing_lines``), where a pair joins kernels of other names, as a list."""
    lines = pairing_lines(d.comparison)
    return ["", inline(cell(lines[0])), *(f"- {inline(cell(line.strip()))}" for line in lines[1:])] if lines else []


def table(verdicts: Sequence[Verdict]) -> list[str]:
    """The GFM table rows: header, delimiter, then a row per kernel in the order of ``verdicts`` (``in_order``:
    regressions first, the rest by BASE time, as the terminal table lists them)."""
    rows = [row(COLUMNS), "|" + "|".join([":---", *["---:"] * 4, ":---", "---:", "---:", ":---"]) + "|"]
    for v in verdicts:
        base, new = v.pair.side(0), v.pair.side(1)
        check = v.pair.work[1] if v.pair.work else None
        rows.append(row((
            f"`{cell(v.pair.label)}`", seconds(base.median_s.value), seconds(new.median_s.value),
            headline_change(v.change), change_interval(v.change),
            work_summary(check) if check else "n/a", pct(base.roof.pct_of_roof), pct(new.roof.pct_of_roof), _status(v),
        )))
    return rows


def _status(v: Verdict) -> str:
    if v.regressed:
        return ":x: " + "; ".join(v.reasons)
    if v.not_gated is not None:
        return "not gated: " + gate_note_text(v.not_gated)
    if v.slowdown_pct.value is None:
        return "not measured (see Not checked)"
    return "ok" + (f" ({per_work_text(v)})" if per_work_text(v) else "")


def _ncu(version: str) -> str:
    return f"ncu {version}" if version else "ncu version unknown"


def _details(d: DiffResult) -> list[str]:
    lines = []
    unchecked = list(dict.fromkeys(unchecked_text(u) for v in d.verdicts for u in v.unchecked))
    if unchecked:
        lines += ["", "**Not checked** (n/a above):", *(f"- {inline(u)}" for u in unchecked)]
    if d.not_judged:
        limit = d.thresholds.min_share_pct
        lines += ["", ":x: **Not judged** (a regression in these would pass):",
                  *(f"- {inline(not_judged_text(n, limit, f'`{cell(n.kernel)}`'))}" for n in d.not_judged)]
    for v in d.shifted:
        head = f"Lines of `{cell(v.pair.label)}` that gained or lost warp samples (share, base → new):"
        moved = [f"`{s.where}`: {pct(100 * s.base_share)} → {pct(100 * s.new_share)} ({s.change_pts:+.1f} points)"
                 for s in v.line_shifts or ()]
        lines += ["", inline(head), *(f"- {inline(text)}" for text in moved)]
    for i, (title, names) in enumerate(zip(("Only in base", "Only in new"), (d.only_in(0), d.only_in(1)), strict=True)):
        if names:
            shown = ", ".join(f"`{cell(n)}`" for n in names[:MAX_UNMATCHED_NAMES])
            more = f" and {len(names) - MAX_UNMATCHED_NAMES} more" if len(names) > MAX_UNMATCHED_NAMES else ""
            lines += ["", inline(f"{title} ({unmatched_count(d, i)}): {shown}{more}")]
    return lines

