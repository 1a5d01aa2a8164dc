"""The ncu options of `roofline analyze` and `roofline wrap`, declared once, and the steps both take before
running ncu: collect the options, plan the run, or print it for --dry-run."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from roofline import driver

# Options after APP go to the application: stop option parsing at the first positional argument.
CONTEXT_SETTINGS: dict[str, Any] = {"allow_extra_args": True, "ignore_unknown_options": True,
                                    "allow_interspersed_args": False}

CommandArg = Annotated[list[str], typer.Argument(
    metavar="APP [APP_ARGS]...", help="A Python script (run with this Python), an executable, or a command.")]
NameBaseOpt = Annotated[driver.NameBase | None, typer.Option(
    "--kernel-name-base", help="Which kernel name -k matches (ncu's default: function, without parameters).")]
SetOpt = Annotated[driver.SectionSet, typer.Option(
    "--set", help="ncu section set: roofline (hierarchical roofline charts, ncu >= 2021.3), detailed or full.")]
SectionOpt = Annotated[list[str] | None, typer.Option(
    "--section", help="Also collect this ncu section (repeatable), e.g. Occupancy.")]
MetricsOpt = Annotated[str | None, typer.Option(
    "--metrics", help="Also collect these metrics (comma-separated, as ncu --metrics takes them).")]
LaunchSkipOpt = Annotated[int | None, typer.Option(
    "--launch-skip", "-s", min=0, help="Skip this many matching kernel launches before profiling.")]
LaunchCountOpt = Annotated[int | None, typer.Option(
    "--launch-count", "-c", min=1, help="Profile at most this many matching kernel launches.")]
NvtxOpt = Annotated[list[str] | None, typer.Option(
    "--nvtx-include", help="Profile only inside this NVTX range expression (repeatable; turns on ncu --nvtx).")]
ReplayOpt = Annotated[driver.ReplayMode | None, typer.Option(
    "--replay-mode", help="How ncu replays work for multi-pass metrics (range needs ncu >= 2022.1).")]
ClockOpt = Annotated[driver.ClockControl | None, typer.Option(
    "--clock-control", help="base: ncu locks clocks to base (default, reproducible); none: leave clocks alone.")]
ReportPathOpt = Annotated[str | None, typer.Option(
    "--output", "-o", help="Report folder (existing, or ending in /) or report name; ncu's %h %p %q{VAR} %i kept.")]
ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Overwrite an existing report (otherwise it is never overwritten).")]
NcuPathOpt = Annotated[str | None, typer.Option(
    "--ncu", help="The ncu program to run (else $ROOFLINE_NCU, PATH, then the usual install places).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the exact ncu command, shell-quoted, and exit.")]
NcuArgOpt = Annotated[list[str] | None, typer.Option(
    "--ncu-arg", help="Pass this argument to ncu as is (repeatable), e.g. --ncu-arg=--cache-control=none.")]


def ncu_options(*, section_set: driver.SectionSet, sections: list[str] | None, metrics: str | None,
                kernel: str | None, kernel_name_base: driver.NameBase | None, launch_skip: int | None,
                launch_count: int | None, nvtx_include: list[str] | None, replay_mode: driver.ReplayMode | None,
                clock_control: driver.ClockControl | None, ncu_arg: list[str] | None,
                force: bool) -> driver.NcuOptions:
    """Collect the command-line values shared by analyze and wrap into NcuOptions."""
    return driver.NcuOptions(section_set=section_set, sections=tuple(sections or ()), metrics=metrics, kernel=kernel,
                             kernel_name_base=kernel_name_base, launch_skip=launch_skip, launch_count=launch_count,
                             nvtx_include=tuple(nvtx_include or ()), replay_mode=replay_mode,
                             clock_control=clock_control, extra=tuple(ncu_arg or ()), force=force)


def print_dry_run(ncu: str | None, options: driver.NcuOptions, template: str, app: list[str]) -> None:
    """Print the ncu command (with the ncu found here, or plain ``ncu`` when none is) for copy and paste."""
    from roofline.errors import NcuError

    try:
        program = driver.find_ncu(ncu).path
    except NcuError:
        program = ncu or "ncu"
    typer.echo(driver.shell_command(driver.make_plan(program, options, template, app).argv))


def prepare_ncu(ncu: str | None, options: driver.NcuOptions, template: str, app: list[str]) -> driver.Plan:
    """Refuse to overwrite, find ncu, check its version against the options, and plan the run."""
    driver.refuse_overwrite(template, options.force)
    install = driver.find_ncu(ncu)
    driver.check_version(install, options)
    typer.echo(f"roofline: profiling with {install.describe()}", err=True)
    return driver.make_plan(install.path, options, template, app)
