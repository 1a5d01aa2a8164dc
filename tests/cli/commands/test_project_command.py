"""`roofline project FILE --to SPEC` through the CLI: the table and the JSON document of the shipped H100 triad
projected onto the H200, and its one-line errors. Expected values come from the report's own launch time and the
two datasheets (device_specs/h100-sxm5.yaml, h200.yaml)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from typer.testing import CliRunner

import roofline
from roofline.cli.app import app
from roofline.errors import REPROFILE_INVALID
from roofline.render.report.json import SCHEMA_VERSION
from tests.conftest import REPO

runner = CliRunner()
TRIAD = REPO / "examples" / "h100" / "triad-torch.roofline.json"
OP20 = REPO / "examples" / "h100" / "ops" / "op20-rmsnorm.json"


def bandwidth(spec_id: str) -> float:
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())["memory"][
        "bandwidth_bytes_per_s"]["value"]


def median_model(path: object, target: str, clock: str) -> dict:
    """compare.projection.project of the report's one kernel (its median launch) onto ``target``: the per-kernel
    model, its projection with its name and measured median."""
    from msgspec.structs import asdict

    from roofline.compare.pairing import pair_reports
    from roofline.compare.projection import project
    from roofline.pipeline import analyze_files
    from roofline.specs.catalog import load_catalog

    (analysis,) = analyze_files([str(path)])
    (pair,) = pair_reports([analysis]).pairs
    catalog = load_catalog()
    p = project(pair.base, analysis.device, catalog.get(target), clock,  # type: ignore[arg-type]
                source_spec=catalog.get(analysis.spec_id) if analysis.spec_id else None)
    out = {k: (v.value if hasattr(v, "value") else v) for k, v in asdict(p).items()}
    return {**out, "name": pair.label, "measured_s": pair.base.median_s.value}


def per_kernel_model(args: list[str]) -> list[dict]:
    """``compare REPORT --project-to TARGET -f json``: each kernel's median launch projected by compare.projection
    (``roofline project`` sums every launch's projection instead), the projection with its name and measured median."""
    result = runner.invoke(app, ["compare", *args, "-f", "json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return [{**k["sides"][0]["projection"], "name": k["label"], "measured_s": k["sides"][0]["median_s"]}
            for k in json.loads(result.stdout)["kernels"]]


def test_json_gives_each_kernel_its_launches_summed_from_the_per_launch_projection():
    """op20's vectorized_elementwise_kernel runs 175, 5.0 and 5.2 us launches: its row sums their projections (the
    old per-kernel row took its median 5.2 us launch x its mean launch's bytes: 547 us on the T4)."""
    result = runner.invoke(app, ["project", str(OP20), "--to", "t4", "-f", "json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["kind"] == "project" and doc["schema_version"] == SCHEMA_VERSION and doc["target"] == "t4"
    kernels = {k["name"]: k for k in doc["kernels"]}
    launches = [x for x in doc["workload"]["launches"] if x["name"] == "vectorized_elementwise_kernel"]
    k = kernels["vectorized_elementwise_kernel"]
    assert (k["count"], k["groups"]) == (3, 3)
    for key in ("measured_s", "projected_s", "low_s", "high_s"):
        assert k[key] == pytest.approx(sum(x["count"] * x[key] for x in launches), rel=1e-12)
    assert sum(k["projected_s"] for k in doc["kernels"]) == pytest.approx(doc["workload"]["projected_s"], rel=1e-12)
    # memory-bound: its DRAM bytes at the T4's achievable bandwidth bound it (the `DRAM achievable` term, issue 62)
    assert k["governing"] == "DRAM achievable" and 1.0e-3 < k["projected_s"] < 2.5e-3


def test_the_per_kernel_model_projects_the_median_launch_with_its_basis():
    """compare.projection.project (whose bound, L2 term and clocks compare shows): the median launch's time."""
    kernel = median_model(TRIAD, "h200", "boost")
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


def test_compare_projects_each_side_with_projects_per_launch_model():
    """One number: compare --project-to's time per launch is the mean of the kernel's launches as `roofline
    project` projects them (its kernel's total over its count), interval and governing unit alike."""
    (kernel,) = per_kernel_model([str(OP20), "--project-to", "t4", "-k", "vectorized_elementwise_kernel"])
    result = runner.invoke(app, ["project", str(OP20), "--to", "t4", "-f", "json"], env={"COLUMNS": "80"})
    total = next(k for k in json.loads(result.stdout)["kernels"] if k["name"] == "vectorized_elementwise_kernel")
    for key in ("projected_s", "low_s", "high_s"):
        assert kernel[key] == pytest.approx(total[key] / total["count"], rel=1e-12)
    assert kernel["governing"] == total["governing"] and "roofline project's model" in kernel["basis"]


def test_table_and_one_line_errors():
    table = runner.invoke(app, ["project", str(TRIAD), "--to", "h200"], env={"COLUMNS": "80"})
    assert table.exit_code == 0 and "Projection onto h200" in table.stdout
    assert max(map(len, table.stdout.splitlines())) <= 80
    for args, fragment in ((["--to", "h2000"], "unknown device spec id 'h2000'"), ([], "missing option --to")):
        result = runner.invoke(app, ["project", str(TRIAD), *args])
        assert result.exit_code == 2 and fragment in result.output and result.output.count("\n") == 1


def test_user_spec_files_are_used_for_the_source_and_the_target(tmp_path):
    """--specs holds the source GPU's spec (an id the project does not ship, its base clock raised to the boost) and
    the target's: the projection reads both, the source's base clock setting the share of it the kernel ran at."""
    source = yaml.safe_load((REPO / "device_specs" / "h100-sxm5.yaml").read_text())
    source["id"], source["base_clock_hz"]["value"] = "user-h100", source["boost_clock_hz"]["value"]
    target = yaml.safe_load((REPO / "device_specs" / "h200.yaml").read_text())
    target["id"], target["display_names"] = "user-gpu", ["A GPU no report names"]
    target["boost_clock_hz"]["value"] = 2.5e9
    for spec in (source, target):
        (tmp_path / f"{spec['id']}.yaml").write_text(yaml.safe_dump(spec))
    result = runner.invoke(app, ["project", str(TRIAD), "--to", "user-gpu", "--specs", str(tmp_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["target"] == "user-gpu" and doc["report"]["spec_id"] == "user-h100"
    clock = per_kernel_model([str(TRIAD), "--project-to", "user-gpu", "--specs", str(tmp_path), "--clock",
                              "boost"])[0]["clock"]
    assert clock["target_boost_clock_hz"] == 2.5e9
    ran, boost = clock["source_clock_hz"], clock["source_boost_clock_hz"]
    share = min(1.0, ran / source["base_clock_hz"]["value"])  # without the source's spec: 1
    assert share < 0.9 and clock["factor"] == pytest.approx((ran / boost) / share, rel=1e-12)


def test_to_several_gpus_lists_each_ones_workload_total_fastest_first():
    result = runner.invoke(app, ["project", str(TRIAD), "--to", "t4,h200,a100-sxm4-80gb"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    rows = [line.split()[0] for line in result.stdout.splitlines() if line.split()[:1] in (["t4"], ["h200"],
                                                                                           ["a100-sxm4-80gb"])]
    assert rows == ["h200", "a100-sxm4-80gb", "t4"]
    assert "Workload on 3 GPUs" in result.stdout
    as_json = runner.invoke(app, ["project", str(TRIAD), "--to", "t4,h200,a100-sxm4-80gb", "-f", "json"])
    assert as_json.exit_code == 0, as_json.output
    everywhere = json.loads(as_json.stdout)["everywhere"]
    assert [w["target"] for w in everywhere] == rows
    assert all(w["projected_s"] == pytest.approx(sum(g["count"] * g["projected_s"] for g in w["launches"]))
               for w in everywhere)


def test_to_all_fits_80_columns_where_a_long_unit_governs():
    """torch-fp8 onto every GPU: "shared pipe" governs on some, and no line passes 80 columns."""
    fp8 = REPO / "examples" / "h100" / "torch-fp8.roofline.ncu-rep"
    result = runner.invoke(app, ["project", str(fp8), "--to", "all"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "shared pipe" in result.stdout and "measured here: " in result.stdout
    assert max(map(len, result.stdout.splitlines())) <= 80


def test_to_all_says_the_own_gpus_row_is_the_clock_ncu_locked_not_a_model_error():
    """examples/h100 sgemm-cuda ran at 1.59 GHz, within 1% of the H100 SXM5's 1.579 GHz base clock that ncu locks;
    `--to all` projects it at the sustained 1.79 GHz, so its own row reads 1.12x: the clocks' ratio for this
    SM-paced kernel. The JSON names the row, the state of the clock and both clocks; the table's legend says it."""
    from roofline.ncu import metrics as m

    sgemm = REPO / "examples" / "h100" / "sgemm-cuda.roofline.ncu-rep"
    (k,) = roofline.analyze_files([sgemm])[0].valid_launches
    ran = m.sm_clock_hz(k.launch).value
    base = yaml.safe_load((REPO / "device_specs" / "h100-sxm5.yaml").read_text())["base_clock_hz"]["value"]
    as_json = runner.invoke(app, ["project", str(sgemm), "--to", "all", "-f", "json"])
    assert as_json.exit_code == 0, as_json.output
    doc = json.loads(as_json.stdout)
    own = doc["own_gpu"]
    assert own == {"target": "h100-sxm5", "source_clock": "locked_base", "source_clock_hz": ran,
                   "base_clock_hz": base, "clock": "sustained", "clock_hz": own["clock_hz"], "missing": {}}
    (row,) = [w for w in doc["everywhere"] if w["target"] == "h100-sxm5"]
    assert row["clock_hz"] == own["clock_hz"] and abs(ran - base) < 0.01 * base
    assert row["measured_s"] / row["projected_s"] == pytest.approx(own["clock_hz"] / ran, rel=1e-3)
    table = runner.invoke(app, ["project", str(sgemm), "--to", "all"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert (f"h100-sxm5 is the report's own GPU: the report ran at {ran / 1e9:.3g} GHz, the base clock ncu locks "
            "while profiling (--clock-control base, its default); the projection takes the sustained clock, "
            f"{own['clock_hz'] / 1e9:.3g} GHz: its row differs from 1x") in " ".join(table.stdout.split())


def test_to_gpus_without_the_reports_own_names_no_own_row():
    as_json = runner.invoke(app, ["project", str(TRIAD), "--to", "t4,h200", "-f", "json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout)["own_gpu"] is None


def project_json(*args: str) -> dict:
    result = runner.invoke(app, ["project", *args, "-f", "json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_fp64_tensor_work_goes_to_the_fp64_lanes_of_a_gpu_without_fp64_tensor_cores():
    """The H100's DGEMM (DMMA) onto an RTX 4090: its FP64 FLOPs at the FP64 lanes' peak (1.29 TFLOP/s at 2.52 GHz,
    device_specs/rtx-4090.yaml) at the clock held there, not on the FP32 lanes (45x faster than that peak)."""
    doc = project_json(str(REPO / "examples" / "h100" / "torch-fp64.full.json"), "--to", "rtx-4090")
    w = doc["workload"]
    (group,) = w["launches"]
    tensor = next(t for t in group["terms"] if t["key"] == "tensor")
    assert tensor["stand_in"] and "FP64 lanes" in tensor["how"] and tensor["runs_on"] == "FP64 lanes"
    assert group["governing"] == "tensor on FP64 lanes"
    peak = yaml.safe_load((REPO / "device_specs" / "rtx-4090.yaml").read_text())["peaks"]["fp64"]["value"]
    # the DGEMM ran at the H100's locked base (within the 3% that reads as locked): the 4090 at its own clock
    from roofline.core.thresholds import CLOCK_TOLERANCE

    ran = roofline.load(REPO / "examples" / "h100" / "torch-fp64.full.json").launches[0].value(
        "sm__cycles_elapsed.avg.per_second")
    base = yaml.safe_load((REPO / "device_specs" / "h100-sxm5.yaml").read_text())["base_clock_hz"]["value"]
    assert base * (1 - CLOCK_TOLERANCE) < ran < base
    at_clock = peak * w["clock_hz"] / 2.52e9
    report = json.loads(runner.invoke(app, ["report", str(REPO / "examples" / "h100" / "torch-fp64.full.json"),
                                            "-f", "json"]).stdout)
    dmma = report["reports"][0]["kernels"][0]["tensor_flops_by_type"]["fp64"]
    assert tensor["target_s"] == pytest.approx(dmma / at_clock, rel=1e-6)


def test_a_group_of_identical_launches_counts_their_measured_sum_not_the_median_times_count(shared_report,
                                                                                          raw_actions):
    """The A100 CUB sort's 22 histogram launches (same grid and work) run 12-69 us: the group's measured total is
    their sum (671 us), as report and summary give it."""
    name = "a100-40gb_selfjoin-cub-sort-154launches_basic"
    doc = project_json(str(shared_report(name)), "--to", "a100-pcie-40gb")
    raw = [a.values["gpu__time_duration.sum"] * 1e-9 for a in raw_actions(name)
           if a.name == "DeviceRadixSortHistogramKernel"]
    rows = [g for g in doc["workload"]["launches"] if g["name"] == "DeviceRadixSortHistogramKernel"]
    assert sum(g["count"] for g in rows) == len(raw) == 22
    assert sum(g["count"] * g["measured_s"] for g in rows) == pytest.approx(sum(raw), rel=1e-9)
    assert doc["workload"]["measured_s"] == pytest.approx(
        sum(a.values["gpu__time_duration.sum"] * 1e-9 for a in raw_actions(name)), rel=1e-9)


def test_a_report_with_no_launch_to_project_is_one_line_naming_the_set_that_collects_it(shared_report):
    """gh200_silu_metrics holds no launch time, rtx5060ti_transpose-occupancy no unit throughput: nothing to
    project onto any GPU, so one line names the file, the cause and the --set that collects it, exit 2 (not an
    empty table of 38 GPUs, each with the same reason)."""
    for name, cause in (("gh200_silu_metrics", "3 launches: no measured time (ncu stored none)"),
                        ("rtx5060ti_transpose-occupancy-45launches_metrics",
                         "44 launches: no time model (no unit's throughput nor FLOP or byte roof measured)")):
        path = str(shared_report(name))
        for args in (["--to", "h200"], ["--to", "all"], ["--to", "t4,h200"], ["--to", "all", "--clock", "base"]):
            result = runner.invoke(app, ["project", path, *args, "-f", "json"])  # base: GPUs without one too
            assert result.exit_code == 2 and result.stdout == ""
            line = result.stderr.strip().splitlines()[-1]
            assert line.startswith(f"roofline: error: {path}: no launch can be projected ({cause})")
            assert "re-profile with --set roofline or --set full" in line


def test_a_report_of_invalid_launches_only_is_one_line_not_an_empty_table(tmp_path):
    """Every launch of a model invalid (300 registers per thread): nothing to project, one line, exit 2."""
    doc = json.loads((REPO / "examples" / "h100-sxm_synthetic.roofline.json").read_text())
    for launch in doc["launches"]:
        launch["registers_per_thread"] = 300
    path = tmp_path / "invalid.roofline.json"
    path.write_text(json.dumps(doc))
    for to in ("h200", "all"):
        result = runner.invoke(app, ["project", str(path), "--to", to])
        assert result.exit_code == 2 and result.stdout == ""
        assert f"{path}: no launch can be projected (no valid launch)" in result.stderr
        # the launches are invalid, not short of metrics: the fix is grade's and summary's, not a --set
        assert REPROFILE_INVALID in result.stderr and "--set" not in result.stderr


def test_launches_left_out_are_named_in_every_format_of_several_gpus(shared_report):
    """h800_flash-attn-fwd_full: ncu stored no duration for flash_fwd_kernel; onto several GPUs the totals leave it
    out, and the table, the Markdown and the CSV say so, as the JSON does."""
    path = str(shared_report("h800_flash-attn-fwd_full"))
    doc = project_json(path, "--to", "t4,h200")
    for w in doc["everywhere"]:
        assert w["left_out_kernels"] == [{"name": "flash_fwd_kernel", "launches": 1, "cause": "no_time",
                                          "reason": "no measured time (ncu stored none)"}]
    words = "left out of the totals, 1 launch: no measured time (ncu stored none): flash_fwd_kernel (1 launch)"
    table = runner.invoke(app, ["project", path, "--to", "t4,h200"], env={"COLUMNS": "200"})
    assert words in table.stdout
    markdown = runner.invoke(app, ["project", path, "--to", "t4,h200", "-f", "markdown", "-o", "-"])
    assert words in markdown.stdout
    csv_rows = runner.invoke(app, ["project", path, "--to", "t4,h200", "-f", "csv", "-o", "-"]).stdout.splitlines()
    left = [r.split(",") for r in csv_rows if ",left_out," in r]
    assert sorted(r[0] for r in left) == ["h200", "t4"]
    assert all(r[2:4] == ["flash_fwd_kernel", "1"] and r[-1] == "no measured time (ncu stored none)" for r in left)


def test_to_all_at_the_base_clock_gives_gpus_without_one_a_row_and_an_id_counts_once():
    everywhere = project_json(str(TRIAD), "--to", "all", "--clock", "base")["everywhere"]
    lacking = [w for w in everywhere if not w["launches"]]
    assert lacking and all(w["reason"] == f"no base clock in the spec {w['target']}" and w["projected_s"] is None
                           for w in lacking)
    assert len(everywhere) == len({w["target"] for w in everywhere})
    twice = project_json(str(TRIAD), "--to", "h200,h200,t4")["everywhere"]
    assert sorted(w["target"] for w in twice) == ["h200", "t4"]


def test_several_targets_at_the_base_clock_give_one_without_it_the_row_of_to_all():
    """--to h200,l40s,t4 --clock base: l40s.yaml gives no base_clock_hz (h200 and t4 do), so l40s gets the row and
    reason --to all gives it, not an error for the whole list; a list of none with a base clock is one line."""
    for spec_id, has in (("h200", True), ("l40s", False), ("t4", True)):  # the premise, from the YAML files
        text = (REPO / "device_specs" / f"{spec_id}.yaml").read_text()
        assert ("base_clock_hz" in text) is has, spec_id
    everywhere = {w["target"]: w for w in project_json(str(TRIAD), "--to", "h200,l40s,t4", "--clock", "base")[
        "everywhere"]}
    assert sorted(everywhere) == ["h200", "l40s", "t4"]
    lacking = everywhere["l40s"]
    assert lacking["reason"] == "no base clock in the spec l40s" and lacking["projected_s"] is None
    assert all(everywhere[t]["projected_s"] for t in ("h200", "t4"))
    table = runner.invoke(app, ["project", str(TRIAD), "--to", "h200,l40s,t4", "--clock", "base"])
    assert table.exit_code == 0 and "l40s: no base clock in the spec l40s" in table.stdout
    none = runner.invoke(app, ["project", str(TRIAD), "--to", "l40s,b200", "--clock", "base"])
    assert none.exit_code == 2 and none.stderr.count("\n") == 1
    assert "--clock base: none of the specs l40s, b200 gives a base_clock_hz" in none.stderr


BF16 = REPO / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"


def spec_without_bf16(tmp_path) -> str:
    """A user's RTX 5090 spec (rtx-5060-ti.yaml's figures) that gives tensor_fp16 and no tensor_bf16."""
    spec = yaml.safe_load((REPO / "device_specs" / "rtx-5060-ti.yaml").read_text())
    spec.update(id="my-rtx-5090", display_names=["My RTX 5090"])
    spec["peaks"] = {k: v for k, v in spec["peaks"].items() if k != "tensor_bf16"}
    path = tmp_path / "my-rtx-5090.yaml"
    path.write_text(yaml.safe_dump(spec))
    return str(path)


def test_tensor_work_of_a_type_a_user_spec_omits_is_said_to_lack_a_figure_not_the_hardware(tmp_path):
    """A user's RTX 5090 spec with tensor_fp16 and no tensor_bf16 (device_specs/README.md: omit what the GPU lacks
    or what cannot be sourced): the BF16 GEMM's Tensor work is timed on the FP32 lanes, and the note says the spec
    gives no tensor_bf16 figure, not that the GPU has no such Tensor Cores."""
    result = runner.invoke(app, ["project", str(BF16), "--to", "my-rtx-5090", "--specs", spec_without_bf16(tmp_path)],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "the spec my-rtx-5090 gives no tensor_bf16 figure (the GPU lacks it or it is not sourced)" in text
    assert "no Tensor Cores of its type" not in text


def test_on_its_own_gpu_a_launch_keeps_the_dram_rate_it_reached_above_the_achievable_default(shared_report,
                                                                                            raw_actions):
    """The H100 PCIe RMSNorm moves its DRAM bytes at 1.82 TB/s, above the HBM2e default's achievable 1.64 TB/s:
    projected onto its own GPU it takes no longer than it did (it took 1.81 ms of 1.63 measured)."""
    name = "h100-pcie_rmsnorm-float4_full-roofline"
    w = project_json(str(shared_report(name)), "--to", "h100-pcie")["workload"]
    raw = [a for a in raw_actions(name) if "gpu__time_duration.sum" in a.values]
    measured = sum(a.values["gpu__time_duration.sum"] for a in raw) * 1e-9
    rates = [a.values["dram__bytes.sum.per_second"] for a in raw]
    assert min(rates) > w["dram_bytes_per_s"]  # each launch beat the achievable default
    assert w["measured_s"] == pytest.approx(measured, rel=1e-9)
    assert w["projected_s"] == pytest.approx(measured, rel=1e-6)


def test_at_80_columns_the_tables_keep_each_figure_with_its_unit(tmp_path):
    """The launch table of the BF16 GEMM onto the user's RTX 5090 is wider than 80 columns: its words wrap ("tensor
    on FP32 lanes"), its figures do not (the interval was "1.85" over "ms-2.83 ms"); each row's interval is the one
    the JSON gives, whole on its line."""
    args = ["project", str(BF16), "--to", "my-rtx-5090", "--specs", spec_without_bf16(tmp_path)]
    lines = runner.invoke(app, args, env={"COLUMNS": "80"}).stdout.splitlines()
    w = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)["workload"]
    assert max(map(len, lines)) <= 80
    low, high = w["low_s"] * 1e3, w["high_s"] * 1e3  # the total's interval, in ms
    interval = f"{low:.3g}-{high:.3g} ms"  # one unit where both ends share it, as the kernel table writes it
    assert sum(interval in line for line in lines) >= 2  # the launch group's row and the total's, each whole
    assert not [line for line in lines if line.strip() in ("us", "ms") or line.rstrip().endswith((" ms-", " us-", "-"))]


def test_the_dram_rate_reached_on_its_own_gpu_is_named_and_identical_launches_share_their_by(shared_report,
                                                                                              raw_actions):
    """The RMSNorm's 4 launches, each above the achievable 1.64 TB/s on its own H100 PCIe: the JSON names how many
    groups keep the rate they reached and the highest (from the raw dram__bytes.sum.per_second), the header says so,
    and the four identical launches (their floor = their own time, equal to the units' time but for rounding) are
    all named by DRAM, not one of them "DRAM achievable"."""
    name = "h100-pcie_rmsnorm-float4_full-roofline"
    path = str(shared_report(name))
    w = project_json(path, "--to", "h100-pcie", "--clock", "boost")["workload"]
    raw = [a for a in raw_actions(name) if "gpu__time_duration.sum" in a.values]
    rates = [a.values["dram__bytes.sum.per_second"] for a in raw]
    assert w["dram_reached"] == len(w["launches"]) == len(raw) == 4
    assert w["dram_reached_bytes_per_s"] == pytest.approx(max(rates), rel=1e-3)
    assert {g["governing"] for g in w["launches"]} == {"DRAM"}
    text = " ".join(runner.invoke(app, ["project", path, "--to", "h100-pcie", "--clock", "boost"]).stdout.split())
    assert (f"this is the report's own GPU: 4 launch groups moved DRAM bytes faster here than that achievable figure, "
            f"up to {max(rates) / 1e12:.3g} TB/s") in text


@pytest.mark.parametrize(("source", "target", "shown"), [
    (TRIAD, "t4", True),  # the H100 triad's DRAM bytes at the T4's achievable bandwidth set its time
    (REPO / "examples" / "h200" / "sgemm-lineinfo.full.ncu-rep", "h100-sxm5", False),  # an SGEMM: its L1 does
])
def test_the_legend_explains_dram_achievable_exactly_where_by_shows_it(source, target, shown):
    """The legend under the tables says what "DRAM floor" (JSON governing "DRAM achievable", shortened for an
    80-column table) is where a `by` cell (a table row's last cell, after its time interval) shows it, and is left
    out where none does."""
    out = runner.invoke(app, ["project", str(source), "--to", target], env={"COLUMNS": "200"}).stdout
    by_cells = re.findall(r"(?m)\d (?:ns|us|ms|s) +DRAM floor$", out)
    legend = ("DRAM floor = the launch's DRAM bytes at the target's achievable DRAM bandwidth (what a stream copy "
              "reaches there; on the report's own GPU the rate the launch reached, where higher), the least time the "
              "model gives it, named where it sets the time (JSON governing: DRAM achievable)")
    assert bool(by_cells) is shown and (legend in " ".join(out.split())) is shown


def test_ceilings_is_no_option_of_project_which_reads_no_roof():
    """The projection reads each unit's percent of its peak and the specs' rates: --ceilings changed nothing but a
    label (and --ceilings calibrated failed on a GPU without calibration), so it is not offered."""
    result = runner.invoke(app, ["project", str(TRIAD), "--to", "h200", "--ceilings", "datasheet"])
    assert result.exit_code == 2 and "no such option --ceilings" in result.stderr


def test_the_launch_table_fits_80_columns_with_each_grid_and_unit_whole(shared_report):
    """H100 PCIe RMSNorm onto the H100 SXM5 piped at 80 columns: each launch row took three lines ("8192 x" over
    "256", "DRAM achievabl" over "e"; probe r25). Now each is one line: n, grid, and "DRAM floor" for the JSON's
    DRAM achievable, named so in the legend."""
    path = str(shared_report("h100-pcie_rmsnorm-float4_full-roofline"))
    out = runner.invoke(app, ["project", path, "--to", "h100-sxm5"], env={"COLUMNS": "80"}).stdout
    doc = project_json(path, "--to", "h100-sxm5")
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["kernel", "n", "grid"])
    rows = lines[header + 1:header + 1 + len(doc["workload"]["launches"]) + 1]
    assert lines[header].split() == ["kernel", "n", "grid", "measured", "projected", "interval", "by"]
    for row, group in zip(rows, doc["workload"]["launches"], strict=False):
        assert group["governing"] == "DRAM achievable" and f"{group['grid']} x {group['block']}" == "8192 x 256"
        assert row.endswith("8192 x 256" + row.split("8192 x 256")[1]) and row.split()[-2:] == ["DRAM", "floor"]
    assert rows[-1].split()[:2] == ["total", "4"]
    assert "(JSON governing: DRAM achievable)" in " ".join(out.split())


def test_the_ranking_of_every_gpu_fits_80_columns_one_line_per_gpu():
    """examples/h100 torch-fp8 onto every GPU: the `by` cell "tensor on FP32 lanes" and the clock "1.47 GHz" put the
    table at 89 columns, so 23 rows took two lines (probe r25). Now "FP32 (tensor)", a GHz column: one line each."""
    source = REPO / "examples" / "h100" / "torch-fp8.full.json"
    out = runner.invoke(app, ["project", str(source), "--to", "all"], env={"COLUMNS": "80"}).stdout
    doc = project_json(str(source), "--to", "all")
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("GPU "))
    shown = [w for w in doc["everywhere"] if w["projected_s"] is not None]
    rows = lines[header + 1:header + 1 + len(shown)]
    assert lines[header].split() == ["GPU", "projected", "interval", "speedup", "by", "GHz", "note"]
    assert [row.split()[0] for row in rows] == [w["target"] for w in shown] and max(map(len, lines)) <= 80
    stand_in = [w for w in shown if w["governing"] == "tensor on FP32 lanes"]
    assert stand_in and all(re.search(rf"  FP32 \(tensor\) +{w['clock_hz'] / 1e9:.3g}( |$)", rows[shown.index(w)])
                            for w in stand_in)
    assert "FP32 (tensor) = tensor work timed on the FP32 lanes" in " ".join(out.split())
