"""Each command's ``--format json`` document typed (``typed``: the structs of ``roofline.documents``) and as plain data
(dicts, lists, str, finite numbers, None), the tree its JSON text writes, without writing or parsing text: what the
MCP server builds its results of and answers with as structured content."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from roofline.documents.common import builtins
from roofline.documents.kinds import Document
from roofline.render.base import KINDS, Kind
from roofline.render.names import REPLACEMENT

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # no character: the JSON text writes REPLACEMENT in its place


def data(document: Document) -> dict[str, Any]:
    """The document as plain data: what its ``--format json`` text reads back as."""
    return plain(typed(document))


def plain(typed_document: Struct) -> dict[str, Any]:
    """A typed JSON document (a command's, or an MCP tool's result) as plain data, as its JSON text reads back."""
    out: dict[str, Any] = _plain(builtins(typed_document))
    return out


def typed(document: Document) -> Struct:
    """The document's ``--format json`` tree of typed structs (``roofline.documents``)."""
    return _BUILDERS[KINDS[type(document)]](document)


def _report(d: Any) -> Any:
    from roofline.render.report.json import typed

    return typed(d.view)


def _compare(d: Any) -> Any:
    from roofline.documents.compare import compare_json
    from roofline.render.compare.json import WORDS

    return compare_json(d.comparison, WORDS)


def _diff(d: Any) -> Any:
    from roofline.documents.compare import diff_json
    from roofline.render.compare.json import WORDS

    return diff_json(d.result, WORDS)


def _summary(d: Any) -> Any:
    from roofline.documents.compare import summary_json

    return summary_json(d.summaries, d.top, d.left_out)


def _project(d: Any) -> Any:
    from roofline.documents.compare import project_json

    return project_json(d.comparison)


def _timeline(d: Any) -> Any:
    from roofline.documents.timeline import timeline_json
    from roofline.render.timeline.json import WORDS

    return timeline_json(d.timelines, WORDS)


def _realtime(d: Any) -> Any:
    from roofline.documents.realtime import realtime_json

    return realtime_json(d.view)


def _grade(d: Any) -> Any:
    from roofline.documents.grade import grade_json

    return grade_json(d.grades)


_BUILDERS: dict[Kind, Callable[[Any], Struct]] = {
    "report": _report, "compare": _compare, "diff": _diff, "summary": _summary, "project": _project,
    "timeline": _timeline, "realtime": _realtime, "grade": _grade}


def _plain(value: Any) -> Any:
    """Builtins as the JSON text holds them: a non-finite number is null, a lone surrogate ``REPLACEMENT``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(REPLACEMENT, value) if _LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):  # a tuple field of a result struct embedded in a document: a JSON array
        return [_plain(v) for v in value]
    return value
