"""`roofline compare A B [...]`: pair kernels across reports (GPU generations, before/after) with measured and
ceiling-expected speedups, and optionally project them onto another GPU's datasheet roofs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, Sequence

import typer

from roofline.commands._common import emit, handles_errors
from roofline.commands._options import CeilingsOpt, KernelOpt, OutputOpt, PlotOpt, ReportOptions, SpecsOpt

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis import ReportAnalysis
    from roofline.compare import Comparison

FORMATS = ("table", "json")

MatchOpt = Annotated[
    str,
    typer.Option("--match", "-m", help="Pair kernels by: name (function name), demangled, order (n-th distinct "
                 "kernel), or regex:PATTERN (key = first capture group, else the whole match)."),
]
MapOpt = Annotated[
    Optional[list[str]],
    typer.Option("--map", help="Pair explicitly: A=B, one full-match regex per report in report order "
                 "(repeatable; applied before --match)."),
]
CompareFormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: table or json.")]


@dataclass(frozen=True)
class CompareOptions:
    """Everything `roofline compare` needs besides the report paths."""

    report: ReportOptions = field(default_factory=ReportOptions)
    match: str = "name"
    maps: tuple[str, ...] = ()
    project_to: str | None = None
    normalize: bool = False


@handles_errors
def compare(
    files: Annotated[list[Path], typer.Argument(help="Two or more reports (.ncu-rep or .json models), base first.")],
    kernel: KernelOpt = None,
    match: MatchOpt = "name",
    maps: MapOpt = None,
    project_to: Annotated[Optional[str], typer.Option(
        "--project-to", help="Device spec id: also give each kernel's roofline lower-bound time on that GPU.")] = None,
    fmt: CompareFormatOpt = "table",
    output: OutputOpt = None,
    plot: PlotOpt = None,
    normalize: Annotated[bool, typer.Option(
        "--normalize", help="Plot percent of each report's own roof instead of FLOP/s.")] = False,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
) -> None:
    """Compare kernels across reports: times, speedups, percent of each GPU's own roof, expected speedup."""
    options = ReportOptions(kernel=kernel, fmt=fmt, output=output, ceilings=ceilings, specs=tuple(specs or ()),
                            plot=plot)
    run_compare(files, CompareOptions(options, match, tuple(maps or ()), project_to, normalize))


def run_compare(paths: Sequence[str | Path], options: CompareOptions) -> "Comparison":
    """Load, pair, render and optionally plot; raises RooflineError subclasses on bad input."""
    from roofline.compare import compare as compare_reports
    from roofline.compare import parse_matcher
    from roofline.errors import RooflineError

    check_format(options.report.fmt, FORMATS)
    if len(paths) < 2 and not options.project_to:
        raise RooflineError("compare needs two or more reports", "pass A B [...], or one report with --project-to ID")
    matcher = parse_matcher(options.match, options.maps, len(paths))
    target = _target(options.project_to, options.report.specs)
    comparison = compare_reports(load_analyses(paths, options.report), matcher, target)
    emit(_render(comparison, options.report.fmt), options.report.output)
    if options.report.plot is not None:
        from roofline.render.compare_plot import plot_comparison

        plot_comparison(comparison, options.report.plot, options.normalize)
        typer.echo(f"wrote {options.report.plot}", err=True)
    return comparison


def check_format(fmt: str, formats: Sequence[str]) -> None:
    """RooflineError for an output format the command does not write."""
    from roofline.errors import RooflineError

    if fmt not in formats:
        raise RooflineError(f"unknown format '{fmt}'", f"use one of: {', '.join(formats)}")


def load_analyses(paths: Sequence[str | Path], options: ReportOptions) -> list["ReportAnalysis"]:
    """Check the shared options (ceilings, plot name), then analyse each report as `roofline report` does."""
    from roofline.commands.report import CEILING_CHOICES, analyze_file
    from roofline.errors import RooflineError

    if options.ceilings not in CEILING_CHOICES:
        raise RooflineError(f"unknown ceilings '{options.ceilings}'", f"use one of: {', '.join(CEILING_CHOICES)}")
    if options.plot is not None:
        from roofline.render.compare_plot import check_plot_path

        check_plot_path(options.plot)
    analysed: dict[Path, "ReportAnalysis"] = {}  # a file named twice (before/after in one report) is read once
    for p in paths:
        if Path(p).resolve() not in analysed:
            analysed[Path(p).resolve()] = analyze_file(Path(p), options)
    return [analysed[Path(p).resolve()] for p in paths]


def _target(spec_id: str | None, specs: Sequence[Path]):  # noqa: ANN202 (DeviceSpec, imported lazily)
    if spec_id is None:
        return None
    from roofline.specs import load_catalog

    return load_catalog(specs).get(spec_id)


def _render(c: "Comparison", fmt: str) -> str:
    if fmt == "json":
        from roofline.render.compare_json import comparison_document
        from roofline.render.json import dumps

        return dumps(comparison_document(c))
    from roofline.commands.report import _terminal_width
    from roofline.render.compare_table import render_comparison

    return render_comparison(c, width=_terminal_width())
