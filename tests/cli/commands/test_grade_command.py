"""`roofline grade REPORT` through the CLI on the shipped H100 reports and a shared one: the table with each kernel's
grade, conditions and fixes, the JSON document valid against its generated schema, the grade withheld with its
reason (exit 0) against a baseline in another precision, and the one-line errors of bad input (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.units import seconds
from roofline.documents.common import SCHEMA_VERSION
from roofline.documents.schemas import schema
from tests.conftest import REPO, find_shared_report

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")

runner = CliRunner()
H100 = REPO / "examples" / "h100"
TRIAD = H100 / "triad-cupy.full.ncu-rep"
FP32, BF16 = H100 / "torch-fp32.roofline.json", H100 / "torch-bf16.roofline.ncu-rep"
EXAMPLES = sorted(p.name for p in H100.iterdir() if p.suffix in (".json", ".ncu-rep"))


def grade_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["grade", *args, "-f", "json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    jsonschema.Draft202012Validator(schema("grade")).validate(doc)
    return doc


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_shipped_h100_report_grades_into_a_document_its_schema_accepts(name: str) -> None:
    doc = grade_json(str(H100 / name))
    assert doc["kind"] == "grade" and doc["schema_version"] == SCHEMA_VERSION and doc["spec_id"] == "h100-sxm5"
    assert doc["kernels"] and doc["baseline"] is None
    for k in doc["kernels"]:
        assert {c["kind"] for c in k["conditions"]} == {"clock", "cache", "replay", "launches"}
        if k["grade"] is not None:
            assert 0.0 < k["grade"] <= 1.0 and 0.0 < k["datasheet_grade"] <= 1.0
            assert k["grade"] == pytest.approx(1.0 - k["max_saving_s"] / k["measured_s"])
            assert len(k["per_launch"]) == k["launches"]
        else:
            assert k["withheld"]


def test_the_table_shows_the_grade_the_governing_roof_and_each_condition_with_its_fix() -> None:
    doc = grade_json(str(TRIAD))
    (k,) = doc["kernels"]
    assert k["governing"] == "DRAM" and k["roof"] == "dram" and k["interval"] is None  # one launch: no interval
    result = runner.invoke(app, ["grade", str(TRIAD)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert f"grade: {100 * k['grade']:.1f}% of the attainable roof" in result.stdout
    # the second figure is every unit at its full peak (ncu's percent of peak), not the datasheet roofs' percent
    assert f"at the units' full peaks {100 * k['datasheet_grade']:.1f}%" in " ".join(result.stdout.split())
    assert "governed by: DRAM (roof dram)" in result.stdout and max(map(len, result.stdout.splitlines())) <= 80
    assert "fix: ncu --cache-control all" in result.stdout and "fix: ncu -c N" in result.stdout
    assert k["confidence"] == "low" and "confidence: low" in result.stdout  # one launch measured


def test_against_an_fp32_baseline_the_bf16_kernel_is_withheld_as_another_precision() -> None:
    doc = grade_json(str(BF16), "--baseline", str(FP32))
    (k,) = doc["kernels"]
    assert doc["baseline"] == str(FP32)
    assert k["grade"] is None and k["datasheet_grade"] is None and k["withheld"] == ["other_precision"]
    assert k["work"]["precision"] == "tensor:bf16" and k["work"]["baseline_precision"] == "fp32"
    table = runner.invoke(app, ["grade", str(BF16), "--baseline", str(FP32)])
    assert table.exit_code == 0, table.output
    assert "grade: withheld" in table.stdout and "a less precise type than the baseline's fp32" in table.stdout
    assert max(map(len, table.stdout.splitlines())) <= 80  # the long GEMM names cut to the width


def test_the_same_precision_as_the_baseline_is_graded() -> None:
    (k,) = grade_json(str(FP32), "--baseline", str(FP32))["kernels"]
    assert k["withheld"] == [] and k["grade"] is not None and k["work"]["different"] is False


def test_the_kernel_filter_selects_the_graded_kernels_not_the_baselines() -> None:
    (k,) = grade_json(str(BF16), "--kernel", "nvjet", "--baseline", str(FP32))["kernels"]
    assert k["kernel"].startswith("nvjet") and k["work"]["baseline_kernel"].startswith("sm80_xmma_gemm_f32")


def test_the_output_name_chooses_the_format(tmp_path: Path) -> None:
    for name, check in (("g.json", lambda t: json.loads(t)["kind"] == "grade"),
                        ("g.md", lambda t: "\n# Grade of" in t and "| kernel | launches | grade |" in t)):
        result = runner.invoke(app, ["grade", str(TRIAD), "-o", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        assert check((tmp_path / name).read_text())


def test_a_shared_report_of_several_launches_has_an_interval() -> None:
    path = find_shared_report("h100-pcie_rmsnorm-float4_full-roofline")
    (k,) = grade_json(str(path))["kernels"]
    assert k["launches"] == 4 and k["interval"]["low"] <= k["grade"] <= k["interval"]["high"]
    assert k["confidence"] == "medium"  # only the cache control is unknown


@pytest.mark.parametrize(("args", "fragment"), [
    (["nothere.ncu-rep"], "nothere.ncu-rep: no such file"),
    ([str(TRIAD), "--baseline", "nothere.json"], "nothere.json: no such file"),
    ([str(TRIAD), "-f", "csv"], "invalid value for --format"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["grade", *args])
    assert result.exit_code == 2 and fragment in result.output and result.output.count("\n") == 1


def test_work_that_differs_names_the_measures_that_decide_it() -> None:
    """PyTorch's triad against CuPy's: the same FP32 FLOPs, but the CuPy full-set report counts 268 M FP16 FLOPs
    (its HFMA2.MMA register moves, docs/accuracy.md) and PyTorch's none: "differs" says on what."""
    torch = REPO / "examples" / "h100" / "triad-torch.full.json"
    (k,) = grade_json(str(torch), "--baseline", str(TRIAD))["kernels"]
    assert k["work"]["different"] is True
    (on,) = k["work"]["differs_on"]
    assert on["measure"] == "flops.fp16" and on["value"] == 0 and on["baseline"] == pytest.approx(268435456.0)
    assert on["ratio"] == 0
    table = runner.invoke(app, ["grade", str(torch), "--baseline", str(TRIAD)], env={"COLUMNS": "120"})
    assert "work vs baseline triad: differs on flops.fp16 0 (baseline 268 M)" in " ".join(table.stdout.split())


def test_same_work_says_what_it_was_compared_on_where_not_the_flops() -> None:
    """The A10G blocktiling kernels against the basic-set progression report, which holds no FLOPs nor bytes: the
    work is the same by the threads launched, and the line says so rather than a bare "same"."""
    base, graded = find_shared_report("a10g_sgemm-progression_basic"), find_shared_report(
        "a10g_sgemm-blocktiling_roofline")
    kernels = grade_json(str(graded), "--baseline", str(base))["kernels"]
    same = [k for k in kernels if k["work"] is not None and not k["work"]["different"]]
    assert same and all(k["work"]["basis"] == "threads" for k in same)
    table = " ".join(runner.invoke(app, ["grade", str(graded), "--baseline", str(base)],
                                   env={"COLUMNS": "200"}).stdout.split())
    assert table.count("same (by threads launched); precision fp32") == len(same)


def test_work_with_no_measure_on_both_reports_is_not_compared_nor_same() -> None:
    """An RTX 4090 custom-metrics report against an RTX 2080 Ti basic set: no measure of work on both, so the work
    is neither "same" nor "differs": null with its reason in JSON, "not compared" in the table."""
    base = find_shared_report("rtx2080ti_kernels_basic")
    graded = find_shared_report("rtx4090_torch-linear-sgemm_custom")
    kernels = grade_json(str(graded), "--baseline", str(base))["kernels"]
    apart = [k for k in kernels if k["work"] is not None and k["work"]["basis"] == ""]
    assert apart and all(k["work"]["different"] is None for k in apart)
    assert all(k["work"]["missing"]["different"] == "not compared: no measure of work on both reports"
               for k in apart)
    assert all(set(k["work"]["missing"]) == {"different"} | {key for key in ("flops_ratio", "written_ratio")
                                                             if k["work"][key] is None} for k in apart)
    table = " ".join(runner.invoke(app, ["grade", str(graded), "--baseline", str(base)],
                                   env={"COLUMNS": "200"}).stdout.split())
    assert "not compared (no measure of work on both)" in table and ": same (not compared" not in table


def test_a_basic_metrics_report_shows_each_launchs_measured_time_and_withholds_only_the_grade(raw_actions) -> None:
    """The RTX 5060 Ti transpose report (ncu's metrics without the SpeedOfLight breakdowns): 44 valid launches with
    a duration and no unit term. Their time is the sum of gpu__time_duration.sum read with ncu_report; the grade is
    withheld (no_time_model) with the time model's reason, and no confidence is given for a grade that is not."""
    name = "rtx5060ti_transpose-occupancy-45launches_metrics"
    durations = [a["gpu__time_duration.sum"] * 1e-9 for a in raw_actions(name) if a.has("gpu__time_duration.sum")]
    (k,) = grade_json(str(find_shared_report(name)))["kernels"]
    assert len(durations) == k["launches"] == len(k["per_launch"]) == 44
    assert k["measured_s"] == pytest.approx(sum(durations), rel=1e-12)
    assert [g["measured_s"] for g in k["per_launch"]] == pytest.approx(durations, rel=1e-12)
    assert k["grade"] is None and k["withheld"] == ["no_time_model"] and k["confidence"] is None
    nulls = {key for key, value in k.items() if value is None}
    nulls |= {f"conditions[{i}].{field}" for i, c in enumerate(k["conditions"])
              for field in ("measured", "expected") if c[field] is None}
    assert nulls == set(k["missing"]) and "no unit measured" in k["missing"]["grade"]
    assert all(set(g["missing"]) == {key for key, value in g.items() if value is None} for g in k["per_launch"])
    table = " ".join(runner.invoke(app, ["grade", str(find_shared_report(name))], env={"COLUMNS": "100"})
                     .stdout.split())
    assert f"time: {sum(durations) * 1e3:.3g} ms over 44 launches, none graded; floor n/a" in table
    assert "confidence: n/a (no grade to qualify)" in table and "confidence: medium" not in table


def test_a_report_without_breakdowns_names_its_governing_unit_as_the_breakdowns_do() -> None:
    """The RTX 4050 memory-chart report has no SpeedOfLight breakdowns: its floor is the DRAM bytes over the DRAM
    roof, named "DRAM" as a breakdown's DRAM unit is elsewhere (the roof is "dram"), not "dram roof"."""
    (k,) = grade_json(str(find_shared_report("rtx4050-laptop_rgb-coalesced_memchart")))["kernels"]
    assert (k["governing"], k["roof"]) == ("DRAM", "dram")
    assert {g["governing"] for g in k["per_launch"]} == {"DRAM"}


def test_markdown_escapes_a_hostile_kernel_name_and_has_the_columns_the_table_gives(tmp_path: Path) -> None:
    """A model whose kernel is named evil|name`with*tick_: the Markdown table keeps its columns (the pipe escaped
    inside the code span, the backtick shown as '), as diff -f markdown writes names; the table has the "most saved
    keeping the work" and small-grid columns the text gives, its launch count and the range of its launches'
    grades."""
    from markdown_it import MarkdownIt

    data = json.loads(FP32.read_text())
    for key in ("name", "demangled_name", "mangled_name", "function_name"):
        if key in data["launches"][0]:
            data["launches"][0][key] = "evil|name`with*tick_"
    model = tmp_path / "evil.json"
    model.write_text(json.dumps(data))
    result = runner.invoke(app, ["grade", str(model), "-f", "markdown"])
    assert result.exit_code == 0, result.output
    tokens = MarkdownIt("commonmark").enable("table").parse(result.stdout)
    header = [t.content for t in tokens if t.type == "inline"][2:15]
    assert header == ["kernel", "launches", "grade", "launches' range", "at full peaks", "governing", "roof", "time",
                      "graded time (the grade's)", "floor", "most saved keeping the work and grid",
                      "small grids (not graded)", "confidence"]
    row = [t for t in tokens if t.type == "tr_open"][1]
    cells = [t for t in tokens[tokens.index(row):] if t.type == "td_open"][:13]
    assert len(cells) == 13
    assert "| `evil\\|name'with*tick_` |" in result.stdout
    (k,) = grade_json(str(model))["kernels"]
    assert f"| {k['max_saving_s'] * 1e6:.3g} us |" in result.stdout


@pytest.mark.parametrize("bad", [0, -5.0, float("nan"), float("inf")])
def test_a_report_with_no_valid_duration_is_one_line_and_exit_2_and_a_mix_is_graded(tmp_path: Path, bad: float
                                                                                     ) -> None:
    """Every launch of the 50-launch calibration model given a duration of 0, a negative one, NaN or inf: nothing is
    left to grade, so one line names the file and why (exit 2), not "No kernel to grade." with exit 0; with one
    launch left valid, its kernel is graded."""
    source = json.loads((REPO / "tests" / "data" / "calibration" / "h100-ncu.roofline.json").read_text())
    for launch in source["launches"]:
        launch["metrics"]["gpu__time_duration.sum"] = bad
    model = tmp_path / "bad.json"
    model.write_text(json.dumps(source))
    result = runner.invoke(app, ["grade", str(model)])
    assert result.exit_code == 2 and "No kernel to grade" not in result.stdout
    (error,) = [line for line in result.stderr.splitlines() if "error" in line]
    assert error.startswith(f"roofline: error: {model}: nothing to grade: none of its 50 launches is valid")
    source["launches"][0]["metrics"]["gpu__time_duration.sum"] = 1000.0
    model.write_text(json.dumps(source))
    (k,) = grade_json(str(model))["kernels"]
    assert k["launches"] == 1 and k["measured_s"] == pytest.approx(1e-6)


def test_a_baseline_with_no_valid_launch_is_refused_as_the_graded_report_is(tmp_path: Path) -> None:
    """RTX 2080 Ti kernels graded against the 50-launch calibration model with every duration NaN: the baseline has
    no kernel to check the work against, so one line names the baseline and why (exit 2), as a graded report
    without a valid launch is refused, where each kernel's work said "no --baseline given" (one was given); with
    one baseline launch left valid, each kernel's work is checked against it."""
    source = json.loads((REPO / "tests" / "data" / "calibration" / "h100-ncu.roofline.json").read_text())
    for launch in source["launches"]:
        launch["metrics"]["gpu__time_duration.sum"] = float("nan")
    model = tmp_path / "bad.json"
    model.write_text(json.dumps(source))
    report = str(find_shared_report("rtx2080ti_kernels_basic"))
    result = runner.invoke(app, ["grade", report, "--baseline", str(model), "-f", "json"])
    assert result.exit_code == 2 and not result.stdout
    (error,) = [line for line in result.stderr.splitlines() if "error" in line]
    assert error.startswith(f"roofline: error: {model}: no baseline kernel to check the work against: none of its "
                            "50 launches is valid")
    source["launches"][0]["metrics"]["gpu__time_duration.sum"] = 1000.0
    model.write_text(json.dumps(source))
    doc = grade_json(report, "--baseline", str(model))
    assert doc["kernels"] and all(k["work"] is not None and "work" not in k["missing"] for k in doc["kernels"])


def test_a_deciding_measure_the_baseline_lacks_has_a_null_ratio_with_its_reason() -> None:
    """FP8 against the BF16 GEMM: the FP8 kernel counts FP32 FLOPs (its scaling) where the BF16 one counts none, so
    that measure differs with a null ratio, said to be the baseline's 0; every null of the work has its reason."""
    (kernel,) = grade_json(str(H100 / "torch-fp8.roofline.ncu-rep"), "--baseline", str(BF16))["kernels"]
    fp32 = next(d for d in kernel["work"]["differs_on"] if d["measure"] == "flops.fp32")
    assert fp32["baseline"] == 0.0 and fp32["value"] > 0 and fp32["ratio"] is None
    assert fp32["missing"] == {"ratio": "the baseline's is 0"}
    assert all("missing" not in d for d in kernel["work"]["differs_on"] if d["ratio"] is not None)
    nulls = {key for key in ("different", "flops_ratio", "written_ratio") if kernel["work"][key] is None}
    assert set(kernel["work"]["missing"]) == nulls


ALIFE = "rtx2070super_alife-143launches_basic"


def headings(text: str) -> list[str]:
    """Each kernel's heading in grade's text: the line after each blank line."""
    lines = text.splitlines()
    return [lines[i + 1] for i, line in enumerate(lines[:-1]) if not line and lines[i + 1]]


def test_at_80_columns_each_kernel_heading_reads_apart_its_scope_given_up_first(raw_actions) -> None:
    """The RTX 2070 SUPER report's 17 kernels (ncu_report's demangled names, by kernel_key), among them four of
    thrust's _kernel_agent that part only deep in their template arguments: at 80 columns each heading differs,
    none keeps the thrust::cuda_cub::core:: scope (given up first, docs/choosing-kernels.md), and each fits."""
    from roofline.core.kernel_names import kernel_key

    kernels = {kernel_key(a.name, a.demangled) for a in raw_actions(ALIFE)}
    result = runner.invoke(app, ["grade", str(find_shared_report(ALIFE))], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    names = headings(result.stdout)
    assert len(names) == len(set(names)) == len(kernels) == 17
    assert not any(n.startswith("thrust::") for n in names) and all(len(n) <= 80 for n in names)
    assert sum("arg_min_f" in n for n in names) == sum("arg_max_f" in n for n in names) == 2


@pytest.mark.parametrize("name", [ALIFE, "a10g_sgemm-blocktiling_roofline", "h800_flash-attn-fwd_full"])
def test_the_text_never_wraps_a_number_away_from_its_unit(name: str) -> None:
    """At 80 columns a wrapped line never starts with the unit of a number that ended the line before ("3.66⏎ us")."""
    import re

    result = runner.invoke(app, ["grade", str(find_shared_report(name))], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    split = [(a, b) for a, b in zip(lines, lines[1:], strict=False) if re.search(r"\d$", a)
             and re.match(r"\s*(us|ms|ns|s|GHz|MHz|launch(es)?|pass(es)?)\b", b)]
    assert not split and max(map(len, lines)) <= 80


def test_markdown_gives_the_launch_count_and_the_range_of_the_launches_grades(raw_actions, tmp_path: Path) -> None:
    """The H800 report's distribution_elementwise kernel: 4 launches (ncu_report), each graded but its small grid;
    the Markdown table gives the count and the lowest to highest of the graded launches' grades, as the text table
    does."""
    name = "h800_flash-attn-fwd_full"
    launches = [a for a in raw_actions(name) if a.name == "distribution_elementwise_grid_stride_kernel"]
    k = next(k for k in grade_json(str(find_shared_report(name)))["kernels"]
             if "distribution_elementwise" in k["kernel"])
    grades = [g["grade"] for g in k["per_launch"] if not g["small_grid"]]
    assert len(launches) == len(k["per_launch"]) == k["launches"] == 4 and len(grades) == 3
    spread = f"{min(grades) * 100:.1f}% to {max(grades) * 100:.1f}%"
    out = tmp_path / "g.md"
    result = runner.invoke(app, ["grade", str(find_shared_report(name)), "-o", str(out)])
    assert result.exit_code == 0, result.output
    (row,) = [line for line in out.read_text().splitlines() if line.startswith("| `at::native::")]
    assert row.split(" | ")[1:4] == ["4", f"{k['grade'] * 100:.1f}%", spread]
    table = " ".join(runner.invoke(app, ["grade", str(find_shared_report(name))]).stdout.split())
    assert f"(launches {spread})" in table and "over 4 launches" in table


def test_a_tail_names_the_unit_whose_whole_blocks_make_it() -> None:
    """The A10G one_blocktiling kernel is governed by the tail: grade names its unit as report's time model names
    the floor term (the LSU pipe's time in whole blocks per SM), in the document and the text; a kernel without a
    time model has no name, with the governing unit's reason."""
    path = str(find_shared_report("a10g_sgemm-blocktiling_roofline"))
    report = json.loads(runner.invoke(app, ["report", path, "-f", "json"]).stdout)
    floor = next(k for k in report["reports"][0]["kernels"] if k["name"].startswith("one_blocktiling"))
    floor = floor["time_model"]["terms"][0]
    assert floor["kind"] == "tail" and floor["name"] == "LSU pipe (load/store instructions), in whole blocks per SM"
    k = next(k for k in grade_json(path)["kernels"] if k["kernel"].startswith("one_blocktiling"))
    assert (k["governing"], k["governing_name"]) == ("tail", floor["name"])
    text = " ".join(runner.invoke(app, ["grade", path], env={"COLUMNS": "80"}).stdout.split())
    assert f"governed by: tail of the {floor['name']} (roof {k['roof']})" in text
    (basic,) = grade_json(str(find_shared_report("rtx5060ti_transpose-occupancy-45launches_metrics")))["kernels"]
    assert basic["governing_name"] is None and basic["missing"]["governing_name"] == basic["missing"]["governing"]


SMALL_GRID_REPORTS = ("a10g_sgemm-blocktiling_roofline", "h800_flash-attn-fwd_full", "v100_miniweather-openacc_full",
                      "a100-40gb_selfjoin-cub-sort-154launches_basic")


def raw_small_grid(raw: Any) -> bool:
    """ncu's "Small Grid" from the raw metrics (read without roofline): both SpeedOfLight throughputs under 60% of
    peak and under one wave per SM."""
    names = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
             "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "launch__waves_per_multiprocessor")
    if not all(raw.has(n) for n in names):
        return False
    sm, memory, waves = (raw[n] for n in names)
    return sm < 60.0 and memory < 60.0 and waves < 1.0


@pytest.mark.parametrize("name", SMALL_GRID_REPORTS)
def test_the_grade_counts_small_grids_apart_as_the_summary_does(name: str, raw_actions: Any) -> None:
    """A small grid is held back by its few blocks, not by a unit's peak: the grade leaves its launches ungraded and
    their time apart (small_grid_s, the raw durations of ncu's Small Grid launches), so its most saved keeping the
    work and grid is the summary's recoverable time kernel by kernel (the A10G blocktiling kernels: 0, not the 132
    us the grade claimed at the SM's peak; the H800 elementwise kernel: one of its 4 launches apart)."""
    path = find_shared_report(name)
    raw = [a for a in raw_actions(name) if a.has("gpu__time_duration.sum")]
    small_s = sum(a["gpu__time_duration.sum"] * 1e-9 for a in raw if raw_small_grid(a))
    kernels = grade_json(str(path))["kernels"]
    result = runner.invoke(app, ["summary", str(path), "-f", "json", "-n", "100"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)["reports"][0]["rows"]}
    assert small_s > 0 and sum(k["small_grid_s"] or 0.0 for k in kernels) == pytest.approx(small_s, rel=1e-9)
    for k in kernels:
        row = rows[k["kernel"]]
        for mine, theirs in ((k["small_grid_s"], row["small_grid_s"]), (k["max_saving_s"], row["recoverable_s"])):
            assert theirs is None and mine is None or mine == pytest.approx(theirs, rel=1e-9), k["kernel"]
        apart = [g for g in k["per_launch"] if g["small_grid"]]
        assert all(g["grade"] is None and "small grid" in g["missing"]["grade"] for g in apart)
        if apart and len(apart) == len(k["per_launch"]):
            assert (k["grade"], k["withheld"], k["max_saving_s"]) == (None, ["small_grid"], 0.0), k["kernel"]
            assert k["small_grid_s"] == pytest.approx(k["measured_s"], rel=1e-12)


def test_the_graded_time_is_shown_beside_the_time_so_the_floor_over_it_is_the_grade() -> None:
    """A100 CUB sort: DeviceRadixSortOnesweepKernel's time counts its small grids, its grade does not. The JSON's
    graded_s is what the grade is over (grade = floor_s / graded_s, max_saving_s = graded_s - floor_s,
    measured_s = graded_s + small_grid_s), and the table and the Markdown show it beside the time; a kernel graded
    over all its time reads "all graded", one with no launch graded "none graded"."""
    path = str(find_shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic"))
    kernels = {k["kernel"]: k for k in grade_json(path)["kernels"]}
    k = next(k for name, k in kernels.items() if "DeviceRadixSortOnesweepKernel" in name)
    assert k["grade"] == pytest.approx(k["floor_s"] / k["graded_s"], rel=1e-9)
    assert k["max_saving_s"] == pytest.approx(k["graded_s"] - k["floor_s"], rel=1e-9)
    assert k["measured_s"] == pytest.approx(k["graded_s"] + k["small_grid_s"], rel=1e-12)
    graded = sum(g["grade"] is not None for g in k["per_launch"])
    time, graded_s, floor = (seconds(k[key]) for key in ("measured_s", "graded_s", "floor_s"))
    table = " ".join(runner.invoke(app, ["grade", path], env={"COLUMNS": "200"}).stdout.split())
    assert (f"time: {time} over 88 launches, graded {graded_s} over {graded} launches (the grade's time: small grids "
            f"apart); floor {floor}") in table
    markdown = runner.invoke(app, ["grade", path, "-f", "markdown"]).stdout
    assert f"| {time} | {graded_s} | {floor} |" in markdown
    whole = next(k for k in kernels.values() if k["grade"] is not None and k["graded_s"] == k["measured_s"])
    assert f"time: {seconds(whole['measured_s'])} over {whole['launches']} launches, all graded;" in table
    none = next(k for k in kernels.values() if k["graded_s"] is None and k["per_launch"])
    assert none["missing"]["graded_s"].startswith("no launch graded") and "none graded; floor n/a" in table


def test_a_small_grid_kernel_reads_nothing_saved_keeping_the_grid_and_its_time_apart() -> None:
    """A10G two_blocktiling (297 us, 0.5 waves): the table says the grade is withheld for its small grid, the most
    saved keeping the work and grid is 0 and its 297 us are small grids, not a 132 us saving."""
    path = find_shared_report("a10g_sgemm-blocktiling_roofline")
    result = runner.invoke(app, ["grade", str(path), "-k", "two_blocktiling"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "grade: withheld - every timed launch is a small grid (too few blocks to fill the GPU)" in text
    assert "most saved keeping the work and grid: 0 ns; small grids (not graded: the grid sets their time): 297 us" \
        in text and "132 us" not in text


def test_a_launch_ncu_could_not_measure_names_no_clock_option() -> None:
    """H800 flash_fwd_kernel: ncu stored NaN for every metric of its launch, so its clock is not measured: the
    condition says so and names no ncu option (--clock-control base cannot measure it), the grade's reason names
    the fix (profile it again)."""
    path = find_shared_report("h800_flash-attn-fwd_full")
    k = next(k for k in grade_json(str(path))["kernels"] if k["kernel"].startswith("flash_fwd_kernel"))
    clock = next(c for c in k["conditions"] if c["kind"] == "clock")
    assert (clock["state"], clock["fix"], clock["measured"]) == ("not_measured", "", None)
    assert "profile this kernel again" in k["missing"]["grade"]
    result = runner.invoke(app, ["grade", str(path), "-k", "flash_fwd"], env={"COLUMNS": "200"})
    assert "SM clock not measured: ncu measured no launch" in result.stdout
    assert "clock-control" not in result.stdout
