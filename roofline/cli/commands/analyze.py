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
from roofline.core.choices import KernelGroupBy
from roofline.ncu import driver

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis

CONTEXT_SETTINGS = ncu_opts.CONTEXT_SETTINGS  # read by roofline.cli.app, with COMMAND_CLASS
COMMAND_CLASS = ncu_opts.COMMAND_CLASS
AnalysisOutputOpt = Annotated[Path | None, typer.Option("--report-output", help=OUTPUT_HELP)]
FromNsysOpt = Annotated[Path | None, typer.Option(
    "--from-nsys", help="Profile only the top kernels of this Nsight Systems profile (.sqlite, .nsys-rep, .qdrep) by "
    "total GPU time, one median-duration launch each.")]
TopOpt = Annotated[int, typer.Option("--top", "-n", min=1, help="With --from-nsys: how many kernels.")]
NsysOpt = Annotated[str | None, typer.Option(
    "--nsys", help="With --from-nsys: the nsys that exports a .nsys-rep/.qdrep (else $ROOFLINE_NSYS, PATH, ...).")]
GroupByOpt = Annotated[KernelGroupBy, typer.Option(
    "--group-by",
    help="With --from-nsys: rank kernel instances (kernel: template instances apart, as `report`) or pool them by "
    "function name (function).")]
DEFAULT_TOP = 5


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
    from_nsys: FromNsysOpt = None,
    top: TopOpt = DEFAULT_TOP,
    nsys: NsysOpt = None,
    group_by: GroupByOpt = "kernel",
) -> None:
    """Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."""
    from roofline.render.mpl import plot_format

    after_app = ncu_opts.own_options_after_app(ctx, command)
    app = driver.resolve_app(command)
    runs, kernel_name_base = _runs(from_nsys, top, nsys, kernel, launch_skip, launch_count, kernel_name_base,
                                   group_by)
    plans = []
    for i, (why, kernels, skip, count) in enumerate(runs):
        options = ncu_opts.ncu_options(section_set=section_set, sections=section, metrics=metrics, kernel=kernels,
                                       kernel_name_base=kernel_name_base, launch_skip=skip, launch_count=count,
                                       nvtx_include=nvtx_include, replay_mode=replay_mode,
                                       clock_control=clock_control, ncu_arg=ncu_arg, force=force)
        tag = f".top{i + 1}" if len(runs) > 1 else ""
        plans.append((why, options, driver.report_template(output, driver.app_name(command), tag)))
    if dry_run:
        for why, options, template in plans:
            for line in why.splitlines():
                typer.echo(f"# {line}")
            ncu_opts.print_dry_run(ncu, options, template, app)
        return
    if plot is not None:
        plot_format(plot)  # a plot name that cannot be written is refused before profiling
    ncu_opts.warn_options_after_app(after_app)
    for why, _, _ in plans:
        for line in why.splitlines():
            typer.echo(f"roofline: {line}", err=True)
    for _, options, template in plans:  # every report is refused before the first ncu runs
        driver.refuse_overwrite(template, options.force)
    reports = []
    for _, options, template in plans:
        reports.append(driver.profile(ncu_opts.prepare_ncu(ncu, options, template, app)))
        typer.echo(f"roofline: wrote {reports[-1]}", err=True)
    # ncu applied the filters already; the analysis applies the same ones, so what was profiled is analysed
    chosen = [f for _, filters, _, _ in runs for f in filters or ()] or None
    analyses = report_files(reports, analysis_options(chosen, kernel_name_base, ceilings, specs, timeout), fmt,
                            report_output, plot, wide=wide)
    if fmt != "table":  # the table says it under its hot spots
        _say_lineinfo(analyses)
    if from_nsys is not None:
        weigh = driver.shell_command(["roofline", "summary", *map(str, reports), "--nsys", str(from_nsys)])
        typer.echo(f"roofline: the whole application in real time: {weigh}", err=True)


Run = tuple[str, list[str] | None, int | None, int | None]  # why, --kernel filters, --launch-skip, --launch-count


def _runs(from_nsys: Path | None, top: int, nsys: str | None, kernel: list[str] | None, launch_skip: int | None,
          launch_count: int | None, base: str, group_by: str) -> tuple[list[Run], str]:
    """The ncu runs and the --kernel-name-base they share: the run the options ask for, or with --from-nsys one
    per planned target (``ncu_targets``), each selecting its kernels by an anchored, escaped regex of their function
    names, or of their demangled names where two instances share a function name (``name_base``)."""
    if from_nsys is None:
        return [("", kernel, launch_skip, launch_count)], base
    from roofline.analysis.timeline import kernel_regex, name_base, ncu_targets, profiling_summary
    from roofline.errors import UsageError
    from roofline.nsys.load import load_for_profiling

    given = [name for name, value in (("--kernel", kernel), ("--launch-skip", launch_skip),
                                      ("--launch-count", launch_count)) if value is not None]
    if given or base != "function":
        raise UsageError(f"--from-nsys with {', '.join(given) or '--kernel-name-base'}: --from-nsys chooses the "
                         "kernels and their launches", "leave those options out, or leave out --from-nsys")
    timeline, reps = load_for_profiling(from_nsys, top, nsys, group_by)
    base = name_base(timeline, top)
    runs: list[Run] = [(target.why, [kernel_regex(target.kernels, base)], target.launch_skip, target.launch_count)
                       for target in ncu_targets(timeline, top, reps)]
    why, filters, skip, count = runs[0]
    return [(f"{profiling_summary(timeline, top)}\n{why}", filters, skip, count), *runs[1:]], base


def _say_lineinfo(analyses: list[ReportAnalysis]) -> None:
    """Once, on stderr: the profiled kernels whose samples have no source line, and how to add line information."""
    from roofline.analysis.hotspots import without_lines
    from roofline.ncu.metrics import HINT_LINEINFO

    names = [name for a in analyses for name in without_lines(a.launches)]
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        typer.echo(f"roofline: no source lines for {shown}: {HINT_LINEINFO}", err=True)
