"""Whole-application roofline in real time (``compare.realtime``): names matched across ncu and nsys, and the
OpenACC miniWeather ncu report (V100) weighted by the nsys profiles of the same application (GP100 export, V100
report), each figure recomputed here from `roofline summary --format json` (ncu's side, tested on its own) and
tests/nsys/independent.py (nsys's side)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.compare.realtime import match_names
from tests.conftest import find_shared_nsys, find_shared_report
from tests.nsys import independent

NCU = "v100_miniweather-openacc_full"
GP100 = "gp100_miniweather-openacc_2021.2-export2022.2.sqlite"
runner = CliRunner()


def test_exact_names_match_first() -> None:
    assert match_names(["a_1", "b"], ["b", "a_1", "c"]) == {"a_1": ("a_1", "name"), "b": ("b", "name")}


def test_source_line_numbers_are_masked_and_paired_in_order() -> None:
    """OpenACC kernels carry their source line: the same two kernels, a line earlier in the other build."""
    pairs = match_names(["halo_x_396_gpu", "halo_x_419_gpu", "step_232_gpu"],
                        ["halo_x_418_gpu", "halo_x_395_gpu", "step_231_gpu", "other_gpu"])
    assert pairs == {"halo_x_396_gpu": ("halo_x_395_gpu", "numbers masked: halo_x_#_gpu"),
                     "halo_x_419_gpu": ("halo_x_418_gpu", "numbers masked: halo_x_#_gpu"),
                     "step_232_gpu": ("step_231_gpu", "numbers masked: step_#_gpu")}


def test_a_masked_group_of_different_sizes_is_left_unmatched() -> None:
    assert match_names(["k_1", "k_2"], ["k_5", "k_6", "k_7"]) == {}


def ncu_groups() -> dict[str, dict[str, float]]:
    """Per function name: ncu total and recoverable time, from `roofline summary -f json --by function`."""
    result = runner.invoke(app, ["summary", str(find_shared_report(NCU)), "--by", "function", "--top", "50", "-f",
                                 "json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["reports"]
    return {k["name"]: k for k in report["rows"]}


def test_each_kernel_gets_its_real_time_and_the_analysed_share_is_stated() -> None:
    path = find_shared_nsys(GP100)
    result = runner.invoke(app, ["summary", str(find_shared_report(NCU)), "--nsys", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["kind"] == "realtime"
    nsys = independent.per_kernel(path)
    app_total = sum(e["total_s"] for e in nsys.values())
    ncu = ncu_groups()
    expected_pairs = {"compute_tendencies_x_279_gpu": "compute_tendencies_x_278_gpu",
                      "compute_tendencies_x_309_gpu": "compute_tendencies_x_308_gpu",
                      "semi_discrete_step_232_gpu": "semi_discrete_step_231_gpu",
                      "set_halo_values_x_396_gpu": "set_halo_values_x_395_gpu",
                      "set_halo_values_x_419_gpu": "set_halo_values_x_418_gpu"}
    assert {k["name"]: k["nsys_name"] for k in doc["kernels"]} == expected_pairs
    for k in doc["kernels"]:
        real = nsys[k["nsys_name"]]["total_s"]
        group = ncu[k["name"]]
        assert k["count"] == nsys[k["nsys_name"]]["count"] == 288 * (2 if "semi" in k["name"] else 1)
        assert k["total_s"] == pytest.approx(real, rel=1e-12)
        assert k["app_share"] == pytest.approx(real / app_total, rel=1e-12)
        assert k["recoverable_real_s"] == pytest.approx(real * group["recoverable_s"] / group["total_s"], rel=1e-9)
        assert k["ncu_over_nsys"] == pytest.approx(group["total_s"] / group["count"] /
                                                   nsys[k["nsys_name"]]["median_s"], rel=1e-9)
    assert doc["analysed_share"] == pytest.approx(sum(nsys[n]["total_s"] for n in expected_pairs.values())
                                                  / app_total, rel=1e-12)  # 50.7%
    recoverable = [k["recoverable_real_s"] for k in doc["kernels"]]
    assert recoverable == sorted(recoverable, reverse=True)
    assert doc["recoverable_real_s"] == pytest.approx(sum(recoverable))
    assert doc["unmatched_ncu"] == []
    assert {k["name"] for k in doc["unmatched_nsys"]} == set(nsys) - set(expected_pairs.values())
    assert any("Quadro GP100, the ncu reports on Tesla V100-SXM2-32GB" in n for n in doc["notes"])
    assert any("clocks locked to base" in n for n in doc["notes"])


def test_the_table_says_what_share_was_analysed_and_what_is_missing() -> None:
    result = runner.invoke(app, ["summary", str(find_shared_report(NCU)), "--nsys", str(find_shared_nsys(GP100))],
                           env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "analysed: 5 kernels, 50.7% of the application's kernel time (60.3 ms in nsys)" in result.output
    assert "not analysed (in nsys, not in the ncu reports): compute_tendencies_z_334_gpu (40.5%)" in result.output
    assert "more than 2x apart from nsys's median" in result.output


@pytest.mark.slow  # an export through the real nsys
def test_a_report_of_the_same_gpu_model_through_nsys_export() -> None:
    """The V100 nsys report (exported with the real nsys): same GPU model as the ncu report, so no GPU note."""
    from roofline.errors import ReportError
    from roofline.nsys.export import find_nsys

    try:
        find_nsys()
    except ReportError as err:
        pytest.skip(f"no nsys ({err}); .ci/install-system-tools installs Debian's nsight-systems")
    profile = find_shared_nsys("v100-sxm2-32gb_miniweather-openacc_2021.5.nsys-rep")
    result = runner.invoke(app, ["summary", str(find_shared_report(NCU)), "--nsys", str(profile), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {k["name"]: k["nsys_name"] for k in doc["kernels"]}["compute_tendencies_x_279_gpu"] == (
        "compute_tendencies_x_310_gpu")
    assert doc["analysed_share"] == pytest.approx(0.738, abs=5e-4)
    assert not any("another GPU's" in n for n in doc["notes"])


@pytest.mark.parametrize("option", [["--plot", "x.png"], ["--by", "nvtx"], ["--mpi"]])
def test_options_the_real_time_view_has_no_use_for_are_refused(option: list[str]) -> None:
    result = runner.invoke(app, ["summary", "a.ncu-rep", "--nsys", "p.sqlite", *option])
    assert result.exit_code == 2
    assert f"--nsys with {option[0]}" in result.output


def test_reports_of_another_application_are_one_line() -> None:
    """The shipped H200 SGEMM report against the H200 nvFuser profile: not one kernel in common."""
    report = Path(__file__).resolve().parents[2] / "examples" / "h200" / "sgemm-cuda.roofline.ncu-rep"
    result = runner.invoke(app, ["summary", str(report), "--nsys",
                                 str(find_shared_nsys("h200_nvfuser-matmul-nvtx_2025.1.sqlite"))])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith(
        "roofline: error: no kernel of the ncu reports (sgemm_tiled) is in ")
    assert result.output.strip().endswith("nvfuser_inner_persistent_f0_c1_r0_g2): give ncu reports and an nsys "
                                          "profile of the same application")


def test_the_shipped_pair_matches_every_kernel_by_instance_and_by_function() -> None:
    """examples/nsys/h100-examples.sqlite holds the examples/h100 reports' kernels: all matched by name, by kernel
    instance (ATen's templated triad kernel included) and, with --by function, by short name."""
    repo = Path(__file__).resolve().parents[2]
    reports = [str(p) for p in sorted((repo / "examples" / "h100").glob("*.roofline.*"))]
    export = str(repo / "examples" / "nsys" / "h100-examples.sqlite")
    for by, aten in (("kernel", "at::native::vectorized_elementwise_kernel<(int)4, "), ("function", "vectorized_")):
        result = runner.invoke(app, ["summary", *reports, "--nsys", export, "--by", by, "-f", "json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert len(doc["kernels"]) == 9 and doc["unmatched_ncu"] == [] and doc["unmatched_nsys"] == []
        assert {k["matched_by"] for k in doc["kernels"]} == {"name"} and doc["group_by"] == by
        assert any(k["name"].startswith(aten) for k in doc["kernels"])
        assert all(k["ncu_over_nsys"] == pytest.approx(1.0, rel=0.01) for k in doc["kernels"])
