"""The cases at the top of issue 12, as regression tests with their corrected outcome: the same PyTorch application
profiled on an RTX 4070 Ti (the real report) and on an H100 PCIe at a larger problem size (a report model built from
it, tests/cross_gpu.py), compared and diffed through the CLI as a user would.

* compare marks every pair "different work" with its ratio (linspace: 16x16 vs 547x547 blocks, 23.9 k vs 28.7 M
  FLOPs) and compares them by throughput, never by a speedup of times (formerly "speedup 0.00x");
* DeviceScanInitKernel, a 1.8 us small grid without FP work (formerly "expected 91.27x"), and latency-bound
  linspace get no roofline expectation, with their launch-overhead share instead;
* diff refuses the two GPUs and ncu versions without --allow-different-gpu (formerly "ok" and exit 0), and with it
  leaves the different work out of the gate;
* diff fails by default on the large regression (linspace 584x slower on the same GPU, same work).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from roofline.analysis.advice import LAUNCH_OVERHEAD_S
from roofline.cli.app import app
from roofline.render.compare.plot import comparison_data
from tests.cross_gpu import H100_SOURCE, LINSPACE_FLOPS, RTX4070TI, h100_model, slowed

runner = CliRunner()
ENV = {"COLUMNS": "100"}
SCAN_INIT = "DeviceScanInitKernel"


@pytest.fixture(scope="module")
def reports(roofline_report, shared_report, tmp_path_factory):
    """(the real RTX 4070 Ti report's path, the H100 PCIe model's path, the same-GPU regression model's path)."""
    rtx = roofline_report(RTX4070TI)
    folder = tmp_path_factory.mktemp("cross")
    h100 = folder / "h100-pcie_pytorch-sim_larger.json"
    h100.write_text(json.dumps(h100_model(rtx, roofline_report(H100_SOURCE)).to_dict()))
    slow = folder / "rtx4070ti_linspace-584x.json"
    slow.write_text(json.dumps(slowed(rtx, "linspace", 584.0, str(slow)).to_dict()))
    return shared_report(RTX4070TI), h100, slow


def run(*args: object):
    return runner.invoke(app, [*map(str, args)], env=ENV)


def kernels(doc: dict) -> dict[str, dict]:
    return {k["key"]: k for k in doc["kernels"]}


def test_compare_marks_different_work_and_gives_throughput_not_a_speedup(reports):
    rtx, h100, _ = reports
    result = run("compare", rtx, h100, "-f", "json")
    assert result.exit_code == 0, result.output
    linspace = kernels(json.loads(result.stdout))["linspace"]
    work = linspace["work"][1]
    assert work["different"] is True and work["basis"] == "flops"
    assert work["measures"]["flops.fp32"]["base"] == pytest.approx(LINSPACE_FLOPS[0], rel=1e-6)
    assert work["measures"]["flops.fp32"]["other"] == pytest.approx(LINSPACE_FLOPS[1], rel=1e-6)
    assert work["measures"]["threads"]["ratio"] == pytest.approx((547 * 547) / (16 * 16), rel=1e-12)
    assert work["summary"] == f"different work: FP32 FLOPs {LINSPACE_FLOPS[1] / LINSPACE_FLOPS[0]:.0f}x"
    times = [s["median_s"] for s in linspace["sides"]]
    assert times == pytest.approx([3.488e-6, 2.04e-3], rel=1e-9)
    headline = linspace["headline"][1]
    assert headline["kind"] == "throughput" and headline["unit"] == "FLOP/s"
    # (28.7 MFLOP / 2.04 ms) / (23.9 kFLOP / 3.49 us) = 2.05: the H100 does twice the FLOPs per second
    assert headline["ratio"] == pytest.approx((LINSPACE_FLOPS[1] / 2.04e-3) / (LINSPACE_FLOPS[0] / 3.488e-6), rel=1e-6)
    table = run("compare", rtx, h100).stdout
    assert "Throughput, A -> B (different work: not a speedup of times)" in table
    assert "Time per launch, A -> B" not in table  # no pair does the same work
    row = next(line for line in table.splitlines() if line.startswith("linspace") and "DIFFERENT" in line)
    assert "1169x" in row  # threads B/A


def test_no_roofline_expectation_for_launch_or_latency_bound_kernels(reports):
    rtx, h100, _ = reports
    doc = json.loads(run("compare", rtx, h100, "-f", "json").stdout)
    scan, linspace, fill = (kernels(doc)[k] for k in (SCAN_INIT, "linspace", "fill_vector"))
    assert scan["expected_speedup"][1] is None
    assert scan["missing"]["expected_speedup[1]"] == (
        "no roofline expectation: launch or latency bound (A: small grid, B: small grid)")
    assert scan["launch_overhead"][0] == pytest.approx(LAUNCH_OVERHEAD_S / (LAUNCH_OVERHEAD_S + 1.808e-6), rel=1e-9)
    assert linspace["expected_speedup"][1] is None and linspace["sides"][0]["bound"] == "latency"
    # compute bound, its FP64 pipe busy (67.5% on the RTX 4070 Ti) but its FP64 FLOPs at 8.4% of their roof: the
    # pipe runs other instructions, no FLOP roof sets its time, so none predicts a speedup (issue 33: "29x")
    assert fill["expected_speedup"][1] is None
    assert fill["missing"]["expected_speedup[1]"] == (
        "no roof time: no roof for what bounds it (instructions)")
    table = run("compare", rtx, h100).stdout
    assert f"{SCAN_INIT}: no roofline expectation: launch or latency bound (A: small grid, B: small grid); " \
           "launch overhead A 69%, B 56% of launch + run time" in " ".join(table.split())


def test_the_plot_draws_pairs_of_different_work_apart(roofline_report):
    from roofline.compare.pairing import pair_reports
    from roofline.pipeline import analyze_loaded

    rtx = roofline_report(RTX4070TI)
    comparison = pair_reports([analyze_loaded(rtx), analyze_loaded(h100_model(rtx, roofline_report(H100_SOURCE)))])
    data = comparison_data(comparison)
    linspace = [p for p in data.points if p.label == "linspace"]
    assert [(p.report, p.different_work) for p in linspace] == [(0, False), (1, True)]
    assert (linspace[0], linspace[1]) in data.arrows


def test_diff_refuses_different_gpus_and_ncu_versions_without_the_flag(reports):
    rtx, h100, _ = reports
    refused = run("diff", rtx, h100)
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert refused.output.startswith(f"roofline: error: {rtx} (NVIDIA GeForce RTX 4070 Ti, ncu 2024.1.0.0) and {h100} "
                                     "(NVIDIA H100 PCIe, ncu 2025.1.0.0) come from different GPUs and ncu versions")
    assert "--allow-different-gpu" in refused.output
    # allowed: every pair does different work, which the gate leaves out, so there is nothing to gate
    nothing = run("diff", rtx, h100, "--allow-different-gpu")
    assert nothing.exit_code == 2 and "nothing to gate, 6 of the 6 shared kernels do different work" in nothing.output
    per_work = run("diff", rtx, h100, "--allow-different-gpu", "--gate-different-work", "-f", "json")
    doc = json.loads(per_work.stdout)
    linspace = kernels(doc)["linspace"]
    assert linspace["slowdown_pct"] == pytest.approx(100 * (2.04e-3 / 3.488e-6 - 1), rel=1e-9)
    ratio = LINSPACE_FLOPS[1] / LINSPACE_FLOPS[0]
    assert linspace["per_work_slowdown_pct"] == pytest.approx(100 * (2.04e-3 / 3.488e-6 / ratio - 1), rel=1e-9)
    assert linspace["regressed"] is False  # per FLOP the H100 run is twice as fast
    assert doc["setup_notes"][0].startswith("different GPUs and ncu versions allowed (--allow-different-gpu)")
    per_flop = f"{linspace['per_work_slowdown_pct']:+.1f}%"
    table = " ".join(run("diff", rtx, h100, "--allow-different-gpu", "--gate-different-work").stdout.split())
    assert (f"linspace: different work: FP32 FLOPs {ratio:.0f}x; time per unit of work (FLOP) {per_flop}, gated "
            "(--gate-different-work)") in table
    markdown = run("diff", rtx, h100, "--allow-different-gpu", "--gate-different-work", "-f", "markdown").stdout
    assert f"| ok (time per unit of work (FLOP) {per_flop}, gated (--gate-different-work)) |" in markdown


def test_diff_fails_by_default_on_the_large_regression(reports):
    rtx, _, slow = reports
    result = run("diff", rtx, slow)
    assert result.exit_code == 1, result.output
    assert "regressed linspace: slower 58300.0% > 10% (untested for noise: one launch per side)" in \
        " ".join(result.stdout.split())
    doc = json.loads(run("diff", rtx, slow, "-f", "json").stdout)
    assert [r["kernel"] for r in doc["regressions"]] == ["linspace"] and doc["total"]["regressed"] is True
    markdown = run("diff", rtx, slow, "-f", "markdown").stdout
    assert "| `linspace` | 3.49 us | 2.04 ms | 584x | untested | same work (FLOPs within 5%) |" in markdown
