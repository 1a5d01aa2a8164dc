"""The MCP tools' result types: built of the commands' document parts, each launch kept in the report's field order
with only its roofs and reasons written otherwise, and their generated schemas requiring the head every result has;
the results built from the facade's documents of the shipped examples."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from roofline.compare.pairing import parse_matcher
from roofline.compare.regression import Thresholds
from roofline.documents import schemas, tools
from roofline.documents.common import builtins
from roofline.documents.report import Kernel
from roofline.errors import RooflineError
from roofline.facade import Roofline
from roofline.render.compare.json import WORDS
from roofline.render.report.json import typed

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TOOL_KINDS = ("list_kernels", "analyse_kernel", "compare_reports", "project_report", "gpu_spec", "rank_nsys_kernels")


def test_a_launch_keeps_the_report_kernels_fields_in_order_with_its_roofs_and_reasons_written_out() -> None:
    assert tools.LaunchDoc.__struct_fields__ == Kernel.__struct_fields__
    props = schemas.schema("analyse_kernel")["$defs"]["LaunchDoc"]["properties"]
    assert props["missing"]["additionalProperties"] == {"type": "array", "items": {"type": "string"}}
    assert props["ceilings"]["additionalProperties"]["anyOf"][0] == {"$ref": "#/$defs/CeilingsText"}


@pytest.mark.parametrize("kind", TOOL_KINDS)
def test_each_tool_result_requires_its_head_and_leaves_cut_and_written_optional(kind: str) -> None:
    s = schemas.schema(kind)
    top = s["$defs"][s["$ref"].split("/")[-1]]
    assert {"schema_version", "tool", "command", "kind"} <= set(top["required"])
    assert "cut" in top["properties"] and not {"cut", "written"} & set(top["required"])


def test_a_cut_lists_only_lists_kept_of_how_many() -> None:
    cut = msgspec.convert({"lists": [{"path": "kernels", "kept": 2, "of": 9}], "full_chars": 90, "ask": "narrow"},
                          tools.Cut)
    assert cut.lists[0].kept == 2
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"lists": [{"path": "kernel.memory", "left_out": True}], "full_chars": 90, "ask": "x"},
                        tools.Cut)


def test_a_pair_whose_work_differs_may_leave_out_its_figures_of_time_alone() -> None:
    s = schemas.schema("compare_reports")["$defs"]["JudgedKernel"]
    assert not {"speedup", "expected_speedup", "slowdown_pct", "left_out"} & set(s["required"])
    assert {"work", "headline", "per_work_slowdown_pct", "regressed"} <= set(s["required"])


def test_a_page_says_where_the_next_starts_and_none_after_the_last() -> None:
    assert tools.page(0, 20, 45).next_offset == 20
    assert tools.page(40, 20, 45).next_offset is None


def test_a_judged_pair_of_different_work_leaves_its_time_figures_out_and_says_why() -> None:
    base, new = EXAMPLES / "h100" / "triad-cupy.full.ncu-rep", EXAMPLES / "h100" / "triad-half2.full.ncu-rep"
    compared = Roofline().compare([base, new], parse_matcher("name", ["triad=triad_half2"], 2))
    judged = Roofline.judge(compared.comparison, Thresholds(gate_different_work=True))
    (kernel,) = builtins(tools.judgement(judged.result, WORDS, "roofline diff", "roofline compare"))["kernels"]
    assert not set(tools.BY_TIME) & set(kernel)
    assert "the work differs" in kernel["left_out"] and kernel["headline"]["unit"] != "speedup"


def test_a_judged_pair_of_the_same_work_keeps_its_time_figures_and_leaves_nothing_out() -> None:
    fp32 = EXAMPLES / "h100" / "torch-fp32.roofline.json"
    judged = Roofline().diff(fp32, fp32, Thresholds())
    kernels = builtins(tools.judgement(judged.result, WORDS, "roofline diff", "roofline compare"))["kernels"]
    assert kernels and all(set(tools.BY_TIME) <= set(k) and "left_out" not in k for k in kernels)
    assert all(k["headline"]["kind"] == "speedup" for k in kernels if k["headline"] is not None)


def test_a_launch_keeps_its_set_of_roofs_alone_each_reason_once_and_the_advice_asked_for() -> None:
    document = Roofline().report([EXAMPLES / "h100" / "torch-fp32.roofline.json"])
    result = tools.kernel_analysis(typed(document.view), "roofline report", None, 1, 1, "regex:.", "x.json")
    launch = result.kernel
    assert list(launch.ceilings) == [launch.ceilings_used] and len(launch.advice) <= 1
    paths = [p for ps in launch.missing.values() for p in ps]
    assert len(paths) == len(set(paths)) and len(launch.missing) == len(set(launch.missing))
    durations = [m.duration_s or 0.0 for m in result.matched]
    assert durations[result.launch] == max(durations)
    with pytest.raises(RooflineError, match="matched 1 launches in x.json|give launch from 0"):
        tools.kernel_analysis(typed(document.view), "roofline report", 999, 1, 1, "regex:.", "x.json")


def test_a_spec_document_cites_each_number_board_power_included() -> None:
    from roofline.specs.catalog import load_catalog

    catalog = load_catalog(())
    doc = builtins(tools.spec_doc(catalog.get("h100-sxm5")))
    assert "board_power_w" in doc and doc["sm_count"]["value"] == 132 and doc["sm_count"]["source"]
    assert msgspec.convert(doc, tools.SpecDoc) == tools.spec_doc(catalog.get("h100-sxm5"))
    assert "board_power_w" in schemas.schema("gpu_spec")["$defs"]["SpecDoc"]["properties"]


def test_a_spec_document_gives_the_reason_of_each_null_number() -> None:
    """Every null of every shipped spec's document has its reason under ``missing``, by its key; the H100 SXM5's
    sustained clock is the power rule's, worked out here by hand."""
    from roofline.specs.catalog import load_catalog

    catalog = load_catalog(())
    for spec in catalog.specs:
        doc = builtins(tools.spec_doc(spec))
        nulls = {k for k, v in doc.items() if v is None} | {
            f"{part}.{k}" for part in ("memory", "bandwidth") for k, v in doc[part].items() if v is None}
        assert nulls == set(doc.get("missing", {})), spec.id
    missing = builtins(tools.spec_doc(catalog.get("h100-sxm5")))["missing"]
    assert set(missing) == {"sustained_clock_hz", "memory.clock_hz", "memory.bus_width_bits",
                            "bandwidth.l2_bytes_per_s", "bandwidth.l1_bytes_per_s"}
    at_boost = 0.0285 * 132 * 128 * 1.98  # W per lane-GHz x SMs x lanes x boost GHz
    held = 1980 * min(1.0, (700 / at_boost) ** (1 / 3))
    assert f"{held:.0f} MHz" in missing["sustained_clock_hz"] and "board_power_w" in missing["sustained_clock_hz"]
    assert "no L2 roof" in missing["bandwidth.l2_bytes_per_s"]


def test_a_report_without_times_gives_the_reasons_of_its_total_and_of_each_matched_launchs_nulls() -> None:
    """The GH200 metrics-only report times no launch: ``analyse_kernel``'s report head and matched launches give
    the reasons ``report -f json`` gives for the report's total time and for each launch's duration and bound."""
    from tests.conftest import find_shared_report

    document = Roofline().report([find_shared_report("gh200_silu_metrics")])
    (rep,) = typed(document.view).reports
    result = builtins(tools.kernel_analysis(typed(document.view), "roofline report", None, 1, 1, "silu", "x"))
    assert result["report"]["total_time_s"] is None
    assert result["report"]["missing"] == {rep.reasons[rep.missing["total_time_s"]]: ["total_time_s"]}
    assert len(result["matched"]) == len(rep.kernels) >= 2
    for shown, k in zip(result["matched"], rep.kernels, strict=True):
        nulls = {field for field in ("duration_s", "bound") if shown[field] is None}
        assert nulls == {"duration_s", "bound"}
        assert {path: why for why, paths in shown["missing"].items() for path in paths} == {
            field: rep.reasons[k.missing[field]] for field in nulls}


def test_a_matched_launch_with_a_time_and_a_bound_carries_no_reasons() -> None:
    document = Roofline().report([EXAMPLES / "h100" / "torch-fp32.roofline.json"])
    result = builtins(tools.kernel_analysis(typed(document.view), "roofline report", None, 1, 1, "regex:.", "x"))
    assert result["matched"] and all("missing" not in m for m in result["matched"])
    assert result["report"]["missing"] == {}


def nsys_ranking(tmp_path: Path, nvtx: str | None) -> dict[str, object]:
    """``rank_nsys_kernels``' result on the small export (three kernels of five launches), as the adapter builds it."""
    from roofline.render.data import typed as document_of
    from tests.nsys.small_export import nsys_export

    profile = nsys_export(tmp_path / "app.sqlite")
    timeline = document_of(Roofline().timeline([profile]))
    runs = Roofline.ncu_plan(profile, 2).runs()
    return builtins(tools.nsys_ranking(timeline, "roofline timeline", 0, 20, "roofline analyze ... -- APP",  # type: ignore[arg-type]
                                       runs, nvtx))


def test_the_ncu_runs_name_their_files_apart_from_the_application(tmp_path: Path) -> None:
    """``-o`` and ``--log-file`` take the NAME placeholder: putting the application and its arguments in place of
    APP leaves the report's name whole, and the application last, as analyze --dry-run writes the command."""
    import shlex

    result = nsys_ranking(tmp_path, None)
    runs = result["ncu_runs"]
    assert isinstance(runs, list) and len(runs) == 2 and "missing" not in result
    for n, run in enumerate(runs, start=1):
        argv = shlex.split(run["ncu"])
        assert argv[argv.index("-o") + 1] == f"NAME.top{n}.ncu-rep"
        assert argv[argv.index("--log-file") + 1] == f"NAME.top{n}.ncu.log" and argv[-1] == "APP"
        filled = shlex.split(run["ncu"].replace(" APP", " python train.py --epochs 3"))
        assert filled[filled.index("-o") + 1] == f"NAME.top{n}.ncu-rep" and filled[-4:] == [
            "python", "train.py", "--epochs", "3"]


def test_within_an_nvtx_range_the_analyze_line_is_null_with_its_reason(tmp_path: Path) -> None:
    """``analyze --from-nsys`` plans over the whole profile: within a range it would profile other kernels, so the
    line is null, its reason under ``missing``, and no run is given (said under ``left_out``)."""
    result = nsys_ranking(tmp_path, "step")
    assert result["analyze"] is None and result["ncu_runs"] == []
    reason = result["missing"]["analyze"]  # type: ignore[index]
    assert "plans over the whole profile" in reason and "'step'" in reason and "--nvtx-include" in reason
    assert str(result["left_out"]).startswith("ncu_runs: ")
