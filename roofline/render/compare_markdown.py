"""GitHub-flavoured Markdown of a regression diff, for a pull-request comment: a verdict line, one table row
per kernel (regressions first), the reasons, and what could not be checked."""

from __future__ import annotations

from collections.abc import Sequence

from roofline.regression import DiffResult, Verdict
from roofline.render.compare_table import threshold_text
from roofline.units import pct, seconds

SUFFIXES = (".md",)
COLUMNS = ("kernel", "base / launch", "new / launch", "change", "roof base", "roof new", "status")
MAX_UNMATCHED_NAMES = 10


def diff_markdown(d: DiffResult) -> str:
    """The whole comment as Markdown text."""
    base, new = d.comparison.reports
    count = len(d.regressions)
    status = f":x: **{count} regression(s)**" if count else ":white_check_mark: **no regression**"
    lines = [
        f"### roofline diff: `{cell(base.label)}` → `{cell(new.label)}`",
        "",
        f"{status} beyond {threshold_text(d)}; matching: {cell(d.comparison.matching)}.",
        f"Base: {cell(base.device)}; new: {cell(new.device)}. Times are per launch (mean); roof = percent of "
        "each GPU's own roof.",
        *(f"> **Warning** (`{cell(r.label)}`): {cell(w)}" for r in (base, new) for w in r.warnings),
        "",
        *table(d.verdicts),
        *_details(d),
    ]
    return "\n".join(lines) + "\n"


def table(verdicts: Sequence[Verdict]) -> list[str]:
    """The GFM table rows: header, delimiter, then regressions first and the rest in base-time order."""
    rows = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join([":---", *["---:"] * 5, ":---"]) + "|"]
    for v in sorted(verdicts, key=lambda v: not v.regressed):
        base, new = v.pair.side(0), v.pair.side(1)
        change = v.slowdown_pct.value
        rows.append("| " + " | ".join((
            f"`{cell(v.pair.label)}`", seconds(base.per_launch_s.value), seconds(new.per_launch_s.value),
            "n/a" if change is None else f"{change:+.1f}%", pct(base.roof.pct_of_roof),
            pct(new.roof.pct_of_roof), ":x: " + cell("; ".join(v.reasons)) if v.regressed else "ok",
        )) + " |")
    return rows


def _details(d: DiffResult) -> list[str]:
    lines = []
    unchecked = list(dict.fromkeys(u for v in d.verdicts for u in v.unchecked))
    if unchecked:
        lines += ["", "**Not checked** (n/a above):", *(f"- {cell(u)}" for u in unchecked)]
    for title, names in zip(("Only in base", "Only in new"), d.comparison.unmatched, strict=True):
        if names:
            shown = ", ".join(f"`{cell(n)}`" for n in names[:MAX_UNMATCHED_NAMES])
            more = f" and {len(names) - MAX_UNMATCHED_NAMES} more" if len(names) > MAX_UNMATCHED_NAMES else ""
            lines += ["", f"{title} ({len(names)}): {shown}{more}"]
    return lines


def cell(text: str) -> str:
    """Text safe inside a table cell and inline code: no pipes, backticks or line breaks."""
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")
