"""`roofline summary FILE...`: the whole-application view of large reports: launches grouped by kernel (or
NVTX range), ranked by the time they would save at their roof, top N with their share of the total."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import fail_for, handles_errors, warn
from roofline.cli.options import (
    CeilingsOpt,
    JobsOpt,
    KernelOpt,
    NameBaseOpt,
    PlotOpt,
    SpecsOpt,
    SummaryFormat,
    SummaryOutputOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    given_on_command_line,
)
from roofline.cli.plots import image
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.choices import GroupBy
from roofline.errors import NoKernelMatched, ReportError, RooflineError
from roofline.facade import Roofline
from roofline.render.base import PLOT, find_format, render_image
from roofline.render.names import visible

if TYPE_CHECKING:  # pragma: no cover
    from roofline.documents.kinds import SummaryDocument
    from roofline.render.mpl import PlotFormat

DEFAULT_TOP = 10


FACTS = Facts(output=Output("summary"), reads=Reads(sass=False))


@handles_errors
def summary(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models; or one store "
                                                "folder that `roofline collect` wrote.")],
    by: Annotated[GroupBy, typer.Option(
        "--by", help="Group launches by kernel (demangled name: template instances apart), by function name "
        "(instances pooled) or by innermost NVTX range (nvtx).")] = "kernel",
    top: Annotated[int, typer.Option(
        "--top", "-n", help="Show the N groups with the most time to gain.")] = DEFAULT_TOP,
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    fmt: Annotated[SummaryFormat, typer.Option("--format", "-f", help="Output format: table or json.")] = "table",
    output: SummaryOutputOpt = None,
    plot: PlotOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
    mpi: Annotated[bool, typer.Option(  # "\\[": the help's markup would take "[mpi]" for a style and drop it
        "--mpi", help="Under mpiexec: spread the files over the MPI ranks; rank 0 prints the ranking (needs "
        "mpi4py: pip install 'roofline\\[mpi]').")] = False,
    nsys: Annotated[Path | None, typer.Option(
        "--nsys", help="An Nsight Systems profile of the same application (.sqlite, .nsys-rep, .qdrep): weigh each "
        "kernel by its real GPU time and rank recoverable time in real seconds.")] = None,
) -> None:
    """Rank the kernels of whole applications by their time to gain: per launch, what its first estimated advice
    item could save on the time model (to the peaks it can reach, never below the changed kernel's floor), summed;
    the report's table and advice give the same figure: a launch whose advice has no estimated item adds nothing
    (how many such launches a kernel has, and their recoverable time, are given with it); a launch with neither
    advice nor a time model adds its recoverable time; a kernel without any estimated item is placed by its
    recoverable time. Beside it, recoverable time: the time above the launch's floor
    at the peaks it can reach (grade's most saved), or without a time model time x (1 - attained / 100), attained =
    the largest of percent of roof, the SM and memory throughputs and the busiest SM unit in whole blocks per SM, at
    most the time above the 1.5 us launch floor; small-grid launches are counted apart. A bad report does
    not stop the others (named at the end, exit 2); one without the --kernel kernels is noted (exit 0 while another
    has them)."""
    from roofline.compare.ranking import check_top
    from roofline.errors import UsageError
    from roofline.render.mpl import plot_format

    check_top(top)
    if len(files) == 1 and files[0].is_dir():
        ignored = {"--plot": plot is not None, "--mpi": mpi, "--nsys": nsys is not None, "--kernel": bool(kernel),
                   **{option: given_on_command_line(ctx, name) for name, (option, _, _) in STORE_FIXED.items()}}
        _from_store(files[0], by, top, fmt, output, wide, ignored)
        return
    _refuse_several_stores(files)
    if nsys is not None:
        for opt, on, why in (
                ("--plot", plot is not None, "the real-time view is written as a table or JSON, with no plot"),
                ("--mpi", mpi, "the real-time view reads its reports in one process (--jobs spreads them over the "
                 "cores), not over MPI ranks"),
                ("--by nvtx", by == "nvtx", "the real-time view groups the kernels by kernel instance or function "
                 "name (nsys's launches carry no NVTX range here)")):
            if on:
                raise UsageError(f"--nsys with {opt}: {why}", f"leave out {opt}")
        _real_time(files, nsys, by, fmt, output, top, wide,
                   facade(analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, sass=False), jobs))
        return
    if mpi and jobs is not None:
        raise UsageError("--mpi with --jobs: choose one", "under mpiexec each rank reads its files one at a "
                         "time; start more ranks instead")
    plot_fmt = plot_format(plot) if plot is not None else None
    refuse_unwritable_outputs("summary", fmt, output, plot, files)
    # advised (no SASS): the "to gain" column is what each launch's first advice item saves, as ``report`` shows it
    options = analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, sass=False)
    roofline = Roofline(options) if mpi else facade(options, jobs)  # under MPI, no progress bar
    document = roofline.summary(files, by, top, terminal_width(wide), mpi=mpi)
    if document is None:  # an MPI rank other than 0: rank 0 writes the output
        return
    warn(document.summaries)
    also, failed = [], []
    if plot is not None and plot_fmt is not None:
        try:
            also.append((plot, _plot(document, plot_fmt, plot)))
        except RooflineError as err:  # nothing to plot: the summary is still written, then the plot's line, exit 2
            failed.append(err)
    try:
        write_document("summary", fmt, document, output, files, also)
    except RooflineError as err:  # the summary cannot be written: its line after the bad reports', not instead
        failed.append(err)
    unmatched = [e for e in roofline.left_out if isinstance(e, NoKernelMatched)]
    for note in unmatched:  # a report without the --kernel kernels: a note, not a failure (one that matched ranks)
        typer.echo(f"roofline: note: {visible(str(note))}", err=True)
    fail_for([*(e for e in roofline.left_out if e not in unmatched), *failed])


def _plot(document: SummaryDocument, fmt: PlotFormat, target: Path) -> bytes:
    """The summary plot; a one-line error, and no file, where no group of any report has a bar or a point to draw
    (as ``report --plot`` refuses an empty plot)."""
    drawn = render_image("summary", document, fmt)
    if drawn is None:
        empty = find_format("summary", PLOT).empty
        assert empty is not None  # the summary plot registers its words
        nothing, fix = empty()
        names = ", ".join(s.report.path for s in document.summaries) or "the reports"
        raise RooflineError(f"{target}: not written, nothing to plot: no kernel group of {names} {nothing}",
                            f"{fix}, or leave out the plot")
    return image(drawn)


# Options a store cannot honour that have a default (their given value cannot be told from it): the fix for each.
AGAIN = "collect the store again with it (roofline collect -o STORE {} ...), or run summary on the report files"
STORE_FIXED = {
    "ceilings": ("--ceilings", "the store holds percent of roof at the ceilings it was collected with",
                 AGAIN.format("--ceilings")),
    "specs": ("--specs", "the store holds the analyses of the specs it was collected with", AGAIN.format("--specs")),
    "kernel_name_base": ("--kernel-name-base", "it chooses the names --kernel matches, and a store is ranked as "
                         "collected", "leave it out, or run summary on the report files"),
    "timeout": ("--timeout", "a store is ranked from its rows, no report is read",
                "leave it out (collect takes --timeout)"),
    "jobs": ("--jobs", "a store is ranked from its rows, no report is read", "leave it out"),
}


def _refuse_for_store(store: Path, given: dict[str, bool]) -> None:
    """UsageError naming the first option in ``given`` (option -> given on the command line) that ``summary STORE``
    would ignore, with its fix (``STORE_FIXED``; the others need the report files)."""
    from roofline.errors import UsageError

    fixes = {option: (why, fix) for option, why, fix in STORE_FIXED.values()}
    for option in (option for option, on in given.items() if on):
        why, fix = fixes.get(option, ("a store is ranked as collected", f"leave out {option}, or give the report "
                                      "files"))
        raise UsageError(f"{store}: {option} given with a store: {why}", fix.replace("STORE", str(store)))


def _refuse_several_stores(files: list[Path]) -> None:
    """UsageError for a store among several inputs: one store is read at a time."""
    from roofline.errors import UsageError
    from roofline.store.summary import is_store

    store = next((f for f in files if is_store(f)), None)
    if store is not None:
        raise UsageError(f"{store}: a store among {len(files)} inputs; summary reads one store at a time, or report "
                         "files", f"give one store (roofline summary {store}), or the report files alone")


def _from_store(store: Path, by: GroupBy, top: int, fmt: str, output: Path | None, wide: bool,
                given: dict[str, bool]) -> None:
    """`summary STORE`: the ranking from a store's rows (``roofline.store.summary``), its ``store_summary`` document
    as JSON or as the file summary's table (units, n/a), the names fitted to the terminal as the report tables are
    (whole in a file or with ``wide``). The options the store cannot honour are refused (``_refuse_for_store``)."""
    from roofline.cli.output import STDOUT, to_stdout, write_output
    from roofline.errors import UsageError
    from roofline.render.compare.table import store_summary_text
    from roofline.render.report.json import dumps
    from roofline.store.summary import is_store, summary_document

    if not is_store(store):
        raise UsageError(f"{store}: a folder, not a report file nor a store (no manifest.json)",
                         "give report files, or a store that roofline collect wrote")
    _refuse_for_store(store, given)
    width = terminal_width(wide) if output is None or str(output) == STDOUT else None
    doc = summary_document(store, by, top)
    if not doc.reports:
        raise nothing_in_store(store)
    text = dumps(doc) + "\n" if fmt == "json" else store_summary_text(doc, width)
    to_stdout(text) if output is None else write_output(output, text)


FAILED_SHOWN = 3  # failed files named in the line of a store with no analysed report; "and N more" past them


def nothing_in_store(store: Path) -> ReportError:
    """The one line of a store that holds no analysed report, as ``summary`` on report files that all fail ends
    (exit 2, nothing written): the files whose analysis failed (its ``errors`` view) and how to read why, or that
    nothing was collected into it."""
    from roofline.core.units import counted
    from roofline.store.query import query

    failed = [row["path"] for row in query(store, "SELECT DISTINCT path FROM errors ORDER BY path").to_pylist()]
    if not failed:
        return ReportError(f"{store}: nothing to summarise: the store holds no report",
                           f"collect reports into it (roofline collect -o {store} FILE...)")
    more = f" and {len(failed) - FAILED_SHOWN} more" if len(failed) > FAILED_SHOWN else ""
    names = ", ".join(visible(p) for p in failed[:FAILED_SHOWN]) + more
    see = f'roofline query {store} "SELECT path, error FROM errors"'
    return ReportError(f"{store}: nothing to summarise: no report of the store was analysed "
                       f"({counted(len(failed), 'file')} failed: {names})",
                       f"see why with {see}, fix them and collect them again (roofline collect -o {store} FILE...)")


def _real_time(files: list[Path], profile: Path, by: GroupBy, fmt: str, output: Path | None, top: int, wide: bool,
               roofline: Roofline) -> None:
    """`summary --nsys`: the reports' kernels weighted by the profile's real times (``compare.realtime``)."""
    refuse_unwritable_outputs("realtime", fmt, output, None, files)
    document = roofline.realtime(files, profile, by, top, terminal_width(wide))
    write_document("realtime", fmt, document, output, files)
    fail_for(roofline.left_out)
