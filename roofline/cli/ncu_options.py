"""The ncu options of `roofline analyze` and `roofline wrap`, declared once, and the steps both take before
running ncu: collect the options, check what follows APP, plan the run, or print it for --dry-run."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any, TypeVar, cast, get_type_hints

import typer
from typer.core import TyperCommand

from roofline.cli.options import KernelOpt, NameBaseOpt
from roofline.core import kernel_filter
from roofline.ncu import driver

C = TypeVar("C", bound=Callable[..., Any])

# Options after APP go to the application, as with ncu: stop option parsing at the first positional argument.
CONTEXT_SETTINGS: dict[str, Any] = {"allow_extra_args": True, "ignore_unknown_options": True,
                                    "allow_interspersed_args": False}
_RAW_ARGS = "roofline.raw_args"  # click context meta key: the command's arguments as given


class AppCommand(TyperCommand):
    """A command ending in APP [APP_ARGS]: keeps its raw arguments, so that ``app_arguments_check`` can tell
    whether ``--`` came before APP (click drops it while parsing)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # Any: click's Context (vendored by newer typer)
        ctx.meta[_RAW_ARGS] = list(args)
        return super().parse_args(ctx, args)


COMMAND_CLASS = AppCommand  # read by roofline.cli.app through the command modules

CommandArg = Annotated[list[str], typer.Argument(
    metavar="APP [APP_ARGS]...", help="A Python script (run with this Python), an executable, or a command.")]
SetOpt = Annotated[driver.SetChoice, typer.Option(
    "--set", help="ncu section set: roofline (hierarchical roofline charts, ncu >= 2021.3), detailed, full, or none "
    "(only the --section and --metrics named: smaller reports).")]
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
    "--output", "-o", help="Report folder (existing, or ending in /) or report name; a folder's %h %q{VAR} are filled "
    "in, the name's %h %p %q{VAR} %i left to ncu.")]
ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Overwrite an existing report (otherwise it is never overwritten).")]
NcuPathOpt = Annotated[str | None, typer.Option(
    "--ncu", help="The ncu program to run (else $ROOFLINE_NCU, PATH, then the usual install places).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Print the exact ncu command, shell-quoted, and exit.")]
NcuArgOpt = Annotated[list[str] | None, typer.Option(
    "--ncu-arg", help="Pass this argument to ncu as is (repeatable), e.g. --ncu-arg=--cache-control=none.")]


@dataclass(frozen=True)
class NcuChoices:
    """The ncu options of analyze and wrap as given, declared once: each command takes one ``NcuChoices``
    parameter, which ``takes_ncu_options`` spreads into these options, in this order, in its place."""

    kernel: KernelOpt = None
    kernel_name_base: NameBaseOpt = "function"
    section_set: SetOpt = "roofline"
    section: SectionOpt = None
    metrics: MetricsOpt = None
    launch_skip: LaunchSkipOpt = None
    launch_count: LaunchCountOpt = None
    nvtx_include: NvtxOpt = None
    replay_mode: ReplayOpt = None
    clock_control: ClockOpt = None
    output: ReportPathOpt = None
    force: ForceOpt = False
    ncu: NcuPathOpt = None
    dry_run: DryRunOpt = False
    ncu_arg: NcuArgOpt = None


DEFAULTS = NcuChoices()  # the commands' default for their NcuChoices parameter (never used: typer passes them all)


def takes_ncu_options(command: C) -> C:
    """The command with the options of ``NcuChoices`` in place of its parameter of that type (typer reads the
    signature), calling it with them gathered into one ``NcuChoices``."""
    signature = inspect.signature(command, eval_str=True)
    params = list(signature.parameters.values())
    (at,) = [i for i, p in enumerate(params) if p.annotation is NcuChoices]
    hints = get_type_hints(NcuChoices, include_extras=True)
    options = [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f.default,
                                 annotation=hints[f.name]) for f in fields(NcuChoices)]

    @functools.wraps(command)
    def spread(*args: Any, **kwargs: Any) -> Any:
        choices = NcuChoices(**{p.name: kwargs.pop(p.name) for p in options})
        return command(*args, **{params[at].name: choices}, **kwargs)

    spread.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*params[:at], *options, *params[at + 1:]])
    return cast(C, spread)


def ncu_options(choices: NcuChoices) -> driver.NcuOptions:
    """Collect the command-line values shared by analyze and wrap into NcuOptions (a bad --kernel filter is
    refused here, before anything runs)."""
    c = choices
    if c.section_set == "none" and not (c.section or c.metrics):
        raise typer.BadParameter("--set none collects only what --section or --metrics name: name at least one",
                                 param_hint="--set")
    return driver.NcuOptions(section_set=None if c.section_set == "none" else c.section_set,
                             sections=tuple(c.section or ()), metrics=c.metrics,
                             kernel=kernel_filter.parse(c.kernel or (), c.kernel_name_base),
                             launch_skip=c.launch_skip, launch_count=c.launch_count,
                             nvtx_include=tuple(c.nvtx_include or ()), replay_mode=c.replay_mode,
                             clock_control=c.clock_control, extra=tuple(c.ncu_arg or ()), force=c.force)


# The options of NcuChoices whose empty value is refused (ncu would write a hidden ".ncu-rep", or refuse it with a
# line of its own, or take it as "no value"): parameter name, option
NON_EMPTY = (("output", "--output"), ("section", "--section"), ("metrics", "--metrics"),
             ("nvtx_include", "--nvtx-include"), ("ncu_arg", "--ncu-arg"), ("ncu", "--ncu"))


def refuse_empty_values(choices: NcuChoices) -> None:
    """UsageError, before anything runs, for an option of ``NON_EMPTY`` given an empty (or blank) value."""
    import shlex

    from roofline.errors import UsageError

    for name, option in NON_EMPTY:
        given = getattr(choices, name)
        for value in given if isinstance(given, list) else [given]:
            if value is not None and not value.strip():
                raise UsageError(f"{option} {shlex.quote(value)}: an empty value", f"give {option} a value, or leave "
                                 "it out")


def own_options_after_app(ctx: typer.Context, command: Sequence[str], profiler: str = "ncu") -> list[str]:
    """The arguments after APP that are this command's own options (they go to the application, as with ncu),
    none when ``--`` came before APP; RooflineError for --dry-run there, which would start the ``profiler`` (ncu, or
    nsys under --no-counters) when the user asked for no run."""
    from roofline.errors import RooflineError

    if _app_after_dashes(ctx, command):
        return []
    own = _own_options(ctx)
    found = [arg for arg in command[1:] if arg.split("=", 1)[0] in own]
    if any(arg.split("=", 1)[0] == "--dry-run" for arg in found):
        raise RooflineError(f"--dry-run after APP ({command[0]}) would go to the application and {profiler} would "
                            "run",
                            "move --dry-run before APP, or write -- before APP to pass it to the application")
    return found


def refuse_unknown_option_as_app(ctx: typer.Context, command: Sequence[str]) -> None:
    """UsageError where APP is an option this command does not have ("--formatt"): a mistyped option, not an
    application (after ``--`` it is the application's name)."""
    import difflib

    from roofline.errors import UsageError

    word = command[0]
    if word[:1] != "-" or _app_after_dashes(ctx, command):
        return
    close = " or ".join(difflib.get_close_matches(word.split("=", 1)[0], sorted(_own_options(ctx)), n=2))
    raise UsageError(f"no such option {word}" + (f" (did you mean {close}?)" if close else ""),
                     f"run '{ctx.command_path} --help' for the options")


def _app_after_dashes(ctx: typer.Context, command: Sequence[str]) -> bool:
    """Whether ``--`` came right before APP on the command line."""
    raw = ctx.meta.get(_RAW_ARGS, ())
    return len(raw) > len(command) and raw[-len(command) - 1] == "--"


def _own_options(ctx: typer.Context) -> set[str]:
    """Every option name of the command (``--format``, ``-f``, ``--no-counters``...)."""
    return {opt for param in ctx.command.params for opt in (*param.opts, *param.secondary_opts) if opt[:1] == "-"}


def warn_options_after_app(found: Sequence[str]) -> None:
    """Say on stderr, before running, that these options go to the application."""
    if found:
        go, them = ("goes", "it") if len(found) == 1 else ("go", "them")
        typer.echo(f"roofline: warning: {' '.join(found)} after APP {go} to the application, not to roofline (as "
                   f"with ncu); move {them} before APP, or write -- before APP to pass {them} on without this warning",
                   err=True)


def print_dry_run(ncu: str | None, options: driver.NcuOptions, template: str, app: list[str],
                  label: str = "") -> None:
    """Print the ncu command (with the ncu found here, or plain ``ncu`` when none is: a login node without
    Nsight Compute) for copy and paste, ``label`` after it as a shell comment. An ncu named by --ncu or
    $ROOFLINE_NCU is printed as given, with a warning where it is not here (the command may be meant for another
    node)."""
    import os

    from roofline.errors import NcuError

    try:
        install = driver.find_ncu(ncu)
    except NcuError as err:
        named = ncu or os.environ.get(driver.NCU_VARIABLE)
        program = named or "ncu"
        if named:
            typer.echo(f"roofline: warning: {err.message} here; the command names it as given", err=True)
    else:
        program, options = install.path, driver.for_version(options, install.version)
        _say_version(install, options)
    typer.echo(with_label(driver.shell_command(driver.make_plan(program, options, template, app).argv), label))


def _say_version(install: driver.NcuInstall, options: driver.NcuOptions) -> None:
    """On stderr, for a dry run: the ncu the command names and its version, and a warning where the run would refuse
    it as too old for these options (``driver.check_version``), the command printed all the same."""
    from roofline.errors import NcuError

    try:
        driver.check_version(install, options)
    except NcuError as err:
        typer.echo(f"roofline: warning: {err.message}, so the run would refuse it: {err.hint}", err=True)
        return
    typer.echo(f"roofline: the command is for {install.describe()}", err=True)


def with_label(command: str, label: str) -> str:
    """A printed command line with ``label`` after it as a shell comment (copied and pasted, it still runs)."""
    return f"{command}  # {label}" if label else command


def prepare_ncu(ncu: str | None, options: driver.NcuOptions, template: str, app: list[str]) -> driver.Plan:
    """Refuse to overwrite or to write where no file can be made, find ncu, check its version against the options,
    and plan the run."""
    driver.refuse_overwrite(template, options.force)
    driver.refuse_unwritable_folder(template)
    install = driver.find_ncu(ncu)
    options = driver.for_version(options, install.version)
    driver.check_version(install, options)
    typer.echo(f"roofline: profiling with {install.describe()}", err=True)
    return driver.make_plan(install.path, options, template, app)
