"""`roofline diff BASE NEW`: a regression gate for CI, on by default. Exit 0 = no regression beyond the
thresholds, 1 = regression (the kernels and why are listed), 2 = a kernel of at least --min-share that cannot be
judged (no time on a side), a usage or input error, or reports from different GPUs or ncu versions (unless
--allow-different-gpu)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import handles_errors
from roofline.cli.options import (
    AlphaOpt,
    CeilingsOpt,
    DiffFormat,
    DiffOutputOpt,
    JobsOpt,
    KernelOpt,
    MapOpt,
    MatchOpt,
    NameBaseOpt,
    Number,
    SpecsOpt,
    StoreOpt,
    TimeoutOpt,
    WideOpt,
    WorkToleranceOpt,
    analysis_options,
)
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.thresholds import (
    ALPHA,
    MAX_ROOF_DROP_PTS,
    MAX_SLOWER_PCT,
    MIN_SHARE_PCT,
    SLOWER_PCT,
    TOTAL_SLOWER_PCT,
    WORK_TOLERANCE,
)

FACTS = Facts(output=Output("diff"), reads=Reads(sass=False))


@handles_errors
def diff(
    base: Annotated[Path, typer.Argument(help="Baseline report (.ncu-rep or .json model); with --store, a report "
                                         "of the store.")],
    new: Annotated[Path, typer.Argument(help="New report to judge against the baseline.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    match: MatchOpt = "name",
    maps: MapOpt = None,
    fail_if_slower: Annotated[float, typer.Option(
        "--fail-if-slower", metavar="PCT", click_type=Number(0.0, MAX_SLOWER_PCT),
        help="Regression if a kernel's time per launch grows by more than PCT percent (beyond the noise, where "
        f"it has several launches on each side); at most {MAX_SLOWER_PCT:g}.")] = SLOWER_PCT,
    min_share: Annotated[float, typer.Option(
        "--min-share", metavar="PCT", click_type=Number(0.0, 100.0),
        help="Gate only kernels holding at least PCT percent of BASE's or NEW's time.")] = MIN_SHARE_PCT,
    fail_if_total_slower: Annotated[float, typer.Option(
        "--fail-if-total-slower", metavar="PCT", click_type=Number(0.0, MAX_SLOWER_PCT),
        help="Regression if the gated kernels' BASE time at NEW's speed is more than PCT percent above it; at "
        f"most {MAX_SLOWER_PCT:g}.")]
    = TOTAL_SLOWER_PCT,
    fail_if_roof_drop: Annotated[float | None, typer.Option(
        "--fail-if-roof-drop", metavar="PCT", click_type=Number(0.0, MAX_ROOF_DROP_PTS),
        help="Regression if a kernel's percent of roof falls by more than PCT percentage points; at most "
        f"{MAX_ROOF_DROP_PTS:g}.")] = None,
    fail_if_new_share: Annotated[float | None, typer.Option(
        "--fail-if-new-share", metavar="PCT", click_type=Number(0.0, 100.0),
        help="Regression if the kernels only NEW runs (BASE has none to compare them with) take more than PCT "
        "percent of NEW's kernel time. Off by default.")] = None,
    alpha: AlphaOpt = ALPHA,
    work_tolerance: WorkToleranceOpt = 100.0 * WORK_TOLERANCE,
    allow_different_gpu: Annotated[bool, typer.Option(
        "--allow-different-gpu", help="Gate reports from different GPUs or ncu versions (refused by default).")]
    = False,
    gate_different_work: Annotated[bool, typer.Option(
        "--gate-different-work", help="Gate kernels whose work differs on their time per unit of work (left out "
        "of the gate by default).")] = False,
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="Output format: table, json or markdown.")]
    = "table",
    output: DiffOutputOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
    jobs: JobsOpt = None,
    store: StoreOpt = None,
) -> None:
    """Compare NEW with BASE kernel by kernel and fail (exit 1) on a regression beyond the thresholds, or (exit 2)
    where a kernel of at least --min-share has no time on a side."""
    from roofline.compare.pairing import pair_options, parse_matcher
    from roofline.compare.regression import Thresholds

    matcher = parse_matcher(match, maps or (), 2)
    options = pair_options(work_tolerance, alpha)
    if store is not None:
        from roofline.store.select import store_reports

        base, new = (Path(p) for p in store_reports(store, [base, new]))
    refuse_unwritable_outputs("diff", fmt, output, None, [base, new])
    roofline = facade(analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, diagnostics=False), jobs)
    thresholds = Thresholds(fail_if_slower, min_share, fail_if_total_slower, fail_if_roof_drop, gate_different_work,
                            fail_if_new_share)
    document = roofline.diff(base, new, thresholds, matcher, options, allow_different_gpu, terminal_width(wide))
    write_document("diff", fmt, document, output, [base, new])
    raise typer.Exit(document.result.exit_code)
