"""`roofline report FILE...`: analyse existing reports offline (no GPU, no ncu needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import handles_errors
from roofline.cli.options import (
    REPORT_FORMAT_HELP,
    CeilingsOpt,
    JobsOpt,
    KernelOpt,
    NameBaseOpt,
    Number,
    PlotOpt,
    ReportFormat,
    ReportOutputOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
)
from roofline.cli.workflow import report_files
from roofline.core.choices import GroupBy
from roofline.core.thresholds import SPREAD_THRESHOLD_PCT

FACTS = Facts(output=Output("report"), reads=Reads(sass=True))


@handles_errors
def report(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    group_by: Annotated[GroupBy, typer.Option(
        "--group-by", help="What a kernel is in groups, rankings and advice: kernel (the demangled name, so two "
        "template instances are two kernels), function (instances of one function pooled) or nvtx (innermost "
        "NVTX range).")] = "kernel",
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help=REPORT_FORMAT_HELP)] = "table",
    output: ReportOutputOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    plot: PlotOpt = None,
    spread_threshold: Annotated[float, typer.Option(
        "--spread-threshold", click_type=Number(0.0), help="With several reports (e.g. MPI ranks): flag "
        "kernels whose total time differs across them by more than this percent (a kernel missing from a report "
        "is flagged too).")] = SPREAD_THRESHOLD_PCT,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
) -> None:
    """Analyse existing Nsight Compute reports: roofline position of every kernel launch. With several reports, a
    bad one does not stop the others: they are analysed and written, the bad ones are named at the end, one line
    each, and the exit status is 2."""
    report_files(files, analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, group_by=group_by), fmt,
                 output, plot,
                 spread_threshold, wide, jobs)
