"""`roofline analyze [OPTIONS] APP [APP_ARGS]...`: profile an application with ncu, then analyse the report.

Everything after APP belongs to the application (options are not looked for after it, as with ncu); one of
analyze's own options there gets a warning before the run, and --dry-run there is refused. ``--`` before APP
passes everything on without a word. The ncu options are declared in ``commands.ncu_options``, shared with
`roofline wrap`; the --kernel filters select the same launches in ncu and in the analysis after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from roofline.cli import ncu_options as ncu_opts
from roofline.cli.common import (
    OUTPUT_HELP,
    REPORT_FORMAT_HELP,
    CeilingsOpt,
    KernelOpt,
    NameBaseOpt,
    PlotOpt,
    ReportFormat,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    handles_errors,
    report_files,
)
from roofline.ncu import driver

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis

CONTEXT_SETTINGS = ncu_opts.CONTEXT_SETTINGS  # read by roofline.cli.app, with COMMAND_CLASS
COMMAND_CLASS = ncu_opts.COMMAND_CLASS
AnalysisOutputOpt = Annotated[Path | None, typer.Option("--report-output", help=OUTPUT_HELP)]


@handles_errors
def analyze(
    ctx: typer.Context,
    command: ncu_opts.CommandArg,
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    section_set: ncu_opts.SetOpt = "roofline",
    section: ncu_opts.SectionOpt = None,
    metrics: ncu_opts.MetricsOpt = None,
    launch_skip: ncu_opts.LaunchSkipOpt = None,
    launch_count: ncu_opts.LaunchCountOpt = None,
    nvtx_include: ncu_opts.NvtxOpt = None,
    replay_mode: ncu_opts.ReplayOpt = None,
    clock_control: ncu_opts.ClockOpt = None,
    output: ncu_opts.ReportPathOpt = None,
    force: ncu_opts.ForceOpt = False,
    ncu: ncu_opts.NcuPathOpt = None,
    dry_run: ncu_opts.DryRunOpt = False,
    ncu_arg: ncu_opts.NcuArgOpt = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", help=REPORT_FORMAT_HELP)] = "table",
    report_output: AnalysisOutputOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    plot: PlotOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
) -> None:
    """Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."""
    from roofline.render.mpl import plot_format

    after_app = ncu_opts.own_options_after_app(ctx, command)
    app = driver.resolve_app(command)
    options = ncu_opts.ncu_options(section_set=section_set, sections=section, metrics=metrics, kernel=kernel,
                                   kernel_name_base=kernel_name_base, launch_skip=launch_skip,
                                   launch_count=launch_count, nvtx_include=nvtx_include, replay_mode=replay_mode,
                                   clock_control=clock_control, ncu_arg=ncu_arg, force=force)
    template = driver.report_template(output, driver.app_name(command))
    if dry_run:
        ncu_opts.print_dry_run(ncu, options, template, app)
        return
    if plot is not None:
        plot_format(plot)  # a plot name that cannot be written is refused before profiling
    ncu_opts.warn_options_after_app(after_app)
    report = driver.profile(ncu_opts.prepare_ncu(ncu, options, template, app))
    typer.echo(f"roofline: wrote {report}", err=True)
    # ncu applied the filters already; the analysis applies the same ones, so what was profiled is analysed
    analyses = report_files([report], analysis_options(kernel, kernel_name_base, ceilings, specs, timeout), fmt,
                            report_output, plot, wide=wide)
    if fmt != "table":  # the table says it under its hot spots
        _say_lineinfo(analyses)


def _say_lineinfo(analyses: list[ReportAnalysis]) -> None:
    """Once, on stderr: the profiled kernels whose samples have no source line, and how to add line information."""
    from roofline.analysis.hotspots import without_lines
    from roofline.ncu.metrics import HINT_LINEINFO

    names = [name for a in analyses for name in without_lines(a.launches)]
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        typer.echo(f"roofline: no source lines for {shown}: {HINT_LINEINFO}", err=True)
