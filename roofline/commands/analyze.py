"""`roofline analyze [OPTIONS] APP [APP_ARGS]...`: profile an application with ncu, then analyse the report.

Everything after APP belongs to the application (options are not looked for after it); ``--`` before APP
is accepted too. The ncu options are declared in ``commands.ncu_options``, shared with `roofline wrap`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline import driver
from roofline.commands import ncu_options as ncu_opts
from roofline.commands.common import (
    OUTPUT_HELP,
    REPORT_FORMAT_HELP,
    CeilingsOpt,
    KernelOpt,
    PlotOpt,
    ReportFormat,
    SpecsOpt,
    TimeoutOpt,
    analysis_options,
    handles_errors,
    report_files,
)

CONTEXT_SETTINGS = ncu_opts.CONTEXT_SETTINGS  # read by roofline.cli
AnalysisOutputOpt = Annotated[Path | None, typer.Option("--report-output", help=OUTPUT_HELP)]


@handles_errors
def analyze(
    command: ncu_opts.CommandArg,
    kernel: KernelOpt = None,
    kernel_name_base: ncu_opts.NameBaseOpt = None,
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
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    plot: PlotOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."""
    from roofline.render.mpl import plot_format

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
    report = driver.profile(ncu_opts.prepare_ncu(ncu, options, template, app))
    typer.echo(f"roofline: wrote {report}", err=True)
    # ncu already applied -k; the analysis filter repeats it, except for mangled names it does not compare.
    analysis_kernel = None if kernel_name_base == "mangled" else kernel
    report_files([report], analysis_options(analysis_kernel, ceilings, specs, timeout), fmt, report_output, plot)
