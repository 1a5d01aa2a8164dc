"""`roofline summary FILE...`: the whole-application view of large reports: launches grouped by kernel (or
NVTX range), ranked by the time they would save at their roof, top N with their share of the total."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Sequence

import typer

from roofline.commands._common import emit, handles_errors
from roofline.commands._options import CeilingsOpt, KernelOpt, OutputOpt, PlotOpt, ReportOptions, SpecsOpt

if TYPE_CHECKING:  # pragma: no cover
    from roofline.compare import AppSummary

FORMATS = ("table", "json")
DEFAULT_TOP = 10


@handles_errors
def summary(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    by: Annotated[str, typer.Option("--by", help="Group launches by kernel name or by NVTX range (nvtx).")] = "kernel",
    top: Annotated[int, typer.Option(
        "--top", "-n", help="Show the N groups with the most recoverable time.")] = DEFAULT_TOP,
    kernel: KernelOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output format: table or json.")] = "table",
    output: OutputOpt = None,
    plot: PlotOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
) -> None:
    """Rank the kernels of whole applications by recoverable time (time x (1 - percent of roof))."""
    run_summary(files, ReportOptions(kernel=kernel, fmt=fmt, output=output, ceilings=ceilings,
                                     specs=tuple(specs or ()), plot=plot), by, top)


def run_summary(paths: Sequence[str | Path], options: ReportOptions, by: str = "kernel",
                top: int = DEFAULT_TOP) -> list["AppSummary"]:
    """Load, group, rank, render and optionally plot; raises RooflineError subclasses on bad input."""
    from roofline.commands.compare import check_format, load_analyses
    from roofline.compare import check_grouping, report_labels, summarize

    check_format(options.fmt, FORMATS)
    check_grouping(by, top)
    analyses = load_analyses(paths, options)
    summaries = [summarize(a, by, top, label) for a, label in zip(analyses, report_labels(analyses))]
    emit(_render(summaries, options.fmt, top), options.output)
    if options.plot is not None:
        from roofline.render.compare_plot import plot_summaries

        plot_summaries(summaries, options.plot)
        typer.echo(f"wrote {options.plot}", err=True)
    return summaries


def _render(summaries: Sequence["AppSummary"], fmt: str, top: int) -> str:
    if fmt == "json":
        from roofline.render.compare_json import summary_document
        from roofline.render.json import dumps

        return dumps(summary_document(summaries, top))
    from roofline.commands.report import _terminal_width
    from roofline.render.compare_table import render_summaries

    return render_summaries(summaries, width=_terminal_width())
