"""`roofline timeline FILE...`: the whole application as Nsight Systems saw it: kernels ranked by total GPU time,
the GPUs' busy and idle time, NVTX ranges; several files side by side as MPI ranks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.facts import Facts, Output
from roofline.cli.failures import fail_for, handles_errors
from roofline.cli.options import SpecsOpt, TimelineFormat, TimelineOutputOpt, TimelinePlotOpt, WideOpt, work_options
from roofline.cli.plots import image
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.choices import KernelGroupBy
from roofline.render.base import render_image

DEFAULT_TOP = 20
NsysOpt = Annotated[str | None, typer.Option(
    "--nsys", help="The nsys that exports .nsys-rep/.qdrep files to SQLite (else $ROOFLINE_NSYS, PATH, then the "
    "usual install places); not needed for .sqlite files.")]
NvtxFilterOpt = Annotated[str | None, typer.Option(
    "--nvtx", help="Keep only the kernels launched inside NVTX ranges of this name (needs the CUDA API and NVTX "
    "traces).")]


FACTS = Facts(output=Output("timeline"))


@handles_errors
def timeline(
    files: Annotated[list[Path], typer.Argument(
        help="nsys SQLite exports (.sqlite), or reports (.nsys-rep, .qdrep) exported with nsys; several files are "
        "the ranks of one job, each known by the launcher's rank variable the profile records, else by the number "
        "in its file name (report.%q{OMPI_COMM_WORLD_RANK}).")],
    nvtx: NvtxFilterOpt = None,
    top: Annotated[int, typer.Option("--top", "-n", min=0, help="Kernels shown per file in the table, Markdown, "
                                     "HTML and the plot (0: all, the plot its 15 longest; JSON and CSV hold "
                                     "all).")] = DEFAULT_TOP,
    fmt: Annotated[TimelineFormat, typer.Option("--format", "-f", help="Output format: table, json, csv, markdown "
                                                "or html.")] = "table",
    output: TimelineOutputOpt = None,
    plot: TimelinePlotOpt = None,
    nsys: NsysOpt = None,
    group_by: Annotated[KernelGroupBy, typer.Option(
        "--group-by", help="kernel: template instances apart (demangled name with its template arguments, as "
        "`report` groups); function: pooled by short name.")] = "kernel",
    work: Annotated[list[Path] | None, typer.Option(
        "--work", help="ncu reports of the same kernels made where counters were allowed (repeatable): place each "
        "kernel on this GPU's roofline with the reports' FLOPs and bytes and nsys's time (one nsys file).")] = None,
    specs: SpecsOpt = None,
    wide: WideOpt = False,
) -> None:
    """Rank the kernels of whole applications by total GPU time from Nsight Systems profiles. Per kernel: count,
    total, median, min-max and share of the GPUs' busy time; per GPU its idle share; the NVTX ranges; for several
    files (MPI ranks) the per-rank totals in rank order, and the ranks the others wait on."""
    from roofline.render.mpl import plot_format

    if specs and not work:  # an option this run would not read is refused, as analyze and compare refuse theirs
        from roofline.errors import UsageError

        raise UsageError("--specs: it places --work's kernels, and there is none",
                         "add --work X.ncu-rep, or leave out --specs")
    plot_fmt = plot_format(plot) if plot is not None else None
    refuse_unwritable_outputs("timeline", fmt, output, plot, files)
    if work:
        from roofline.errors import UsageError

        if len(files) != 1 or nvtx is not None:
            raise UsageError("--work with several nsys files or --nvtx: the work is placed on one profile's kernels",
                             "give one nsys file, leave out --nvtx, and repeat --work before each ncu report")
    document = facade(work_options(specs)).timeline(files, nvtx, nsys, group_by, work or (), terminal_width(wide), top)
    also = []
    if plot is not None and plot_fmt is not None:
        also.append((plot, image(render_image("timeline", document, plot_fmt))))
    write_document("timeline", fmt, document, output, files, also)
    borrowed = document.timelines.work
    if work and borrowed is not None and not borrowed.kernels:  # the timeline is written, then the line, exit 2
        from roofline.errors import RooflineError

        fail_for([RooflineError(
            f"--work {', '.join(map(str, work))}: no kernel of the reports launched as in {files[0]} (instance, grid "
            "and block)", "profile with ncu the same build and problem size as the nsys run, or compare the "
            "reports' kernels by name with roofline compare")])

