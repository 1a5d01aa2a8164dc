"""The grade of a kernel (roofline.analysis.grade): every shipped example and shared report's grade reproduced here from
the launches' raw metrics (the SpeedOfLight breakdowns, the duration, the grid and the SM count, written out below),
the measurement conditions as typed states, and the gaming cases withheld with their reason."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from roofline.analysis.grade import (
    ConditionKind,
    Confidence,
    NcuFix,
    State,
    Withheld,
    grade_report,
    less_precise,
)
from roofline.pipeline import AnalysisOptions, analyze_files, spec_for
from roofline.specs.achievable import achievable_fraction
from roofline.specs.catalog import load_catalog
from tests.conftest import SHARED_REPORTS, find_shared_report, shared_report_names

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (REPO / "examples").rglob("*") if p.suffix == ".ncu-rep" or (
    p.suffix == ".json" and p.read_text(errors="ignore")[:200].find("roofline-report-model") >= 0))
FP32, BF16 = REPO / "examples/h100/torch-fp32.roofline.json", REPO / "examples/h100/torch-bf16.roofline.ncu-rep"
OPTIONS = AnalysisOptions(diagnostics=False, sass=False)
REL = 1e-9

# What the independent computation reads, by name.
DURATION_NS = "gpu__time_duration.sum"
BREAKDOWNS = ("breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
NOT_A_UNIT = "_internal_activity"
GRID = "launch__grid_size"
SM_LOCAL = ("sm", "smsp", "l1tex", "idc")  # units inside each SM
PER_ELAPSED = ".avg.pct_of_peak_sustained_elapsed"  # a percent over every SM's elapsed cycles: whole blocks pace it
LEVEL_OF_PREFIX = {"dram": "dram", "fbpa": "dram", "fbp": "dram", "lts": "l2", "ltc": "l2"}
LAUNCH_FLOOR = 1.5e-6  # the shortest launch ncu measures
_CATALOG = load_catalog()
_CACHE: dict[str, Any] = {}


def analysed(path: Path) -> Any:
    if str(path) not in _CACHE:
        _CACHE[str(path)] = analyze_files([path], OPTIONS, catalog=_CATALOG)[0]
    return _CACHE[str(path)]


def spec_of(analysis: Any) -> Any:
    found = spec_for(_CATALOG, analysis.device)
    return found.spec if found is not None else None


def l2_default() -> float:
    """device_specs/architecture/memory.yaml's ``l2_achievable_fraction``, read here with PyYAML."""
    import yaml

    memory = Path(__file__).resolve().parents[2] / "device_specs" / "architecture" / "memory.yaml"
    return float(yaml.safe_load(memory.read_text())["l2_achievable_fraction"]["value"])


def reachable(spec: Any, level: str, k: Any, metric: str = "") -> float:
    """The fraction of the launch's own peak counter a report's kernel can reach on a level (a unit's percent is of
    that peak): the bandwidth ``roofline calibrate`` measured under ncu's clocks over that counter's peak (DRAM:
    dram__bytes.sum.peak_sustained x the DRAM clock, from the raw metrics); else the one it measured at the default
    clocks over the datasheet figure, or the spec's achievable fraction (its own figure or its memory type's),
    taken of the counter's peak where that is below the datasheet's, and as the datasheet bandwidth's share where
    above. Where the spec states no figure for the level (the L2 of most specs), a fraction of the counter's: for an
    L2 unit counted in sectors (or the L2 roof, ``metric`` "l2"), memory.yaml's default L2 fraction; for the
    crossbar's cycles active, 1."""
    sectors = "sectors" in metric or metric in ("l2", "")
    if level == "l2" and not sectors:  # the crossbar's cycles active, tag requests: no calibration measures them
        return 1.0
    roof = spec.measured.roofs.get(level) if spec.measured is not None else None
    rate = (roof.ncu or roof.default) if roof is not None else None
    counters = k.ceilings.get("kernel-clock")
    metrics = k.launch.metrics
    counter = (metrics["dram__bytes.sum.peak_sustained"] * metrics["dram__cycles_elapsed.avg.per_second"]
               if level == "dram" and "dram__bytes.sum.peak_sustained" in metrics
               and "dram__cycles_elapsed.avg.per_second" in metrics
               else counters.bytes_per_s.get(level) if counters is not None else None)
    sheet = spec.memory_bandwidth_bytes_per_s if level == "dram" else spec.l2_bytes_per_s
    datasheet = sheet or counter
    if rate is not None and roof is not None and roof.ncu is not None and counter:  # under ncu's clocks: of its peak
        return min(1.0, rate.median / counter)
    if rate is None and level == "l2":
        return l2_default()
    fraction = min(1.0, rate.median / datasheet) if rate is not None and datasheet else \
        achievable_fraction(spec, level).value
    return fraction * min(1.0, sheet / counter) if sheet and counter and fraction < 1.0 else fraction


def independent_floor(k: Any, spec: Any, sm_count: int | None) -> float | None:
    """A launch's floor at the achievable peaks from its raw metrics: each breakdown unit's percent of peak x the
    duration, a DRAM or L2 unit's over the spec's achievable fraction (never below the one the launch reached), the
    busiest SM unit paced by blocks x ceil(B / S) / (B / S), the launch floor. Without breakdowns, the roofs: the
    launch's FLOPs and bytes over its kernel-clock ceilings (what the model reads there)."""
    metrics = k.launch.metrics
    duration = metrics.get(DURATION_NS)
    if duration is None:
        return None
    duration *= 1e-9
    units = {name: float(metrics[name]) for b in BREAKDOWNS for name in
             (part.strip() for part in str(metrics.get(b) or "").split(","))
             if name and NOT_A_UNIT not in name and isinstance(metrics.get(name), int | float)}
    terms = [LAUNCH_FLOOR]
    if not units:
        return _roof_floor(k, spec, duration, sm_count)
    for name, pct in units.items():
        seconds = pct / 100.0 * duration
        level = LEVEL_OF_PREFIX.get(name.split("__")[0])
        if level is not None and spec is not None:
            seconds /= max(reachable(spec, level, k, name), seconds / duration)
        terms.append(seconds)
    paced = [pct for name, pct in units.items() if name.split("__")[0] in SM_LOCAL and name.endswith(PER_ELAPSED)]
    blocks = metrics.get(GRID)
    if paced and blocks and sm_count:
        terms.append(max(paced) / 100.0 * duration * math.ceil(blocks / sm_count) / (blocks / sm_count))
    return max(terms)


def _roof_floor(k: Any, spec: Any, duration: float, sm_count: int | None) -> float | None:
    roofs = k.ceilings.get("kernel-clock")
    if roofs is None:
        return None
    terms = [LAUNCH_FLOOR]
    for key, work, peak in ([(p, k.flops[p].value, roofs.flop_per_s.get(p)) for p in k.flops]
                            + [(lv, k.bytes[lv].value, roofs.bytes_per_s.get(lv)) for lv in k.bytes]):
        if work and peak:
            seconds = work / peak
            if key in ("dram", "l2") and spec is not None:
                seconds /= max(reachable(spec, key, k, key), seconds / duration)
            terms.append(seconds)
    return max(terms) if len(terms) > 1 else None


SM_PCT, MEMORY_PCT = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
WAVES = "launch__waves_per_multiprocessor"
LOW_PCT = 60.0  # ncu's SpeedOfLight rule: both throughputs under this and under one wave is a small grid


def small_grid(k: Any) -> bool:
    """ncu's "Small Grid" from the raw metrics: both SpeedOfLight throughputs under 60% of peak and under one wave
    per SM."""
    metrics = k.launch.metrics
    values = [metrics.get(name) for name in (SM_PCT, MEMORY_PCT, WAVES)]
    if not all(isinstance(v, int | float) and not math.isnan(v) for v in values):
        return False
    sm, memory, waves = values
    return sm < LOW_PCT and memory < LOW_PCT and waves < 1.0


def check_grades_reproduced(path: Path) -> int:
    """Every kernel's grade = the sum of its launches' independent floors (each at most its duration) over the sum
    of their durations, its small-grid launches (``small_grid``) left ungraded and their time counted apart;
    returns the kernels checked (graded, or withheld as small grids alone)."""
    a = analysed(path)
    spec = spec_of(a)
    report = grade_report(a, spec)
    graded = 0
    for group, kg in zip(a.groups, report.kernels, strict=True):
        launches = [k for k in group.launches if not k.launch.invalid]
        small = [k.launch.metrics[DURATION_NS] * 1e-9 for k in launches if small_grid(k)]
        floors = [(f, k.launch.metrics[DURATION_NS] * 1e-9) for k in launches
                  if not small_grid(k) and (f := independent_floor(k, spec, a.device.sm_count)) is not None]
        assert kg.small_grid_s == pytest.approx(sum(small), rel=1e-9) or kg.small_grid_s is None and not small
        if kg.grade is None:
            assert not floors or Withheld.NO_TIME_MODEL not in kg.withheld, kg.kernel
            assert (Withheld.SMALL_GRID in kg.withheld) == (bool(small) and not floors), kg.kernel
            if Withheld.SMALL_GRID in kg.withheld:  # checked: every launch counted apart, nothing saved keeping it
                assert (kg.max_saving_s, kg.floor_s) == (0.0, None), kg.kernel
                graded += 1
            continue
        assert kg.grade == pytest.approx(sum(min(f, t) for f, t in floors) / sum(t for _, t in floors), rel=1e-6)
        for g, (f, t) in zip([g for g in kg.per_launch if not g.small_grid], floors, strict=True):
            assert g.grade == pytest.approx(min(1.0, f / t), rel=1e-6)
        assert kg.measured_s is not None
        assert kg.max_saving_s == pytest.approx(sum(t - min(f, t) for f, t in floors), rel=1e-6)
        assert kg.graded_s == pytest.approx(sum(t for _, t in floors), rel=1e-12)  # the time the grade is over
        if kg.floor_s is not None and kg.graded_s is not None:  # each floor at most its time: grade = floor / graded
            assert kg.floor_s == pytest.approx(sum(min(f, t) for f, t in floors), rel=1e-6)
            assert kg.grade == pytest.approx(kg.floor_s / kg.graded_s, rel=1e-6)
        graded += 1
    return graded


@pytest.mark.parametrize("path", EXAMPLES, ids=[str(p.relative_to(REPO / "examples")) for p in EXAMPLES])
def test_grade_of_every_example_equals_the_raw_metrics_computation(path: Path):
    if path.suffix == ".ncu-rep":
        pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    assert check_grades_reproduced(path) >= 1


@pytest.mark.parametrize("name", shared_report_names())
def test_grade_of_every_shared_report_equals_the_raw_metrics_computation(name: str):
    path = find_shared_report(name)
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    graded = check_grades_reproduced(path)
    assert graded >= (0 if name.endswith(("_metrics", "-45launches_metrics")) else 1)


@pytest.mark.parametrize("name", ["triad-cupy.full.ncu-rep", "torch-fp32.roofline.json", "sgemm-cuda.roofline.ncu-rep"])
def test_no_advice_item_that_keeps_the_work_saves_more_than_one_minus_the_grade(name: str):
    """The advice's what-ifs are measured to the same floor: an item that changes no term's work (it hides latency or
    reaches a peak) saves at most (1 - g) x time; items that change the work may save more, and here one does (the
    FP32 GEMM's FMAs on the Tensor Cores)."""
    path = REPO / "examples" / "h100" / name
    if path.suffix == ".ncu-rep":
        pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    a = analyze_files([path], AnalysisOptions(sass=False), catalog=_CATALOG)[0]
    report = grade_report(a, spec_of(a))
    kept, changed = 0, 0
    for group, kg in zip(a.groups, report.kernels, strict=True):
        for k, g in zip([k for k in group.launches if not k.launch.invalid], kg.per_launch, strict=True):
            assert g.grade is not None and g.floor_s is not None, k.launch.key
            most = (1.0 - g.grade) * g.measured_s
            assert most == pytest.approx(g.measured_s - g.floor_s, abs=1e-15)
            for x in k.advice:
                if x.kind == "measurement" or x.est_saved_s is None:
                    continue
                if x.change is None or not x.change.scales:
                    assert x.est_saved_s <= most + 1e-12, x.title
                    kept += 1
                else:
                    changed += x.est_saved_s > most
    assert kept + changed >= 1 and (name != "torch-fp32.roofline.json" or changed >= 1)


# --- Measurement conditions ----------------------------------------------------------------------------------
def model_variant(tmp_path: Path, source: Path, edit: Any, name: str) -> Path:
    """A copy of a report model with ``edit(metrics)`` applied to each launch's metrics."""
    data = json.loads(source.read_text())
    for launch in data["launches"]:
        edit(launch["metrics"])
    out = tmp_path / f"{name}.json"
    out.write_text(json.dumps(data))
    return out


def condition(kernel: Any, kind: ConditionKind) -> Any:
    return next(c for c in kernel.conditions if c.kind is kind)


def test_clock_at_base_is_locked_and_at_boost_names_clock_control_base(tmp_path: Path):
    a = analysed(FP32)
    [k] = grade_report(a, spec_of(a)).kernels
    clock = condition(k, ConditionKind.CLOCK)
    assert (clock.state, clock.lowers, clock.fix) == (State.LOCKED_BASE, False, NcuFix.NONE)

    def boost(metrics: dict) -> None:
        metrics["sm__cycles_elapsed.avg.per_second"] = metrics["gpc__cycles_elapsed.avg.per_second"] = 1.98e9

    b = analyze_files([model_variant(tmp_path, FP32, boost, "boost")], OPTIONS, catalog=_CATALOG)[0]
    [kb] = grade_report(b, spec_of(b)).kernels
    clock = condition(kb, ConditionKind.CLOCK)
    assert (clock.state, clock.lowers, clock.fix, clock.measured) == (State.ABOVE_BASE, True,
                                                                      NcuFix.CLOCK_BASE, 1.98e9)


def test_a_clock_read_only_from_launches_under_20_us_is_not_judged_nor_given_an_ncu_fix(shared_report, raw_actions):
    """The V100 miniWeather's halo kernels (11-13 us) read 0.61-0.78 GHz on a board ncu locked at 1.29 GHz (its
    long kernels read 1.28-1.30): a short launch reads its clock low, so theirs is not judged, and no option helps."""
    raw = {r.name: r for r in raw_actions("v100_miniweather-openacc_full")}
    halo = [r for n, r in raw.items() if n.startswith("set_halo")]
    assert halo and all(r[DURATION_NS] < 20e3 and r["sm__cycles_elapsed.avg.per_second"] < 0.8e9 for r in halo)
    a = analyze_files([shared_report("v100_miniweather-openacc_full")], OPTIONS, catalog=_CATALOG)[0]
    kernels = {k.kernel: k for k in grade_report(a, spec_of(a)).kernels}
    for name, k in kernels.items():
        clock = condition(k, ConditionKind.CLOCK)
        if name.startswith("set_halo"):
            assert (clock.state, clock.fix) == (State.SHORT_LAUNCHES, NcuFix.NONE), name
            assert clock.measured == pytest.approx(raw[name]["sm__cycles_elapsed.avg.per_second"]), name
        else:
            assert (clock.state, clock.fix) == (State.LOCKED_BASE, NcuFix.NONE), name
    from roofline.render.grade.prose import STATES
    assert "read only on launches under 20 us" in STATES[(ConditionKind.CLOCK, State.SHORT_LAUNCHES)]


def test_tensor_gemm_held_below_base_lowers_confidence_without_an_option():
    a = analysed(BF16) if _has_ncu_report() else pytest.skip("reading an .ncu-rep needs ncu_report")
    [k] = grade_report(a, spec_of(a)).kernels
    clock = condition(k, ConditionKind.CLOCK)
    assert clock.state == State.BELOW_BASE and clock.lowers and clock.fix is NcuFix.NONE
    replay = condition(k, ConditionKind.REPLAY)
    assert (replay.state, replay.measured, replay.lowers) == (State.KERNEL, 17.0, False)


def test_cache_control_is_unknown_and_names_cache_control_all():
    a = analysed(FP32)
    [k] = grade_report(a, spec_of(a)).kernels
    cache = condition(k, ConditionKind.CACHE)
    assert (cache.state, cache.lowers, cache.fix) == (State.UNKNOWN, True, NcuFix.CACHE_ALL)


def test_passes_without_memory_backed_up_are_not_kernel_replay(tmp_path: Path):
    def application(metrics: dict) -> None:
        metrics.update({"profiler__replayer_passes": 5, "profiler__replayer_bytes_mem_backed_up.sum": 0})

    b = analyze_files([model_variant(tmp_path, FP32, application, "app")], OPTIONS, catalog=_CATALOG)[0]
    [k] = grade_report(b, spec_of(b)).kernels
    replay = condition(k, ConditionKind.REPLAY)
    assert (replay.state, replay.lowers, replay.fix) == (State.NOT_KERNEL, True, NcuFix.REPLAY_KERNEL)


def test_one_launch_is_low_confidence_fixed_by_launch_count():
    a = analysed(FP32)
    [k] = grade_report(a, spec_of(a)).kernels
    launches = condition(k, ConditionKind.LAUNCHES)
    assert (launches.state, launches.fix, k.confidence, k.interval) == (State.ONE, NcuFix.LAUNCH_COUNT, Confidence.LOW,
                                                                        None)


def test_a_kernel_without_a_time_model_has_no_time_not_zero():
    """H800 FlashAttention: ncu wrote no duration for the launch, so its kernel's time is null, as are its floor and
    grade, with the reason under withheld."""
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    a = analysed(find_shared_report("h800_flash-attn-fwd_full"))
    kg = next(k for k in grade_report(a, spec_of(a)).kernels if k.kernel.startswith("flash_fwd_kernel"))
    assert (kg.measured_s, kg.floor_s, kg.grade, kg.withheld) == (None, None, None, (Withheld.NO_TIME_MODEL,))


def test_interval_is_the_range_of_launch_grades():
    path = find_shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic")
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    a = analysed(path)
    several = [k for k in grade_report(a, spec_of(a)).kernels if k.grade is not None and len(k.per_launch) > 1]
    assert several
    for k in several:
        assert k.interval is not None
        graded = [g.grade for g in k.per_launch if g.grade is not None]
        assert (k.interval.low, k.interval.high) == (min(graded), max(graded))
        assert k.interval.low <= k.grade <= k.interval.high


def test_the_grade_is_the_floor_over_the_graded_time_which_leaves_the_small_grids_out():
    """A100 CUB sort: DeviceRadixSortOnesweepKernel's 88 launches include small grids (ncu's Small Grid, from the raw
    metrics), not graded. ``graded_s`` is the raw durations of the others: the grade is floor_s / graded_s and the
    most saved graded_s - floor_s, not floor_s / measured_s; measured_s = graded_s + small_grid_s."""
    name = "a100-40gb_selfjoin-cub-sort-154launches_basic"
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    a = analysed(find_shared_report(name))
    group = next(g for g in a.groups if "DeviceRadixSortOnesweepKernel" in g.name)
    kg = grade_report(a, spec_of(a), kernels=[group.name]).kernels[0]
    durations = [(k.launch.metrics[DURATION_NS] * 1e-9, small_grid(k)) for k in group.launches]
    graded = sum(t for t, small in durations if not small)
    assert 0 < graded < kg.measured_s and kg.graded_s == pytest.approx(graded, rel=1e-12)
    assert kg.measured_s == pytest.approx(kg.graded_s + kg.small_grid_s, rel=1e-12)
    assert kg.grade == pytest.approx(kg.floor_s / kg.graded_s, rel=1e-9)
    assert kg.max_saving_s == pytest.approx(kg.graded_s - kg.floor_s, rel=1e-9)
    assert kg.floor_s / kg.measured_s < kg.grade - 0.05  # the figure a reader took for the grade: well below it


# --- Work against a baseline ---------------------------------------------------------------------------------
def test_same_work_and_precision_as_the_baseline_keeps_the_grade():
    a = analysed(FP32)
    [k] = grade_report(a, spec_of(a), baseline=a).kernels
    assert k.withheld == () and k.grade is not None
    assert k.work is not None and k.work.flops_ratio == pytest.approx(1.0) and k.work.precision == "fp32"


def test_bf16_tensor_gemm_against_the_fp32_baseline_is_withheld_for_precision():
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    a = analysed(BF16)
    [k] = grade_report(a, spec_of(a), baseline=analysed(FP32)).kernels
    assert k.withheld == (Withheld.OTHER_PRECISION,) and k.grade is None and k.datasheet_grade is None
    assert k.work is not None and (k.work.precision, k.work.baseline_precision) == ("tensor:bf16", "fp32")
    assert k.work.flops_ratio == pytest.approx(1.0, rel=0.01)  # the same GEMM, in another type


def test_fp16_triad_against_the_fp32_one_is_withheld_and_writes_half_the_bytes():
    """The same FLOPs in FP16: another precision; its output, in half the bytes, is shown (written_ratio) and
    decides nothing."""
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    base = analysed(REPO / "examples/h100/triad-cupy.full.ncu-rep")
    a = analysed(REPO / "examples/h100/triad-half2.full.ncu-rep")
    [k] = grade_report(a, spec_of(a), baseline=base).kernels
    assert k.withheld == (Withheld.OTHER_PRECISION,) and k.work is not None
    assert (k.work.precision, k.work.baseline_precision) == ("fp16", "fp32")
    assert k.work.flops_ratio == pytest.approx(1.0) and k.work.written_ratio == pytest.approx(0.5, rel=0.05)


def test_half_the_flops_is_withheld_as_less_work(tmp_path: Path):
    def skip_half(metrics: dict) -> None:
        for name in list(metrics):
            if "_pred_on.sum.per_cycle_elapsed" in name:
                metrics[name] = metrics[name] / 2

    b = analyze_files([model_variant(tmp_path, FP32, skip_half, "half")], OPTIONS, catalog=_CATALOG)[0]
    [k] = grade_report(b, spec_of(b), baseline=analysed(FP32)).kernels
    assert k.withheld == (Withheld.LESS_WORK,) and k.grade is None
    assert k.work is not None and k.work.flops_ratio == pytest.approx(0.5)


def test_nothing_written_is_withheld_as_no_output_even_without_a_baseline(tmp_path: Path):
    def no_writes(metrics: dict) -> None:
        metrics.update({"lts__t_sectors_srcunit_tex_op_write.sum": 0.0, "dram__bytes_write.sum": 0.0})

    def writes(metrics: dict) -> None:
        metrics.update({"lts__t_sectors_srcunit_tex_op_write.sum": 1e6, "dram__bytes_write.sum": 0.0})

    for edit, expected in ((no_writes, (Withheld.NO_OUTPUT,)), (writes, ())):
        b = analyze_files([model_variant(tmp_path, FP32, edit, edit.__name__)], OPTIONS, catalog=_CATALOG)[0]
        [k] = grade_report(b, spec_of(b)).kernels
        assert k.withheld == expected


def test_a_less_precise_type_is_flagged_and_a_more_precise_one_is_not():
    assert less_precise("tensor:tf32", "fp32") and less_precise("fp16", "tensor:bf16")
    assert not less_precise("fp64", "fp32") and not less_precise("fp32", "fp32")
    assert not less_precise(None, "fp32")


def test_a_kernel_grade_encodes_to_json_within_2000_characters_without_its_launches():
    """The document the CLI and MCP tool carry: enums as their values, one kernel's grade short."""
    import msgspec

    a = analysed(FP32)
    [k] = grade_report(a, spec_of(a), baseline=a).kernels
    doc = msgspec.to_builtins(k)
    assert doc["conditions"][0]["state"] == "locked_base" and doc["confidence"] == "low"
    doc.pop("per_launch")
    doc["work"].pop("check")
    assert len(msgspec.json.encode(doc)) < 2000


def _has_ncu_report() -> bool:
    try:
        import ncu_report  # noqa: F401
    except ImportError:
        return False
    return True


def test_examples_found():
    """The parametrized examples include the GEMM pair and the H100 ops models."""
    names = {p.name for p in EXAMPLES}
    assert {FP32.name, BF16.name} <= names and SHARED_REPORTS.name == "ncu-reps"


def test_a_tail_within_5_percent_of_its_unit_is_named_by_the_unit_as_project_names_it():
    """op13's SGEMM: 512 blocks on 132 SMs, issue-bound; its floor is the issue slots in whole blocks per SM
    (ceil(3.88) / 3.88 = 1.03 x the issue term), so the grade says "issue" as `project` does, the time unchanged.
    Every floor still named "tail" in the examples is more than 5% above its unit."""
    from roofline.analysis.grade import achievable_floor
    from roofline.analysis.time_model import reach, time_model

    a = analysed(REPO / "examples/h100/ops/op13-matmul-for-lower-triangular-matrices.json")
    k = next(k for k in a.valid_launches if k.launch.name.startswith("sm80_xmma_gemm"))
    model = time_model(k, a.device, spec_of(a))
    tail = next(t for t in model.terms if t.kind == "tail")
    unit = next(t for t in model.terms if t.kind != "tail" and t.metric == tail.metric)
    assert unit.key == "issue" and 1.0 < reach(tail) / reach(unit) < 1.05
    floor = achievable_floor(model)
    assert floor is not None and floor.key == "issue" and floor.seconds == pytest.approx(reach(tail), rel=1e-12)
    kg = next(g for g in grade_report(a, spec_of(a)).kernels if g.kernel.startswith("sm80_xmma_gemm"))
    assert kg.governing == "issue"
    named_tail = 0
    for path in EXAMPLES:
        b = analysed(path)
        for la in b.valid_launches:
            m = time_model(la, b.device, spec_of(b))
            found = achievable_floor(m)
            if found is not None and found.key == "tail":
                tail = next(t for t in m.terms if t.kind == "tail")
                unit = next(t for t in m.terms if t.kind != "tail" and t.metric == tail.metric)
                assert reach(tail) > 1.05 * reach(unit)
                named_tail += 1
    assert named_tail  # some floors are whole blocks well above their unit (few waves)


def test_a_floor_set_by_a_units_slower_counter_names_that_counter_and_its_fraction(shared_report):
    """RTX 2070 SUPER render_kernel: its L2's busiest counter is the crossbar (60% of its peak, full peak reachable),
    but its sectors at 51% of theirs over 0.80 take longer: the grade's floor names lts__t_sectors at 0.80, not the
    crossbar at 0.94 (the crossbar's time over the sectors' reachable time, a share of no peak)."""
    from roofline.analysis.grade import achievable_floor

    a = analyze_files([shared_report("rtx2070super_alife-143launches_basic")])[0]
    render = next(k for k in a.valid_launches if k.launch.name == "render_kernel")
    floor = achievable_floor(render.time_model)
    metrics, duration = render.launch.metrics, render.duration_s.value
    sectors = metrics["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] / 100 * duration
    assert floor.metric.startswith("lts__t_sectors") and floor.fraction == pytest.approx(l2_default())
    assert floor.seconds == pytest.approx(sectors / l2_default())
