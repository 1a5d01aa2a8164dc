"""`roofline summary FILE...`: the whole-application view of large reports: launches grouped by kernel (or
NVTX range), ranked by the time they would save at their roof, top N with their share of the total."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from roofline.choices import GroupBy
from roofline.commands.common import (
    CeilingsOpt,
    KernelOpt,
    NameBaseOpt,
    OutputOpt,
    PlotOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    analyze_good,
    emit,
    fail_for,
    handles_errors,
    terminal_width,
    write_output,
)

SummaryFormat = Literal["table", "json"]
DEFAULT_TOP = 10


@handles_errors
def summary(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    by: Annotated[GroupBy, typer.Option(
        "--by", help="Group launches by kernel name or by NVTX range (nvtx).")] = "kernel",
    top: Annotated[int, typer.Option(
        "--top", "-n", help="Show the N groups with the most recoverable time.")] = DEFAULT_TOP,
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    fmt: Annotated[SummaryFormat, typer.Option("--format", "-f", help="Output format: table or json.")] = "table",
    output: OutputOpt = None,
    plot: PlotOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
) -> None:
    """Rank the kernels of whole applications by recoverable time (time x (1 - percent of roof)). A bad report
    does not stop the others (named at the end, exit 2)."""
    from roofline.pairing import report_labels
    from roofline.ranking import check_top, summarize
    from roofline.render.mpl import plot_format

    check_top(top)
    plot_fmt = plot_format(plot) if plot is not None else None
    analyses, errors = analyze_good(files, analysis_options(kernel, kernel_name_base, ceilings, specs, timeout))
    summaries = [summarize(a, by, top, label) for a, label in zip(analyses, report_labels(analyses), strict=True)]
    if fmt == "json":
        from roofline.render.compare_json import summary_json

        emit(summary_json(summaries, top), output)
    else:
        from roofline.render.compare_table import summary_text

        emit(summary_text(summaries, width=terminal_width(wide)), output)
    if plot is not None and plot_fmt is not None:
        from roofline.render.compare_plot import summary_plot

        write_output(plot, summary_plot(summaries, plot_fmt))
    fail_for(errors)
