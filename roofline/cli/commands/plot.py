"""`roofline plot FILE...`: draw the hierarchical roofline of existing reports (PNG, SVG or PDF)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from roofline.cli.facts import Facts, Reads
from roofline.cli.failures import fail_for, handles_errors
from roofline.cli.options import CeilingsOpt, KernelOpt, NameBaseOpt, SpecsOpt, TimeoutOpt, analysis_options
from roofline.cli.output import write_output
from roofline.cli.plots import report_plot
from roofline.cli.workflow import facade
from roofline.cli.writing import default_output
from roofline.core.choices import OUTPUT_OPTION
from roofline.core.labels import LEGEND_KERNELS
from roofline.render.base import INSTRUCTION_PLOT, MEMORY_PLOT, OCCUPANCY_PLOT, PLOT

FACTS = Facts(reads=Reads(sass=False))

PlotOutputOpt = Annotated[
    Path | None,
    typer.Option(*OUTPUT_OPTION, help="Plot file (.png, .svg or .pdf); default reports/<report name>.png."),
]
PlotKind = Literal["roofline", "instruction", "memory", "occupancy"]
KindOpt = Annotated[PlotKind, typer.Option("--kind", help="roofline: FLOP/s against FLOP/byte (the hierarchical "
                                                          "roofline); instruction: the Instruction Roofline Model, "
                                                          "its memory walls and the integer roofline; memory: "
                                                          "ncu's memory chart, hit rates and traffic between units; "
                                                          "occupancy: ncu's occupancy calculator, theoretical "
                                                          "occupancy against block size, registers and shared "
                                                          "memory, the launch marked.")]
IMAGES: dict[PlotKind, str] = {"roofline": PLOT, "instruction": INSTRUCTION_PLOT, "memory": MEMORY_PLOT,
                                "occupancy": OCCUPANCY_PLOT}
TopOpt = Annotated[int, typer.Option("--top", min=1, help="Kernels named in the legend, longest first; the rest "
                                                          "are drawn in grey as 'other'.")]


@handles_errors
def plot(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    output: PlotOutputOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    top: TopOpt = LEGEND_KERNELS,
    kind: KindOpt = "roofline",
    timeout: TimeoutOpt = None,
) -> None:
    """Draw the hierarchical roofline of existing reports: one panel per report, kernels at every memory level.
    A bad report does not stop the others (named at the end, exit 2)."""
    from roofline.errors import RooflineError
    from roofline.render.mpl import plot_format

    target = output or default_output(files, ".png")
    fmt = plot_format(target)
    # The instruction roofline and the memory picture come with the diagnostics of each kernel's longest launch;
    # no plot shows the hot spots' SASS
    options = analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, diagnostics=kind != "roofline",
                               sass=False)
    roofline = facade(options)
    document = roofline.report(files, spread_threshold_pct=None, top=top)
    try:
        write_output(target, report_plot(document, fmt, target, IMAGES[kind]))
    except RooflineError as err:  # nothing to plot, or the file cannot be written: the bad reports are named too
        fail_for([*roofline.left_out, err])
    fail_for(roofline.left_out)
