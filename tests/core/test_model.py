"""The plain data model: frozen records, numeric access, and the serialized ``*.roofline.json`` form."""

from __future__ import annotations

import json
import pickle
from typing import Any

import msgspec
import pytest

from roofline.core.model import (
    LEVELS,
    MODEL_FORMAT,
    MODEL_VERSION,
    PRECISIONS,
    Ceilings,
    Device,
    FocusMetric,
    KernelLaunch,
    MetricRow,
    Report,
    RuleResult,
)


def sample_report() -> Report:
    device = Device(name="NVIDIA H100 PCIe", compute_capability="9.0", sm_count=114, max_clock_hz=1.755e9,
                    memory_clock_hz=1.593e9, memory_bus_width_bits=5120, l2_cache_bytes=52428800,
                    total_memory_bytes=85029158912, attributes={"display_name": "NVIDIA H100 PCIe", "l2s_count": 80})
    first = KernelLaunch(
        range_index=0, action_index=0, name="gemm", demangled_name="void gemm<float>(float*)",
        mangled_name="_Z4gemmIfEvPT_", grid=(128, 2, 1), block=(256, 1, 1), registers_per_thread=64,
        shared_mem_per_block_bytes=49152, nvtx_ranges=("step", "forward"),
        metrics={"gpu__time_duration.sum": 1000.0, "launch__grid_dim_x": 128, "note": "text"},
        nan_metrics=frozenset({"dram__bytes.sum.per_second"}),
        rules=(RuleResult("SOLBottleneck", "SpeedOfLight", "Latency", "Low throughput.", "optimization"),),
    )
    second = KernelLaunch(range_index=1, action_index=0, name="copy")
    return Report(path="run.ncu-rep", device=device, launches=(first, second), label="sample")


def test_compute_capability_helpers():
    assert Device("x", "8.6").cc_major == 8 and Device("x", "8.6").cc_tuple == (8, 6)
    assert Device("x", "12.0").cc_tuple == (12, 0) > Device("x", "9.0").cc_tuple
    assert Device("x").cc_major is None and Device("x").cc_tuple is None


def test_records_are_frozen_and_mappings_read_only() -> None:
    report = sample_report()
    launch = report.launches[0]
    with pytest.raises(AttributeError):
        launch.name = "other"  # type: ignore[misc]  # the assignment this test expects to fail
    with pytest.raises(TypeError):
        launch.metrics["gpu__time_duration.sum"] = 0.0  # type: ignore[index]  # read-only, as tested
    with pytest.raises(TypeError):
        report.device.attributes["l2s_count"] = 1  # type: ignore[index]  # read-only, as tested


def test_value_is_numeric_or_none():
    launch = sample_report().launches[0]
    assert launch.value("gpu__time_duration.sum") == 1000.0
    assert launch.value("launch__grid_dim_x") == 128.0 and isinstance(launch.value("launch__grid_dim_x"), float)
    assert launch.value("note") is None  # a string metric is not a number
    assert launch.value("absent") is None
    assert launch.value("dram__bytes.sum.per_second") is None  # NaN metrics are not stored as values
    assert launch.key == "0:0" and sample_report().launches[1].key == "1:0"


def test_ceilings_always_have_every_precision_and_level():
    c = Ceilings("measured-clock", {"fp32": 1e12, "bogus": 5.0}, {"dram": 1e11}, missing={"fp64": "no dfma peak"})
    assert tuple(c.flop_per_s) == PRECISIONS and tuple(c.bytes_per_s) == LEVELS
    assert c.flop_per_s["fp32"] == 1e12 and c.flop_per_s["fp64"] is None and "bogus" not in c.flop_per_s
    assert c.bytes_per_s["l1"] is None and c.missing["fp64"] == "no dfma peak"


def test_to_dict_is_plain_json_and_round_trips():
    report = sample_report()
    data = report.to_dict()
    assert data["format"] == MODEL_FORMAT and data["version"] == MODEL_VERSION and data["label"] == "sample"
    text = json.dumps(data, allow_nan=False)
    again = Report.from_dict(json.loads(text), "run.roofline.json")
    assert again.launches == report.launches
    assert again.device == report.device
    assert again.source == "model" and again.path == "run.roofline.json" and again.label == "sample"
    assert again.launches[0].grid == (128, 2, 1) and again.launches[0].nvtx_ranges == ("step", "forward")
    assert again.launches[0].rules[0].kind == "optimization"
    assert again.launches[0].nan_metrics == frozenset({"dram__bytes.sum.per_second"})
    assert again.launches[1].grid is None and again.launches[1].rules == ()
    assert "ncu_version" not in data and again.ncu_version == ""  # unknown: not written, read back as unknown
    versioned = msgspec.structs.replace(report, ncu_version="2024.1.0.0").to_dict()
    assert Report.from_dict(versioned, "v.json").ncu_version == "2024.1.0.0"


def test_a_model_of_an_incomplete_report_stays_incomplete_and_says_so(tmp_path):
    """A model saved from a report cut short keeps the mark (``diff`` refuses such a report), and loading it warns;
    a complete report's model does not write the field."""
    import roofline

    assert "incomplete" not in sample_report().to_dict()
    path = tmp_path / "cut.roofline.json"
    path.write_text(json.dumps(msgspec.structs.replace(sample_report(), incomplete=True).to_dict()))
    again = roofline.load(path)
    assert again.incomplete and any("incomplete report" in w for w in again.warnings)


def test_rules_keep_focus_metrics_and_speedups_and_older_models_still_load():
    rule = RuleResult("CPIStall", "WarpStateStats", "Wait Stalls", "Waits 13.8 cycles.", "optimization",
                      (FocusMetric("smsp_average_wait", 13.8, 0, "Decrease wait stalls"),), 23.2, "global")
    report = Report("r.json", Device("GPU"), (KernelLaunch(0, 0, "k", rules=(rule,)),), source="model")
    again = Report.from_dict(json.loads(json.dumps(report.to_dict())), "r.json")
    assert again.launches[0].rules == (rule,)
    old = report.to_dict()  # a model written before focus metrics and speedups were kept
    for item in old["launches"]["rules"][0]:
        del item["focus_metrics"], item["speedup_pct"], item["speedup_type"]
    (loaded,) = Report.from_dict(old, "old.json").launches[0].rules
    assert (loaded.focus_metrics, loaded.speedup_pct, loaded.speedup_type) == ((), None, "")


def test_malformed_launch_is_an_error_not_a_partial_model():
    data = sample_report().to_dict()
    del data["launches"]["name"]
    with pytest.raises(KeyError):
        Report.from_dict(data, "x.json")
    old = version_1(sample_report().to_dict())
    del old["launches"][0]["name"]
    with pytest.raises(TypeError):
        Report.from_dict(old, "x.json")


def version_1(data: dict[str, Any]) -> dict[str, Any]:
    """The version-1 form of a model ``to_dict`` wrote: one object per launch, holding the metrics it has."""
    columns = data["launches"]
    fields = [key for key in columns if key not in ("count", "metrics")]
    launches = [{**{key: columns[key][i] for key in fields},
                 "metrics": {name: column[i] for name, column in columns["metrics"].items() if column[i] is not None}}
                for i in range(columns["count"])]
    return {**data, "version": 1, "launches": launches}


def test_version_2_holds_launches_by_column_with_each_metric_name_once():
    data = sample_report().to_dict()
    columns = data["launches"]
    assert data["version"] == 2 and columns["count"] == 2
    assert columns["name"] == ["gemm", "copy"] and columns["grid"] == [[128, 2, 1], None]
    assert columns["metrics"] == {"gpu__time_duration.sum": [1000.0, None], "launch__grid_dim_x": [128, None],
                                  "note": ["text", None]}  # null: the second launch does not hold the metric
    assert columns["nan_metrics"] == [["dram__bytes.sum.per_second"], []]


def test_version_1_and_version_2_load_the_same_launches():
    data = json.loads(json.dumps(sample_report().to_dict()))
    new, old = Report.from_dict(data, "v2.json"), Report.from_dict(version_1(data), "v1.json")
    assert new.launches == old.launches == sample_report().launches
    assert dict(new.launches[0].metrics) == {"gpu__time_duration.sum": 1000.0, "launch__grid_dim_x": 128,
                                             "note": "text"}
    assert dict(new.launches[1].metrics) == {} and "note" not in new.launches[1].metrics


def test_a_launch_of_version_2_reads_its_metrics_from_the_shared_columns():
    report = Report.from_dict(json.loads(json.dumps(sample_report().to_dict())), "v2.json")
    first, second = (launch.metrics for launch in report.launches)
    assert isinstance(first, MetricRow) and first.table is second.table  # one table, no dict per launch
    assert list(first) == ["gpu__time_duration.sum", "launch__grid_dim_x", "note"] and len(first) == 3
    assert first["launch__grid_dim_x"] == 128 and first.get("absent", 7) == 7 and second.get("note") is None
    with pytest.raises(KeyError):
        second["note"]  # noqa: B018  # the lookup is what is tested
    with pytest.raises(TypeError):
        first["note"] = "changed"  # read-only, as tested (a Mapping has no item assignment)
    again = pickle.loads(pickle.dumps([first, second]))  # as an analysis is sent from a worker
    assert again == [first, second] and again[0].table is again[1].table


def test_a_kernel_name_is_bounded_before_anything_searches_it():
    """Issue 37: a 200 MB kernel name took minutes in the library patterns; names are cut to MAX_NAME_CHARS."""
    from roofline.core.model import MAX_NAME_CHARS

    huge = "k" * (3 * MAX_NAME_CHARS)
    launch = KernelLaunch(0, 0, huge, demangled_name=huge, mangled_name="m")
    assert len(launch.name) == len(launch.demangled_name) == MAX_NAME_CHARS
    assert launch.name.endswith("k…") and launch.mangled_name == "m"
    assert KernelLaunch(0, 0, "k" * MAX_NAME_CHARS).name == "k" * MAX_NAME_CHARS
