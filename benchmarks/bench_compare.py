"""Time `compare`, `diff` and the whole-application view (`summary`) on the largest real reports and on a
synthetic model of 10,000 launches (target: under 10 s in all on a 2-core machine). Every kernel of the synthetic
model has several launches on each side, so `compare` computes each one's noise interval and `diff` runs its
Mann-Whitney U test (scipy's import is part of the first step that needs it).

Run: python benchmarks/bench_compare.py [--launches N] [--profile]. The synthetic model is built from the
project's own model types with plausible A100-like metric values; it is a benchmark input, not a measurement.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from roofline.compare.pairing import Matcher, pair_reports
from roofline.compare.ranking import summarize
from roofline.compare.regression import Thresholds, judge
from roofline.core.model import Device, KernelLaunch, Report
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.render.compare.json import comparison_json, diff_json, summary_json
from roofline.render.compare.table import comparison_text, diff_text, summary_text

REPORTS = Path(__file__).resolve().parents[1].parent / "shared" / "ncu-reps"
LARGEST = ("a100-40gb_selfjoin-cub-sort-154launches_basic.ncu-rep", "rtx2070super_alife-143launches_basic.ncu-rep",
           "a10_linear-fp16-105launches_basic.ncu-rep", "rtx3060-laptop_reductions_full.ncu-rep")
TARGET_S = 10.0
KERNELS = 60  # distinct kernel names in the synthetic application
T = TypeVar("T")
AS_COMPARED = AnalysisOptions(diagnostics=False)  # as summary, compare and diff analyse: no per-launch diagnostics

# A100-like peaks per cycle and clocks (ncu's own metric names and units)
PEAKS = {
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6912.0,  # 108 SMs x 64 lanes
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained": 3456.0,
    "dram__bytes.sum.peak_sustained": 1280.0,
    "lts__t_bytes.sum.peak_sustained": 5120.0,
    "l1tex__t_bytes.sum.peak_sustained": 13824.0,
}
CLOCKS = {"sm__cycles_elapsed.avg.per_second": 1.41e9, "smsp__cycles_elapsed.avg.per_second": 1.41e9,
          "dram__cycles_elapsed.avg.per_second": 1.215e9, "lts__cycles_elapsed.avg.per_second": 1.41e9,
          "l1tex__cycles_elapsed.avg.per_second": 1.41e9}


def synthetic_report(launches: int, seed: int = 1, slowdown: float = 1.0) -> Report:
    """An application of ``launches`` launches over KERNELS kernels (a few hot ones), in NVTX phases."""
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) for k in range(KERNELS)]
    kernels = rng.choices(range(KERNELS), weights=weights, k=launches)
    items = tuple(_launch(i, k, rng, slowdown) for i, k in enumerate(kernels))
    device = Device(name="NVIDIA A100-SXM4-40GB", compute_capability="8.0", sm_count=108, max_clock_hz=1.41e9)
    return Report(path=f"synthetic-{launches}.json", device=device, launches=items, source="model",
                  label="synthetic benchmark model")


def _launch(index: int, kernel: int, rng: random.Random, slowdown: float) -> KernelLaunch:
    """One launch with plain counters: FLOPs and bytes scale with a per-kernel size and intensity."""
    size = 2.0 ** (kernel % 12) * 1e5 * rng.uniform(0.9, 1.1)
    intensity = 2.0 ** ((kernel * 7) % 13 - 4)  # FLOP per DRAM byte, 1/16 .. 256
    dram = size * 8.0
    ffma = dram * intensity / 2.0
    duration_ns = max(dram / 1.2e12, 2 * ffma / 1.5e13) * 1e9 * rng.uniform(1.2, 3.0) * slowdown + 2000.0
    metrics = {**PEAKS, **CLOCKS, "gpu__time_duration.sum": duration_ns,
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma,
               "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": ffma * 0.1,
               "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": ffma * 0.1,
               "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": 0.0,
               "dram__bytes.sum": dram, "lts__t_bytes.sum": dram * 2.5, "l1tex__t_bytes.sum": dram * 6.0}
    return KernelLaunch(range_index=0, action_index=index, name=f"kernel_{kernel:02d}",
                        demangled_name=f"kernel_{kernel:02d}(float *, int)", nvtx_ranges=(f"phase_{index % 7}",),
                        metrics=metrics)


def timed(label: str, func: Callable[[], T]) -> tuple[T, float]:
    """Run ``func`` once and print its wall time."""
    start = time.perf_counter()
    result = func()
    elapsed = time.perf_counter() - start
    print(f"  {label:<52} {elapsed:7.3f} s")
    return result, elapsed


def bench_synthetic(launches: int) -> None:
    """Each step on the synthetic model, then the end-to-end cost of `summary` (1 report) and `compare`/`diff`
    (2 reports), and the share of it spent in this feature (pairing, grouping, rendering) vs the analysis."""
    print(f"synthetic model, {launches} launches, {KERNELS} kernels")
    base_model, new_model = synthetic_report(launches), synthetic_report(launches, seed=2, slowdown=1.05)
    base, t_base = timed("analyze BASE (pipeline)", lambda: analyze_loaded(base_model, AS_COMPARED))
    new, t_new = timed("analyze NEW (pipeline)", lambda: analyze_loaded(new_model, AS_COMPARED))
    comparison, t_compare = timed("compare: pair, aggregate, work, noise intervals",
                                  lambda: pair_reports([base, new], Matcher()))
    result, t_diff = timed("diff: default gate (Mann-Whitney U per kernel)", lambda: judge(comparison, Thresholds()))
    _, t_render_d = timed("render diff table + JSON", lambda: (diff_text(result), diff_json(result)))
    by_kernel, t_kernel = timed("summary --by kernel", lambda: summarize(base, "kernel", 10))
    by_nvtx, t_nvtx = timed("summary --by nvtx", lambda: summarize(base, "nvtx", 10))
    _, t_render_c = timed("render compare table + JSON", lambda: (comparison_text(comparison),
                                                                 comparison_json(comparison)))
    _, t_render_s = timed("render summary table + JSON", lambda: (summary_text([by_kernel, by_nvtx]),
                                                                 summary_json([by_kernel, by_nvtx], 10)))
    own = t_compare + t_diff + t_kernel + t_nvtx + t_render_c + t_render_d + t_render_s
    _verdict("this feature only (compare+diff+summary x2+render)", own)
    _verdict(f"end to end: summary of {launches} launches", t_base + t_kernel + t_render_s)
    _verdict(f"end to end: compare {launches} vs {launches} launches", t_base + t_new + t_compare + t_render_c)
    _verdict(f"end to end: diff {launches} vs {launches} launches", t_base + t_new + t_compare + t_diff + t_render_d)
    _verdict(f"compare + diff after the analysis of {launches} vs {launches}", t_compare + t_diff + t_render_c
             + t_render_d)


def _verdict(label: str, seconds: float) -> None:
    print(f"  {label:<52} {seconds:7.3f} s  (target < {TARGET_S:g} s: {'met' if seconds < TARGET_S else 'MISSED'})")


def bench_real() -> None:
    """Load, analyse, compare each report with itself and summarize the largest real reports."""
    if not REPORTS.is_dir():
        print(f"real reports not found at {REPORTS}; skipped")
        return
    from roofline.ncu.reader import load_report

    for name in LARGEST:
        print(name)
        report, _ = timed("load (ncu_report, child process)", functools.partial(load_report, REPORTS / name))
        analysis, _ = timed(f"analyze ({len(report.launches)} launches)",
                            functools.partial(analyze_loaded, report, AS_COMPARED))
        timed("compare with itself", functools.partial(pair_reports, [analysis, analysis]))
        timed("summary --by kernel", functools.partial(summarize, analysis, "kernel", 10))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--profile", action="store_true", help="print the 20 most expensive functions")
    args = parser.parse_args()
    bench_real()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(bench_synthetic, args.launches)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)
    else:
        bench_synthetic(args.launches)


if __name__ == "__main__":
    main()
