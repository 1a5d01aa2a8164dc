"""`roofline report FILE...`: analyse existing reports offline (no GPU, no ncu needed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Sequence

import typer

from roofline.commands._common import emit, handles_errors, write_output
from roofline.commands._options import (CeilingsOpt, FormatOpt, KernelOpt, OutputOpt, PlotOpt, ReportOptions,
                                        SpecsOpt)

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis import KernelSpread, ReportAnalysis
    from roofline.model import Report
    from roofline.specs import SpecCatalog

FORMATS = ("table", "json", "markdown", "html")
FILE_FORMATS = {"markdown": ".md", "html": ".html"}  # written to a file, by default reports/<name><suffix>
CEILING_CHOICES = ("auto", "spec", "report")


@handles_errors
def report(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    kernel: KernelOpt = None,
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    plot: PlotOpt = None,
    spread_threshold: Annotated[float, typer.Option(
        "--spread-threshold", help="With several reports (e.g. MPI ranks): flag kernels whose total time "
        "differs across them by more than this percent.")] = 10.0,
) -> None:
    """Analyse existing Nsight Compute reports: roofline position of every kernel launch."""
    run_report(files, ReportOptions(kernel=kernel, fmt=fmt, output=output, ceilings=ceilings,
                                    specs=tuple(specs or ()), plot=plot, spread_threshold_pct=spread_threshold))


def run_report(paths: Sequence[str | Path], options: ReportOptions) -> None:
    """Load, filter, analyse and render reports; raises RooflineError subclasses on bad input."""
    from roofline.errors import RooflineError

    if options.fmt not in FORMATS:
        raise RooflineError(f"unknown format '{options.fmt}'", f"use one of: {', '.join(FORMATS)}")
    if options.ceilings not in CEILING_CHOICES:
        raise RooflineError(f"unknown ceilings '{options.ceilings}'", f"use one of: {', '.join(CEILING_CHOICES)}")
    from roofline.analysis import spread_across_reports

    from roofline.commands import plot

    if options.plot is not None:
        plot.check_plot_path(options.plot)
    from roofline.specs import load_catalog

    catalog = load_catalog(options.specs)
    analyses = [analyze_file(Path(p), options, catalog) for p in paths]
    if options.plot is not None:
        plot.write_plot(analyses, options.plot)
    spreads = spread_across_reports(analyses, options.spread_threshold_pct) if len(analyses) > 1 else ()
    if options.fmt in FILE_FORMATS:
        target = options.output or plot.default_output(paths, FILE_FORMATS[options.fmt])
        write_output(target, _render(analyses, options.fmt, spreads))
        return
    emit(_render(analyses, options.fmt, spreads), options.output)


def analyze_file(path: Path, options: ReportOptions, catalog: "SpecCatalog | None" = None) -> "ReportAnalysis":
    """Load one report, keep the launches the kernel filter selects, and analyse them."""
    from roofline.analysis import analyze_report
    from roofline.reader import load_report
    from roofline.specs import load_catalog

    rep = filter_kernels(load_report(path), options.kernel)
    match = (catalog or load_catalog(options.specs)).match(rep.device)
    if options.ceilings == "spec" and match is None:
        from roofline.errors import SpecError

        raise SpecError(f"{path}: no device spec matches '{rep.device.name}' (CC {rep.device.compute_capability})",
                        "add a YAML with --specs (see device_specs/README.md) or use --ceilings report")
    use = None if options.ceilings == "auto" else options.ceilings
    return analyze_report(rep, match.spec if match else None, match.how if match else "", use)


def filter_kernels(rep: "Report", pattern: str | None) -> "Report":
    """Keep launches whose function or demangled name equals ``pattern``, or matches ``regex:...``."""
    from dataclasses import replace

    from roofline.errors import NoKernelMatched

    if not pattern:
        return rep
    if pattern.startswith("regex:"):
        rx = _compile(pattern.removeprefix("regex:"))
        keep = [k for k in rep.launches if rx.search(k.name) or rx.search(k.demangled_name)]
    else:
        keep = [k for k in rep.launches if pattern in (k.name, k.demangled_name)]
    if not keep:
        names = ", ".join(sorted({k.name for k in rep.launches})[:8])
        raise NoKernelMatched(f"{rep.path}: no kernel matches '{pattern}'",
                              f"kernels in this report: {names}; use an exact name or regex:PATTERN")
    return replace(rep, launches=tuple(keep))


def _compile(expr: str) -> re.Pattern[str]:
    from roofline.errors import RooflineError

    try:
        return re.compile(expr)
    except re.error as err:
        raise RooflineError(f"invalid kernel regex '{expr}' ({err})", "fix the pattern after regex:") from None


def _render(analyses: Sequence["ReportAnalysis"], fmt: str, spreads: Sequence["KernelSpread"] = ()) -> str:
    if fmt == "json":
        from roofline.render import json as json_render

        return json_render.render(analyses, spreads)
    if fmt in FILE_FORMATS:
        from roofline.render import html, markdown

        return (markdown if fmt == "markdown" else html).render(analyses)
    from roofline.render import table

    return table.render(analyses, width=_terminal_width(), spreads=spreads)


def _terminal_width() -> int:
    import shutil

    return max(80, min(shutil.get_terminal_size((80, 24)).columns, 160))
