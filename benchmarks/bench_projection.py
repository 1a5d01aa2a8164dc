"""The measured error of the projection (``roofline project``, ``compare --project-to``): every pair of reports of
the same kernels on two GPUs the project has, each projected from one GPU onto the other and compared with the
time measured there.

Pairs: examples/h100 and examples/h200 (the same programs and commands profiled on an H100 SXM and an H200, ncu
2025.3), in both directions; each kernel is paired by name, and pairs whose work differs beyond the tolerance
are left out (they are not the same kernel run). ../shared/ncu-reps holds no kernel with the same work on two
GPUs (its few shared names, PyTorch's random fill and cuBLAS SGEMM, run other sizes), and the H200's
sgemm-lineinfo.full runs 2048^3 where the H100's SGEMM runs 4096^3, so no pair comes from those. The error of a
kernel is projected / measured - 1; the interval covers it when low_s <= measured <= high_s. The projections are at
the target's base clock (``--clock base``): the time ncu measured there is at the clock it locks while profiling.

Second, the development data (issue 62): every H100 SXM report of examples/h100/ops whose workload has published
wall-clock times on other GPUs (../shared/workloads/single-ops-timings.json), projected per launch
(``compare.projection_launches``) onto each of those GPUs; the error is the projected ratio (total there over the
report's kernel total) over the published ratio (time there over the H100's time), minus 1. Printed: median |error|
and signed median per GPU and per class, in-sample (each GPU's sustained clock and achievable DRAM bandwidth fitted on
its own data: ``fit``) and leave-one-GPU-out (each GPU's parameters without its own data: a sustained clock of public
origin where its spec gives one, else the power rule's with its constant fitted on the other GPUs, else boost; its
memory type's default where it is measured (roofline calibrate, a shipped report), else the other GPUs' fits); how
often the interval holds the published time; and the per-kernel model of before (one median launch per name,
``compare.projection``). "consistent": the workloads whose H100 report's kernel total is within 25% of the published
H100 time (the report ran what was timed).

Run: python benchmarks/bench_projection.py [--json] [--dev-only] [--pairs]
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import roofline
from roofline.compare.pairing import PairOptions, pair_reports
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.specs.catalog import load_catalog

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GPUS = ("h100", "h200")  # folders of examples/ with the same programs profiled on two GPUs
GOVERNED = ("compute", "memory")  # the verdicts the target (median error within 25%) is stated for


@dataclass(frozen=True)
class Row:
    """One kernel projected from ``source`` onto the GPU of ``target``, against the time measured there."""

    source: str
    target: str
    kernel: str
    bound: str
    governing: str
    measured_source_s: float
    projected_s: float
    low_s: float
    high_s: float
    measured_s: float

    @property
    def error(self) -> float:
        return self.projected_s / self.measured_s - 1.0

    @property
    def covered(self) -> bool:
        return self.low_s <= self.measured_s <= self.high_s


def pairs() -> list[tuple[Path, Path]]:
    """Reports of one name in both GPU folders, each direction."""
    first, second = (EXAMPLES / g for g in GPUS)
    common = sorted(p.name for p in first.iterdir() if (second / p.name).is_file() and not p.name.endswith(".md"))
    return [(a / name, b / name) for name in common for a, b in ((first, second), (second, first))]


def project_pair(source: Path, target: Path) -> list[Row]:
    """Each kernel of ``source`` (same work in ``target``) projected onto ``target``'s GPU."""
    options = AnalysisOptions(diagnostics=False)
    analyses = [analyze_loaded(roofline.load(p), options) for p in (source, target)]
    spec = load_catalog().get(analyses[1].spec_id or "")
    rows = []
    for pair in pair_reports(analyses, project_to=spec, options=PairOptions(clock="base")).pairs:
        there, check, proj = pair.sides[1], pair.work[1], pair.projections[0]
        if there is None or proj is None or (check is not None and check.different):
            continue
        values = (pair.base.per_launch_s.value, proj.projected_s.value, proj.low_s.value, proj.high_s.value,
                  there.per_launch_s.value)
        if any(v is None for v in values):
            continue
        rows.append(Row(f"{source.parent.name}/{source.name}", target.parent.name, pair.label,
                        pair.base.verdict.bound or "n/a", proj.governing or "n/a", *values))  # type: ignore[arg-type]
    return rows


@dataclass(frozen=True)
class Summary:
    """The median and worst absolute error of some kernels, and the share their intervals cover."""

    kernels: int
    median_abs_error: float
    worst_abs_error: float
    covered: float


def summary(rows: list[Row]) -> Summary | None:
    """None for no kernel."""
    if not rows:
        return None
    errors = [abs(r.error) for r in rows]
    return Summary(len(rows), statistics.median(errors), max(errors), sum(r.covered for r in rows) / len(rows))


# --- The development data -------------------------------------------------------------------------------------
TIMINGS = Path(__file__).resolve().parents[2] / "shared" / "workloads" / "single-ops-timings.json"
OPS = EXAMPLES / "h100" / "ops"
DEV_GPUS = {"T4": "t4", "A100-80GB": "a100-sxm4-80gb", "L40S": "l40s", "B200": "b200"}  # timings name -> spec id
SOURCE_SPEC = "h100-sxm5"
CONSISTENT = 0.25  # the H100 report's kernel total within this of the published H100 time
CLOCK_GRID = tuple(x / 100 for x in range(50, 101, 5))  # sustained clock / boost
BANDWIDTH_GRID = tuple(x / 100 for x in range(60, 96, 5))  # achievable DRAM / datasheet


@dataclass(frozen=True)
class DevRow:
    """One workload projected onto one GPU, against the published times."""

    workload: str
    gpu: str
    kind: str
    predicted: float  # projected total there / the report's kernel total
    published: float  # published time there / published H100 time
    low: float
    high: float
    consistent: bool
    launch_class: str = "other"  # the interval class of the launch group with most of the projected time
    governing: str = ""  # the unit governing that launch group there

    @property
    def error(self) -> float:
        return self.predicted / self.published - 1.0

    @property
    def covered(self) -> bool:
        return self.low <= self.published <= self.high


def kind(workload: str) -> str:
    """The workload's class, from its name: matmul, conv, or norm/pool (the rest)."""
    return "matmul" if "matmul" in workload or "matrix" in workload else "conv" if "conv" in workload else \
        "norm/pool"


def dev_analyses() -> dict[str, tuple[object, dict[str, float]]]:
    """Each workload with published times: its analysed H100 report and its times (ms) by GPU."""
    times = json.loads(TIMINGS.read_text())["times"]
    options = AnalysisOptions(diagnostics=False)
    return {name: (analyze_loaded(roofline.load(OPS / f"{name}.json"), options), t) for name, t in times.items()
            if (OPS / f"{name}.json").is_file() and "H100" in t}


def dev_rows(data: dict, specs: dict, gpus: tuple[str, ...] = tuple(DEV_GPUS)) -> list[DevRow]:
    """Every workload projected onto each GPU of ``gpus`` with the specs ``specs`` (timings name -> spec)."""
    from roofline.compare.projection_launches import launch_class, project_workload

    source = load_catalog().get(SOURCE_SPEC)
    rows = []
    for name, (a, t) in data.items():
        for gpu in gpus:
            if gpu not in t:
                continue
            w = project_workload(a.valid_launches, a.device, source, specs[gpu])
            if not w.measured_s or w.projected_s is None or w.low_s is None or w.high_s is None:
                continue
            top = max(w.launches, key=lambda p: p.count * p.projected_s)
            rows.append(DevRow(name, gpu, kind(name), w.projected_s / w.measured_s, t[gpu] / t["H100"],
                               w.low_s / w.measured_s, w.high_s / w.measured_s,
                               abs(w.measured_s * 1e3 / t["H100"] - 1.0) <= CONSISTENT,
                               launch_class(top.name), top.governing))
    return rows


def with_params(spec, clock: float | None, bandwidth: float | None):
    """The spec with a sustained clock and an achievable DRAM bandwidth as fractions of its boost and datasheet
    (None: without its own figure)."""
    from msgspec.structs import replace

    return replace(spec, sustained_clock_hz=clock * spec.boost_clock_hz if clock else None,
                   memory_achievable_bytes_per_s=bandwidth * spec.memory_bandwidth_bytes_per_s if bandwidth else None)


def objective(rows: list[DevRow]) -> float:
    """Median |log error| plus half the |median log error| over the consistent workloads."""
    import math

    logs = [math.log(r.predicted / r.published) for r in rows if r.consistent]
    return statistics.median(map(abs, logs)) + 0.5 * abs(statistics.median(logs)) if logs else math.inf


Grid = dict[tuple[str, float, Any], dict[str, DevRow]]  # (GPU, clock, DRAM fraction or None) -> workload -> row


def grid_rows(data: dict) -> Grid:
    """Each GPU's rows at every point of the fitting grid (sustained clock x achievable DRAM fractions)."""
    catalog = load_catalog()
    out: Grid = {}
    for gpu, spec_id in DEV_GPUS.items():
        spec = catalog.get(spec_id)
        for c in CLOCK_GRID:
            for b in BANDWIDTH_GRID:
                out[gpu, c, b] = {r.workload: r for r in dev_rows(data, {gpu: with_params(spec, c, b)}, (gpu,))}
    return out


def fit(grid: Grid, workloads: set[str] | None = None) -> dict[str, tuple[float, float]]:
    """Each GPU's sustained clock and achievable DRAM fractions, among the grid's points for it, minimising
    ``objective`` on its own rows of ``workloads`` (None: all; ties: the highest clock, then the highest
    bandwidth; a DRAM fraction of None, the memory type's default, counts as 0 there)."""
    out = {}
    for gpu in DEV_GPUS:
        scored = [(objective([r for w, r in rows.items() if workloads is None or w in workloads]), -c, -(b or 0.0), b)
                  for (g, c, b), rows in grid.items() if g == gpu]
        _, c, _, b = min(scored)
        out[gpu] = (-c, b)
    return out


def shipped_grid_rows(data: dict) -> Grid:
    """Each GPU's rows at the points a refit of its shipped spec tries: the fitting grid for each figure the spec
    gives as a fit on these data (``is_fit``), its one shipped value for the others (a public clock, the power
    rule's or boost; its own DRAM figure, or its memory type's default)."""
    from roofline.specs.achievable import is_fit, sustained_clock

    catalog = load_catalog()
    out: Grid = {}
    for gpu, spec_id in DEV_GPUS.items():
        spec = catalog.get(spec_id)
        clocks = CLOCK_GRID if is_fit(spec.sources.get("sustained_clock_hz", "")) else \
            (sustained_clock(spec).value / spec.boost_clock_hz,)
        drams = BANDWIDTH_GRID if is_fit(spec.sources.get("memory.achievable_bandwidth_bytes_per_s", "")) else \
            (shipped_dram(spec),)
        for c in clocks:
            for b in drams:
                out[gpu, c, b] = {r.workload: r for r in dev_rows(data, {gpu: with_params(spec, c, b)}, (gpu,))}
    return out


def held_out_workloads(grid: Grid) -> dict[str, Any] | None:
    """The fits checked on workloads they did not see (leave-one-workload-out): for each workload, each GPU's
    parameters fitted without it (over the grid's points: ``shipped_grid_rows`` refits what the shipped specs fit)
    and its rows there kept; the consistent rows' summary and each parameter's spread (standard deviation) over
    the fits."""
    names = sorted({w for rows in grid.values() for w in rows})
    kept, fits = [], []
    for name in names:
        fitted = fit(grid, set(names) - {name})
        fits.append(fitted)
        kept += [grid[g, c, b][name] for g, (c, b) in fitted.items() if name in grid[g, c, b]]
    summary = dev_summary([r for r in kept if r.consistent])
    if summary is None:
        return None
    spread = {g: {"clock": statistics.pstdev(f[g][0] for f in fits),
                  "dram": statistics.pstdev(f[g][1] or 0.0 for f in fits)} for g in DEV_GPUS}
    by_gpu = {g: dev_summary([r for r in kept if r.consistent and r.gpu == g]) for g in DEV_GPUS}
    return {**summary, "by_gpu": by_gpu, "spread": spread}


RULE_GRID = tuple(round(0.010 * 1.1 ** k, 4) for k in range(20))  # the power rule's W per FP32 lane and GHz


def in_rule_domain(spec) -> bool:
    """Whether the power rule sets this spec's clock: it gives its board power and no sustained clock of public
    origin (none, or a fit on these data)."""
    from roofline.specs.achievable import is_fit

    return spec.board_power_w is not None and (spec.sustained_clock_hz is None
                                               or is_fit(spec.sources.get("sustained_clock_hz", "")))


def ruled(spec, bandwidth: float | None, watts: float):
    """The spec at the power rule's clock for ``watts`` per lane and GHz, with a DRAM fraction."""
    from roofline.specs.achievable import power_limited_clock

    held = power_limited_clock(spec, watts)
    return with_params(spec, held.value / spec.boost_clock_hz if held else None, bandwidth)


def shipped_dram(spec) -> float | None:
    """The spec's own achievable DRAM fraction (None: its memory type's default)."""
    own = spec.memory_achievable_bytes_per_s
    return own / spec.memory_bandwidth_bytes_per_s if own else None


def fit_rule(data: dict, gpus: list[str]) -> float | None:
    """The power rule's one constant minimising the sum over ``gpus`` of each GPU's ``objective`` (each with its
    shipped DRAM figure: every GPU's bias counts, as in ``fit``), ties to the smallest (the highest clocks); None
    without GPUs."""
    if not gpus:
        return None
    catalog = load_catalog()
    specs = {g: catalog.get(DEV_GPUS[g]) for g in gpus}
    scored = [(round(sum(objective(dev_rows(data, {g: ruled(s, shipped_dram(s), w)}, (g,))) for g, s in specs.items()),
                     6), w) for w in RULE_GRID]
    return min(scored)[1]


def left_out_specs(fits: dict[str, tuple[float, float]], data: dict) -> tuple[dict, dict[str, float | None]]:
    """Each GPU's spec as if it had no data: a sustained clock of public origin where its spec gives one, else the
    power rule's with its constant fitted on the other GPUs the rule applies to, else boost; and its memory type's
    default (architecture/memory.yaml) where that is of public origin (roofline calibrate, a shipped report: what
    any GPU without data gets), else the other GPUs' fits of that type, else the default. Also each GPU's rule
    constant (None: not used)."""
    from roofline.specs.achievable import is_fit, memory_type_fraction

    catalog = load_catalog()
    out, constants = {}, {}
    for gpu, spec_id in DEV_GPUS.items():
        spec = catalog.get(spec_id)
        same = [fits[o][1] for o, other in DEV_GPUS.items()
                if o != gpu and catalog.get(other).memory_type == spec.memory_type]
        default = memory_type_fraction(spec.memory_type)
        if default is not None and (not is_fit(default.source) or not same):
            fraction: float | None = default.value
        else:
            fraction = statistics.mean(same) if same else None
        others = [o for o, other in DEV_GPUS.items() if o != gpu and in_rule_domain(catalog.get(other))]
        constant = constants[gpu] = fit_rule(data, others) if in_rule_domain(spec) else None
        if constant is not None:
            out[gpu] = ruled(spec, fraction, constant)
        elif spec.sustained_clock_hz is not None and not in_rule_domain(spec):
            out[gpu] = with_params(spec, spec.sustained_clock_hz / spec.boost_clock_hz, fraction)
        else:
            out[gpu] = with_params(spec, None, fraction)
    return out, constants


def before_rows(data: dict) -> list[DevRow]:
    """The per-kernel model of before (``compare.projection``: one median launch per name, count x projected)."""
    from roofline.compare.pairing import pair_reports
    from roofline.compare.projection import project

    catalog = load_catalog()
    rows = []
    for name, (a, t) in data.items():
        for gpu, spec_id in DEV_GPUS.items():
            if gpu not in t:
                continue
            target = catalog.get(spec_id)
            c = pair_reports([a])
            sums = [0.0, 0.0, 0.0, 0.0]  # measured, projected, low, high
            for p in c.pairs:  # compare's projection is the per-launch model now: the per-kernel one called here
                proj = project(p.base, a.device, target, "boost", source_spec=catalog.get(a.spec_id or "")) \
                    if target is not None else None
                values = (p.base.total_s.value, *((proj.projected_s.value, proj.low_s.value, proj.high_s.value)
                                                   if proj is not None else (None, None, None)))
                if any(v is None for v in values):
                    break
                sums = [acc + (v or 0.0) * (1 if k == 0 else p.base.count) for k, (acc, v) in
                        enumerate(zip(sums, values, strict=True))]
            else:
                here, there, low, high = sums
                rows.append(DevRow(name, gpu, kind(name), there / here, t[gpu] / t["H100"], low / here, high / here,
                                   abs(here * 1e3 / t["H100"] - 1.0) <= CONSISTENT))
    return rows


def dev_summary(rows: list[DevRow]) -> dict[str, float | int] | None:
    """Count, median |error|, signed median error, interval coverage and median half-width of some rows."""
    if not rows:
        return None
    return {"pairs": len(rows), "median_abs_error": statistics.median(abs(r.error) for r in rows),
            "median_error": statistics.median(r.error for r in rows),
            "covered": sum(r.covered for r in rows) / len(rows),
            "median_half_width": statistics.median((r.high - r.low) / (r.high + r.low) for r in rows)}


INTERVAL_CLASSES = ("matmul", "conv", "other")  # projection_launches.INTERVALS: by the kernel's name
# The interval's ends per class, percentiles of published / projected: the convolutions' the widest (their library
# picks its algorithm per GPU, issue 62 item 9), the others' the narrowest that keep 80% covered without each GPU
# (round 7's model: matmul 10-90, conv 5-95, other 7.5-92.5 81% at a 24% median half-width; all at 7.5-92.5 80% at
# 27.5%; matmul 12.5-87.5 80% at 23%; round 6's: all at 7.5-92.5 80% at 28%; round 8's, the same percentiles kept:
# 82% at 23%)
QUANTILES: dict[str, tuple[float, float]] = {"matmul": (10, 90), "conv": (5, 95), "other": (7.5, 92.5)}


def interval_factors(rows: list[DevRow]) -> dict[str, tuple[float, float]]:
    """Per interval class (``projection_launches.INTERVALS``: the class of the launch group with most of the
    projected time, as ``launch_class`` gives it from the kernel's name), the ``QUANTILES`` percentiles of
    published / projected over ``rows`` (the leave-one-GPU-out rows give the shipped factors)."""
    import numpy as np

    out = {}
    for cls in INTERVAL_CLASSES:
        ratios = [r.published / r.predicted for r in rows if r.launch_class == cls]
        if ratios:
            low, high = np.percentile(ratios, QUANTILES[cls])
            out[cls] = (round(float(low), 2), round(float(high), 2))
    return out


def held_out_intervals(rows: list[DevRow]) -> dict[str, float | int] | None:
    """The interval method checked without each GPU: its rows' intervals from the factors of the other GPUs'
    leave-one-GPU-out rows (by workload class), coverage and median half-width."""
    covered, widths = [], []
    for gpu in DEV_GPUS:
        factors = interval_factors([r for r in rows if r.gpu != gpu])
        for r in (r for r in rows if r.gpu == gpu):
            low, high = factors[r.launch_class]
            covered.append(r.predicted * low <= r.published <= r.predicted * high)
            widths.append((high - low) / (high + low))
    if not covered:
        return None
    return {"pairs": len(covered), "covered": sum(covered) / len(covered),
            "median_half_width": statistics.median(widths)}


def dev_tables(data: dict) -> dict[str, dict[str, Any]]:
    """The summaries of the development data: before, in-sample and leave-one-GPU-out, by GPU and class."""
    catalog = load_catalog()
    grid = grid_rows(data)
    fits = fit(grid)
    shipped = dev_rows(data, {g: catalog.get(s) for g, s in DEV_GPUS.items()})
    held_out, constants = left_out_specs(fits, data)
    loo = dev_rows(data, held_out)
    out: dict[str, dict[str, Any]] = {}
    for label, rows in (("before", before_rows(data)), ("shipped specs", shipped), ("leave-one-GPU-out", loo)):
        table: dict[str, dict[str, float | int] | None] = {}
        for subset in ("all", "consistent"):
            chosen = [r for r in rows if subset == "all" or r.consistent]
            table[subset] = dev_summary(chosen)
            for gpu in DEV_GPUS:
                table[f"{subset} {gpu}"] = dev_summary([r for r in chosen if r.gpu == gpu])
            for k in ("matmul", "conv", "norm/pool"):
                table[f"{subset} {k}"] = dev_summary([r for r in chosen if r.kind == k])
        out[label] = table
    out["fits"] = {g: {"sustained_clock_of_boost": c, "achievable_dram_of_datasheet": b} for g, (c, b) in fits.items()}
    everyone = [g for g, s in DEV_GPUS.items() if in_rule_domain(catalog.get(s))]
    out["power_rule"] = {"watts_per_lane_ghz_all": fit_rule(data, everyone),
                         "watts_per_lane_ghz_without": constants,
                         "clock_of_boost_left_out": {g: round((held_out[g].sustained_clock_hz or
                                                               held_out[g].boost_clock_hz)
                                                              / held_out[g].boost_clock_hz, 3) for g in DEV_GPUS}}
    out["interval_factors"] = {k: {"low": lo, "high": hi} for k, (lo, hi) in interval_factors(loo).items()}
    out["held_out_intervals"] = {"all": held_out_intervals(loo)}
    out["held_out_workloads"] = {"consistent": held_out_workloads(shipped_grid_rows(data))}
    out["pairs"] = {"leave-one-GPU-out": [
        {"workload": r.workload, "gpu": r.gpu, "error": r.error, "consistent": r.consistent,
         "interval_class": r.launch_class, "governing": r.governing, "covered": r.covered} for r in loo]}
    return out


def print_dev(tables: dict) -> None:
    """The development-data summaries as text."""
    print(f"\ndevelopment data ({TIMINGS.name}; error = projected ratio / published ratio - 1)")
    print("fits (in-sample): " + ", ".join(f"{g} clock {v['sustained_clock_of_boost']:.2f} x boost, DRAM "
                                           f"{v['achievable_dram_of_datasheet']:.2f} x datasheet"
                                           for g, v in tables["fits"].items()))
    rule = tables["power_rule"]
    print(f"power rule: {rule['watts_per_lane_ghz_all']} W per FP32 lane and GHz fitted on all; left out: " + ", ".join(
        f"{g} {'public clock' if w is None else f'{w} W'} -> {rule['clock_of_boost_left_out'][g]:.2f} x boost"
        for g, w in rule["watts_per_lane_ghz_without"].items()))
    print("interval factors (percentiles of published / projected, leave-one-GPU-out): " + ", ".join(
        f"{k} {QUANTILES[k][0]:g}th-{QUANTILES[k][1]:g}th {v['low']:.2f}-{v['high']:.2f}"
        for k, v in tables["interval_factors"].items()))
    held = tables["held_out_intervals"]["all"]
    if held is not None:
        print(f"intervals from the other GPUs' factors: {held['pairs']} pairs, covered {100 * held['covered']:.0f}%, "
              f"median half-width {100 * held['median_half_width']:.0f}%")
    unseen = tables["held_out_workloads"]["consistent"]
    if unseen is not None:
        print(f"the shipped fits checked on the workload each left out (leave-one-workload-out, each fitted figure "
              f"refitted without it): {unseen['pairs']} consistent "
              f"pairs, median |error| {100 * unseen['median_abs_error']:.1f}%, signed "
              f"{100 * unseen['median_error']:+.1f}%, covered {100 * unseen['covered']:.0f}%; by GPU " + ", ".join(
                  f"{g} {100 * v['median_abs_error']:.1f}%" for g, v in unseen["by_gpu"].items() if v) +
              "; the fits' spread (standard deviation over the fits): " + ", ".join(
                  f"{g} clock {v['clock']:.2f}, DRAM {v['dram']:.2f}" for g, v in unseen["spread"].items()))
    print(f"{'model':20} {'subset':24} {'pairs':>5} {'|error|':>8} {'signed':>8} {'covered':>8} {'half-width':>10}")
    for label in ("before", "shipped specs", "leave-one-GPU-out"):
        for subset, s in tables[label].items():
            if s is not None:
                print(f"{label:20} {subset:24} {s['pairs']:5d} {100 * s['median_abs_error']:7.1f}% "
                      f"{100 * s['median_error']:+7.1f}% {100 * s['covered']:7.0f}% "
                      f"{100 * s['median_half_width']:9.0f}%")


def print_pairs(tables: dict) -> None:
    """Each leave-one-GPU-out pair: its error, whether consistent, and the class and governing unit of the launch
    group with most of its projected time there, by workload then GPU."""
    print(f"\n{'workload':44} {'gpu':10} {'error':>7} {'class':6} governing")
    for p in sorted(tables["pairs"]["leave-one-GPU-out"], key=lambda p: (p["workload"], p["gpu"])):
        notes = ("" if p["consistent"] else " (inconsistent)") + ("" if p["covered"] else " (not covered)")
        print(f"{p['workload'][:44]:44} {p['gpu']:10} {100 * p['error']:+6.1f}% {p['interval_class']:6} "
              f"{p['governing']}{notes}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the rows and the summary as JSON")
    parser.add_argument("--dev-only", action="store_true", help="only the development data")
    parser.add_argument("--pairs", action="store_true", help="also each leave-one-GPU-out pair's error (text)")
    args = parser.parse_args()
    dev = dev_tables(dev_analyses()) if TIMINGS.is_file() else None
    if args.dev_only:
        if dev is None:
            raise SystemExit(f"no development data: {TIMINGS.name} is not in ../shared/workloads")
        print(json.dumps(dev, indent=1)) if args.json else print_dev(dev)
        if args.pairs and not args.json:
            print_pairs(dev)
        return
    rows = [row for source, target in pairs() for row in project_pair(source, target)]
    governed = [r for r in rows if r.bound in GOVERNED]
    if args.json:
        print(json.dumps({"rows": [{**r.__dict__, "error": r.error, "covered": r.covered} for r in rows],
                          **{key: s.__dict__ if s else None for key, s in (
                              ("all", summary(rows)), ("compute_and_memory_bound", summary(governed)))},
                          "development": dev}, indent=1))
        return
    print(f"{'source':34} {'->':5} {'kernel':28} {'bound':8} {'by':12} {'measured':>9} {'projected':>9} "
          f"{'there':>9} {'error':>7} covered")
    for r in rows:
        print(f"{r.source:34} {r.target:5} {r.kernel[:28]:28} {r.bound:8} {r.governing:12} "
              f"{r.measured_source_s * 1e6:8.1f}u {r.projected_s * 1e6:8.1f}u {r.measured_s * 1e6:8.1f}u "
              f"{100 * r.error:+6.1f}% {'yes' if r.covered else 'NO'}")
    for name, subset in (("all", rows), ("compute- and memory-bound", governed)):
        s = summary(subset)
        if s is not None:
            print(f"{name}: {s.kernels} kernels, median |error| {100 * s.median_abs_error:.1f}%, "
                  f"worst {100 * s.worst_abs_error:.1f}%, interval covers {100 * s.covered:.0f}%")
    if dev is not None:
        print_dev(dev)
        if args.pairs:
            print_pairs(dev)


if __name__ == "__main__":
    main()
