"""``roofline report -f json``: the report document (``documents.report``, schema_version in
``documents.common``, documented in docs/json-schema.md) encoded as compact JSON text."""

from __future__ import annotations

from typing import Any

from roofline.analysis.view import ReportSetView, ReportView
from roofline.documents.common import SCHEMA_VERSION, builtins, number, value_or_null, values_or_null
from roofline.documents.report import HOTSPOTS_SHOWN, ReportJson, Words, report_doc, report_json, with_reasons
from roofline.render.names import json_text
from roofline.render.report.prose import (
    advice_cause,
    advice_text,
    bound_of,
    estimate_of,
    flop_note_text,
    inverted_level_text,
    memory_note_text,
    verdict_line,
)

__all__ = ["HOTSPOTS_SHOWN", "SCHEMA_VERSION", "WORDS", "document", "dumps", "number", "render", "report_dict",
           "typed", "value_or_null", "values_or_null", "with_reasons"]

# the sentences the document holds, as the pages say them
WORDS = Words(bound_of, estimate_of, inverted_level_text, flop_note_text, memory_note_text, verdict_line,
              advice_cause, advice_text)


def render(view: ReportSetView) -> str:
    """The whole JSON document as text."""
    return dumps(typed(view))


def typed(view: ReportSetView) -> ReportJson:
    """The report document of ``view``, typed."""
    return report_json(view, WORDS)


def document(view: ReportSetView) -> dict[str, Any]:
    """The report document of ``view`` as plain data, as its text reads back."""
    out: dict[str, Any] = builtins(typed(view))
    return out


def report_dict(v: ReportView) -> dict[str, Any]:
    """One report of the document as plain data (the CSV flattens it)."""
    out: dict[str, Any] = builtins(report_doc(v, WORDS))
    return out


def dumps(doc: Any) -> str:
    """Compact JSON text on one line (``names.json_text``); never NaN. Pipe through ``python -m json.tool`` or
    ``jq`` to read it."""
    return json_text(doc)
