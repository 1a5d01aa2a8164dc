"""`roofline diff BASE NEW`: a regression gate for CI. Exit 0 = no regression beyond the thresholds,
1 = regression (the kernels and why are listed), 2 = usage or input error."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from roofline.commands.common import (
    CeilingsOpt,
    JobsOpt,
    KernelOpt,
    MapOpt,
    MatchOpt,
    NameBaseOpt,
    OutputOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    emit,
    handles_errors,
    jobs_or_cores,
    progress,
    terminal_width,
    warn,
)

DiffFormat = Literal["table", "json", "markdown"]


@handles_errors
def diff(
    base: Annotated[Path, typer.Argument(help="Baseline report (.ncu-rep or .json model).")],
    new: Annotated[Path, typer.Argument(help="New report to judge against the baseline.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    match: MatchOpt = "name",
    maps: MapOpt = None,
    fail_if_slower: Annotated[float | None, typer.Option(
        "--fail-if-slower", metavar="PCT", min=0.0,
        help="Regression if a kernel's time per launch grows by more than PCT percent.")] = None,
    fail_if_roof_drop: Annotated[float | None, typer.Option(
        "--fail-if-roof-drop", metavar="PCT", min=0.0,
        help="Regression if a kernel's percent of roof falls by more than PCT percentage points.")] = None,
    fmt: Annotated[DiffFormat, typer.Option(
        "--format", "-f", help="Output format: table, json or markdown.")] = "table",
    output: OutputOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
) -> None:
    """Compare NEW with BASE kernel by kernel and fail (exit 1) on a regression beyond the thresholds."""
    from roofline.pairing import pair_reports, parse_matcher
    from roofline.pipeline import analyze_files
    from roofline.regression import Thresholds, judge

    matcher = parse_matcher(match, maps or (), 2)
    jobs = jobs_or_cores(jobs)
    with progress([base, new], jobs) as done:
        analyses = analyze_files([base, new], analysis_options(kernel, kernel_name_base, ceilings, specs, timeout),
                                 jobs=jobs, done=done)
    warn(analyses)
    result = judge(pair_reports(analyses, matcher), Thresholds(fail_if_slower, fail_if_roof_drop))
    if fmt == "json":
        from roofline.render.compare_json import diff_json

        emit(diff_json(result), output)
    elif fmt == "markdown":
        from roofline.render.compare_markdown import diff_markdown

        emit(diff_markdown(result), output)
    else:
        from roofline.render.compare_table import diff_text

        emit(diff_text(result, width=terminal_width(wide)), output)
    raise typer.Exit(result.exit_code)
