"""The validation layer: every case of issue 15 that ended in a traceback or passed silently, with its fixed outcome.

Report models are the shipped synthetic example with one field changed; .ncu-rep cases are real reports from
../shared/ncu-reps cut, appended or padded the way the issue describes. Three outcomes: a one-line error naming
the file and the field (exit 2); a launch kept but marked invalid (left out of times, rankings and verdicts); a
report warning in every output.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.model import Device, KernelLaunch, Report
from roofline.errors import ReportError
from roofline.ncu.metrics import UNMEASURED, measured_nothing
from roofline.ncu.reader import load_report
from roofline.ncu.validation import (
    MAX_REGISTERS_PER_THREAD,
    MODEL_FIX,
    SM_COUNT,
    Limit,
    check_report,
    device_problem,
    launch_problem,
)
from roofline.render.report.json import with_reasons
from roofline.specs.safe_yaml import first_line_deeper_than
from tests.ncu_blocks import blocks

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "h100-sxm_synthetic.roofline.json"
BASE = json.loads(EXAMPLE.read_text())  # a version-1 model: one object per launch
BASE_V2 = json.loads(json.dumps(load_report(EXAMPLE).to_dict()))  # the same model, launches by column
runner = CliRunner()


def model(tmp_path: Path, change: Any, text: str | None = None) -> Path:
    """The example model with ``change(doc)`` applied (or the raw ``text``), written to a file."""
    path = tmp_path / "model.json"
    if text is not None:
        path.write_text(text)
        return path
    doc = copy.deepcopy(BASE)
    change(doc)
    path.write_text(json.dumps(doc))  # allow_nan: NaN and Infinity are written as the files had them
    return path


def error_line(path: Path) -> str:
    """The one-line error a bad file gives, through the CLI (exit 2, one line naming the file, no traceback)."""
    result = runner.invoke(app, ["report", str(path), "-f", "json"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith(f"roofline: error: {path}: "), lines[0]
    return lines[0]


def json_of(path: Path) -> dict[str, Any]:
    """The JSON output of a run that goes on (exit 0); NaN or infinity would make json.loads fail here."""
    result = runner.invoke(app, ["report", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in the output"))


def setter(where: str, value: Any):
    """A change that sets ``doc[...]`` along a path of keys separated by "/" (integers index lists)."""
    def change(doc: dict[str, Any]) -> None:
        *parents, last = where.split("/")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return change


# --- Report models that ended in a traceback: now one line naming the field ------------------------------------------
@pytest.mark.parametrize("where, value, words", [
    ("device/name", 42, "device.name: expected `str`, got `int`"),
    ("device/name", ["A", "B"], "device.name: expected `str`, got `array`"),
    ("device/compute_capability", "8", "device compute_capability is '8', expected major.minor"),
    ("device/compute_capability", "9.0a", "device compute_capability is '9.0a', expected major.minor"),
    ("device/compute_capability", 8.0, "device.compute_capability: expected `str | null`, got `float`"),
    ("device/max_clock_hz", math.nan, "device max_clock_hz is nan, expected a finite number"),
    ("device/memory_clock_hz", math.inf, "device memory_clock_hz is inf, expected a finite number"),
    ("device/sm_count", 0, "device sm_count is 0, expected 0 < value < 10000"),
    ("device/sm_count", -1, "device.sm_count: expected `int` >= 0"),
    ("device/sm_count", 10**400, "device sm_count is out of the range of numbers"),
    ("device/sm_count", 2.5, "device.sm_count: expected `int | null`, got `float`"),
    ("device/attributes/max_warps_per_multiprocessor", math.inf,
     "device attributes.max_warps_per_multiprocessor is inf, expected a finite number"),
    ("launches/0/name", 7, "launches[0].name: expected `str`, got `int`"),
    ("launches/0/name", ["k"], "launches[0].name: expected `str`, got `array`"),
    ("launches/0/metrics/gpu__time_duration.sum", 10**400,
     "launches[0].metrics.gpu__time_duration.sum is out of the range of numbers"),
    ("launches/0/metrics/dram__bytes.sum", True,
     "launches[0].metrics.dram__bytes.sum: expected `int | float | str`, got `bool`"),
    ("launches/0/metrics/dram__bytes.sum", [1.0],
     "launches[0].metrics.dram__bytes.sum: expected `int | float | str`, got `array`"),
    ("launches/0/metrics/dram__bytes.sum", None,
     "launches[0].metrics.dram__bytes.sum: expected `int | float | str`, got `null`"),
    ("launches/0/grid", "wide", "launches[0].grid: expected `array | null`, got `str`"),
    ("launches/0/grid", 7, "launches[0].grid: expected `array | null`, got `int`"),
    ("launches/0/bogus", 1, "launches[0]: object contains unknown field `bogus`"),
    ("ncu_version", 2024.1, "ncu_version: expected `str`, got `float`"),
])
def test_malformed_model_is_one_line_naming_the_field(tmp_path, where, value, words):
    line = error_line(model(tmp_path, setter(where, value)))
    assert words in line and line.endswith(MODEL_FIX), line


@pytest.mark.parametrize("where, value, words", [
    ("launches/count", "3", "launches.count: expected `int`, got `str`"),
    ("launches/count", 4, "launches.range_index has 3 values, expected one per launch (4, launches.count)"),
    ("launches/name", "k", "launches.name: expected `array`, got `str`"),
    ("launches/name/1", 7, "launches.name[1]: expected `str`, got `int`"),
    ("launches/action_index/2", -1, "launches.action_index[2]: expected `int` >= 0"),
    ("launches/grid/0", [1, 2], "launches.grid[0]: expected `array` of length 3, got 2"),
    ("launches/grid/0", 7, "launches.grid[0]: expected `array | null`, got `int`"),
    ("launches/block/2", 256, "launches.block[2]: expected `array | null`, got `int`"),
    ("launches/block/1", [1, 1.5, 1], "launches.block[1][1]: expected `int`, got `float`"),
    ("launches/registers_per_thread/0", True, "launches.registers_per_thread[0]: expected `int | null`, got `bool`"),
    ("launches/nvtx_ranges/2", ["a", 1], "launches.nvtx_ranges[2][1]: expected `str`, got `int`"),
    ("launches/rules/1", [{"rule": "x"}], "launches.rules[1][0]: object missing required field `section`"),
    ("launches/metrics/dram__bytes.sum", {"0": 1.0},
     "launches.metrics.dram__bytes.sum: expected `array`, got `object`"),
    ("launches/metrics/dram__bytes.sum/1", True,
     "launches.metrics.dram__bytes.sum[1]: expected `int | float | str | null`, got `bool`"),
    ("launches/metrics/dram__bytes.sum/2", [1.0],
     "launches.metrics.dram__bytes.sum[2]: expected `int | float | str | null`, got `array`"),
    ("launches/metrics/gpu__time_duration.sum/0", 10**400,
     "launches.metrics.gpu__time_duration.sum[0] is out of the range of numbers"),
    ("launches/metrics/gpu__time_duration.sum/1", 10**305,
     "launches.metrics.gpu__time_duration.sum[1] is out of the range of numbers"),
    ("launches/metrics", True, "launches.metrics: expected `object`, got `bool`"),
    ("launches/metrics", 0, "launches.metrics: expected `object`, got `int`"),
    ("launches/metrics", "a text", "launches.metrics: expected `object`, got `str`"),
    ("launches/bogus", [], "launches: object contains unknown field `bogus`"),
    ("version", 3, "unsupported model version 3, expected 1 or 2"),
])
def test_malformed_version_2_model_is_one_line_naming_the_column_and_launch(tmp_path, where, value, words):
    line = error_line(model(tmp_path, lambda doc: (doc.update(copy.deepcopy(BASE_V2)), setter(where, value)(doc))))
    assert words in line, line


def test_version_2_model_marks_the_same_launches_as_version_1(tmp_path):
    """The example with an impossible duration, clock and count in launches 1 and 2: the same invalid launches and
    messages whether its launches are objects (version 1) or columns (version 2)."""
    def bad(doc: dict[str, Any]) -> None:
        doc["launches"][1]["metrics"]["gpu__time_duration.sum"] = 0.0
        doc["launches"][2]["metrics"]["sm__cycles_elapsed.avg.per_second"] = 5e10
        doc["launches"][2]["metrics"]["dram__bytes.sum"] = -1.0
    old = load_report(model(tmp_path, bad))
    (tmp_path / "v2.json").write_text(json.dumps(old.to_dict()))
    new = load_report(tmp_path / "v2.json")
    assert [k.invalid for k in new.launches] == [k.invalid for k in old.launches]
    assert [bool(k.invalid) for k in new.launches] == [False, True, True]
    assert new.launches[1].invalid == "gpu__time_duration.sum is 0, expected 0 < value <= 8.64e+13"


RULE = {"rule": "CPIStall", "section": "WarpStateStats", "title": "Wait Stalls", "message": "Waits 13.8 cycles.",
        "kind": "optimization"}


@pytest.mark.parametrize("extra, words", [
    ({"speedup_pct": "lots"}, "rules[0].speedup_pct: expected `float | null`, got `str`"),
    ({"speedup_type": "sideways"}, "rules[0].speedup_type: invalid enum value 'sideways'"),
    ({"focus_metrics": {"name": "x"}}, "rules[0].focus_metrics: expected `array`, got `object`"),
    ({"focus_metrics": [{"name": "x", "value": "high"}]},
     "rules[0].focus_metrics[0].value: expected `float | null`, got `str`"),
    ({"focus_metrics": [{"value": 1.0}]}, "rules[0].focus_metrics[0]: object missing required field `name`"),
])
def test_malformed_rule_speedups_and_focus_metrics_are_one_line(tmp_path, extra, words):
    line = error_line(model(tmp_path, setter("launches/0/rules", [{**RULE, **extra}])))
    assert words in line, line


def test_rules_with_and_without_speedups_load(tmp_path):
    full = {**RULE, "focus_metrics": [{"name": "smsp_average_wait", "value": 13.8, "severity": 0, "info": ""}],
            "speedup_pct": 23.2, "speedup_type": "global"}
    for rules in ([RULE], [full]):  # a model written before speedups were kept, and one written now
        (rule,) = load_report(model(tmp_path, setter("launches/0/rules", rules))).launches[0].rules
        assert rule.speedup_pct == (23.2 if rules == [full] else None)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_model_is_one_line(tmp_path, depth):
    text = json.dumps({**BASE, "label": "x"}).replace('"x"', "[" * depth + "]" * depth)
    line = error_line(model(tmp_path, None, text))
    assert "nested too deeply" in line or "label is list, expected a string" in line


def test_non_utf8_model_is_one_line(tmp_path):
    path = tmp_path / "model.json"
    path.write_bytes(json.dumps(BASE).encode().replace(b"SYNTHETIC", b"SYNTH\xe9TIC"))
    assert "not UTF-8 text" in error_line(path)


# --- Impossible launch attributes: kept, marked invalid, the run goes on ------------------------------------------
@pytest.mark.parametrize("where, value, reason", [
    ("launches/0/metrics/gpu__time_duration.sum", -1.0, "gpu__time_duration.sum is -1, expected 0 < value"),
    ("launches/0/metrics/gpu__time_duration.sum", 0.0, "gpu__time_duration.sum is 0, expected 0 < value"),
    ("launches/0/metrics/gpu__time_duration.sum", math.nan, "gpu__time_duration.sum is nan, expected a finite"),
    ("launches/0/metrics/gpu__time_duration.sum", 1e308,
     "gpu__time_duration.sum is 1e+308, expected 0 < value <= 8.64e+13"),
    ("launches/0/metrics/gpu__time_duration.sum", 8.64e13 * 1.001,
     "gpu__time_duration.sum is 8.64864e+13, expected 0 < value <= 8.64e+13"),
    ("launches/0/metrics/smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", -5.0,
     "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum is -5, expected 0 <= value"),
    ("launches/0/metrics/dram__bytes.sum", math.inf, "dram__bytes.sum is inf, expected a finite number"),
    ("launches/0/metrics/dram__bytes.sum", -math.inf, "dram__bytes.sum is -inf, expected a finite number"),
    ("launches/0/metrics/sm__cycles_elapsed.avg.per_second", 0.0,
     "sm__cycles_elapsed.avg.per_second is 0, expected 1e+08 <= value <= 1e+10"),
    ("launches/0/registers_per_thread", 8_700_000_000, "registers_per_thread is 8.7e+09, expected 0 <= value <= 255"),
    ("launches/0/grid", [0, 0, 0], "grid[0] is 0, expected 1 <= value"),
    ("launches/0/metrics/launch__grid_size", math.inf, "launch__grid_size is inf, expected a finite number"),
    ("launches/0/metrics/launch__grid_size", 1e308, "launch__grid_size is 1e+308, expected 1 <= value"),
    ("launches/0/block", [2048, 1, 1], "block threads is 2048, expected 0 <= value <= 1024"),
    ("launches/0/shared_mem_per_block_bytes", 10**12,
     "shared_mem_per_block_bytes is 1e+12, expected 0 <= value <= 1.04858e+06"),
])
def test_impossible_launch_is_kept_invalid_and_the_run_goes_on(tmp_path, where, value, reason):
    doc = json_of(model(tmp_path, setter(where, value)))["reports"][0]
    first, *others = [with_reasons(k, doc["reasons"]) for k in doc["kernels"]]
    assert first["valid"] is False and first["duration_s"] is None and first["pct_of_roof"] is None
    assert first["missing"]["duration_s"].startswith("invalid launch: ") and reason in first["missing"]["duration_s"]
    assert all(k["valid"] and k["pct_of_roof"] is not None for k in others)  # the others are analysed
    assert first["name"] not in {g["name"] for g in doc["groups"]}  # and only they are ranked
    assert doc["total_time_s"] == pytest.approx(sum(k["duration_s"] for k in others))
    why = first["missing"]["duration_s"].removeprefix("invalid launch: ")
    assert doc["warnings"] == [f"1 of 3 launches are invalid and left out of times, rankings and verdicts "
                               f"(first: 0:0, {why})"]


@pytest.mark.parametrize("value", [0.0, 2e300, 10**300, "a text"])
def test_a_metric_at_any_finite_count_or_a_text_keeps_the_launch_valid(tmp_path, value):
    report = load_report(model(tmp_path, setter("launches/0/metrics/dram__bytes.sum", value)))
    assert [k.invalid for k in report.launches] == ["", "", ""]


def test_a_launch_of_at_most_a_day_is_valid_and_longer_is_not():
    """One launch's duration is at most a day (``MAX_LAUNCH_NS``): far past any real kernel, yet every figure made
    from it stays finite."""
    from roofline.ncu.validation import MAX_LAUNCH_NS, launch_problems

    day = KernelLaunch(0, 0, "k", metrics={**_GOOD, "gpu__time_duration.sum": MAX_LAUNCH_NS})
    longer = KernelLaunch(0, 1, "k", metrics={**_GOOD, "gpu__time_duration.sum": MAX_LAUNCH_NS * 2})
    assert MAX_LAUNCH_NS == 86_400 * 1e9
    assert launch_problem(day, _DEVICE) is None
    assert launch_problem(longer, _DEVICE) == "gpu__time_duration.sum is 1.728e+14, expected 0 < value <= 8.64e+13"
    assert launch_problems([day, longer], _DEVICE) == {1: launch_problem(longer, _DEVICE)}


def test_an_absurd_finite_duration_is_invalid_in_every_format_never_inf_or_nan(tmp_path):
    """A duration of 1e308 ns printed inf% and nan in the table and Markdown while JSON said null: it is an invalid
    launch now, the same in every format."""
    path = model(tmp_path, setter("launches/0/metrics/gpu__time_duration.sum", 1e308))
    reason = "gpu__time_duration.sum is 1e+308, expected 0 < value <= 8.64e+13"
    outputs = {fmt: runner.invoke(app, ["report", str(path), "-f", fmt, "-o", "-"]) for fmt in ("table", "markdown")}
    summary = runner.invoke(app, ["summary", str(path)])
    for result in (*outputs.values(), summary):
        text = " ".join(result.stdout.split()).replace("\\<", "<")  # the table wraps; Markdown escapes <
        assert result.exit_code == 0 and reason in text
        assert not re.search(r"\binf\b|\bnan\b", text), text
    doc = json_of(path)["reports"][0]
    assert doc["kernels"][0]["valid"] is False and reason in doc["warnings"][0]


def test_invalid_launch_in_every_output(tmp_path):
    path = model(tmp_path, setter("launches/0/registers_per_thread", 8_700_000_000))
    table = runner.invoke(app, ["report", str(path)])
    assert table.exit_code == 0
    assert "warning: 1 of 3 launches are invalid" in table.stdout and "invalid" in table.stdout.split("0:0", 1)[1]
    assert "roofline: warning: " in table.stderr and "1 of 3 launches are invalid" in table.stderr
    for fmt in ("markdown", "html"):
        out = tmp_path / f"r.{fmt}"
        assert runner.invoke(app, ["report", str(path), "-f", fmt, "-o", str(out)]).exit_code == 0
        text = out.read_text()
        assert "1 of 3 launches are invalid" in text and "Invalid launches" in text
    summary = runner.invoke(app, ["summary", str(path), "-f", "json"])
    assert summary.exit_code == 0
    assert "1 of 3 launches are invalid" in json.loads(summary.stdout)["reports"][0]["report"]["warnings"][0]


def test_duplicated_launch_keys_warn_and_the_repeat_is_invalid(tmp_path):
    doc = json_of(model(tmp_path, setter("launches/1/action_index", 0)))["reports"][0]
    assert doc["warnings"][0] == "1 launch record(s) repeat the range:action key of an earlier one"
    assert [k["valid"] for k in doc["kernels"]] == [True, False, True]


def test_zero_peak_counter_is_no_roof(tmp_path):
    """A peak counter of 0 (ncu stores it for launches it missed) gives no roof, with the reason: never a 0 roof."""
    doc = json_of(model(tmp_path, setter("launches/2/metrics/dram__bytes.sum.peak_sustained", 0.0)))["reports"][0]
    ceilings = with_reasons(doc["kernels"][2], doc["reasons"])["ceilings"]["measured-clock"]
    assert ceilings["dram_bytes_per_s"] is None and "is 0, not a peak" in ceilings["missing"]["dram"]


# --- The rules themselves -------------------------------------------------------------------------------------------
def test_limit_bounds_and_messages():
    assert SM_COUNT.problem(132) is None and SM_COUNT.problem(9999) is None
    assert SM_COUNT.problem(10_000) == "is 10000, expected 0 < value < 10000"
    assert SM_COUNT.problem(True) == "is True, expected a number"
    assert Limit(0.0).problem(float("-inf")) == "is -inf, expected a finite number"
    assert Limit(0.0).problem(-0.0) == "is -0, expected 0 <= value"  # issue 37: no count is ever below zero
    assert Limit(-1.0).problem(-0.0) is None and Limit(0.0).problem(0.0) is None


def test_real_device_and_launch_pass(roofline_report, shared_name):
    """Every device and launch of ../shared/ncu-reps is possible: the checks flag only what cannot be."""
    report = roofline_report(shared_name)
    assert device_problem(report.device) is None
    assert [k.key for k in report.launches if launch_problem(k, report.device)] == []
    unmeasured = [k.key for k in report.launches if k.invalid == UNMEASURED]  # a launch ncu did not measure
    assert report.warnings == (() if not unmeasured else (report.warnings[0],))
    assert unmeasured == (["0:44"] if shared_name == "rtx5060ti_transpose-occupancy-45launches_metrics" else [])
    # ncu recorded no counter for it, only how it replayed it (profiler__replayer_*)
    assert all(measured_nothing(k) for k in report.launches if k.key in unmeasured)


def test_launch_problems_name_the_field():
    device = Device("gpu", attributes={"max_shared_memory_per_multiprocessor": 102400, "max_threads_per_block": 1024})
    launch = KernelLaunch(0, 0, "k", registers_per_thread=MAX_REGISTERS_PER_THREAD + 1)
    assert launch_problem(launch, device) == "registers_per_thread is 256, expected 0 <= value <= 255"
    launch = KernelLaunch(0, 0, "k", shared_mem_per_block_bytes=102401)
    assert launch_problem(launch, device) == "shared_mem_per_block_bytes is 102401, expected 0 <= value <= 102400"
    assert launch_problem(KernelLaunch(0, 0, "k", metrics={"launch__grid_size": 0.0}), device) == (
        "launch__grid_size is 0, expected 1 <= value <= 4.29497e+09")
    huge = KernelLaunch(0, 0, "k", metrics={"launch__registers_per_thread": 19_000_000.0})
    assert launch_problem(huge, device) == "launch__registers_per_thread is 1.9e+07, expected 0 <= value <= 255"


_GOOD: dict[str, Any] = {"gpu__time_duration.sum": 2000.0, "sm__cycles_elapsed.avg.per_second": 1.4e9,
                         "dram__bytes.sum": 64, "launch__grid_size": 4, "breakdown:x": "a, b"}
_CHANGES: list[dict[str, Any]] = [
    {}, {"dram__bytes.sum": -1.0}, {"dram__bytes.sum": math.nan}, {"dram__bytes.sum": 10**305},
    {"gpu__time_duration.sum": 0.0}, {"gpu__time_duration.sum": "fast"}, {"dram__bytes.sum": True},
    {"sm__cycles_elapsed.avg.per_second": 5e7}, {"launch__grid_size": 0}, {"launch__grid_size": 2.5},
    {"breakdown:x": "c"}, {"dram__bytes.sum": math.inf}, {"sm__cycles_elapsed.avg.per_second": 1e8},
    {"dram__bytes.sum": -0.0}, {"launch__grid_size": -3}, {"gpu__time_duration.sum": 1500},
    {"gpu__time_duration.sum": 0}, {"sm__cycles_elapsed.avg.per_second": 10**11}]
_DEVICE = Device("gpu", attributes={"max_threads_per_block": 1024})


def _one_change_each(changes: list[dict[str, Any]]) -> list[KernelLaunch]:
    """Launches that differ from a good one in one value each, three times over (to fill cohorts); launches 12 and
    13 have a block too large."""
    return [KernelLaunch(0, i, "k", metrics={**_GOOD, **change}, block=(1025 if i in (12, 13) else 256, 1, 1))
            for i, change in enumerate(changes * 3)]


def test_the_quick_checks_of_a_report_mark_what_launch_problem_finds_and_nothing_else():
    """check_report checks shapes once per shape and metrics one by one only where a quick look at the values finds
    one that may be out of range: the same launches and messages as launch_problem one by one."""
    launches = _one_change_each(_CHANGES)
    checked = check_report(Report("r.json", _DEVICE, tuple(launches)))
    expected = [launch_problem(k, _DEVICE) or "" for k in launches]
    assert [k.invalid for k in checked.launches] == expected
    # 14 impossible values (-0.0 among them, issue 37), three times each; a block too large at 12 (13 holds -0.0)
    assert sum(bool(why) for why in expected) == 43
    assert checked.launches[12].invalid == "block threads is 1025, expected 0 <= value <= 1024"


def test_launch_problems_of_a_batch_are_launch_problem_of_each_launch():
    """The batch check the pipeline runs while a report is read names the same launches and messages."""
    from roofline.ncu.validation import launch_problems

    launches = _one_change_each(_CHANGES)
    expected = {i: why for i, k in enumerate(launches) if (why := launch_problem(k, _DEVICE))}
    assert launch_problems(launches, _DEVICE) == expected and len(expected) == 43


def test_a_model_marks_what_launch_problem_finds_from_its_type_checks_look_at_the_values(tmp_path):
    """A model's type check looks at every metric value once and tells check_report which launches may be out of
    range: loading the model marks the same launches with the same messages as launch_problem one by one."""
    typed = [c for c in _CHANGES if not any(v is True or isinstance(v, int) and v > 1e300 for v in c.values())]
    launches = _one_change_each(typed)
    path = tmp_path / "changes.json"
    path.write_text(json.dumps(Report("r.json", _DEVICE, tuple(launches)).to_dict()))  # NaN and Infinity as Python
    loaded = load_report(path)
    assert [k.invalid for k in loaded.launches] == [launch_problem(k, _DEVICE) or "" for k in launches]
    assert sum(bool(k.invalid) for k in loaded.launches) == 37


# --- .ncu-rep files cut, appended or padded -------------------------------------------------------------------------
T4 = "t4_matrix-add-2d_full"
RTX2080TI = "rtx2080ti_kernels_basic"


def test_appended_report_warns_and_its_launches_are_left_out(shared_report, tmp_path):
    """Issue 15: `cat A.ncu-rep <(tail -c +11 B.ncu-rep)` attributed B's kernels to A's GPU."""
    path = tmp_path / "appended.ncu-rep"
    path.write_bytes(shared_report(T4).read_bytes() + shared_report(RTX2080TI).read_bytes()[10:])
    report = load_report(path)
    assert [(k.name, bool(k.invalid)) for k in report.launches] == [
        ("matrix_addition2D", False), ("kernel_A", True), ("kernel_C", True)]
    assert report.warnings[0] == ("another report is appended at byte 193337: its records are not analysed")
    assert report.warnings[1].startswith("the records name 2 devices ('Tesla T4', ")
    doc = json_of(path)["reports"][0]
    assert [g["name"] for g in doc["groups"]] == ["matrix_addition2D"] and len(doc["warnings"]) == 3


def test_a_launch_ncu_measured_nothing_is_said_so_not_sent_to_another_set(tmp_path):
    """A launch with its launch attributes alone (ncu's record of an error launch): left out as not measured, and no
    --set named to collect what no --set can."""
    def unmeasured(doc: dict[str, Any]) -> None:
        doc["launches"][1]["metrics"] = {"launch__grid_size": 264.0, "device__attribute_display_name": 0.0}
    path = model(tmp_path, unmeasured)
    launches = load_report(path).launches
    assert [bool(k.invalid) for k in launches] == [False, True, False]
    assert launches[1].invalid.startswith("not measured: ncu collected no counters for it")
    result = runner.invoke(app, ["report", str(path)])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "0:1 gemm_bf16_tensor_4096: not measured: ncu collected no counters" in text
    assert "re-profile" not in text.split("0:1 gemm_bf16_tensor_4096: not measured")[1].split("Advice")[0]
    assert json_of(path)["reports"][0]["kernels"][1]["valid"] is False


def test_records_spliced_into_another_gpus_session_are_one_line(shared_report, tmp_path):
    """The RTX 2080 Ti's file header and session records, the T4's kernel results: read as a T4 report before."""
    session, results = shared_report(RTX2080TI).read_bytes(), shared_report(T4).read_bytes()
    head = session[:blocks(session)[0][0]]
    path = tmp_path / "spliced.ncu-rep"
    path.write_bytes(head + b"".join(session[s:e] for s, e, n in blocks(session) if not n)
                     + b"".join(results[s:e] for s, e, n in blocks(results) if n))
    line = error_line(path)
    assert line.endswith("the session records 'NVIDIA GeForce RTX 2080 Ti', but its launches were measured on "
                         "'Tesla T4': records spliced from two reports: use the original report files, or re-profile")


def test_appended_garbage_registers_are_invalid(shared_report, tmp_path):
    """The pair whose appended records read as 8.7e9 registers per thread (and a what-if that hung)."""
    path = tmp_path / "garbage.ncu-rep"
    path.write_bytes(shared_report("rtx5060ti_transpose-occupancy-45launches_metrics").read_bytes()
                     + shared_report("a100-40gb_tree-search_full_ncu2020.3").read_bytes()[10:])
    last = load_report(path).launches[-1]
    assert last.registers_per_thread == 8710913592 and last.invalid
    assert json_of(path)["reports"][0]["kernels"][-1]["valid"] is False


def test_report_cut_inside_its_last_record_keeps_the_complete_launches(shared_report, tmp_path):
    path = tmp_path / "cut.ncu-rep"
    path.write_bytes(shared_report(RTX2080TI).read_bytes()[:95_000])
    report = load_report(path)
    assert [k.name for k in report.launches] == ["kernel_A"]
    assert report.warnings == ("the file ends inside a record (byte 95000; the record starts at 86883): launch 0:1 "
                               "and any after it are missing; copy the file again",)
    assert report.incomplete


def test_report_cut_between_records_is_a_shorter_report(shared_report, tmp_path):
    """A cut exactly between two records leaves a well-formed report: the format records no launch count, so the
    missing launch cannot be noticed (docs/accuracy.md, known limits). It loads with the launches it holds."""
    path = tmp_path / "boundary.ncu-rep"
    path.write_bytes(shared_report(RTX2080TI).read_bytes()[:86_631])
    report = load_report(path)
    assert [k.name for k in report.launches] == ["kernel_A"] and not any(k.invalid for k in report.launches)


def test_padded_huge_file_is_refused_at_once(shared_report, tmp_path):
    """Issue 15: a 2 GiB file ran past 60 s in the reader. Zero padding after the records is not a report: refused
    from the container walk, before the reader starts (the file is sparse: no disk space used)."""
    path = tmp_path / "padded.ncu-rep"
    path.write_bytes(shared_report(T4).read_bytes())
    with path.open("r+b") as fh:
        fh.truncate(2 << 30)
    with pytest.raises(ReportError) as err:
        load_report(path)
    assert str(err.value) == (f"{path}: not ncu records from byte 193337 of 2147483648 (a block header of 0 bytes): "
                              "the file is corrupt, padded or has other data appended; copy it again or re-profile")


def parser_depth(text: str) -> int:
    """The deepest collection nesting the YAML parser itself sees (pure-Python parser: no depth limit of its own)."""
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return deepest


def text_depth(text: str) -> int:
    """The smallest limit the text-only check lets through."""
    return next(limit for limit in range(10_000) if first_line_deeper_than(text, limit) is None)


TRICKY_YAML = [
    "a: b[c]\nd: {e: f}\n",  # brackets inside a plain scalar open nothing
    "a: 'it''s [' \nb: [\"x]\\\"\", [1]]\n",  # brackets and escaped quotes inside quoted scalars
    "a: x # [[[[\nb: 1\n",  # a comment
    "k: |\n  [[[[\n  {{{{\nz: 1\n",  # a block scalar's content
    "a: >-\n  text: [\n  more\nb: [1]\n",
    "x: \"multi\n  line [\"\ny: 1\n",  # a quoted scalar over two lines
    "a:\n  - b:\n      - c: [d]\n",  # a sequence at its key's indentation
    "- - - a\n",
    "a:\n- x\nb: {c: [1]}\n",
    "? a\n: b\n",
]


def random_document(rng: random.Random, depth: int) -> object:
    """Nested lists and mappings whose scalars hold YAML's own punctuation."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([1, 2.5, "x", "it's [", 'q"]', "a: b", "#c", "- d", "|", "{", "two\nlines ["])
    if rng.random() < 0.5:
        return [random_document(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return {f"{rng.choice(['k', '[k]', 'k: v', 'it'])}{i}": random_document(rng, depth - 1)
            for i in range(rng.randint(1, 3))}


def test_the_text_depth_is_never_below_the_parsers_and_at_most_one_above():
    """The depth read from the text alone bounds the parser's, on the shipped specs, tricky cases and 500 seeded
    documents in flow, block and mixed styles (long lines: a plain scalar folded over lines may count deeper)."""
    rng = random.Random(29)
    texts = [p.read_text() for p in sorted(Path(__file__).resolve().parents[2].glob("device_specs/**/*.yaml"))]
    texts += TRICKY_YAML
    texts += [yaml.safe_dump(random_document(rng, rng.randint(1, 10)), width=10_000, indent=rng.choice([2, 4]),
                             default_flow_style=rng.choice([True, False, None])) for _ in range(500)]
    for text in texts:
        assert parser_depth(text) <= text_depth(text) <= parser_depth(text) + 1, text


def test_the_text_depth_names_the_first_line_past_the_limit():
    assert first_line_deeper_than("a:\n  b:\n    c: [1]\nd: [[[[2]]]]\n", 4) == 4
    assert first_line_deeper_than("a:\n  b:\n    c: [1]\n", 4) is None


# --- Impossible values in a model are refused (issue 37) -----------------------------------------------------------
@pytest.mark.parametrize("field, value, words", [
    ("registers_per_thread", -5, "launches[0].registers_per_thread: expected `int` >= 0"),
    ("shared_mem_per_block_bytes", -1, "launches[0].shared_mem_per_block_bytes: expected `int` >= 0"),
    ("block", [-9223372036854775808, 1, 1], "launches[0].block[0]: expected `int` >= 0"),
    ("grid", [1, -1, 1], "launches[0].grid[1]: expected `int` >= 0"),
])
@pytest.mark.parametrize("version", [1, 2])
def test_a_negative_count_of_a_launch_shape_refuses_the_model(tmp_path, field, value, words, version):
    """Issue 37: such values reached the output as values (the launch marked invalid, its fields still written)."""
    if version == 1:  # the shipped synthetic model holds its launches one object each
        doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "h100-sxm_synthetic.roofline.json")
                         .read_text())
        assert doc["version"] == 1
        doc["launches"][0][field] = value
    else:
        launch = KernelLaunch(0, 0, "k", grid=(4, 1, 1), block=(256, 1, 1), registers_per_thread=32,
                              shared_mem_per_block_bytes=0, metrics=dict(_GOOD))
        doc = Report("r.json", _DEVICE, (launch,)).to_dict()
        doc["launches"][field][0] = value
        words = words.replace("launches[0].", "launches.").replace(f"{field}", f"{field}[0]", 1)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReportError) as info:
        load_report(path)
    assert str(info.value).startswith(f"{path}: {words}")


def test_negative_zero_marks_its_launch_invalid_as_any_negative_count(tmp_path):
    launch = KernelLaunch(0, 0, "k", metrics={**_GOOD, "launch__waves_per_multiprocessor": -0.0})
    path = tmp_path / "m.json"
    path.write_text(json.dumps(Report("r.json", _DEVICE, (launch,)).to_dict()))
    assert load_report(path).launches[0].invalid == "launch__waves_per_multiprocessor is -0, expected 0 <= value"
