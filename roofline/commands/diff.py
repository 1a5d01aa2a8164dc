"""`roofline diff BASE NEW`: a regression gate for CI. Exit 0 = no regression beyond the thresholds,
1 = regression (the kernels and why are listed), 2 = usage or input error."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from roofline.commands._common import emit, handles_errors
from roofline.commands._options import CeilingsOpt, KernelOpt, OutputOpt, ReportOptions, SpecsOpt
from roofline.commands.compare import MapOpt, MatchOpt

if TYPE_CHECKING:  # pragma: no cover
    from roofline.compare import DiffResult, Thresholds

FORMATS = ("table", "json", "markdown")


@handles_errors
def diff(
    base: Annotated[Path, typer.Argument(help="Baseline report (.ncu-rep or .json model).")],
    new: Annotated[Path, typer.Argument(help="New report to judge against the baseline.")],
    kernel: KernelOpt = None,
    match: MatchOpt = "name",
    maps: MapOpt = None,
    fail_if_slower: Annotated[Optional[float], typer.Option(
        "--fail-if-slower", metavar="PCT", min=0.0,
        help="Regression if a kernel's time per launch grows by more than PCT percent.")] = None,
    fail_if_roof_drop: Annotated[Optional[float], typer.Option(
        "--fail-if-roof-drop", metavar="PCT", min=0.0,
        help="Regression if a kernel's percent of roof falls by more than PCT percentage points.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output format: table, json or markdown.")] = "table",
    output: OutputOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
) -> None:
    """Compare NEW with BASE kernel by kernel and fail (exit 1) on a regression beyond the thresholds."""
    from roofline.compare import Thresholds

    options = ReportOptions(kernel=kernel, fmt=fmt, output=output, ceilings=ceilings, specs=tuple(specs or ()))
    result = run_diff(base, new, options, match, tuple(maps or ()), Thresholds(fail_if_slower, fail_if_roof_drop))
    raise typer.Exit(result.exit_code)


def run_diff(base: Path, new: Path, options: ReportOptions, match: str = "name", maps: tuple[str, ...] = (),
             thresholds: "Thresholds | None" = None) -> "DiffResult":
    """Load both reports, judge every shared kernel and emit the result; RooflineError on bad input."""
    from roofline.commands.compare import check_format, load_analyses
    from roofline.compare import Thresholds, compare, diff as judge, parse_matcher

    check_format(options.fmt, FORMATS)
    matcher = parse_matcher(match, maps, 2)
    result = judge(compare(load_analyses([base, new], options), matcher), thresholds or Thresholds())
    emit(_render(result, options.fmt), options.output)
    return result


def _render(result: "DiffResult", fmt: str) -> str:
    if fmt == "json":
        from roofline.render.compare_json import diff_document
        from roofline.render.json import dumps

        return dumps(diff_document(result))
    if fmt == "markdown":
        from roofline.render.compare_markdown import render_diff

        return render_diff(result)
    from roofline.commands.report import _terminal_width
    from roofline.render.compare_table import render_diff

    return render_diff(result, width=_terminal_width())
