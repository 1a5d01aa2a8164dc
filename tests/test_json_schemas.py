"""Every `--format json` document the commands write validates against its JSON Schema in roofline/schemas (draft
2020-12), on the shipped examples (examples/h100, examples/h200, examples/*.json) and the shared reports; and the
schemas reject what they promise to reject (an unknown verdict, a missing required key)."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render.report.json import SCHEMA_VERSION
from tests.conftest import SHARED_NSYS, SHARED_REPORTS, find_shared_nsys, find_shared_report
from tests.nsys.small_export import nsys_export

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "roofline" / "schemas"
H100, H200 = REPO / "examples" / "h100", REPO / "examples" / "h200"
EXAMPLES = sorted([*(p for p in [*H100.iterdir(), *H200.iterdir()] if p.is_file()), *H100.glob("ops/*.json"),
                   *(REPO / "examples").glob("*.json")])
NAMESAKES = sorted(p.name for p in H200.iterdir() if (H100 / p.name).exists())  # one app (one kernel) on both GPUs
runner = CliRunner()


def schema(kind: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    return out


def errors(kind: str, doc: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema(kind))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]


@functools.cache
def cli_json(*args: str, codes: tuple[int, ...] = (0,)) -> Any:
    """The JSON document of one command line (run once per session)."""
    result = runner.invoke(app, [*args, "-f", "json"])
    assert result.exit_code in codes, result.output
    return json.loads(result.stdout)


def test_every_schema_is_a_valid_draft_2020_12_schema_with_an_id() -> None:
    kinds = sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))
    assert kinds == ["analyse_kernel", "compare", "compare_reports", "diff", "gpu_spec", "grade", "grade_kernel",
                     "list_kernels", "project", "project_report", "rank_nsys_kernels", "realtime", "report", "spec",
                     "specs", "store_summary", "summary", "timeline"]  # the commands' documents, the MCP tools'
    # results (named by tool)
    for kind in kinds:
        s = schema(kind)
        jsonschema.Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["$id"] == f"urn:roofline:schema:{kind}"


def test_the_schemas_ship_in_the_package() -> None:
    assert '"roofline" = ["schemas/*.schema.json", "py.typed"]' in (REPO / "pyproject.toml").read_text()


def test_report_of_every_shipped_example() -> None:
    doc = cli_json("report", *map(str, EXAMPLES))
    assert doc["schema_version"] == SCHEMA_VERSION and len(doc["reports"]) == len(EXAMPLES)
    assert errors("report", doc) == []


def test_summary_of_every_shipped_example() -> None:
    doc = cli_json("summary", *map(str, EXAMPLES), "--top", "50")
    assert errors("summary", doc) == []


@pytest.mark.parametrize("name", NAMESAKES)
def test_compare_and_diff_of_each_app_on_h100_and_h200(name: str) -> None:
    a, b = str(H100 / name), str(H200 / name)
    compared = cli_json("compare", a, b, "--match", "order", "--project-to", "h200")
    assert compared["kernels"] and errors("compare", compared) == []
    judged = cli_json("diff", a, b, "--match", "order", "--allow-different-gpu", codes=(0, 1))
    assert judged["kernels"] and errors("diff", judged) == []


def test_diff_of_one_kernel_profiled_twice_on_one_gpu() -> None:
    doc = cli_json("diff", str(H100 / "sgemm-cuda.roofline.ncu-rep"), str(H100 / "sgemm-cuda.full.json"))
    assert doc["exit_code"] == 0 and errors("diff", doc) == []


@pytest.mark.parametrize("folder, target", [(H100, "h200"), (H200, "h100-sxm5")])
def test_project_of_every_shipped_example(folder: Path, target: str) -> None:
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        assert errors("project", cli_json("project", str(path), "--to", target)) == [], path.name


def test_every_device_spec() -> None:
    assert errors("specs", cli_json("specs", "list")) == []
    ids = [spec["id"] for spec in cli_json("specs", "list")]
    assert len(ids) > 30
    for spec_id in ids:
        assert errors("spec", cli_json("specs", "show", spec_id)) == [], spec_id


def test_report_summary_and_project_of_every_shared_report() -> None:
    find_shared_report("v100_miniweather-openacc_full")  # skips with one line when ../shared/ncu-reps is absent
    paths = sorted(map(str, SHARED_REPORTS.glob("*.ncu-rep")))
    assert errors("report", cli_json("report", *paths, codes=(0, 2))) == []
    assert errors("summary", cli_json("summary", *paths, codes=(0, 2))) == []
    assert errors("project", cli_json("project", paths[0], "--to", "h100-sxm5")) == []


def test_timeline_of_a_small_export(tmp_path: Path) -> None:
    doc = cli_json("timeline", str(nsys_export(tmp_path / "app.sqlite")))
    assert [k["name"] for k in doc["timelines"][0]["kernels"]] == ["gemm", "triad", "tiny"]
    assert errors("timeline", doc) == []


def test_timeline_of_every_shared_sqlite_export() -> None:
    find_shared_nsys("rtx3090_memfusion-conv-nvtx_2023.1.sqlite")
    for path in sorted(SHARED_NSYS.glob("*.sqlite")):
        assert errors("timeline", cli_json("timeline", str(path))) == [], path.name


def test_summary_with_nsys_real_time() -> None:
    nsys = find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite")
    doc = cli_json("summary", str(find_shared_report("v100_miniweather-openacc_full")), "--nsys", str(nsys))
    assert doc["kind"] == "realtime" and errors("realtime", doc) == []


def test_an_unknown_verdict_or_a_missing_key_is_rejected() -> None:
    doc = copy.deepcopy(cli_json("report", str(H100 / "torch-fp32.roofline.json")))
    doc["reports"][0]["kernels"][0]["bound"] = "fast"
    assert any("bound" in e for e in errors("report", doc))
    diff = copy.deepcopy(cli_json("diff", str(H100 / "sgemm-cuda.roofline.ncu-rep"),
                                  str(H100 / "sgemm-cuda.full.json")))
    del diff["exit_code"]
    assert errors("diff", diff) == [": 'exit_code' is a required property"]


def test_a_field_added_later_does_not_break_validation() -> None:
    doc = copy.deepcopy(cli_json("project", str(H100 / "torch-fp32.roofline.json"), "--to", "h200"))
    doc["a_later_field"] = 1
    doc["kernels"][0]["another"] = {"x": 1}
    assert errors("project", doc) == []


def test_timeline_with_idle_causes_and_work_of_the_shipped_pair() -> None:
    """examples/nsys/h100-examples.sqlite: idle causes, CUDA API, transfers, memory in use, and --work."""
    export = REPO / "examples" / "nsys" / "h100-examples.sqlite"
    works = [a for p in sorted(H100.glob("*.roofline.*")) for a in ("--work", str(p))]
    doc = cli_json("timeline", str(export), *works)
    assert doc["work"]["kernels"] and doc["timelines"][0]["devices"][0]["idle_causes"]
    assert doc["timelines"][0]["memory"] and doc["timelines"][0]["api"] and doc["timelines"][0]["transfers"]
    assert errors("timeline", doc) == []
    shipped = cli_json("summary", *[str(p) for p in sorted(H100.glob("*.roofline.*"))], "--nsys", str(export))
    assert errors("realtime", shipped) == []
