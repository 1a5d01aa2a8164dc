"""The options several commands take, declared once: their flags, help and checks (``Number``, the one check of
every numeric option), the --format choices of each kind of document, and the analysis options they make."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

import typer
from typer import _click as click
from typer._click.types import ParamType

from roofline.core.choices import OUTPUT_OPTION, GroupBy, NameBase, TargetClock
from roofline.core.kernel_filter import LANGUAGE, NAME_BASE_HELP
from roofline.core.model import CeilingSet
from roofline.core.thresholds import MAX_ALPHA, MAX_WORK_TOLERANCE_PCT, READ_LIMIT_BASE_S, READ_LIMIT_S_PER_MIB
from roofline.pipeline import AnalysisOptions
from roofline.render.base import (
    Kind,
    extension,
    find_format,
    format_names,
)

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
MAX_TIMEOUT_S = 1e6  # --timeout: 11 days; far beyond it, the deadline overflows the system's clock


class Number(ParamType):
    """The one check of every numeric option: a finite number (nan and inf pass comparisons such as ``x >= 0``,
    which would switch a gate off, and cannot be written as JSON) from ``low`` to ``high`` (``above``: ``low``
    itself excluded; ``below``: ``high`` itself excluded). A value outside is a usage error naming the option and
    the bound it passes (exit 2)."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None, above: bool = False,
                 below: bool = False) -> None:
        self.low, self.high, self.above, self.below = low, high, above, below

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(value)  # type: ignore[arg-type]  # a str from the command line, or the default
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.low is not None and (number < self.low or (self.above and number == self.low)):
            self.fail(f"{number:g} is not {'above' if self.above else 'at least'} {self.low:g}", param, ctx)
        if self.high is not None and (number > self.high or (self.below and number == self.high)):
            self.fail(f"{number:g} is {'not below' if self.below else 'above'} {self.high:g}", param, ctx)
        return number


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
StoreOpt = Annotated[
    Path | None,
    typer.Option("--store", help="A store that `roofline collect` wrote: the reports are named inside it (their "
                 "path as collected, its file name or their report id) and read again from their files."),
]
WorkToleranceOpt = Annotated[
    float, typer.Option("--work-tolerance", metavar="PCT",
                        click_type=Number(0.0, MAX_WORK_TOLERANCE_PCT, below=True),
                        help="Pairs whose FLOPs (or, without FLOPs, threads launched) differ by more than PCT percent "
                        f"are different work: compared by throughput, not by time (below {MAX_WORK_TOLERANCE_PCT:g}).")]
ClockOpt = Annotated[
    TargetClock, typer.Option(
        "--clock", help="The target GPU's clock a projection assumes: sustained (the clock it holds under load, its "
                        "spec's sustained_clock_hz, else the clock its board_power_w allows, else boost), boost (its "
                        "spec's boost clock) or base (the SM clock ncu locks while profiling, its default "
                        "--clock-control base: the time ncu would measure there; the spec's base_clock_hz).")]
AlphaOpt = Annotated[
    float, typer.Option("--alpha", click_type=Number(0.0, MAX_ALPHA, above=True, below=True),
                        help="Significance level of the noise statistics over repeated launches (Mann-Whitney U; "
                        f"intervals are 1 - 2 alpha); above 0 and below {MAX_ALPHA:g}.")]
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


def given_on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the option whose parameter is ``name`` was given on the command line of ``ctx`` (its default is
    not)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


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
