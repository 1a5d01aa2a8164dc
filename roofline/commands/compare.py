"""`roofline compare A B [...]`: pair kernels across reports (GPU generations, before/after) with measured and
ceiling-expected speedups, and optionally project them onto another GPU's datasheet roofs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from roofline.commands.common import (
    CeilingsOpt,
    JobsOpt,
    KernelOpt,
    MapOpt,
    MatchOpt,
    NameBaseOpt,
    OutputOpt,
    PlotOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    emit,
    handles_errors,
    jobs_or_cores,
    progress,
    terminal_width,
    warn,
    write_output,
)

CompareFormat = Literal["table", "json"]



@handles_errors
def compare(
    files: Annotated[list[Path], typer.Argument(help="Two or more reports (.ncu-rep or .json models), base first.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    match: MatchOpt = "name",
    maps: MapOpt = None,
    project_to: Annotated[str | None, typer.Option(
        "--project-to", help="Device spec id: also give each kernel's roofline lower-bound time on that GPU.")] = None,
    fmt: Annotated[CompareFormat, typer.Option("--format", "-f", help="Output format: table or json.")] = "table",
    output: OutputOpt = None,
    plot: PlotOpt = None,
    normalize: Annotated[bool, typer.Option(
        "--normalize", help="Plot percent of each report's own roof instead of FLOP/s.")] = False,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
) -> None:
    """Compare kernels across reports: times, speedups, percent of each GPU's own roof, expected speedup. Every
    report is needed: the first bad one ends the command."""
    from roofline.errors import RooflineError
    from roofline.pairing import pair_reports, parse_matcher
    from roofline.pipeline import analyze_files
    from roofline.render.mpl import plot_format
    from roofline.specs import load_catalog

    if len(files) < 2 and not project_to:
        raise RooflineError("compare needs two or more reports", "pass A B [...], or one report with --project-to ID")
    matcher = parse_matcher(match, maps or (), len(files))
    options = analysis_options(kernel, kernel_name_base, ceilings, specs, timeout)
    catalog = load_catalog(options.specs)
    target = catalog.get(project_to) if project_to else None
    plot_fmt = plot_format(plot) if plot is not None else None
    jobs = jobs_or_cores(jobs)
    with progress(files, jobs) as done:
        analyses = analyze_files(files, options, catalog, jobs, done)
    warn(analyses)
    comparison = pair_reports(analyses, matcher, target)
    if fmt == "json":
        from roofline.render.compare_json import comparison_json

        emit(comparison_json(comparison), output)
    else:
        from roofline.render.compare_table import comparison_text

        emit(comparison_text(comparison, width=terminal_width(wide)), output)
    if plot is not None and plot_fmt is not None:
        from roofline.render.compare_plot import comparison_plot

        write_output(plot, comparison_plot(comparison, plot_fmt, normalize))
