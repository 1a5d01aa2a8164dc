"""`roofline project FILE --to SPEC` through the CLI: the table and the JSON document of the shipped H100 triad
projected onto the H200, and its one-line errors. Expected values come from the report's own launch time and the
two datasheets (device_specs/h100-sxm5.yaml, h200.yaml)."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

import roofline
from roofline.cli.app import app
from roofline.render.report.json import SCHEMA_VERSION
from tests.conftest import REPO

runner = CliRunner()
TRIAD = REPO / "examples" / "h100" / "triad-torch.roofline.json"


def bandwidth(spec_id: str) -> float:
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())["memory"][
        "bandwidth_bytes_per_s"]["value"]


def test_json_gives_each_kernel_its_projected_time_interval_and_basis():
    result = runner.invoke(app, ["project", str(TRIAD), "--to", "h200", "-f", "json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["kind"] == "project" and doc["schema_version"] == SCHEMA_VERSION and doc["target"] == "h200"
    (kernel,) = doc["kernels"]
    launch = roofline.load(TRIAD).launches[0]
    t = launch.value("gpu__time_duration.sum") * 1e-9
    dram = launch.value("dram__bytes.sum.per_second") * t
    # DRAM-bound at 92% of its peak: the bandwidth ratio, through Little's law (the bytes in flight, as many per SM
    # on the 132 SMs of both, limit it too): a = (B^-3 + C^-3)^(-1/3), C from u = a / B on the H100
    peak = launch.value("dram__bytes.sum.peak_sustained") * launch.value("dram__cycles_elapsed.avg.per_second")
    u = dram / t / peak
    in_flight = (u ** -3 - 1) ** (-1 / 3)
    there = ((bandwidth("h200") / bandwidth("h100-sxm5")) ** -3 + in_flight ** -3) ** (-1 / 3)
    expected = t * u / there
    assert 0.9 < u < 0.93 and expected > t * bandwidth("h100-sxm5") / bandwidth("h200")
    assert kernel["name"] == "vectorized_elementwise_kernel" and kernel["governing"] == "bytes.dram"
    assert kernel["measured_s"] == pytest.approx(t, rel=1e-9)
    assert kernel["projected_s"] == pytest.approx(expected, rel=1e-9)
    # the interval x/÷ 1.25, its low end raised to the roofline bound: the measured DRAM bytes at the H200's 4.8 TB/s
    assert kernel["bound_s"] == pytest.approx(dram / bandwidth("h200"), rel=1e-6)
    assert kernel["low_s"] == pytest.approx(max(expected / 1.25, kernel["bound_s"]), rel=1e-9)
    assert kernel["high_s"] == pytest.approx(expected * 1.25, rel=1e-9)
    assert kernel["basis"].startswith(f"{t * 1e6:.0f} us measured x")


def test_table_and_one_line_errors():
    table = runner.invoke(app, ["project", str(TRIAD), "--to", "h200"], env={"COLUMNS": "80"})
    assert table.exit_code == 0 and "Projection onto h200" in table.stdout
    assert max(map(len, table.stdout.splitlines())) <= 80
    for args, fragment in ((["--to", "h2000"], "unknown device spec id 'h2000'"), ([], "missing option --to")):
        result = runner.invoke(app, ["project", str(TRIAD), *args])
        assert result.exit_code == 2 and fragment in result.output and result.output.count("\n") == 1


def test_to_several_gpus_lists_each_ones_workload_total_fastest_first():
    result = runner.invoke(app, ["project", str(TRIAD), "--to", "t4,h200,a100-sxm4-80gb"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    rows = [line.split()[0] for line in result.stdout.splitlines() if line.split()[:1] in (["t4"], ["h200"],
                                                                                           ["a100-sxm4-80gb"])]
    assert rows == ["h200", "a100-sxm4-80gb", "t4"]
    assert "Workload on 3 GPUs" in result.stdout
    refused = runner.invoke(app, ["project", str(TRIAD), "--to", "all", "-f", "json"])
    assert refused.exit_code != 0 and "table format only" in refused.output
