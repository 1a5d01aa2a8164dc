"""`roofline analyze [OPTIONS] APP [APP_ARGS]...`: profile an application with ncu, then analyse the report.

Everything after APP belongs to the application (options are not looked for after it, as with ncu); one of
analyze's own options there gets a warning before the run, and --dry-run there is refused. ``--`` before APP
passes everything on without a word. The ncu options are declared in ``commands.ncu_options``, shared with
`roofline wrap`; the --kernel filters select the same launches in ncu and in the analysis after it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from roofline.cli import ncu_options as ncu_opts
from roofline.cli.facts import Facts, Output
from roofline.cli.failures import handles_errors
from roofline.cli.options import (
    REPORT_FORMAT_HELP,
    CeilingsOpt,
    PlotOpt,
    ReportFormat,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    output_help,
)
from roofline.cli.workflow import report_files
from roofline.cli.writing import refuse_unwritable_outputs
from roofline.core.choices import Fallback, KernelGroupBy, NameBase
from roofline.errors import CountersDenied, ReportError, UsageError
from roofline.ncu import driver

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.nsys.export import Nsys
    from roofline.specs.catalog import SpecCatalog

CONTEXT_SETTINGS = ncu_opts.CONTEXT_SETTINGS  # read by roofline.cli.app, with COMMAND_CLASS
COMMAND_CLASS = ncu_opts.COMMAND_CLASS
REPORT_OUTPUT = "--report-output"  # the analysis's file (-o names ncu's report)
AnalysisOutputOpt = Annotated[Path | None, typer.Option(REPORT_OUTPUT, help=output_help("report"))]
FromNsysOpt = Annotated[Path | None, typer.Option(
    "--from-nsys", help="Profile only the top kernels of this Nsight Systems profile (.sqlite, .nsys-rep, .qdrep) by "
    "total GPU time, one median-duration launch each.")]
TopOpt = Annotated[int, typer.Option("--top", "-n", min=1, help="With --from-nsys: how many kernels.")]
NsysOpt = Annotated[str | None, typer.Option(
    "--nsys", help="With --from-nsys or --no-counters: the nsys to run (else $ROOFLINE_NSYS, PATH, the usual install "
    "places).")]
NoCountersOpt = Annotated[bool, typer.Option(
    "--no-counters", help="Time the kernels with nsys (CUDA tracing, no performance counters: works where ncu gets "
    "ERR_NVGPUCTRPERM) and rank them as `roofline timeline` does; writes NAME.nsys-rep and NAME.sqlite.")]
WorkFromOpt = Annotated[list[Path] | None, typer.Option(
    "--work-from", help="With --no-counters: ncu reports of the same kernels made where counters were allowed "
    "(repeatable); each kernel is placed on this GPU's roofline with their FLOPs and bytes and nsys's time.")]
FallbackOpt = Annotated[Fallback, typer.Option(
    "--fallback", help="When ncu is refused the counters (ERR_NVGPUCTRPERM): none (say the command that times the "
    "kernels with nsys) or nsys (run it).")]
GroupByOpt = Annotated[KernelGroupBy, typer.Option(
    "--group-by",
    help="With --from-nsys: rank kernel instances (kernel: template instances apart, as `report`) or pool them by "
    "function name (function).")]
DEFAULT_TOP = 5
TIMELINE_TOP = 20  # kernels shown by --no-counters, as `roofline timeline` shows them


FACTS = Facts(output=Output("report", "report_output", REPORT_OUTPUT))


@handles_errors
@ncu_opts.takes_ncu_options
def analyze(
    ctx: typer.Context,
    command: ncu_opts.CommandArg,
    choices: ncu_opts.NcuChoices = ncu_opts.DEFAULTS,
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
    no_counters: NoCountersOpt = False,
    work_from: WorkFromOpt = None,
    fallback: FallbackOpt = "none",
) -> None:
    """Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."""
    from roofline.render.mpl import plot_format

    ncu_opts.refuse_unknown_option_as_app(ctx, command)
    _refuse_unused_options(ctx, no_counters, from_nsys is not None, fallback == "nsys", bool(work_from))
    ncu_opts.refuse_empty_values(choices)
    after_app = ncu_opts.own_options_after_app(ctx, command, "nsys" if no_counters else "ncu")
    _refuse_document_as_report(choices.output)
    app = driver.resolve_app(command)
    timed = NsysRun(command, app, choices.output, choices.force, nsys, work_from or [], specs, fmt, report_output,
                    plot, wide, group_by, timeout)
    if no_counters:
        if from_nsys is not None:
            raise UsageError("--no-counters with --from-nsys: --no-counters makes its own nsys profile",
                             "leave out --from-nsys")
        ncu_opts.warn_options_after_app(after_app)
        _time_with_nsys(timed, choices.dry_run)
        return
    if work_from:
        raise UsageError("--work-from without --no-counters: ncu measures the work itself",
                         "add --no-counters, or leave out --work-from")
    if from_nsys is not None and choices.nvtx_include:  # the launch skip counts every launch of the profile
        raise UsageError("--from-nsys with --nvtx-include: the launch chosen is counted over every launch of the "
                         "profile, and ncu counts only those inside the range, so it would profile another one (or "
                         "none)", "leave out --nvtx-include, or give the kernel and --launch-skip yourself")
    runs, kernel_name_base = _runs(from_nsys, top, nsys, choices.kernel, choices.launch_skip, choices.launch_count,
                                   choices.kernel_name_base, group_by)
    plans = []
    for i, (why, kernels, skip, count) in enumerate(runs):
        options = ncu_opts.ncu_options(replace(choices, kernel=kernels, kernel_name_base=kernel_name_base,
                                               launch_skip=skip, launch_count=count))
        tag = f".top{i + 1}" if len(runs) > 1 else ""
        plans.append((why, options, driver.report_template(choices.output, driver.app_name(command), tag)))
    ncu_opts.warn_options_after_app(after_app)  # on standard error: a dry run's command lines stay on stdout
    if choices.dry_run:
        for why, options, template in plans:
            for line in why.splitlines():
                typer.echo(f"# {line}")
            ncu_opts.print_dry_run(choices.ncu, options, template, app)
        return
    if plot is not None:
        plot_format(plot)  # a plot name that cannot be written is refused before profiling
    for why, _, _ in plans:
        for line in why.splitlines():
            typer.echo(f"roofline: {line}", err=True)
    _refuse_before_profiling([(template, options.force) for _, options, template in plans], fmt, report_output,
                             plot, specs)
    reports = []
    try:
        for _, options, template in plans:
            reports.append(driver.profile(ncu_opts.prepare_ncu(choices.ncu, options, template, app)))
            typer.echo(f"roofline: wrote {reports[-1]}", err=True)
    except CountersDenied as err:
        _offer_fallback(err, timed, fallback)
    # ncu applied the filters already; the analysis applies the same ones, so what was profiled is analysed
    chosen = [f for _, filters, _, _ in runs for f in filters or ()] or None
    document = report_files(reports, analysis_options(chosen, kernel_name_base, ceilings, specs, timeout), fmt,
                            report_output, plot, wide=wide, option=REPORT_OUTPUT)
    if fmt != "table":  # the table says it under its hot spots
        _say_lineinfo(document.analyses)
    if from_nsys is not None:
        weigh = driver.shell_command(["roofline", "summary", *map(str, reports), "--nsys", str(from_nsys)])
        typer.echo(f"roofline: the whole application in real time: {weigh}", err=True)


# Options that only some runs read (parameter names; tests check each is one of analyze's): with --no-counters ncu
# does not run, and the spec files are read only to place --work-from's kernels
NCU_ONLY = ("kernel", "kernel_name_base", "section_set", "section", "metrics", "launch_skip", "launch_count",
            "nvtx_include", "replay_mode", "clock_control", "ncu", "ncu_arg", "ceilings", "fallback")
FROM_NSYS_ONLY = ("top",)  # what --from-nsys picks from its profile
NSYS_ONLY = ("nsys", "group_by")  # read where nsys runs or its profile is read: --from-nsys, --no-counters, fallback
WORK_FROM_ONLY = ("specs", "timeout")  # with --no-counters: the GPU the --work-from reports are placed on, and the
# limit on reading them (--timeout bounds the reading of reports, never a profiling run)


WORK_FROM_READ = {"specs": "the specs place only --work-from's kernels",
                  "timeout": "--timeout bounds only the reading of --work-from's reports (nsys's run has no limit)"}


def _refuse_unused_options(ctx: typer.Context, no_counters: bool, from_nsys: bool, nsys_fallback: bool,
                           work_from: bool) -> None:
    """UsageError for an option given on the command line that this run would not read (``--top`` without
    ``--from-nsys``, ``--set`` with ``--no-counters``): a silently ignored option reads as applied."""
    given = [p for p in ctx.command.params if p.name and (source := ctx.get_parameter_source(p.name)) is not None
             and source.name != "DEFAULT"]
    for param in given:
        name = max(param.opts, key=len)
        if no_counters and param.name in NCU_ONLY:
            why, fix = "--no-counters times the kernels with nsys and runs no ncu", f"leave out {name}"
        elif no_counters and param.name in FROM_NSYS_ONLY:
            why, fix = f"--no-counters ranks every kernel (the top {TIMELINE_TOP}) and profiles none", \
                f"leave out {name}"
        elif no_counters and not work_from and param.name in WORK_FROM_ONLY:
            why, fix = f"with --no-counters {WORK_FROM_READ[param.name]}", \
                f"add --work-from X.ncu-rep, or leave out {name}"
        elif not from_nsys and param.name in FROM_NSYS_ONLY:
            why, fix = "it applies only with --from-nsys", f"add --from-nsys PROFILE, or leave out {name}"
        elif not (from_nsys or no_counters or nsys_fallback) and param.name in NSYS_ONLY:
            why = "it applies only where nsys runs or its profile is read (--from-nsys, --no-counters, --fallback nsys)"
            fix = f"add one of those, or leave out {name}"
        else:
            continue
        raise UsageError(f"{name}: {why}", fix)


def _refuse_before_profiling(runs: list[tuple[str, bool]], fmt: str, report_output: Path | None, plot: Path | None,
                             specs: list[Path] | None) -> None:
    """Every check that needs no profile, made before the first ncu runs (never after a long profile): each run's
    report (``runs``: its ncu -o and --force) not in the way of another file and its folder writable, the analysis's
    files writable, the spec files readable."""
    for template, force in runs:
        driver.refuse_overwrite(template, force)
        driver.refuse_unwritable_folder(template)
    refuse_unwritable_outputs("report", fmt, report_output, plot, _report_names([t for t, _ in runs]), REPORT_OUTPUT)
    _spec_catalog(specs)


def _spec_catalog(specs: list[Path] | None) -> SpecCatalog:
    """The spec catalog the analysis will read (the facade's), loaded now: a --specs (or $ROOFLINE_SPECS) file that
    cannot be read or is malformed is its one-line error before the run, not after it."""
    from roofline.cli.options import work_options
    from roofline.cli.workflow import facade

    return facade(work_options(specs)).catalog


def _report_names(templates: list[str]) -> list[str]:
    """The reports the runs will write, as far as known before they run (a name with ncu's %p or %i takes the
    profiled process's number, known only after)."""
    import os

    names = [driver.expand_macros(template, os.environ, None) for template in templates]
    return [name for name in names if name is not None]


def _refuse_document_as_report(output: str | None) -> None:
    """UsageError for ``-o NAME.json`` (an extension of the analysis's files or plots): -o names the profile (ncu
    would write NAME.json.ncu-rep), while the analysis would go to the terminal."""
    import os

    from roofline.render.base import extension, known_extensions

    if output is None or output.endswith(("/", os.sep)) or os.path.isdir(output):
        return
    if extension(output) in known_extensions():
        raise UsageError(f"--output {output}: -o names the profile ({driver.report_template(output, '')}), not the "
                         "analysis", f"write the analysis with {REPORT_OUTPUT} {output}, and give -o a report name or "
                         "none")


@dataclass(frozen=True)
class NsysRun:
    """What --no-counters (or the fallback) needs: the application, where to write, how to show the result."""

    command: list[str]
    app: list[str]
    output: str | None
    force: bool
    nsys: str | None
    work_from: list[Path]
    specs: list[Path] | None
    fmt: str
    report_output: Path | None
    plot: Path | None
    wide: bool
    group_by: str
    timeout: float | None

    def fallback_command(self) -> str:
        """The `roofline analyze --no-counters` command line that times the same application with nsys (a run that
        falls back had no --work-from: it is refused without --no-counters)."""
        output = ["-o", self.output] if self.output is not None else []  # the same files the fallback writes
        # -- before APP: the application's arguments stay its own, whatever they look like (--dry-run, -k)
        return driver.shell_command(["roofline", "analyze", "--no-counters", *output, "--", *self.command])


def _offer_fallback(err: CountersDenied, timed: NsysRun, fallback: str) -> None:
    """After ncu's refusal (its line first): the command that times the kernels without counters, run when
    ``fallback`` is "nsys"; the exit status stays the refusal's either way (the counters were not read)."""
    from roofline.cli.failures import say

    code = say(err, sys.argv[1:])
    typer.echo(f"roofline: without counters, nsys still times every kernel (add --work-from X.ncu-rep, a report "
               f"made where counters are allowed, to place them on the roofline): {timed.fallback_command()}",
               err=True)
    if fallback == "nsys":
        _time_with_nsys(timed, dry_run=False)
    raise typer.Exit(code)


def _time_with_nsys(timed: NsysRun, dry_run: bool) -> None:
    """--no-counters: run the application under nsys (CUDA trace), then rank its kernels as `roofline timeline`
    does; with --work-from, place them on this GPU's roofline with the reports' work."""
    from msgspec import structs

    from roofline.cli.options import work_options
    from roofline.cli.plots import image
    from roofline.cli.terminal import terminal_width
    from roofline.cli.workflow import facade
    from roofline.cli.writing import write_document
    from roofline.nsys import profile
    from roofline.nsys.export import find_nsys
    from roofline.render.base import format_names, render_image
    from roofline.render.mpl import plot_format

    if timed.fmt not in format_names("timeline"):
        raise UsageError(f"--no-counters with --format {timed.fmt}: the timeline is written as "
                         f"{', '.join(format_names('timeline'))}", "choose one of those formats")
    plot_fmt = plot_format(timed.plot) if timed.plot is not None else None
    base = driver.report_template(timed.output, driver.app_name(timed.command)).removesuffix(".ncu-rep")
    if dry_run:
        typer.echo("# time the kernels with nsys (CUDA trace, no performance counters), then rank them")
        typer.echo(driver.shell_command(list(profile.plan(_nsys_to_print(timed.nsys), base, timed.app,
                                                          timed.force).argv)))
        return
    plan = profile.plan(find_nsys(timed.nsys), base, timed.app, timed.force)
    profile.refuse_overwrite(plan, timed.force)
    driver.refuse_unwritable_folder(str(plan.report))
    refuse_unwritable_outputs("timeline", timed.fmt, timed.report_output, timed.plot, [plan.sqlite], REPORT_OUTPUT)
    _spec_catalog(timed.specs)
    typer.echo(f"roofline: timing the kernels with nsys: {driver.shell_command(list(plan.argv))}", err=True)
    sqlite = profile.run(plan)
    typer.echo(f"roofline: wrote {plan.report} and {sqlite}", err=True)
    options = structs.replace(work_options(timed.specs), time_limit_s=timed.timeout)  # reading --work-from's reports
    document = facade(options).timeline([sqlite], group_by=timed.group_by, work=timed.work_from,
                                        width=terminal_width(timed.wide), top=TIMELINE_TOP)
    also = []
    if timed.plot is not None and plot_fmt is not None:
        also.append((timed.plot, image(render_image("timeline", document, plot_fmt))))
    write_document("timeline", timed.fmt, document, timed.report_output, [sqlite], also, REPORT_OUTPUT)


def _nsys_to_print(named: str | None) -> Nsys:
    """The nsys a dry run prints: the one found here; else the one named by --nsys or $ROOFLINE_NSYS, as given, with
    a warning (the command may be meant for another node); else plain ``nsys`` (a login node without it)."""
    import os

    from roofline.nsys.export import ENV_VAR, Nsys, find_nsys

    try:
        return find_nsys(named)
    except ReportError as err:
        given = named or os.environ.get(ENV_VAR)
        if given:
            typer.echo(f"roofline: warning: {err.message} here; the command names it as given", err=True)
        return Nsys(given or "nsys", ())


Run = tuple[str, list[str] | None, int | None, int | None]  # why, --kernel filters, --launch-skip, --launch-count


def _runs(from_nsys: Path | None, top: int, nsys: str | None, kernel: list[str] | None, launch_skip: int | None,
          launch_count: int | None, base: NameBase, group_by: str) -> tuple[list[Run], NameBase]:
    """The ncu runs and the --kernel-name-base they share: the run the options ask for, or with --from-nsys the
    runs the facade plans (``Roofline.ncu_plan``), the first one's why led by what they profile."""
    if from_nsys is None:
        return [("", kernel, launch_skip, launch_count)], base
    from roofline.facade import Roofline

    given = [name for name, value in (("--kernel", kernel), ("--launch-skip", launch_skip),
                                      ("--launch-count", launch_count)) if value is not None]
    if given or base != "function":
        raise UsageError(f"--from-nsys with {', '.join(given) or '--kernel-name-base'}: --from-nsys chooses the "
                         "kernels and their launches", "leave those options out, or leave out --from-nsys")
    plan = Roofline.ncu_plan(from_nsys, top, nsys, group_by)
    runs: list[Run] = [(target.why, [kernel], target.launch_skip, target.launch_count)
                       for target, kernel in zip(plan.targets, plan.filters, strict=True)]
    why, filters, skip, count = runs[0]
    return [(f"{plan.summary}\n{why}", filters, skip, count), *runs[1:]], plan.name_base


def _say_lineinfo(analyses: Sequence[ReportAnalysis]) -> None:
    """Once, on stderr: the profiled kernels whose samples have no source line, and how to add line information."""
    from roofline.analysis.hotspots import without_lines
    from roofline.ncu.metrics import HINT_LINEINFO

    names = [name for a in analyses for name in without_lines(a.report.launches)]
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        typer.echo(f"roofline: no source lines for {shown}: {HINT_LINEINFO}", err=True)
