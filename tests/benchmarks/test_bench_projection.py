"""benchmarks/bench_projection.py: the projection's measured error over the H100/H200 example pairs, and the figures
the README and docs/benchmarks.md publish from it.

One row is checked against values computed here: the ATen triad (DRAM-bound at 92% of its peak on the H100)
projected onto the H200 is its H100 time x 3.35 / 4.8 TB/s (the two datasheets, device_specs/h100-sxm5.yaml and
h200.yaml), against the time measured on the H200."""

from __future__ import annotations

import importlib.util
import re
import statistics
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

import roofline
from tests.conftest import REPO

EXAMPLES = REPO / "examples"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_projection", REPO / "benchmarks" / "bench_projection.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while they are built
    spec.loader.exec_module(module)
    return module


def duration_s(path: Path) -> float:
    (launch,) = roofline.load(path).launches
    nanoseconds = launch.value("gpu__time_duration.sum")
    assert nanoseconds is not None
    return nanoseconds * 1e-9


def bandwidth(spec_id: str) -> float:
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())["memory"][
        "bandwidth_bytes_per_s"]["value"]


@pytest.fixture(scope="module")
def rows():
    b = bench()
    return b, [row for source, target in b.pairs() for row in b.project_pair(source, target)]


def test_a_dram_bound_kernel_is_projected_at_the_targets_achievable_dram_bandwidth(rows):
    """The ATen triad at 92% of the H100's DRAM peak, onto the H200 (``project``'s per-launch model, which compare
    --project-to gives since round 16): its DRAM bytes at the H200 spec's achievable bandwidth bound it."""
    import roofline
    from roofline.specs.catalog import load_catalog

    _, found = rows
    row = next(r for r in found if r.source == "h100/triad-torch.roofline.json")
    h200 = duration_s(EXAMPLES / "h200" / "triad-torch.roofline.json")
    launch = roofline.load(EXAMPLES / "h100" / "triad-torch.roofline.json").launches[0]
    moved = launch.value("dram__bytes.sum.per_second") * launch.value("gpu__time_duration.sum") * 1e-9
    achievable = load_catalog().get("h200").memory_achievable_bytes_per_s
    assert row.governing == "DRAM achievable" and row.projected_s == pytest.approx(moved / achievable, rel=1e-9)
    assert row.measured_s == pytest.approx(h200, rel=1e-9)


def test_every_pair_both_ways_and_the_published_figures(rows):
    """Each example program in both folders, both directions; the README and docs/benchmarks.md state the median
    and worst error and the coverage that the benchmark prints."""
    b, found = rows
    shared = [p for p in (EXAMPLES / "h100").iterdir() if (EXAMPLES / "h200" / p.name).exists()]
    assert len(b.pairs()) == 2 * len(shared)
    governed = [r for r in found if r.bound in b.GOVERNED]
    errors = sorted(abs(r.projected_s / r.measured_s - 1) for r in governed)
    summary = b.summary(governed)
    assert summary.median_abs_error == pytest.approx(statistics.median(errors))
    assert summary.worst_abs_error == errors[-1]
    published = (f"median error {100 * summary.median_abs_error:.1f}%, worst "
                 f"{100 * summary.worst_abs_error:.1f}%, interval covering {100 * summary.covered:.0f}%")
    for doc in ("README.md", "docs/benchmarks.md"):
        text = " ".join((REPO / doc).read_text().split())
        assert re.search(re.escape(published), text), f"{doc} does not state: {published}"


def test_a_one_wave_gemm_is_projected_at_the_clocks_ratio_to_the_targets_locked_base_clock(rows):
    """cuBLAS BF16 GEMM, H100 -> H200 (one block per SM on both: 132 blocks): the measured time at the ratio of the
    SM clock it ran at (read from the report) to the H200's base clock, which ncu locks (device_specs/h200.yaml),
    times the share of the H100's base the power-held launch kept (1.34 of 1.58 GHz): the clocks cancel to the
    base clocks' ratio."""
    _, found = rows
    row = next(r for r in found if r.source == "h100/torch-bf16.roofline.ncu-rep")
    (launch,) = roofline.load(EXAMPLES / "h100" / "torch-bf16.roofline.ncu-rep").launches
    clock = launch.value("sm__cycles_elapsed.avg.per_second")
    spec = {g: yaml.safe_load((REPO / "device_specs" / f"{g}.yaml").read_text()) for g in ("h100-sxm5", "h200")}
    base_h100, base_h200 = (spec[g]["base_clock_hz"]["value"] for g in ("h100-sxm5", "h200"))
    assert clock < base_h100  # held below its base by power
    h100 = duration_s(EXAMPLES / "h100" / "torch-bf16.roofline.ncu-rep")
    expected = h100 * clock / (base_h200 * clock / base_h100)
    assert row.governing == "one wave" and row.projected_s == pytest.approx(expected, rel=1e-9)
    assert abs(row.error) < 0.02


def test_development_rows_compare_the_projected_and_published_ratios_and_leave_one_gpu_out():
    b = bench()
    if not b.TIMINGS.is_file():
        pytest.skip(f"{b.TIMINGS.name} is not in ../shared/workloads")
    data = {k: v for k, v in b.dev_analyses().items() if k.startswith(("op01", "op21"))}
    catalog = b.load_catalog()
    rows = b.dev_rows(data, {g: catalog.get(s) for g, s in b.DEV_GPUS.items()})
    assert {r.gpu for r in rows} == set(b.DEV_GPUS)
    for r in rows:
        _, times = data[r.workload]
        assert r.published == pytest.approx(times[r.gpu] / times["H100"])
        assert r.low < r.predicted < r.high
    left_out, constants = b.left_out_specs({g: (0.5, 0.7) for g in b.DEV_GPUS}, data)
    # the T4 (Turing, outside the power rule) keeps its public measurement; the L40S takes the rule's clock with
    # the constant fitted on the other GPUs, never its own fit
    assert left_out["T4"].sustained_clock_hz == pytest.approx(9.0e8) and constants["T4"] is None
    assert constants["L40S"] is not None and constants["L40S"] > 0
    assert left_out["L40S"].sustained_clock_hz != catalog.get(b.DEV_GPUS["L40S"]).sustained_clock_hz
    # the GDDR6 default is measured (architecture/memory.yaml), so a GDDR6 GPU left out takes it, not the other fits
    assert left_out["T4"].memory_achievable_bytes_per_s == pytest.approx(0.89 * 320e9)
    assert b.kind("op27-conv-standard-2d") == "conv" and b.kind("op01-square-matrix-multiplication") == "matmul"
    summary = b.dev_summary(rows)
    assert summary is not None and summary["pairs"] == len(rows)


def test_pairs_print_each_leave_one_gpu_out_error_with_its_governing_unit(capsys):
    b = bench()
    tables = {"pairs": {"leave-one-GPU-out": [
        {"workload": "op21-frobeniusnorm", "gpu": "T4", "error": -0.015, "consistent": True,
         "interval_class": "other", "governing": "DRAM", "covered": True},
        {"workload": "op01-square-matrix-multiplication", "gpu": "B200", "error": 0.25, "consistent": False,
         "interval_class": "matmul", "governing": "tail", "covered": False}]}}
    b.print_pairs(tables)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].split()[:5] == ["op01-square-matrix-multiplication", "B200", "+25.0%", "matmul", "tail"]
    assert lines[1].endswith("(inconsistent) (not covered)")
    assert lines[2].split() == ["op21-frobeniusnorm", "T4", "-1.5%", "other", "DRAM"]


def test_development_rows_name_the_governing_unit_of_their_largest_launch_group():
    b = bench()
    if not b.TIMINGS.is_file():
        pytest.skip(f"{b.TIMINGS.name} is not in ../shared/workloads")
    data = {k: v for k, v in b.dev_analyses().items() if k.startswith("op21")}
    catalog = b.load_catalog()
    rows = b.dev_rows(data, {"T4": catalog.get("t4")}, ("T4",))
    assert len(rows) == 1 and rows[0].governing.startswith("DRAM")


def test_held_out_workloads_judge_each_workload_by_fits_made_without_it(monkeypatch):
    b = bench()
    monkeypatch.setattr(b, "CLOCK_GRID", (0.5, 1.0))
    monkeypatch.setattr(b, "BANDWIDTH_GRID", (0.8,))

    def row(gpu: str, workload: str, off: bool):
        return b.DevRow(workload, gpu, "matmul", 1.5 if off else 1.0, 1.0, 0.5, 2.0, True)

    # at half boost w1 and w2 are exact and w3 50% slow; at boost only w3 is exact
    grid = {(g, c, 0.8): {w: row(g, w, (w == "w3") == (c == 0.5)) for w in ("w1", "w2", "w3")}
            for g in b.DEV_GPUS for c in (0.5, 1.0)}
    assert b.fit(grid) == {g: (0.5, 0.8) for g in b.DEV_GPUS}  # in-sample: two of three exact
    held = b.held_out_workloads(grid)
    # without w1 (or w2) the two clocks tie and the higher wins; without w3 half boost wins: each left-out
    # workload is 50% off, which an in-sample fit would hide
    assert held is not None and held["pairs"] == 3 * len(b.DEV_GPUS)
    assert held["median_abs_error"] == pytest.approx(0.5) and held["by_gpu"]["T4"]["pairs"] == 3
    assert held["spread"]["T4"]["clock"] == pytest.approx(statistics.pstdev((1.0, 1.0, 0.5)))


def test_the_held_out_refit_tries_only_what_the_shipped_specs_fit():
    """The T4's clock is a public measurement (900 MHz) and the B200's DRAM fraction its memory type's default: a
    refit keeps them; the L40S gives both as fits, so both are refitted over the grid."""
    b = bench()
    if not b.TIMINGS.is_file():
        pytest.skip(f"{b.TIMINGS.name} is not in ../shared/workloads")
    data = {k: v for k, v in b.dev_analyses().items() if k.startswith("op21")}
    points = {g: {(c, d) for (gpu, c, d) in b.shipped_grid_rows(data) if gpu == g} for g in b.DEV_GPUS}
    (t4_clock,) = {c for c, _ in points["T4"]}
    assert t4_clock == pytest.approx(9.0e8 / 1.59e9)
    assert {d for _, d in points["T4"]} == set(b.BANDWIDTH_GRID)
    assert {d for _, d in points["B200"]} == {None} and {c for c, _ in points["B200"]} == set(b.CLOCK_GRID)
    assert len(points["L40S"]) == len(b.CLOCK_GRID) * len(b.BANDWIDTH_GRID)
    assert points["A100-80GB"] == {(1.0, d) for d in b.BANDWIDTH_GRID}  # the power rule gives it its boost
