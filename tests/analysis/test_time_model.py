"""The time model of a launch (roofline.analysis.time_model), checked against values computed here from the raw
metrics (read with ncu_report directly, tests/conftest.py raw_actions), and against the verdict: its busiest unit is
the model's largest unit term on every launch of ../shared/ncu-reps and examples/h100 that has both."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from roofline.analysis.time_model import LAUNCH_FLOOR_S, Change, changed, saving, time_model
from roofline.pipeline import analyze_files
from tests.conftest import SHARED_REPORTS, shared_report_names

REPO = Path(__file__).resolve().parents[2]
DURATION = "gpu__time_duration.sum"
DRAM_PREFIXES = ("dram__", "fbpa__")
_ANALYSES: dict[str, object] = {}


def analysed(path: Path):
    if str(path) not in _ANALYSES:
        _ANALYSES[str(path)] = analyze_files([path])[0]
    return _ANALYSES[str(path)]


def _breakdown(raw, side: str) -> list[str]:
    listed = raw.value(f"breakdown:{side}")
    return [u.strip() for u in str(listed).split(",") if u.strip()] if listed else []


def test_dram_term_and_tail_equal_the_raw_metrics_on_the_t4_matrix_add(raw_actions):
    """DRAM: the largest DRAM counter's percent of peak x gpu__time_duration; tail: the busiest SM unit x
    ceil(B / S) / (B / S), blocks and SMs as ncu stored them."""
    name = "t4_matrix-add-2d_full"
    [raw] = raw_actions(name)
    k = next(iter(analysed(SHARED_REPORTS / f"{name}.ncu-rep").valid_launches))
    model = k.time_model
    duration = raw[DURATION] * 1e-9
    units = _breakdown(raw, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") + \
        _breakdown(raw, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    dram = max(raw[u] for u in units if u.startswith(DRAM_PREFIXES))
    assert model.term("DRAM").seconds == pytest.approx(dram / 100 * duration, rel=1e-9)
    assert model.floor.key == "DRAM" and model.floor_s == pytest.approx(dram / 100 * duration, rel=1e-9)
    assert model.slack_s == pytest.approx(duration - dram / 100 * duration, rel=1e-9)
    sm_units = [u for u in units if u.split("__")[0] in ("sm", "smsp", "l1tex", "idc")
                and "_internal_activity" not in u]
    busiest_sm = max(raw[u] for u in sm_units) / 100 * duration
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    assert model.term("tail").seconds == pytest.approx(busiest_sm * math.ceil(blocks / sms) / (blocks / sms),
                                                       rel=1e-9)
    assert model.term("launch").seconds == LAUNCH_FLOOR_S


def _reports() -> list[Path]:
    shared = [SHARED_REPORTS / f"{n}.ncu-rep" for n in shared_report_names() if SHARED_REPORTS.is_dir()]
    return shared + sorted((REPO / "examples" / "h100").glob("*.ncu-rep"))


@pytest.mark.parametrize("path", _reports(), ids=lambda p: p.name)
def test_verdicts_busiest_unit_is_the_largest_term_of_the_model(path):
    """Where a launch has both a throughput verdict and unit terms, the verdict's busiest unit is the model's largest
    unit term (the same breakdown counter). Where one is missing, both say why (no launch time, no breakdowns)."""
    if not path.exists():
        pytest.skip(f"{path.parent} not found: the shared reports are needed")
    for k in analysed(path).valid_launches:
        model, busiest = k.time_model, k.verdict.busiest
        if model.reason or busiest is None or k.verdict.basis != "throughput":
            assert model.reason or k.verdict.reason or busiest is None
            continue
        largest = model.largest_unit
        assert largest.inputs["pct_of_peak"] == pytest.approx(busiest.pct), (k.launch.name, largest, busiest)


def test_a_change_away_from_the_floor_saves_nothing_and_one_at_it_saves_measured_minus_new_floor():
    k = next(iter(analysed(SHARED_REPORTS / "t4_matrix-add-2d_full.ncu-rep").valid_launches)) \
        if SHARED_REPORTS.is_dir() else pytest.skip("../shared/ncu-reps not found")
    model = k.time_model
    assert saving(model, Change({"FP64": 0.0})).seconds == 0.0  # not the floor: nothing
    half = saving(model, Change({"DRAM": 0.5}))
    after = changed(model, Change({"DRAM": 0.5}))
    # measured to the peak the kernel can reach: each term's time at its achievable peak where it has one
    assert half.moved and half.seconds == pytest.approx(
        model.measured_s - max(t.achievable_s or t.seconds for t in after.terms))
    everything = saving(model, Change({t.key: 0.0 for t in model.terms if t.kind != "launch"}))
    assert everything.seconds == pytest.approx(model.measured_s - LAUNCH_FLOOR_S)  # never below the launch floor
    hidden = saving(model, Change(hide_latency=True))
    assert hidden.seconds == pytest.approx(max(0.0, model.measured_s - max(t.achievable_s or t.seconds
                                                                            for t in model.terms)))


def test_without_breakdowns_the_roofs_stand_in_work_over_the_kernel_clock_peak():
    """A synthetic launch with FP32 and DRAM counters but no SpeedOfLight breakdowns: each roof term is its work over
    the kernel-clock peak (2 x ffma peak x SM clock; DRAM bytes per cycle x DRAM clock), computed here."""
    from roofline.pipeline import analyze_loaded
    from tests.synthetic import OLD_GPU, launch, model, peak_dram, peak_fp32

    report = model("synthetic.json", [launch(0, "k", 2e-3, 5e8, 1e8, OLD_GPU)])
    k = next(iter(analyze_loaded(report).valid_launches))
    terms = {t.key: t.seconds for t in k.time_model.terms}
    assert terms["fp32 roof"] == pytest.approx(2 * 5e8 / peak_fp32(OLD_GPU))
    assert terms["dram roof"] == pytest.approx(1e8 / peak_dram(OLD_GPU))
    assert k.time_model.floor.key == "dram roof"  # 1 ms of DRAM against 0.5 ms of FP32
    assert k.time_model.slack_s == pytest.approx(2e-3 - 1e8 / peak_dram(OLD_GPU))


def test_without_a_launch_time_the_model_says_why_and_saves_nothing():
    from msgspec.structs import replace

    from roofline.pipeline import analyze_loaded
    from tests.synthetic import OLD_GPU, launch, model

    one = launch(0, "k", 2e-3, 5e8, 1e8, OLD_GPU)
    one = replace(one, metrics={n: v for n, v in one.metrics.items() if n != DURATION})
    k = next(iter(analyze_loaded(model("synthetic.json", [one])).valid_launches))
    assert k.time_model.reason.startswith("no launch time")
    assert saving(k.time_model, Change(hide_latency=True)) is None


@pytest.mark.parametrize("name", shared_report_names())
def test_no_launchs_recoverable_time_is_more_than_its_time_model_allows(name, shared_report):
    """The recoverable time (the tables' and rankings' time to gain) is at most measured minus the time model's
    floor: the tail of whole blocks per SM included (A10G SGEMM "basic": 106 us, where the busiest unit's gap alone
    said 270 us), and the table's column is each launch's own figure."""
    from roofline.analysis.roofline import recoverable_s
    from roofline.pipeline import analyze_files

    (a,) = analyze_files([shared_report(name)])
    saved = a.launches.table.columns.recoverable
    for i, k in enumerate(a.launches):
        most = recoverable_s(k)
        assert (most is None and (k.launch.invalid or math.isnan(saved[i]))) or most == pytest.approx(saved[i])
        model = k.time_model
        if most is None or model is None or model.reason or model.floor is None:
            continue
        assert most <= max(0.0, k.duration_s.value - model.floor.seconds) * (1 + 1e-9) + 1e-15, k.launch.key


def test_without_breakdowns_the_recoverable_time_takes_the_tail_of_the_roof_terms(tmp_path):
    """The H100 FP64 GEMM example with its SpeedOfLight throughputs and breakdowns taken out: the time model's terms
    are the roofs, its tail the Tensor roof's work in whole blocks per SM; the recoverable time is measured minus
    that tail (57.6 us), not the gap to the roof alone (138 us)."""
    import json

    from roofline.analysis.roofline import recoverable_s

    doc = json.loads((REPO / "examples" / "h100" / "torch-fp64.full.json").read_text())
    for launch in doc["launches"]:
        launch["metrics"] = {k: v for k, v in launch["metrics"].items()
                             if not k.startswith(("breakdown:", "sm__throughput", "gpu__compute_memory_throughput"))}
    path = tmp_path / "no-breakdowns.json"
    path.write_text(json.dumps(doc))
    (k,) = analyze_files([path])[0].launches
    model = k.time_model
    assert model is not None and model.floor is not None and model.floor.kind == "tail"
    assert k.whole_blocks_pct is not None and k.whole_blocks_pct > (k.roof.pct_of_roof or 0.0)
    assert recoverable_s(k) == pytest.approx(k.duration_s.value - model.floor.seconds, rel=1e-9)


def test_the_triad_is_measured_to_the_calibrated_dram_roof():
    """examples/h100 CuPy triad, DRAM-bound at ~74% of the datasheet's 3.35 TB/s: its verdict's item saved ~83 us
    at the datasheet peak; measured to the DRAM roof `roofline calibrate` measured under ncu's clocks
    (device_specs/measured/h100-sxm5.yaml, 2.823 TB/s, read from the file here) it saves the raw duration minus the
    DRAM counter's time at that bandwidth, ~38 us."""
    import re

    from tests.conftest import raw_actions_at

    path = REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep"
    measured = (REPO / "device_specs" / "measured" / "h100-sxm5.yaml").read_text()
    calibrated = float(re.search(r"\n\s*dram:\s*\n\s*method:[^\n]*\n\s*ncu:\s*\n\s*median: ([0-9.e+]+)",
                                 measured).group(1))
    [raw] = raw_actions_at(path)
    duration = raw[DURATION] * 1e-9
    units = _breakdown(raw, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") + \
        _breakdown(raw, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    dram_pct = max(raw[u] for u in units if u.startswith(DRAM_PREFIXES))
    counter = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]  # ncu's peak
    floor = dram_pct / 100 * duration / max(calibrated / counter, dram_pct / 100)
    k = next(iter(analysed(path).valid_launches))
    (item,) = [a for a in k.advice if a.topic == "roof"]
    assert item.est_saved_s == pytest.approx(duration - floor, rel=1e-6)
    assert 35e-6 < item.est_saved_s < 42e-6  # not the ~83 us of the datasheet peak
    assert k.time_model.term("DRAM").seconds == pytest.approx(dram_pct / 100 * duration)  # the datasheet's, kept
    assert "calibrate" in item.change.peak_source


def test_an_achievable_dram_fraction_holds_of_the_peak_at_the_memory_clock_the_launch_ran_at(shared_report):
    """RTX 3080 gemm: ncu's DRAM peak is 733.9 GB/s, the datasheet's 760 GB/s: its DRAM ran at 9.17 of 9.5 GHz
    (dram__cycles_elapsed.avg.per_second), so the fraction the spec gives of the datasheet's peak holds of the
    running one, and the source names the bandwidth applied, not only the datasheet's. The RTX 4090's copyGmem,
    a plain copy at 94.7% of its running peak, stays at its floor (a 0.89 fraction applied past the counter made it
    save 6.7 us)."""
    from roofline.specs.achievable import achievable_fraction
    from roofline.specs.catalog import load_catalog
    from tests.conftest import raw_actions_at

    catalog = {s.id: s for s in load_catalog().specs}
    path = shared_report("rtx3080_sgemm-vs-cublas_full")
    spec = catalog["rtx-3080"]
    a = analyze_files([path])[0]
    k = next(iter(a.valid_launches))
    raw = raw_actions_at(path)[0]
    clock = raw["dram__cycles_elapsed.avg.per_second"]
    counter = raw["dram__bytes.sum.peak_sustained"] * clock
    assert counter / spec.memory_bandwidth_bytes_per_s == pytest.approx(clock / 9.5e9, rel=2e-3)  # the clock's ratio
    dram = time_model(k, a.device, spec).term("DRAM")
    fraction = achievable_fraction(spec, "dram").value
    bytes_moved = raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"]
    assert dram.achievable_s >= bytes_moved / (fraction * counter) * (1 - 0.02)  # at most the fraction of the peak
    applied = f"{counter / 1e9:.3g} GB/s: {fraction * counter / 1e9:.3g} GB/s"
    assert dram.peak_source.endswith(applied)  # the bandwidth applied, named
    transpose = shared_report("rtx4090_smem-transpose_full")
    b = analyze_files([transpose])[0]
    copy = next(k for k in b.valid_launches if k.launch.name == "copyGmem")
    model = time_model(copy, b.device, catalog["rtx-4090"])
    assert model.reach_gap_s == 0.0 and model.term("DRAM").achievable_s == pytest.approx(model.measured_s)


def test_a_rate_calibrated_under_ncus_clocks_is_the_bandwidth_applied(shared_report, tmp_path):
    """A user's calibration of an RTX 3080 under ncu's clocks, 700 GB/s of DRAM: the rate was measured at the clocks
    the report's kernels ran at, so the floor of the gemm's DRAM term is its bytes at 700 GB/s, not a fraction
    700 / 760 of ncu's 733.9 GB/s counter (676 GB/s, the clock difference taken off twice)."""
    import yaml

    from roofline.specs.catalog import load_catalog
    from tests.conftest import raw_actions_at

    rate = 700e9
    roof = {"median": rate, "low": rate, "high": rate, "runs": 5, "sm_clock_hz": 1.44e9}
    (tmp_path / "rtx-3080.yaml").write_text(yaml.safe_dump({
        "id": "rtx-3080", "measured": {"device": "NVIDIA GeForce RTX 3080", "date": "2026-12-07",
                                       "software": "test", "roofs": {"dram": {"method": "STREAM copy",
                                                                              "ncu": roof}}}}))
    spec = load_catalog([tmp_path]).get("rtx-3080")
    assert spec.measured is not None
    path = shared_report("rtx3080_sgemm-vs-cublas_full")
    a = analyze_files([path])[0]
    k = next(iter(a.valid_launches))
    raw = raw_actions_at(path)[0]
    counter = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]
    dram = time_model(k, a.device, spec).term("DRAM")
    assert dram.achievable_s == pytest.approx(dram.seconds * counter / rate, rel=1e-9)
    assert "0.7 TB/s" in dram.peak_source and "own peak" not in dram.peak_source


def test_the_default_l2_fraction_is_what_the_h100_and_h200_calibrations_reached_of_ncus_l2_peak():
    """device_specs/architecture/memory.yaml's 0.80: each calibration's L2 rate under ncu's clocks over ncu's L2 peak
    for the triad launches of examples/h100 and examples/h200 (their kernel-clock L2 roof: the L2 sector peak at the
    L2 clock ncu locks, the clock the calibration ran at): 0.802 and 0.799."""
    import yaml

    from roofline.specs.achievable import l2_default_fraction

    for gpu, spec_id in (("h100", "h100-sxm5"), ("h200", "h200")):
        l2 = yaml.safe_load((REPO / "device_specs" / "measured" / f"{spec_id}.yaml").read_text())
        ncu = l2["measured"]["roofs"]["l2"]["ncu"]
        k = next(iter(analysed(REPO / "examples" / gpu / "triad-cupy.full.ncu-rep").valid_launches))
        assert ncu["median"] / k.ceilings["kernel-clock"].bytes_per_s["l2"] == pytest.approx(0.80, abs=0.003)
    assert l2_default_fraction().value == pytest.approx(0.80)


def test_an_l2_term_in_sectors_is_measured_to_the_default_fraction_and_the_crossbar_to_its_peak(shared_report):
    """A100 CUB sort (no L2 calibration for the A100): the Onesweep launches' L2 term counts lts__t_sectors, so its
    floor is its time over 0.80 (or over the fraction the launch itself reached, where higher); the RTX 2070 SUPER's
    render_kernel's busiest L2 counter is the crossbar's cycles active, which may reach every cycle (its full peak),
    but its sectors at 0.80 of their peak take longer: the term's reachable time is theirs."""
    a = analyze_files([shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic")])[0]
    sweeps = [k for k in a.valid_launches if k.launch.name.startswith("DeviceRadixSortOnesweepKernel")]
    assert sweeps
    for k in sweeps:
        l2 = k.time_model.term("L2")
        assert l2.metric.startswith("lts__t_sectors")
        fraction = max(0.80, l2.seconds / k.duration_s.value)
        assert l2.achievable_s == pytest.approx(l2.seconds / fraction)
        assert l2.peak_kind.value in ("achievable", "reached")
    b = analyze_files([shared_report("rtx2070super_alife-143launches_basic")])[0]
    render = next(k for k in b.valid_launches if k.launch.name == "render_kernel")
    l2 = render.time_model.term("L2")
    metrics, duration = render.launch.metrics, render.duration_s.value
    xbar = metrics["lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"] / 100 * duration
    sectors = metrics["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] / 100 * duration
    assert l2.metric.startswith("lts__xbar2lts_cycles_active") and l2.seconds == pytest.approx(xbar)
    assert sectors < xbar < sectors / 0.80
    assert l2.reach_s == pytest.approx(sectors / 0.80) and l2.peak_source.startswith("lts__t_sectors: 0.80 of ncu")
