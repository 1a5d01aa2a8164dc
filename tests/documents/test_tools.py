"""The MCP tools' result types: built of the commands' document parts, each launch kept in the report's field order
with only its roofs and reasons written otherwise, and their generated schemas requiring the head every result has."""

from __future__ import annotations

import msgspec
import pytest

from roofline.documents import schemas, tools
from roofline.documents.report import Kernel

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
