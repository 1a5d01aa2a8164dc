"""What every command shares: one-line errors and warnings, the terminal width, the option declarations several
commands take, and the report workflow. Files are written by ``roofline.cli.output.write_output`` only
(re-exported here), so the no-overwrite rule holds for every output, plots included."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TextIO, TypeAlias, TypeVar, cast

import typer
from typer import _click as click
from typer._click.types import ParamType

from roofline.cli import fast_start
from roofline.cli.output import STDOUT, replaceable, to_stdout, write_all
from roofline.cli.output import write_output as write_output
from roofline.core.choices import OUTPUT_OPTION, GroupBy, NameBase, TargetClock
from roofline.core.kernel_filter import LANGUAGE, NAME_BASE_HELP
from roofline.core.labels import LEGEND_KERNELS
from roofline.core.model import CeilingSet
from roofline.core.thresholds import READ_LIMIT_BASE_S, READ_LIMIT_S_PER_MIB, SPREAD_THRESHOLD_PCT
from roofline.pipeline import AnalysisOptions
from roofline.render.base import CompareDocument as CompareDocument
from roofline.render.base import DiffDocument as DiffDocument
from roofline.render.base import (
    Document,
    Kind,
    ReportDocument,
    extension,
    find_format,
    format_names,
    image_names,
    images_beside,
    plot_is_beside,
    render_image,
)
from roofline.render.base import ProjectDocument as ProjectDocument
from roofline.render.base import RealtimeDocument as RealtimeDocument
from roofline.render.base import SummaryDocument as SummaryDocument
from roofline.render.base import TimelineDocument as TimelineDocument
from roofline.render.names import visible

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.compare.ranking import AppSummary
    from roofline.errors import RooflineError
    from roofline.facade import Roofline
    from roofline.render.mpl import PlotFormat

F = TypeVar("F", bound=Callable[..., object])
if TYPE_CHECKING:  # pragma: no cover
    ReportFormat: TypeAlias = str
    CompareFormat: TypeAlias = str
    DiffFormat: TypeAlias = str
    SummaryFormat: TypeAlias = str
    TimelineFormat: TypeAlias = str
    ProjectFormat: TypeAlias = str
else:  # the registry's format names as the Literal typer checks on the command line (mypy sees str)
    ReportFormat = Literal[format_names("report")]
    CompareFormat = Literal[format_names("compare")]
    DiffFormat = Literal[format_names("diff")]
    SummaryFormat = Literal[format_names("summary")]
    TimelineFormat = Literal[format_names("timeline")]
    ProjectFormat = Literal[format_names("project")]
REPORTS_DIR = Path("reports")
WIDE_COLUMNS = 100_000  # --wide: a table width no kernel name reaches
_REPORT_SUFFIXES = (".ncu-rep", ".roofline.json", ".json")
MAX_TIMEOUT_S = 1e6  # --timeout: 11 days; far beyond it, the deadline overflows the system's clock


# --- Numbers on the command line ---------------------------------------------------------------------
class Number(ParamType):
    """The one check of every numeric option: a finite number (nan and inf pass comparisons such as ``x >= 0``,
    which would switch a gate off, and cannot be written as JSON) from ``low`` to ``high`` (``above``: ``low``
    itself excluded). A value outside is a usage error naming the option (exit 2)."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None, above: bool = False) -> None:
        self.low, self.high, self.above = low, high, above

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(value)  # type: ignore[arg-type]  # a str from the command line, or the default
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.low is not None and (number < self.low or (self.above and number == self.low)):
            self.fail(f"{number:g} is not {'above' if self.above else 'at least'} {self.low:g}", param, ctx)
        if self.high is not None and number > self.high:
            self.fail(f"{number:g} is above {self.high:g}", param, ctx)
        return number


# --- Options several commands take -------------------------------------------------------------------
KernelOpt = Annotated[
    list[str] | None, typer.Option("--kernel", "-k", metavar="FILTER", help=f"Only some kernels: {LANGUAGE}"),
]
NameBaseOpt = Annotated[NameBase, typer.Option("--kernel-name-base", help=NAME_BASE_HELP)]
WideOpt = Annotated[bool, typer.Option(
    "--wide", help="Print kernel names in full (tables otherwise fit them to the terminal width).")]


def output_help(kind: Kind) -> str:
    """The help of a command's output file: its formats by extension (``render.base.FORMATS``)."""
    return (f"Write the output to this file instead of the terminal (- for standard output); without --format, its "
            f"extension chooses the format ({by_extension(kind, '{} {}')}).")


def by_extension(kind: Kind, pattern: str = "{} ({})") -> str:
    """The --format choices of ``kind`` with the extension of each, as ``pattern`` puts them: ".json (json), ..."."""
    return ", ".join(pattern.format(extension(find_format(kind, n).suffix), n) for n in format_names(kind))


ReportOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("report"))]
CompareOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("compare"))]
DiffOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("diff"))]
SummaryOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("summary"))]
ProjectOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("project"))]
TimelineOutputOpt = Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("timeline"))]
CeilingsOpt = Annotated[
    CeilingSet,
    typer.Option(
        "--ceilings",
        help="Roofs for percent of roof: kernel-clock (at the clocks the kernel ran: the report's peak counters, "
        "else the datasheet scaled to the measured clock), measured-clock (peak counters only), datasheet (the "
        "device spec, boost clock) or calibrated (the rates 'roofline calibrate' measured on the GPU).",
    ),
]
SpecsOpt = Annotated[
    list[Path] | None,
    typer.Option("--specs", help="Extra device spec YAML file or folder (repeatable); overrides built-ins."),
]
PLOT_FILES = "to this file (.png, .svg or .pdf)"
PlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", help=f"Also draw the roofline plot {PLOT_FILES}."),
]
TimelinePlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", help=f"Also draw each file's kernels as bars of total GPU time {PLOT_FILES}."),
]
MatchOpt = Annotated[
    str,
    typer.Option("--match", "-m", help="Pair kernels by: name (function name), demangled, order (n-th distinct "
                 "kernel), family (a library kernel's architecture-neutral family, e.g. ampere_sgemm_* with an "
                 "H100's sm90_xmma_gemm_f32*), or regex:PATTERN (key = first capture group, else the whole match)."),
]
MapOpt = Annotated[
    list[str] | None,
    typer.Option("--map", help="Pair explicitly: A=B, one full-match regex per report in report order "
                 "(repeatable; applied before --match)."),
]
WorkToleranceOpt = Annotated[
    float, typer.Option("--work-tolerance", metavar="PCT", click_type=Number(),
                        help="Pairs whose FLOPs (or, without FLOPs, threads launched) differ by more than PCT percent "
                        "are different work: compared by throughput, not by time.")]
ClockOpt = Annotated[
    TargetClock, typer.Option(
        "--clock", help="The target GPU's clock a projection assumes: boost (its spec's boost clock, as users run) "
                        "or base (the SM clock ncu locks while profiling, its default --clock-control base: the time "
                        "ncu would measure there; the spec's base_clock_hz).")]
AlphaOpt = Annotated[
    float, typer.Option("--alpha", click_type=Number(), help="Significance level of the noise statistics over "
                        "repeated launches (Mann-Whitney U; intervals are 1 - 2 alpha).")]
TimeoutOpt = Annotated[
    float | None,
    typer.Option("--timeout", metavar="SECONDS", click_type=Number(0.0, MAX_TIMEOUT_S, above=True),
                 help=f"Stop reading an .ncu-rep after this long (default: {READ_LIMIT_BASE_S:g} s + "
                 f"{READ_LIMIT_S_PER_MIB:g} s per MiB of the file)."),
]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, metavar="N",
                 help="Analyse up to N reports at once, in worker processes (default: the number of CPU cores)."),
]
REPORT_FORMAT_HELP = ("Output format: table, json, csv (one row per launch and quantity, the same columns for every "
                      "report), markdown (with the plot as a PNG beside it) or html (interactive plot).")


def analysis_options(kernel: Sequence[str] | None, kernel_name_base: NameBase, ceilings: CeilingSet,
                     specs: Sequence[Path] | None, timeout: float | None = None,
                     diagnostics: bool = True, group_by: GroupBy = "kernel", sass: bool = True) -> AnalysisOptions:
    """The pipeline's options from the shared command-line options (``diagnostics``: whether the command shows
    diagnostics and advice, so every launch's are computed; ``sass``: whether it shows the SASS of the hot spots,
    so it is read)."""
    return AnalysisOptions(kernel=tuple(kernel or ()), kernel_name_base=kernel_name_base, ceilings=ceilings,
                           specs=tuple(specs or ()), time_limit_s=timeout, diagnostics=diagnostics,
                           group_by=group_by, sass=sass)


def work_options(specs: Sequence[Path] | None) -> AnalysisOptions:
    """The options of the ncu reports whose work an nsys timeline borrows (``timeline --work``, ``analyze
    --no-counters --work-from``): every kernel, no diagnoses."""
    return analysis_options(None, "function", "kernel-clock", specs, diagnostics=False)


def facade(options: AnalysisOptions, jobs: int | None = 1) -> Roofline:
    """The facade a command asks for its document: ``options``, up to ``jobs`` reports at once (None: every core),
    a progress bar on a terminal, each report's warnings printed once it is analysed."""
    from roofline.facade import Roofline

    return Roofline(options, jobs=jobs_or_cores(jobs), progress=progress, analysed=warn)


# --- Errors and the terminal -------------------------------------------------------------------------
def handles_errors(func: F) -> F:
    """Decorate a command so a RooflineError prints ``roofline: error: ...`` and exits with its code (``say``)."""

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> object:
        from roofline.errors import RooflineError

        try:
            return func(*args, **kwargs)
        except RooflineError as err:
            raise typer.Exit(say(err, sys.argv[1:])) from None

    return cast(F, wrapper)  # functools.wraps keeps the signature at run time, not in its type


def say(err: RooflineError, args: Sequence[str]) -> int:
    """Print an error as roofline's one line on stderr and return its exit status. Under ``summary --mpi`` (command
    line ``args``) a usage error is left to rank 0, as every rank parses the same command line: the other ranks
    print nothing and end with 0, or mpiexec would stop the job, rank 0 too, before its line. Other errors may
    differ between nodes (mpi4py missing on one): every rank prints those."""
    from roofline.cli.ranks import other_mpi_rank
    from roofline.errors import UsageError
    from roofline.facade import NoReportAnalysed

    if isinstance(err, UsageError) and "--mpi" in args and other_mpi_rank(os.environ):
        return 0
    if isinstance(err, NoReportAnalysed):  # every file bad: one line each
        for each in err.errors:
            typer.echo(f"roofline: error: {visible(str(each))}", err=True)
        return err.exit_code
    typer.echo(f"roofline: error: {visible(str(err))}", err=True)
    return err.exit_code


def warn(results: Sequence[ReportAnalysis | AppSummary]) -> None:
    """The integrity warnings of each result's report (analyses, summaries) on stderr, one line each (the outputs
    carry them too)."""
    for result in results:
        warn_report(result.report.path, result.report.warnings)


def warn_report(path: str, warnings: Sequence[str]) -> None:
    """The integrity warnings of the report at ``path`` on stderr, one line each."""
    for warning in warnings:
        typer.echo(f"roofline: warning: {visible(f'{path}: {warning}')}", err=True)


def fail_for(errors: Sequence[RooflineError]) -> None:
    """After the good reports were written: one line per bad one, and the exit status of the worst."""
    for err in errors:
        typer.echo(f"roofline: error: {visible(str(err))}", err=True)
    if errors:
        raise typer.Exit(max(err.exit_code for err in errors))


def jobs_or_cores(jobs: int | None) -> int:
    """``--jobs``, or the number of CPU cores when it is not given."""
    from roofline.core.parallel import cores

    return jobs if jobs is not None else cores()


# --- Progress ------------------------------------------------------------------------------------------
PROGRESS_AFTER_S = 2.0  # expected work below this shows no progress bar
EXPECTED_S_PER_MIB = 0.05  # analysis time of a report per MiB of its file (benchmarks/: 0.03 to 0.05 s/MiB)
EXPECTED_S_PER_FILE = 0.1  # and per file


def expected_seconds(paths: Sequence[str | os.PathLike[str]], jobs: int) -> float:
    """A rough estimate of the time the analysis of these files takes on ``jobs`` cores (from their sizes)."""
    size = 0
    for path in paths:
        with contextlib.suppress(OSError):
            size += os.stat(path).st_size
    return (EXPECTED_S_PER_FILE * len(paths) + EXPECTED_S_PER_MIB * size / 2**20) / max(1, min(jobs, len(paths)))


@contextlib.contextmanager
def progress(paths: Sequence[str | os.PathLike[str]], jobs: int = 1,
             stream: TextIO | None = None) -> Iterator[Callable[[], None] | None]:
    """A progress bar over ``paths`` on ``stream`` (stderr) when it is a terminal and the work is expected to take
    over ``PROGRESS_AFTER_S``: yields the function to call after each file, else None (nothing is shown)."""
    stream = stream or sys.stderr
    if not stream.isatty() or expected_seconds(paths, jobs) <= PROGRESS_AFTER_S:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from roofline.render.terminal import plain_terminal

    with Progress(TextColumn("analysing reports"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(file=stream, color_system=None if plain_terminal(os.environ) else "auto"),
                  transient=True) as bar:
        task = bar.add_task("reports", total=len(paths))
        yield lambda: bar.advance(task)


def terminal_width(wide: bool = False) -> int:
    """Columns for tables: $COLUMNS, else the terminal's width, at least 80 (80 when not a terminal); with
    ``wide``, room for every name in full."""
    import shutil

    return WIDE_COLUMNS if wide else max(80, shutil.get_terminal_size((80, 24)).columns)


# --- Output files ------------------------------------------------------------------------------------
def default_output(paths: Sequence[str | os.PathLike[str]], suffix: str) -> Path:
    """``reports/<first report's name><suffix>``, with ``+N`` when N more reports go into the same file."""
    name = Path(paths[0]).name if paths else "roofline"
    stem = next((name[: -len(s)] for s in _REPORT_SUFFIXES if name.endswith(s)), Path(name).stem)
    more = f"+{len(paths) - 1}" if len(paths) > 1 else ""
    return REPORTS_DIR / f"{stem}{more}{suffix}"


def write_document(kind: Kind, name: str, document: Document, output: Path | None,
                   paths: Sequence[str | os.PathLike[str]], also: Sequence[tuple[Path, bytes]] = ()) -> None:
    """Render ``document`` in the format ``name`` of ``kind`` and print it, or write it to ``output`` (by default,
    for a format written to a file, under reports/ after the first report), with its plots beside it (none when it
    goes to standard output; a --plot PNG of the same figure, ``plot_is_beside``, is not drawn again) and the files
    ``also`` (a --plot). They are written together (``write_all``): when the document cannot be written, none of
    the new files stays."""
    from msgspec.structs import replace

    fmt = find_format(kind, name)
    target = document_target(kind, name, output, paths)
    files: list[tuple[Path, str | bytes]] = []
    if fmt.plots is not None and target is not None and str(target) != STDOUT:
        same = [data for path, data in also if extension(path.name) == ".png"] if plot_is_beside(document) else []
        images: list[bytes | None] = [*same[:1]] or find_format(kind, fmt.plots).render(document)
        names = image_names(target.name, len(images))
        files += [(target.parent / n, image) for n, image in zip(names, images, strict=True) if image is not None]
        assert isinstance(document, (ReportDocument, CompareDocument)), "only these kinds write plots beside"
        document = replace(document, images=tuple(n if image is not None else "" for n, image in
                                                  zip(names, images, strict=True)))
    text: str = fmt.render(document)
    files += also
    if target is None:
        write_all(files)
        to_stdout(text)
    else:
        write_all([*files, (target, text)])
    fast_start.keep_to_the_end(document)


def format_for_output(kind: Kind, fmt: str, output: Path | None, given: bool,
                      option: str = OUTPUT_OPTION[0]) -> str:
    """The format to write: ``fmt`` when --format was ``given``, else the one the extension of ``output`` names
    (``format_by_extension``). UsageError, before any work, for a name whose extension belongs to another format
    or to an image (a table would go into ``x.html``): the file would hold something its name says it is not. A
    ``.txt`` name takes any text, and a name with another extension (or none) any format."""
    from roofline.errors import UsageError
    from roofline.render.base import draws_images, format_by_extension, known_extensions
    from roofline.render.mpl import PLOT_SUFFIXES

    if output is None or str(output) == STDOUT:
        return fmt
    ext, named = extension(output.name), format_by_extension(kind, output.name)
    if ext not in known_extensions() or (given and (named == fmt or ext == ".txt")):
        return fmt
    if not given and named is not None:
        return named
    own = extension(find_format(kind, fmt).suffix)
    if named is not None:
        fix = f"give --format {named}, or end the name with {own}"
    elif given:
        fix = f"end the name with {own}"
    else:
        fix = f"end the name with one of {by_extension(kind)}"
    if ext in PLOT_SUFFIXES and draws_images(kind):
        fix += "; --plot writes an image"
    what = f"--format {fmt} writes {fmt}" if given else f"this command writes {', '.join(format_names(kind))}"
    raise UsageError(f"{option} {output}: a {ext} file, and {what}", fix)


def output_format_class(command_class: type | None, kind: Kind, output_param: str,
                        option: str = OUTPUT_OPTION[0]) -> type:
    """A typer command class (``command_class``, typer's own by default) that settles the command's --format from
    its output file's name (``format_for_output``) once the command line is parsed, before anything else runs."""
    from typer.core import TyperCommand

    class OutputFormat(command_class or TyperCommand):  # type: ignore[misc]
        def invoke(self, ctx: click.Context) -> object:
            from roofline.errors import RooflineError

            source = ctx.get_parameter_source("fmt")
            given = source is not None and source.name != "DEFAULT"
            output = ctx.params.get(output_param)
            try:
                ctx.params["fmt"] = format_for_output(kind, ctx.params["fmt"], None if output is None else Path(output),
                                                      given, option)
            except RooflineError as err:
                raise typer.Exit(say(err, sys.argv[1:])) from None
            return super().invoke(ctx)

    return OutputFormat


def document_target(kind: Kind, name: str, output: Path | None, paths: Sequence[str | os.PathLike[str]]) -> Path | None:
    """The file a document in format ``name`` is written to: ``output``, else reports/... for a format written to a
    file, else None (the terminal)."""
    fmt = find_format(kind, name)
    return output or (default_output(paths, fmt.suffix) if fmt.to_file else None)


def check_distinct_outputs(kind: Kind, name: str, output: Path | None, plot: Path | None,
                           paths: Sequence[str | os.PathLike[str]]) -> None:
    """UsageError, before any work, when ``--plot`` names the document's file or one of the plots written beside it
    (``NAME.png``, ``NAME-1.png``, ...): two outputs never share a path (one would hold the other's content)."""
    from roofline.errors import UsageError

    target = document_target(kind, name, output, paths)
    if plot is None or target is None or str(target) == STDOUT:
        return
    taken = {target}
    if find_format(kind, name).plots is not None:
        taken |= {target.parent / n for n in (*image_names(target.name, 1), *image_names(target.name, len(paths)))}
    if os.path.realpath(plot) in {os.path.realpath(p) for p in taken}:
        raise UsageError(f"--plot {plot}: the {name} output writes this file too", "give the plot another name")


def refuse_unwritable_outputs(kind: Kind, name: str, output: Path | None, plot: Path | None,
                              paths: Sequence[str | os.PathLike[str]]) -> None:
    """Before any work (a read, a profile): the one-line error of a file the command would write and could not
    (another program's file, a folder, a device), and of two outputs on one path. The document in format ``name``
    (to ``output``, else its default under reports/ after ``paths``: none when ``paths`` is empty, their names
    unknown yet), the plots beside it, and ``plot``."""
    check_distinct_outputs(kind, name, output, plot, paths)
    files = [plot] if plot is not None else []
    target = document_target(kind, name, output, paths) if output is not None or paths else None
    if target is not None and str(target) != STDOUT:
        files.append(target)
        if find_format(kind, name).plots is not None:
            files += [target.parent / n for n in image_names(target.name, images_beside(kind, len(paths)))]
    for path in files:
        replaceable(path)


# --- Plots ----------------------------------------------------------------------------------------------
def image(drawn: bytes | None) -> bytes:
    """A kind's plot that always draws something (the command has refused an empty one before)."""
    assert drawn is not None
    return drawn


def report_plot(document: ReportDocument, fmt: PlotFormat, target: Path, name: str = "plot") -> bytes:
    """The roofline plot (``name`` "plot"), the instruction roofline plot ("instruction-plot") or the memory chart
    ("memory-plot") of the reports; a one-line error, and no file, when no kernel of any report has a place on it."""
    from roofline.errors import RooflineError

    drawn = render_image("report", document, fmt, name)
    if drawn is None:
        if name == "plot":
            from roofline.render.report.plot import NOTHING_TO_PLOT as nothing
            from roofline.render.report.plot import PLOT_FIX as fix
        elif name == "memory-plot":
            from roofline.render.report.memory_plot import FIX as fix
            from roofline.render.report.memory_plot import NOTHING as nothing
        else:
            from roofline.render.report.instruction_plot import FIX as fix
            from roofline.render.report.instruction_plot import NOTHING as nothing
        names = ", ".join(str(a.report.path) for a in document.analyses) or "the reports"
        also = ", or leave out the plot" if name == "plot" else ", or plot --kind roofline"
        raise RooflineError(f"{target}: not written, nothing to plot: no kernel of {names} {nothing}", f"{fix}{also}")
    return drawn


# --- The report workflow of `report` and `analyze` ------------------------------------------------------
def report_files(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions, fmt: str = "table",
                 output: Path | None = None, plot: Path | None = None,
                 spread_threshold_pct: float = SPREAD_THRESHOLD_PCT, wide: bool = False,
                 jobs: int | None = 1) -> ReportDocument:
    """The facade's report of the files, written: the plot when asked, then the report in ``fmt`` (Markdown, with
    each report's plot as a PNG beside it, and HTML to a file, by default under reports/), with the kernels compared
    across several reports of one job. A bad report does not stop the others: they are written, then each bad
    one is named and the exit status is 2. Up to ``jobs`` reports are analysed at once (None: every core)."""
    plot_fmt = None
    if plot is not None:  # a bad plot suffix is refused before any report is read
        from roofline.render.mpl import plot_format

        plot_fmt = plot_format(plot)
    refuse_unwritable_outputs("report", fmt, output, plot, paths)
    roofline = facade(options, jobs)
    document = roofline.report(paths, spread_threshold_pct, terminal_width(wide), LEGEND_KERNELS)
    also = []
    if plot is not None and plot_fmt is not None:
        also.append((plot, report_plot(document, plot_fmt, plot)))
    write_document("report", fmt, document, output, paths, also)
    fail_for(roofline.left_out)
    return document
