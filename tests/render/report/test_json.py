"""JSON document (schema_version 10): structure, nulls with reasons (each stated once per report), no NaN, report
order, SI units, round trip."""

from __future__ import annotations

import json
import math

import pytest

from roofline.analysis.results import Value
from roofline.analysis.roofline import analyze_report
from roofline.core.model import Report
from roofline.ncu.reader import load_report
from roofline.pipeline import AnalysisOptions, analyze_files
from roofline.render.report import json as json_render
from roofline.specs.catalog import load_catalog
from tests.views import views

H100 = "h100-pcie_rmsnorm-float4_full-roofline"
H800 = "h800_flash-attn-fwd_full"
STRUCTURE_REPORTS = (H100, H800, "v100_miniweather-openacc_full", "a10g_sgemm-progression_basic",
                     "gh200_silu_metrics")

KERNEL_KEYS = {"name", "demangled_name", "range", "action", "nvtx", "grid", "block", "registers_per_thread",
               "shared_mem_per_block_bytes", "duration_s", "time_share", "flops", "tensor_flops_by_type",
               "flop_per_s", "bytes", "bytes_per_s", "intensity", "definitions", "ceilings", "ceilings_used",
               "pct_of_roof", "bound", "limiter", "utilization_pct", "flags", "notes", "missing", "verdict",
               "recoverable_s", "level_notes"}
DEVICE_KEYS = {"name", "compute_capability", "sm_count", "max_clock_hz", "memory_clock_hz", "memory_bus_width_bits",
               "l2_cache_bytes", "total_memory_bytes", "spec_id", "spec_match"}
CEILING_KEYS = {"fp64_flop_per_s", "fp32_flop_per_s", "fp16_flop_per_s", "tensor_flop_per_s", "dram_bytes_per_s",
                "l2_bytes_per_s", "l1_bytes_per_s", "tensor_dtype", "clock_note", "sm_clock_hz", "scaled", "missing"}
PRECISIONS = {"fp64", "fp32", "fp16", "tensor"}
LEVELS = {"dram", "l2", "l1"}


def reject_nan(token: str):
    raise AssertionError(f"non-finite number {token} in the JSON document")


def parse(text: str):
    """json.loads that fails on NaN / Infinity, which strict JSON parsers refuse."""
    return json.loads(text, parse_constant=reject_nan)


@pytest.fixture(scope="module")
def documents(roofline_report):
    """``documents(name) -> (Report, parsed JSON document)``, each report analysed once per module."""
    cache = {}

    def get(name):
        if name not in cache:
            report = roofline_report(name)
            cache[name] = report, parse(json_render.render(views([analyze_report(report)])))
        return cache[name]

    return get


def kernels_with_reasons(doc: dict, report: int = 0) -> list[dict]:
    """The kernels of one report with the texts of their reasons in place of the indices into ``reasons``."""
    rep = doc["reports"][report]
    return [json_render.with_reasons(k, rep["reasons"]) for k in rep["kernels"]]


def nulls(node, path=""):
    """Dotted paths of every null under ``node`` (lists indexed by position)."""
    if node is None:
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from nulls(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from nulls(value, f"{path}[{i}]")


@pytest.mark.parametrize("name", STRUCTURE_REPORTS)
def test_document_structure(documents, name):
    report, doc = documents(name)
    assert doc["schema_version"] == 33
    assert doc["tool"]["name"] == "roofline"
    (rep,) = doc["reports"]
    assert rep["path"] == report.path and rep["source"] == "ncu-rep"
    assert set(rep["device"]) == DEVICE_KEYS
    assert rep["device"]["name"] == report.device.name
    assert rep["device"]["compute_capability"] == report.device.compute_capability
    assert rep["device"]["sm_count"] == report.device.sm_count
    assert rep["ceilings_used"] == "kernel-clock"  # the default: the roofs at the clocks the kernels ran at
    assert len(rep["kernels"]) == len(report.launches)
    for k in rep["kernels"]:
        assert set(k) >= KERNEL_KEYS  # diagnostics (occupancy, tensor_cores) add their own keys
        assert set(k["flops"]) == set(k["flop_per_s"]) == PRECISIONS
        assert set(k["bytes_per_s"]) == set(k["intensity"]) == LEVELS
        assert set(k["bytes"]) == LEVELS | {"l2_total"}  # all L2 traffic beside ncu's per-version L2 definition
        assert set(k["ceilings"]) == {"measured-clock", "datasheet", "kernel-clock"}
        assert set(k["ceilings"]["measured-clock"]) == set(k["ceilings"]["kernel-clock"]) == CEILING_KEYS
        assert k["ceilings"]["datasheet"] is None or set(k["ceilings"]["datasheet"]) == CEILING_KEYS
        assert k["bound"] in (None, "compute", "memory", "balanced", "latency", "small_grid")
        assert k["bound"] == (None if k["verdict"]["basis"] is None else k["bound"])
        assert set(k["verdict"]) == {"basis", "sm_pct", "memory_pct", "waves_per_sm", "busiest", "top_units",
                                     "ncu_title", "text"}
        refs = [*k["missing"].values(), *(i for c in k["ceilings"].values() if c for i in c["missing"].values())]
        assert all(isinstance(i, int) and 0 <= i < len(rep["reasons"]) for i in refs)
    assert len(set(rep["reasons"])) == len(rep["reasons"]) and all(r.strip() for r in rep["reasons"])
    for g in rep["groups"]:
        assert set(g) == {"name", "functions", "count", "total_s", "median_s", "min_s", "max_s", "time_share",
                          "median_pct_of_roof", "recoverable_s", "small_grid_s", "time_to_gain_s", "gain_rank",
                          "missing"}


@pytest.mark.parametrize("name", STRUCTURE_REPORTS)
def test_each_group_gives_the_time_to_gain_and_rank_the_ranking_shows(documents, name):
    """The Markdown and HTML rank kernels by time to gain, a figure the JSON did not hold: each group now gives it
    (summary's figure: each launch's first estimated advice item, summed) and its place in that ranking, a null with
    its reason."""
    from roofline.analysis.advice import rank_by_time_to_gain

    report, doc = documents(name)
    rep = doc["reports"][0]
    ranked = rank_by_time_to_gain(analyze_report(report).groups)
    by_rank = sorted(rep["groups"], key=lambda g: g["gain_rank"])
    assert [g["gain_rank"] for g in by_rank] == list(range(1, len(ranked) + 1))
    for g, (gain, group) in zip(by_rank, ranked, strict=True):
        assert g["name"] == group.name and g["time_to_gain_s"] == (None if gain is None else pytest.approx(gain))
        if gain is None:
            assert rep["reasons"][g["missing"]["time_to_gain_s"]].startswith("no launch of the kernel has an advice")
        else:
            assert "time_to_gain_s" not in g["missing"]
    # the figure again from the document's own launches: each launch's first estimated item (not a measurement
    # note), or its recoverable time where the analysis advised it nothing (a launch read in columns), summed
    from roofline.core.kernel_names import kernel_key

    summed: dict[str, list[float]] = {}
    for k in rep["kernels"]:
        if not k["valid"]:
            continue
        first = next((a["est_saved_s"] for a in k["advice"] if a["kind"] != "measurement"
                      and a["est_saved_s"] is not None), None)
        lead = k["recoverable_s"] if k["time_model"] is None and not k["advice"] else first
        summed.setdefault(kernel_key(k["name"], k["demangled_name"]), []).extend([] if lead is None else [lead])
    for g in rep["groups"]:
        own = summed.get(g["name"])
        assert g["time_to_gain_s"] == (pytest.approx(sum(own)) if own else None), g["name"]


def test_every_null_in_every_report_has_a_reason(shared_name, documents):
    """Over every file in ../shared/ncu-reps: no NaN, and each null kernel value of the roofline part is
    explained (the diagnostics sub-documents are checked by their own tests)."""
    _, doc = documents(shared_name)
    for k in kernels_with_reasons(doc):
        where = f"{shared_name} {k['range']}:{k['action']}"
        for path in nulls({key: value for key, value in k.items() if key in KERNEL_KEYS}):
            if path.startswith("ceilings.") and path.count(".") == 2:  # a roof inside one ceiling set
                source, key = path.split(".")[1:]
                level_or_precision = key if key == "sm_clock_hz" else key.split("_")[0]
                assert k["ceilings"][source]["missing"].get(level_or_precision), f"{where}: {path} has no reason"
            else:
                assert k["missing"].get(path), f"{where}: {path} is null without a reason in missing"
        for path, reason in k["missing"].items():
            assert isinstance(reason, str) and reason.strip(), f"{where}: empty reason for {path}"


def test_nan_launch_is_null_with_reason_and_the_text_has_no_nan(documents):
    _, doc = documents(H800)
    k = kernels_with_reasons(doc)[4]
    assert k["name"] == "flash_fwd_kernel"
    assert k["duration_s"] is None and "NaN" in k["missing"]["duration_s"]
    assert k["flops"]["fp32"] is None and "NaN" in k["missing"]["flops.fp32"]
    assert k["bytes"]["dram"] is None and "NaN" in k["missing"]["bytes.dram"]
    assert k["pct_of_roof"] is None and k["bound"] is None and k["missing"]["pct_of_roof"]
    assert "NaN" in k["missing"]["bound"] and k["verdict"]["sm_pct"] is None and k["missing"]["verdict.sm_pct"]
    assert k["time_share"] is None and k["missing"]["time_share"]
    # the report holds NaN values for this launch, yet the text is strict JSON (parse() rejects NaN)
    report = documents(H800)[0]
    assert report.launches[4].nan_metrics
    parse(json_render.render(views([analyze_report(report)])))


@pytest.mark.parametrize("name", [H100, H800, "rtx4070ti_pytorch-sim_full"])
def test_kernels_in_report_order_and_si_units(documents, name):
    report, doc = documents(name)
    kernels = doc["reports"][0]["kernels"]
    assert [(k["range"], k["action"], k["name"]) for k in kernels] == [
        (launch.range_index, launch.action_index, launch.name) for launch in report.launches]
    assert [(k["range"], k["action"]) for k in kernels] == sorted((k["range"], k["action"]) for k in kernels)
    for k, launch in zip(kernels, report.launches, strict=True):
        ns = launch.value("gpu__time_duration.sum")  # ncu stores nanoseconds
        if ns is None:
            assert k["duration_s"] is None
            continue
        assert k["duration_s"] == pytest.approx(ns * 1e-9, rel=1e-12)  # seconds, not ns
        if k["bytes"]["dram"] is not None:
            assert k["bytes_per_s"]["dram"] == pytest.approx(k["bytes"]["dram"] / k["duration_s"], rel=1e-12)
        if k["flops"]["fp32"] is not None:
            assert k["flop_per_s"]["fp32"] == pytest.approx(k["flops"]["fp32"] / k["duration_s"], rel=1e-12)
    shares = [k["time_share"] for k in kernels if k["time_share"] is not None]
    assert sum(shares) == pytest.approx(1.0)
    total = doc["reports"][0]["total_time_s"]
    assert total == pytest.approx(sum(k["duration_s"] for k in kernels if k["duration_s"] is not None))


@pytest.mark.parametrize("name", ["rtx4070ti_pytorch-sim_full", "a100-40gb_cublas-sgemm_basic",
                                  "rtx4050-laptop_rgb-coalesced_memchart"])
def test_each_set_of_roofs_gives_its_sm_clock_as_a_number(shared_report, raw_actions, name):
    """The clock a ceiling set's note names, as a number: each launch's measured set at the SM clock ncu measured
    (sm__cycles_elapsed.avg.per_second, else the GPC clock of a basic set), the datasheet's at the spec's boost
    clock; where the report holds no clock, null with its reason and the kernel-clock set at the GPU's maximum."""
    doc = parse(json_render.render(views(analyze_files([shared_report(name)], AnalysisOptions()))))
    rep = doc["reports"][0]
    boost = load_catalog().get(rep["device"]["spec_id"]).boost_clock_hz
    for k, raw in zip(rep["kernels"], raw_actions(name), strict=True):
        c = k["ceilings"]
        clock = raw.value("sm__cycles_elapsed.avg.per_second") or raw.value("gpc__cycles_elapsed.avg.per_second")
        assert c["datasheet"]["sm_clock_hz"] == boost
        if clock:
            assert c["measured-clock"]["sm_clock_hz"] == c["kernel-clock"]["sm_clock_hz"] == pytest.approx(clock)
            assert f"{clock / 1e9:.3g} GHz" in c["measured-clock"]["clock_note"]
        else:
            assert c["measured-clock"]["sm_clock_hz"] is None
            why = rep["reasons"][c["measured-clock"]["missing"]["sm_clock_hz"]]
            assert why == "the report holds no measured SM clock"
            assert c["kernel-clock"]["sm_clock_hz"] == rep["device"]["max_clock_hz"] < boost


def test_no_spec_is_explained(documents):
    _, doc = documents(H800)
    rep = doc["reports"][0]
    if rep["device"]["spec_id"] is not None:
        pytest.skip("a device spec matches the H800 now")
    for k in kernels_with_reasons(doc):
        assert k["ceilings"]["datasheet"] is None and "NVIDIA H800" in k["missing"]["ceilings.datasheet"]


# --- Round trip of the report model --------------------------------------------------------------------------
def kernels_of(report: Report) -> list[dict]:
    return parse(json_render.render(views([analyze_report(report)])))["reports"][0]["kernels"]


@pytest.mark.parametrize("name", [H100, H800, "rtx3070_daxpy-nvtx_custom"])
def test_model_round_trip_gives_the_same_analysis(documents, tmp_path, name):
    report, doc = documents(name)
    data = report.to_dict()
    text = json.dumps(data, allow_nan=False)  # the model itself is strict JSON too
    again = Report.from_dict(json.loads(text), report.path, source="ncu-rep")
    assert again == report
    assert kernels_of(again) == doc["reports"][0]["kernels"]
    saved = tmp_path / f"{name}.roofline.json"
    saved.write_text(text)
    loaded = load_report(saved)
    assert loaded.source == "model"
    assert loaded.launches == report.launches and loaded.device == report.device
    assert kernels_of(loaded) == doc["reports"][0]["kernels"]


def test_each_reason_is_stated_once_per_report(documents):
    """The launches of a report share their reasons: the table holds each text once and every launch refers to it,
    so the document grows by the numbers of a launch, not by its reasons."""
    _, doc = documents("a10g_sgemm-progression_basic")
    rep = doc["reports"][0]
    uses = [i for k in rep["kernels"] for table in (k["missing"], *(c["missing"] for c in k["ceilings"].values() if c))
            for i in table.values()]
    uses += [i for table in (rep["missing"], *(g["missing"] for g in rep["groups"])) for i in table.values()]
    assert len(uses) > 2 * len(rep["reasons"])  # shared: far fewer texts than nulls
    assert set(uses) == set(range(len(rep["reasons"])))  # every text is used, every index points at one
    text = json_render.render(views([analyze_report(documents("a10g_sgemm-progression_basic")[0])]))
    assert all(text.count(json.dumps(reason)) == 1 for reason in rep["reasons"])


def test_non_finite_values_become_null_with_reason() -> None:
    missing: dict[str, str] = {}
    assert json_render.value_or_null(Value(math.inf, via="x"), "flops.fp32", missing) is None
    assert "flops.fp32" in missing
    assert json_render.value_or_null(Value(None, "because"), "bytes.l2", missing) is None
    assert missing["bytes.l2"] == "because"
    assert json_render.value_or_null(Value(2.0), "duration_s", missing) == 2.0 and "duration_s" not in missing


INSTRUCTION_KEYS = {"warp_gips", "thread_gips_per_32", "peak_warp_gips", "transactions", "intensity", "peak_gtxn_per_s",
                    "ceilings", "global_memory", "shared_memory", "integer", "via", "thread_intensity", "definitions"}
WALLS_KEYS = ("walls", "width_walls")  # of each memory space: the rest are intensities and width_bytes
WIDTHS_KEY = "width_bytes"  # per operation, its source under via as a whole (the SASS's counts), else null
WALLS = {"global_memory": {"stride_0": 1.0, "unit_stride": 0.25, "scattered": 0.03125},
         "shared_memory": {"no_conflict": 1.0, "conflict_32_way": 0.03125}}


def leaves(tree: dict, prefix: str = "") -> dict:
    """Every number (or null) of a nested dict by its dotted path, the walls left out."""
    out: dict = {}
    for key, v in tree.items():
        if key in WALLS_KEYS:
            continue
        if key == WIDTHS_KEY:
            out[f"{prefix}{key}"] = v
            continue
        out |= leaves(v, f"{prefix}{key}.") if isinstance(v, dict) else {f"{prefix}{key}": v}
    return out


@pytest.mark.parametrize("name", ["v100_miniweather-openacc_full", "a10g_sgemm-progression_basic",
                                  "gh200_silu_metrics", H800])
def test_instruction_roofline_nulls_have_reasons_and_numbers_their_source(roofline_report, name):
    """kernels[].instruction_roofline of a completed analysis: each null's reason under ``missing``, each number's
    counters under ``via``; the default set says which section collects the instruction count."""
    from roofline.pipeline import analyze_loaded

    doc = parse(json_render.render(views([analyze_loaded(roofline_report(name))])))
    for k in kernels_with_reasons(doc):
        r = k["instruction_roofline"]
        assert set(r) == INSTRUCTION_KEYS and r["ceilings"] == k["ceilings_used"]
        for path in nulls({key: value for key, value in r.items() if key != "via"}):
            assert k["missing"].get(f"instruction_roofline.{path}"), f"{name}: {path} has no reason"
        numbers = leaves({key: v for key, v in r.items() if key not in ("ceilings", "via", "definitions")})
        assert {path for path, x in numbers.items() if x is not None} == set(r["via"])
        for space, walls in WALLS.items():
            assert r[space]["walls"].keys() == walls.keys() and "nearest" not in r[space]
            if r[space][WIDTHS_KEY] is None:  # 4-byte words assumed
                assert r[space]["walls"] == walls and r[space]["width_walls"] == {}
    if name == "a10g_sgemm-progression_basic":
        assert "--section InstructionStats" in k["missing"]["instruction_roofline.warp_gips"]
        assert r["peak_warp_gips"] is not None and "gpc__cycles_elapsed" in r["via"]["peak_warp_gips"]
    if name == "v100_miniweather-openacc_full":
        assert r["warp_gips"] is not None and r["via"]["transactions.l2"].startswith(
            "lts__t_sectors_srcunit_tex_op_read.sum + lts__t_sectors_srcunit_tex_op_write.sum + 2 x (")
        assert r["via"]["global_memory.ld"] == ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum / "
                                                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        assert r["shared_memory"]["ld"] is None
        assert "ncu 2022.4" in k["missing"]["instruction_roofline.shared_memory.ld"]


def test_the_integer_roofline_of_the_h200_intops_report():
    """examples/h200/intops.full.ncu-rep holds the integer counters: every integer figure is a number with its
    counters under ``via``; the shared full sets name the --metrics that collect them."""
    from roofline.pipeline import analyze_loaded
    from tests.conftest import REPO

    report = load_report(REPO / "examples" / "h200" / "intops.full.ncu-rep")
    doc = parse(json_render.render(views([analyze_loaded(report)])))
    for k in doc["reports"][0]["kernels"]:
        integer = k["instruction_roofline"]["integer"]
        assert set(integer) == {"giops", "peak_giops", "pct_of_peak", "intensity"}
        assert all(v is not None for v in leaves(integer).values())
        via = k["instruction_roofline"]["via"]
        assert via["integer.giops"] == "(sm__sass_thread_inst_executed_op_integer_pred_on.sum) / duration / 1e9"
        assert "sm__inst_executed_pipe_alu.sum" in via["integer.peak_giops"]
    hash_rounds = doc["reports"][0]["kernels"][0]
    assert hash_rounds["name"] == "hash_rounds"
    assert hash_rounds["instruction_roofline"]["integer"]["pct_of_peak"] == pytest.approx(130.6, abs=0.1)


@pytest.mark.parametrize("name", ["v100_miniweather-openacc_full", "rtx4090_smem-transpose_full", H800,
                                  "a10g_sgemm-progression_basic"])
def test_hotspots_match_the_independent_read_and_every_null_has_a_reason(roofline_report, name):
    """kernels[].hotspots: the first instruction is the one with the most samples read by ncu_report alone, shares
    are of the launch's samples, and every null (SASS, source line, the whole entry) has its reason."""
    from roofline.pipeline import analyze_loaded
    from tests.ncu.test_pc_sampling import _path, independent

    doc = parse(json_render.render(views([analyze_loaded(roofline_report(name))])))
    for k, want in zip(kernels_with_reasons(doc), independent(_path(name)), strict=True):
        h = k["hotspots"]
        if want is None:
            assert h is None and "SourceCounters" in k["missing"]["hotspots"]
            continue
        assert h["total_samples"] == want["total"]
        if not want["total"]:
            assert h["pcs"] == [] and h["lines"] == []
            continue
        first = h["pcs"][0]
        assert (first["samples"], first["pc_offset"], first["stalls"]) == (
            want["top_samples"], want["top_offset"], want["top_stalls"])
        assert first["share"] == pytest.approx(want["top_samples"] / want["total"])
        assert [p["samples"] for p in h["pcs"]] == sorted((p["samples"] for p in h["pcs"]), reverse=True)
        for path in nulls(h, "hotspots"):
            if path.endswith((".sass", ".source")) and "lines" not in path:
                assert k["missing"].get(path), f"{path} is null without a reason"
        if h["lines"]:
            assert h["lines"][0]["samples"] >= h["lines"][-1]["samples"]
            assert h["lines"][0]["top_stall"] in h["lines"][0]["stalls"]


@pytest.mark.parametrize("name", ["gh200_silu_metrics", "a100-80gb_cutlass-gemm_full", "rtx3080_sgemm-vs-cublas_full",
                                  "v100_miniweather-openacc_full", "rtx4090_torch-linear-sgemm_custom",
                                  "h800_flash-attn-fwd_full", "a100-40gb_cublas-sgemm_basic"])
def test_every_null_of_the_whole_report_document_has_a_reason(shared_report, name):
    """Not only the roofline part: advice (bound, work share, ncu's saving, peak source), time-model terms, hot
    spots, Tensor Core and occupancy diagnostics, the groups and the report's own total time had nulls without a
    reason (an audit found 2,500 in seven reports)."""
    from typer.testing import CliRunner

    from roofline.cli.app import app
    from tests.null_reasons import unexplained_nulls

    result = CliRunner().invoke(app, ["report", str(shared_report(name)), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert unexplained_nulls(json.loads(result.stdout)) == []
