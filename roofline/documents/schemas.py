"""The JSON Schemas (draft 2020-12) of the documents, generated from their types by ``msgspec.json.schema``: one per
kind, shipped as ``roofline/schemas/KIND.schema.json``. ``tests/documents/test_schemas.py`` checks that each shipped
file is this module's output; after changing a document type, write them anew with
``python -m roofline.documents.schemas KIND > roofline/schemas/KIND.schema.json``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from roofline.documents.compare import CompareJson, DiffJson, ProjectJson, SummaryJson
from roofline.documents.grade import GradeJson
from roofline.documents.realtime import RealtimeJson
from roofline.documents.report import ReportJson
from roofline.documents.summary_store import StoreSummaryJson
from roofline.documents.timeline import TimelineJson
from roofline.documents.tools import (
    GpuSpec,
    GradedKernels,
    Judgement,
    KernelAnalysis,
    KernelList,
    NsysRanking,
    ProjectionPage,
    SpecDoc,
    SpecRef,
)

DRAFT = "https://json-schema.org/draft/2020-12/schema"
OPEN = ("Objects allow properties not listed here: a later schema_version may add fields, and old clients keep "
        "working.")
# kind -> (its document type, the command that writes it, what it holds)
GENERATED: dict[str, tuple[type, str, str]] = {
    "report": (ReportJson, "roofline report --format json",
               "Every launch of one or more Nsight Compute reports on the roofline (docs/json-schema.md)."),
    "compare": (CompareJson, "roofline compare --format json",
                "Kernels paired across reports: work first, then times or throughputs with noise intervals "
                "(docs/comparisons.md)."),
    "diff": (DiffJson, "roofline diff --format json",
             "The regression gate: each BASE/NEW kernel with its change, and the verdict with its exit code "
             "(docs/ci-gate.md)."),
    "project": (ProjectJson, "roofline project --format json",
                "Each kernel's time per launch projected onto another GPU (docs/comparisons.md)."),
    "summary": (SummaryJson, "roofline summary --format json",
                "Per report, its kernel groups ranked by time to gain, a group without one by its recoverable "
                "time (docs/mpi.md)."),
    "store_summary": (StoreSummaryJson, "roofline summary STORE --format json",
                      "A store's reports and each one's kernel groups ranked in SQL as summary ranks them, with "
                      "the figures the store keeps (docs/store.md)."),
    "timeline": (TimelineJson, "roofline timeline --format json",
                 "Nsight Systems kernels ranked by total GPU time, per file (docs/timeline.md)."),
    "realtime": (RealtimeJson, "roofline summary --nsys --format json",
                 "The analysed kernels weighted by an Nsight Systems profile's real times (docs/timeline.md)."),
    "grade": (GradeJson, "roofline grade --format json",
              "Each kernel's grade against the roof of its work, its conditions and work checks (docs/agents.md)."),
    "spec": (SpecDoc, "roofline specs show --format json",
             "One device spec: every number beside its source (docs/ceilings.md). No generator or schema_version: "
             "the document is the spec as its YAML file holds it."),
    "specs": (list[SpecRef], "roofline specs list --format json",
              "The known device specs by id: each id and the names its GPU goes by (docs/ceilings.md). No generator "
              "or schema_version, as specs show."),
    # the MCP tools' results (roofline.documents.tools), named by the tool
    "list_kernels": (KernelList, "roofline mcp: list_kernels",
                     "A page of each report's kernel groups ranked by time to gain, a group without one by its "
                     "recoverable time, as summary (docs/agents.md)."),
    "analyse_kernel": (KernelAnalysis, "roofline mcp: analyse_kernel",
                       "One launch of a report as report gives it, its reasons written out (docs/agents.md)."),
    "compare_reports": (Judgement, "roofline mcp: compare_reports",
                        "The regression gate of diff, with each pair's headline from compare (docs/agents.md)."),
    "project_report": (ProjectionPage, "roofline mcp: project_report",
                       "A page of project's kernels projected onto another GPU, and the workload (docs/agents.md)."),
    "grade_kernel": (GradedKernels, "roofline mcp: grade_kernel",
                     "The grade document without each kernel's launches, long kernel names cut (docs/agents.md)."),
    "gpu_spec": (GpuSpec, "roofline mcp: gpu_spec",
                 "One device spec with the source of each number, or the known specs (docs/agents.md)."),
    "rank_nsys_kernels": (NsysRanking, "roofline mcp: rank_nsys_kernels",
                          "A page of an Nsight Systems file's kernels by GPU time, and the ncu runs of the top ones "
                          "(docs/agents.md)."),
}


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one kind of document, from its type: closed sets as enums, every field without a default
    required, a null allowed only where the type says so."""
    import msgspec

    kind_type, title, what = GENERATED[kind]
    return {"$schema": DRAFT, "$id": f"urn:roofline:schema:{kind}", "title": title, "description": f"{what} {OPEN}",
            **msgspec.json.schema(kind_type)}


def schema_text(kind: str) -> str:
    """The schema as the shipped file holds it: indented by two, keys in the order generated, one newline at the
    end."""
    return json.dumps(schema(kind), indent=2, ensure_ascii=True) + "\n"


def main(argv: list[str]) -> int:
    """``python -m roofline.documents.schemas KIND``: the schema of KIND on stdout."""
    if len(argv) != 1 or argv[0] not in GENERATED:
        print(f"usage: python -m roofline.documents.schemas {{{','.join(GENERATED)}}}", file=sys.stderr)
        return 2
    sys.stdout.write(schema_text(argv[0]))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
