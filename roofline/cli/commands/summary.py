"""`roofline summary FILE...`: the whole-application view of large reports: launches grouped by kernel (or
NVTX range), ranked by the time they would save at their roof, top N with their share of the total."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
)
from roofline.cli.plots import image
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.choices import GroupBy
from roofline.facade import Roofline
from roofline.render.base import render_image

DEFAULT_TOP = 10


FACTS = Facts(output=Output("summary"), reads=Reads(sass=False))


@handles_errors
def summary(
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
    """Rank the kernels of whole applications by their time to gain: per launch, what its first advice item could
    save on the time model (to the peaks it can reach, never below the changed kernel's floor), summed; the
    report's table and advice give the same figure. Beside it, recoverable time: time x (1 - attained / 100),
    attained = the largest of percent of roof, the SM and memory throughputs and the busiest SM unit in whole blocks
    per SM, at most the time above the 1.5 us launch floor; small-grid launches are counted apart. A bad report does
    not stop the others (named at the end, exit 2)."""
    from roofline.compare.ranking import check_top
    from roofline.errors import UsageError
    from roofline.render.mpl import plot_format

    check_top(top)
    if len(files) == 1 and files[0].is_dir():
        _from_store(files[0], by, top, fmt, output, plot is not None or mpi or nsys is not None or bool(kernel))
        return
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
                   facade(analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, diagnostics=False),
                          jobs))
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
    also = []
    if plot is not None and plot_fmt is not None:
        also.append((plot, image(render_image("summary", document, plot_fmt))))
    write_document("summary", fmt, document, output, files, also)
    fail_for(roofline.left_out)


def _from_store(store: Path, by: GroupBy, top: int, fmt: str, output: Path | None, other: bool) -> None:
    """`summary STORE`: the ranking from a store's rows (``roofline.store.summary``), as a table or JSON."""
    from roofline.cli.output import to_stdout, write_output
    from roofline.errors import UsageError
    from roofline.store.summary import is_store, summary_text

    if not is_store(store):
        raise UsageError(f"{store}: a folder, not a report file nor a store (no manifest.json)",
                         "give report files, or a store that roofline collect wrote")
    if other:
        raise UsageError("summary STORE with --plot, --mpi, --nsys or --kernel: a store is ranked as collected",
                         "leave them out, or give the report files")
    text = summary_text(store, by, top, "json" if fmt == "json" else "table")
    to_stdout(text) if output is None else write_output(output, text)


def _real_time(files: list[Path], profile: Path, by: GroupBy, fmt: str, output: Path | None, top: int, wide: bool,
               roofline: Roofline) -> None:
    """`summary --nsys`: the reports' kernels weighted by the profile's real times (``compare.realtime``)."""
    refuse_unwritable_outputs("realtime", fmt, output, None, files)
    document = roofline.realtime(files, profile, by, top, terminal_width(wide))
    write_document("realtime", fmt, document, output, files)
    fail_for(roofline.left_out)
