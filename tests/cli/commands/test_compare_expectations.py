"""`roofline compare`'s expected speedup across GPUs: `roofline project A --to B --clock base`'s number wherever
`project` can make one (a source GPU no spec names takes the spec its device attributes give, as `project` does),
else the roof times, said in the legend and in JSON `expected_basis`; the clock B's launches ran at where it is not
the base clock the projection assumes there; the throughput legend's unit; and the projection table's notes.

The reports are shipped examples relabelled as another GPU (the same launches, so only the label and the clocks
differ), compared with `project`'s own output and the report's own clock metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import roofline
from roofline.cli.app import app
from tests.conftest import REPO
from tests.null_reasons import unexplained_nulls

runner = CliRunner()
TRIAD = REPO / "examples" / "h100" / "triad-torch.roofline.json"
OP49 = REPO / "examples" / "h100" / "ops" / "op49-conv-pointwise-2d.json"
OP29 = next((REPO / "examples" / "h100" / "ops").glob("op29-*.json"))
OP21 = next((REPO / "examples" / "h100" / "ops").glob("op21-*.json"))


def relabelled(source: Path, folder: Path, name: str) -> Path:
    """``source``'s report model with its GPU renamed ``name`` (its launches, clocks and counters unchanged)."""
    doc = json.loads(source.read_text())
    doc["device"]["name"] = doc["device"]["attributes"]["display_name"] = name
    out = folder / f"{name.replace(' ', '_')}.json"
    out.write_text(json.dumps(doc))
    return out


def cli(*args: object, width: int = 80) -> str:
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.stdout


def only_kernel(doc: dict) -> dict:
    (kernel,) = doc["kernels"]
    return kernel


def test_a_gpu_no_spec_names_is_projected_from_its_derived_spec_as_project_does(tmp_path):
    """A: the H100 triad relabelled 'NVIDIA Foo 9000' (no spec: peaks derived from its device attributes), B: the
    same launch on its H100. The expected speedup was the roof-time ratio (1.00x) under a legend promising project's
    number; it is now that number: A's measured time over `project A --to h100-sxm5 --clock base`'s."""
    foo = relabelled(TRIAD, tmp_path, "NVIDIA Foo 9000")
    projected = only_kernel(json.loads(cli("project", foo, "--to", "h100-sxm5", "--clock", "base", "-f", "json")))
    kernel = only_kernel(json.loads(cli("compare", foo, TRIAD, "-f", "json")))
    assert kernel["expected_speedup"][1] == pytest.approx(projected["measured_s"] / projected["projected_s"],
                                                          rel=1e-12)
    assert kernel["expected_basis"] == ["base", "projection"]
    table = " ".join(cli("compare", foo, TRIAD).split())
    assert "no spec matched: peaks derived from device attributes" in table
    assert "expected = A's launches of the kernel / their projection onto B's GPU at its base clock" in table


def test_a_target_gpu_no_spec_names_takes_the_roof_times_and_says_so(tmp_path):
    """B relabelled 'NVIDIA Foo 9000': `project --to` takes a spec id, so nothing projects A onto B's GPU; the
    expectation is roof time A / roof time B (the same launch against the same kernel-clock roofs: 1), and the
    legend and `expected_basis` say it is that ratio and why."""
    foo = relabelled(TRIAD, tmp_path, "NVIDIA Foo 9000")
    kernel = only_kernel(json.loads(cli("compare", TRIAD, foo, "-f", "json")))
    assert kernel["expected_speedup"] == pytest.approx([1.0, 1.0], rel=1e-12)
    assert kernel["expected_basis"][1] == "roof_time_no_target_spec"
    assert kernel["expected_clock"][1] is None and "expected_clock[1]" in kernel["missing"]
    table = " ".join(cli("compare", TRIAD, foo).split())
    assert "expected = roof time A / roof time B (no projection: no device spec names B's GPU" in table


def test_b_run_at_unlocked_clocks_is_named_beside_the_base_clock_its_expectation_assumes(tmp_path):
    """A: op49's launch relabelled as the H200 (same SMs), B: the same launch on its H100, run with clocks not
    locked (--clock-control none). The expectation projects A onto the H100 at its base clock, so B's kept up
    counts the change of clock: the clock B ran at is given beside that base clock, in JSON and under the table."""
    h200 = relabelled(OP49, tmp_path, "NVIDIA H200")
    kernel = only_kernel(json.loads(cli("compare", h200, OP49, "-f", "json")))
    ran = roofline.load(OP49).launches[0].value("sm__cycles_elapsed.avg.per_second")
    base = yaml.safe_load((REPO / "device_specs" / "h100-sxm5.yaml").read_text())["base_clock_hz"]["value"]
    clock = kernel["expected_clock"][1]
    assert kernel["expected_basis"][1] == "projection"
    assert clock["clock_hz"] == pytest.approx(ran, rel=1e-12) and clock["base_clock_hz"] == base
    assert clock["state"] == "above_base" and ran > 1.03 * base
    table = " ".join(cli("compare", h200, OP49).split())
    assert (f"Kernel2: B's launches ran at {ran / 1e9:.3g} GHz, above the {base / 1e9:.3g} GHz base clock ncu locks, "
            "which the expected speedup takes on B's GPU (clocks not locked: --clock-control none)") in table


def test_the_throughput_legend_names_the_unit_it_shows_not_what_decided_the_work(shared_report):
    """The H800 flash-attention report against the RTX 4090 SGEMM: the work was decided by threads, the throughput
    is in DRAM bytes/s (the resource that governs both); the legend said "the unit of what decided the work"."""
    a, b = shared_report("h800_flash-attn-fwd_full"), shared_report("rtx4090_torch-linear-sgemm_custom")
    table = " ".join(cli("compare", a, b, width=200).split())
    assert "DRAM B/s" in table and "the unit of what decided the work" not in table
    assert "the resource that governs both sides where both have one" in table


def test_each_projected_row_says_why_its_interval_goes_under_its_bound():
    """op29 onto the T4: the cuDNN dgrad kernel's interval (another kernel likely there) reaches 2.6x under the
    bound; op21's reduce_kernel's low end is under a bound that counts the DRAM bytes the T4's smaller L2 adds.
    Each such row is named with its cause, in the table and in JSON, and only such rows."""
    for path, kernel, cause, words in ((OP29, "sm90_xmma_dgrad", "other_kernel", "another kernel likely runs there"),
                                       (OP21, "reduce_kernel", "l2_term", "the bound counts the DRAM bytes")):
        doc = json.loads(cli("compare", path, "--project-to", "t4", "-f", "json"))
        for k in doc["kernels"]:
            p = k["sides"][0]["projection"]
            under = p["low_s"] < p["bound_s"] * (1 - 1e-9)  # nhwcToNchwKernel's are one sum rounded two ways
            assert (p["under_bound"] is not None) == under, k["label"]
            if k["label"].startswith(kernel):
                assert p["under_bound"] == cause and under
        table = " ".join(cli("compare", path, "--project-to", "t4", width=300).split())
        assert f"(A): the interval reaches under the bound: {words}" in table
        assert "the bound of every row leaves out: l2 (no l2 bandwidth in the spec)" in table


def test_a_row_without_a_projection_says_why_and_each_bound_note_names_its_kernel(shared_report):
    """h800_flash-attn-fwd_full onto the T4: ncu stored no duration for flash_fwd_kernel, whose row was all n/a with
    no reason, and two 'bound leaves out' lines named no kernel."""
    table = " ".join(cli("compare", shared_report("h800_flash-attn-fwd_full"), "--project-to", "t4",
                         width=300).split())
    assert ("flash_fwd_kernel (A): no projection: no projection onto t4: no launch with a time and a time model"
            in table)
    assert "the bound of flash_fwd_kernel (A) leaves out: dram (bytes not measured)" in table


@pytest.mark.parametrize("args", [["--project-to", "t4"], []])
def test_every_null_of_the_compare_document_has_its_reason(args):
    h100, h200 = (REPO / "examples" / gpu / "torch-fp32.roofline.json" for gpu in ("h100", "h200"))
    assert unexplained_nulls(json.loads(cli("compare", h100, h200, *args, "-f", "json"))) == []


def test_project_to_all_in_any_case_points_to_project():
    result = runner.invoke(app, ["compare", str(TRIAD), "--project-to", "ALL"])
    assert result.exit_code == 2 and "--project-to ALL: compare projects onto one GPU" in result.stderr


def test_a_target_spec_without_a_base_clock_takes_the_roof_times_and_says_so(tmp_path):
    """B relabelled as an L40S, whose spec gives no base clock (device_specs/l40s.yaml): `project --clock base`
    refuses it, so the expectation is the roof-time ratio (the same launch under its own kernel-clock roofs: 1)."""
    assert "base_clock_hz" not in yaml.safe_load((REPO / "device_specs" / "l40s.yaml").read_text())
    l40s = relabelled(TRIAD, tmp_path, "NVIDIA L40S")
    kernel = only_kernel(json.loads(cli("compare", TRIAD, l40s, "-f", "json")))
    assert kernel["expected_speedup"] == pytest.approx([1.0, 1.0], rel=1e-12)
    assert kernel["expected_basis"][1] == "roof_time_no_base_clock"
    assert "expected = roof time A / roof time B (no projection: B's spec gives no base clock" in \
        " ".join(cli("compare", TRIAD, l40s).split())
