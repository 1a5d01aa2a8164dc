"""roofline.advice: each recommendation is tied to a measured cause and names its number, and every renderer
(table, JSON, Markdown, HTML) shows the same list.

Synthetic launches on a GPU whose roofs are set here (FP32 = 2 x 6400 FFMA/clk x 1 GHz = 12.8 TFLOP/s, DRAM
= 1000 B/clk x 1 GHz = 1 TB/s), so the expected numbers in the texts are computed from those values.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from roofline import advice
from roofline.model import Device, KernelLaunch, Report
from roofline.pipeline import analyze_files, analyze_loaded
from roofline.render import json as json_render
from roofline.render import markdown, table

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "h100-sxm_synthetic.roofline.json"
DEVICE = Device(name="NVIDIA Advice Test GPU", compute_capability="8.0", sm_count=100)


def launch(index: int, name: str, seconds: float, flop_per_s: float, dram_per_s: float) -> KernelLaunch:
    metrics = {
        "gpu__time_duration.sum": seconds * 1e9,
        "sm__cycles_elapsed.avg.per_second": 1e9, "dram__cycles_elapsed.avg.per_second": 1e9,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6400,
        "dram__bytes.sum.peak_sustained": 1000,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": flop_per_s / 2 * seconds,
        "dram__bytes.sum": dram_per_s * seconds,
    }
    return KernelLaunch(range_index=0, action_index=index, name=name, metrics=metrics)


def analysed(*launches: KernelLaunch):
    report = Report("advice.json", DEVICE, launches, source="model", label="advice test")
    return analyze_loaded(report)


@pytest.fixture(scope="module")
def example():
    return analyze_files([EXAMPLE])[0]


def test_memory_bound_launch_is_told_to_cut_traffic_with_its_numbers():
    (k,) = analysed(launch(0, "stream", 1e-3, 0.1e12, 0.9e12)).launches  # DRAM at 90%, FP32 at 0.8%
    (item,) = k.advice
    assert (item.kind, item.source, item.title) == ("memory", "roofline", "Cut DRAM traffic")
    assert item.cause == "DRAM at 90.0% of its roof"
    assert item.text.startswith("Cut DRAM traffic: 900 MB at 90.0% of the DRAM roof, at 0.111 FLOP/byte.")
    assert "ridge point of 12.8 FLOP/byte" in item.text  # 12.8 TFLOP/s / 1 TB/s
    assert item.est_saved_s is None


def test_compute_bound_launch_gets_the_headroom_left():
    (k,) = analysed(launch(0, "fma", 1e-3, 9.6e12, 0.1e12)).launches  # FP32 at 75%
    (item,) = k.advice
    assert item.kind == "compute" and item.cause == "FP32 at 75.0% of its ceiling"
    assert "at most 1.3x is left" in item.text  # 100 / 75


def test_a_launch_above_a_roof_is_first_told_to_re_profile():
    (k,) = analysed(launch(0, "fast", 1e-3, 16e12, 0.1e12)).launches  # FP32 at 125%
    assert [a.kind for a in k.advice] == ["measurement", "compute"]
    assert k.advice[0].text == f"Re-profile before optimizing: {k.flags[0]}."
    assert k.advice[0].cause == k.flags[0]


def test_a_launch_as_short_as_the_launch_overhead_is_told_to_fuse():
    (k,) = analysed(launch(0, "tiny", 2e-6, 9.6e12, 0.1e12)).launches
    assert k.advice[-1].kind == "launch_overhead" and k.advice[-1].cause == "2 us per launch"


def test_every_item_names_its_cause_and_a_number(example):
    for k in example.launches:
        assert k.advice, k.launch.name
        for item in k.advice:
            assert item.title and item.cause and item.source in ("roofline", "occupancy", "tensor_cores")
            assert re.search(r"\d", item.text), item.text


def test_advised_kernels_are_those_with_the_most_recoverable_time(example):
    saved = [g.recoverable_s for g in advice.kernels_to_advise(example)]
    assert saved == sorted(saved, reverse=True) and len(saved) == len(example.groups)


def test_table_json_and_markdown_show_the_same_list(example):
    def flat(text: str) -> str:
        return " ".join(text.split())

    doc = json.loads(json_render.render([example]))
    for k, kernel in zip(example.launches, doc["reports"][0]["kernels"], strict=True):
        assert [a["text"] for a in kernel["advice"]] == [a.text for a in k.advice]
        assert all(kernel["missing"][f"advice[{i}].est_saved_s"] for i in range(len(k.advice)))
    shown = [item.text for g in advice.kernels_to_advise(example) for item in g.longest.advice]
    table_text = flat(table.render([example], width=80).split("Advice (")[1].replace(" - ", " "))
    markdown_text = markdown.render([example])
    for text in shown:
        assert flat(text) in table_text
        assert f"- {text}" in markdown_text
