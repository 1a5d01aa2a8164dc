"""`roofline analyze [OPTIONS] APP [APP_ARGS]...`: profile an application with ncu, then analyse the report.

Everything after APP belongs to the application (options are not looked for after it); ``--`` before APP
is accepted too. The ncu options below are shared with `roofline wrap`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Optional, get_args

import typer

from roofline.commands._common import handles_errors
from roofline.commands._options import (CeilingsOpt, FormatOpt, KernelOpt, OutputOpt, PlotOpt, ReportOptions,
                                        SpecsOpt)
from roofline import driver
from roofline.driver import NcuOptions
from roofline.errors import NcuError

# Options after APP go to the application: stop option parsing at the first positional argument.
CONTEXT_SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False}


def _help(option_type: object) -> str:
    """The help text of a shared option type, so a renamed flag keeps the shared wording."""
    return get_args(option_type)[1].help


CommandArg = Annotated[list[str], typer.Argument(
    metavar="APP [APP_ARGS]...", help="A Python script (run with this Python), an executable, or a command.")]
NameBaseOpt = Annotated[Optional[Literal["function", "demangled", "mangled"]], typer.Option(
    "--kernel-name-base", help="Which kernel name -k matches (ncu's default: function, without parameters).")]
SetOpt = Annotated[Literal["roofline", "detailed", "full"], typer.Option(
    "--set", help="ncu section set: roofline (hierarchical roofline charts, ncu >= 2021.3), detailed or full.")]
SectionOpt = Annotated[Optional[list[str]], typer.Option(
    "--section", help="Also collect this ncu section (repeatable), e.g. Occupancy.")]
MetricsOpt = Annotated[Optional[str], typer.Option(
    "--metrics", help="Also collect these metrics (comma-separated, as ncu --metrics takes them).")]
LaunchSkipOpt = Annotated[Optional[int], typer.Option(
    "--launch-skip", "-s", min=0, help="Skip this many matching kernel launches before profiling.")]
LaunchCountOpt = Annotated[Optional[int], typer.Option(
    "--launch-count", "-c", min=1, help="Profile at most this many matching kernel launches.")]
NvtxOpt = Annotated[Optional[list[str]], typer.Option(
    "--nvtx-include", help="Profile only inside this NVTX range expression (repeatable; turns on ncu --nvtx).")]
ReplayOpt = Annotated[Optional[Literal["kernel", "application", "range"]], typer.Option(
    "--replay-mode", help="How ncu replays work for multi-pass metrics (range needs ncu >= 2022.1).")]
ClockOpt = Annotated[Optional[Literal["base", "none"]], typer.Option(
    "--clock-control", help="base: ncu locks clocks to base (default, reproducible); none: leave clocks alone.")]
ReportPathOpt = Annotated[Optional[str], typer.Option(
    "--output", "-o", help="Report folder (existing, or ending in /) or report name; ncu's %h %p %q{VAR} %i kept.")]
ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Overwrite an existing report (otherwise it is never overwritten).")]
NcuPathOpt = Annotated[Optional[str], typer.Option(
    "--ncu", help="The ncu program to run (else $ROOFLINE_NCU, PATH, then the usual install places).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the exact ncu command, shell-quoted, and exit.")]
NcuArgOpt = Annotated[Optional[list[str]], typer.Option(
    "--ncu-arg", help="Pass this argument to ncu as is (repeatable), e.g. --ncu-arg=--cache-control=none.")]
AnalysisFormatOpt = Annotated[str, typer.Option("--format", help=_help(FormatOpt))]
AnalysisOutputOpt = Annotated[Optional[Path], typer.Option("--report-output", help=_help(OutputOpt))]


def ncu_options(*, section_set: str, sections: Optional[list[str]], metrics: Optional[str], kernel: Optional[str],
                kernel_name_base: Optional[str], launch_skip: Optional[int], launch_count: Optional[int],
                nvtx_include: Optional[list[str]], replay_mode: Optional[str], clock_control: Optional[str],
                ncu_arg: Optional[list[str]], force: bool) -> NcuOptions:
    """Collect the command-line values shared by analyze and wrap into NcuOptions."""
    return NcuOptions(section_set=section_set, sections=tuple(sections or ()), metrics=metrics, kernel=kernel,
                      kernel_name_base=kernel_name_base, launch_skip=launch_skip, launch_count=launch_count,
                      nvtx_include=tuple(nvtx_include or ()), replay_mode=replay_mode, clock_control=clock_control,
                      extra=tuple(ncu_arg or ()), force=force)


def print_dry_run(ncu: Optional[str], options: NcuOptions, template: str, app: list[str]) -> None:
    """Print the ncu command (with the ncu found here, or plain ``ncu`` when none is) for copy and paste."""
    try:
        program = driver.find_ncu(ncu).path
    except NcuError:
        program = ncu or "ncu"
    typer.echo(driver.shell_command(driver.make_plan(program, options, template, app).argv))


def prepare_ncu(ncu: Optional[str], options: NcuOptions, template: str, app: list[str]) -> driver.Plan:
    """Refuse to overwrite, find ncu, check its version against the options, and plan the run."""
    driver.refuse_overwrite(template, options.force)
    install = driver.find_ncu(ncu)
    driver.check_version(install, options)
    typer.echo(f"roofline: profiling with {install.describe()}", err=True)
    return driver.make_plan(install.path, options, template, app)


@handles_errors
def analyze(
    command: CommandArg,
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = None,
    section_set: SetOpt = "roofline",
    section: SectionOpt = None,
    metrics: MetricsOpt = None,
    launch_skip: LaunchSkipOpt = None,
    launch_count: LaunchCountOpt = None,
    nvtx_include: NvtxOpt = None,
    replay_mode: ReplayOpt = None,
    clock_control: ClockOpt = None,
    output: ReportPathOpt = None,
    force: ForceOpt = False,
    ncu: NcuPathOpt = None,
    dry_run: DryRunOpt = False,
    ncu_arg: NcuArgOpt = None,
    fmt: AnalysisFormatOpt = "table",
    report_output: AnalysisOutputOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    plot: PlotOpt = None,
) -> None:
    """Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."""
    app = driver.resolve_app(command)
    options = ncu_options(section_set=section_set, sections=section, metrics=metrics, kernel=kernel,
                          kernel_name_base=kernel_name_base, launch_skip=launch_skip, launch_count=launch_count,
                          nvtx_include=nvtx_include, replay_mode=replay_mode, clock_control=clock_control,
                          ncu_arg=ncu_arg, force=force)
    template = driver.report_template(output, driver.app_name(command))
    if dry_run:
        print_dry_run(ncu, options, template, app)
        return
    report = driver.profile(prepare_ncu(ncu, options, template, app))
    typer.echo(f"roofline: wrote {report}", err=True)
    from roofline.commands.report import run_report

    # ncu already applied -k; the analysis filter repeats it, except for mangled names it does not compare.
    analysis_kernel = None if kernel_name_base == "mangled" else kernel
    run_report([report], ReportOptions(kernel=analysis_kernel, fmt=fmt, output=report_output, ceilings=ceilings,
                                       specs=tuple(specs or ()), plot=plot))
