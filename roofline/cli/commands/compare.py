"""`roofline compare A B [...]`: pair kernels across reports (GPU generations, before/after), compare their work
first, then their times (same work) or throughputs (different work) with noise intervals and the speedup the roofs
expect where a roof governs, and optionally project them onto another GPU's datasheet roofs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import fail_for, handles_errors
from roofline.cli.options import (
    AlphaOpt,
    CeilingsOpt,
    ClockOpt,
    CompareFormat,
    CompareOutputOpt,
    JobsOpt,
    KernelOpt,
    MapOpt,
    MatchOpt,
    NameBaseOpt,
    PlotOpt,
    SpecsOpt,
    StoreOpt,
    TimeoutOpt,
    WideOpt,
    WorkToleranceOpt,
    analysis_options,
    given_on_command_line,
)
from roofline.cli.plots import image
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.thresholds import ALPHA, WORK_TOLERANCE
from roofline.render.base import render_image

FACTS = Facts(output=Output("compare"), reads=Reads(sass=False))
PROJECTION_FORMATS_NOT = ("markdown", "html")  # compare's formats without the projection table


@handles_errors
def compare(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(help="Two or more reports (.ncu-rep or .json models), base first; "
                                                "with --store, reports of the store.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    match: MatchOpt = "name",
    maps: MapOpt = None,
    project_to: Annotated[str | None, typer.Option(
        "--project-to", help="Device spec id: also project each kernel's time onto that GPU (at --clock).")] = None,
    fmt: Annotated[CompareFormat, typer.Option(
        "--format", "-f",
        help="Output format: table, json, markdown (with the plot as a PNG beside it) or html (the plot inline).")]
    = "table",
    output: CompareOutputOpt = None,
    plot: PlotOpt = None,
    normalize: Annotated[bool, typer.Option(
        "--normalize", help="Plot percent of each report's own roof instead of FLOP/s.")] = False,
    alpha: AlphaOpt = ALPHA,
    work_tolerance: WorkToleranceOpt = 100.0 * WORK_TOLERANCE,
    ceilings: CeilingsOpt = "kernel-clock",
    clock: ClockOpt = "sustained",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
    store: StoreOpt = None,
) -> None:
    """Compare kernels across reports: work first, then times (same work) or throughputs (different work) with
    noise intervals, percent of each GPU's own roof, and the speedup the roofs expect where a roof governs. Every
    report is needed: the first bad one ends the command."""
    from roofline.compare.pairing import pair_options, parse_matcher
    from roofline.errors import RooflineError
    from roofline.facade import require_two
    from roofline.render.mpl import plot_format

    require_two(files, project_to)
    _refuse_unread(project_to, clock, given_on_command_line(ctx, "clock"), normalize, plot, fmt)
    if store is not None:
        from roofline.store.select import store_reports

        files = [Path(p) for p in store_reports(store, files)]
    matcher = parse_matcher(match, maps or (), len(files))
    judged = pair_options(work_tolerance, alpha, clock)
    roofline = facade(analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, diagnostics=False), jobs)
    if project_to:
        from roofline.errors import UsageError

        if project_to.strip().casefold() == "all" or "," in project_to:
            raise UsageError(f"--project-to {project_to}: compare projects onto one GPU",
                             f"name one spec id, or run roofline project {files[0]} --to {project_to} for the "
                             "workload's total on several")
        roofline.target(project_to, clock)  # an unknown target is refused before any report is read
    plot_fmt = plot_format(plot) if plot is not None else None
    refuse_unwritable_outputs("compare", fmt, output, plot, files)
    document = roofline.compare(files, matcher, project_to, judged, terminal_width(wide), normalize)
    also, failed = [], []
    if plot is not None:
        from roofline.compare.plottable import Plottable
        from roofline.render.compare.plot import nothing_to_compare

        c = document.comparison
        if c.plottable is not Plottable.PLOTTABLE:  # the comparison is still written, then the plot's line, exit 2
            failed.append(RooflineError(f"{plot}: not written, nothing to plot: {nothing_to_compare(c)}", "pair "
                                        "kernels with --match order|regex:PATTERN or --map BASE=NEW, or leave out "
                                        "--plot"))
        elif plot_fmt is not None:
            also.append((plot, image(render_image("compare", document, plot_fmt))))
    write_document("compare", fmt, document, output, files, also)
    fail_for(failed)


def _refuse_unread(project_to: str | None, clock: str, clock_given: bool, normalize: bool, plot: Path | None,
                   fmt: str) -> None:
    """Refuse an option this run would not read, as ``analyze`` does: --clock without --project-to, --project-to
    with a format that does not show it, --normalize where nothing is drawn (no --plot, a format without the plot)."""
    from roofline.errors import UsageError
    from roofline.render.base import find_format

    if project_to is None and (clock != "sustained" or clock_given):
        raise UsageError("--clock: it sets the target GPU's clock of a projection, and there is none",
                         "add --project-to ID, or leave out --clock")
    if project_to is not None and fmt in PROJECTION_FORMATS_NOT:
        raise UsageError(f"--project-to: --format {fmt} does not show the projection",
                         "use --format table or json, or roofline project REPORT --to ID -f " + fmt)
    if normalize and plot is None and not find_format("compare", fmt).draws:
        raise UsageError(f"--normalize: it scales the plot, and --format {fmt} draws none",
                         "add --plot FILE, use --format markdown or html, or leave out --normalize")
