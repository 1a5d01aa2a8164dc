"""The shipped JSON Schemas of the typed documents are the generator's output (a changed document type without its
schema written anew fails here), and the generator's command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline.documents import schemas

SCHEMAS = Path(__file__).resolve().parents[2] / "roofline" / "schemas"


@pytest.mark.parametrize("kind", sorted(schemas.GENERATED))
def test_each_shipped_schema_is_the_generated_one(kind: str) -> None:
    assert (SCHEMAS / f"{kind}.schema.json").read_text() == schemas.schema_text(kind), (
        f"write it anew: python -m roofline.documents.schemas {kind} > roofline/schemas/{kind}.schema.json")


def test_a_generated_schema_names_its_draft_and_kind_and_requires_the_head() -> None:
    s = schemas.schema("report")
    assert s["$schema"] == schemas.DRAFT and s["$id"] == "urn:roofline:schema:report"
    top = s["$defs"][s["$ref"].split("/")[-1]]
    assert top["required"] == ["generator", "schema_version", "tool", "reports"]
    assert "left_out" not in top["required"] and "across_reports" not in top["required"]


def test_a_null_is_allowed_only_where_the_type_says() -> None:
    defs = schemas.schema("report")["$defs"]
    assert defs["Kernel"]["properties"]["duration_s"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert defs["Kernel"]["properties"]["missing"]["additionalProperties"] == {"type": "integer", "minimum": 0}
    assert defs["Kernel"]["properties"]["name"] == {"type": "string"}
    assert defs["TimeModelDoc"]["additionalProperties"] is False


def test_the_command_line_prints_a_kind_and_refuses_an_unknown_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert schemas.main(["report"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"] == "urn:roofline:schema:report"
    assert schemas.main(["nothing"]) == 2
    assert "usage: python -m roofline.documents.schemas {report" in capsys.readouterr().err
