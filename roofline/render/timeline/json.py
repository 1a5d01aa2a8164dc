"""`roofline timeline` as JSON (``kind: timeline``, documented in docs/json-schema.md): the timeline document
(``documents.timeline``) encoded as compact text."""

from __future__ import annotations

from typing import Any

from roofline.analysis.timeline import TimelineSet
from roofline.documents.common import builtins
from roofline.documents.timeline import timeline_json
from roofline.render.report.json import dumps


def render(doc: TimelineSet) -> str:
    return dumps(timeline_json(doc))


def document(doc: TimelineSet) -> dict[str, Any]:
    """The document as plain data."""
    out: dict[str, Any] = builtins(timeline_json(doc))
    return out
