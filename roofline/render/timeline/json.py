"""`roofline timeline` as JSON (``kind: timeline``, documented in docs/json-schema.md): the timeline document
(``documents.timeline``) encoded as compact text."""

from __future__ import annotations

from roofline.analysis.timeline import TimelineSet
from roofline.documents.timeline import TimelineWords, timeline_json
from roofline.render.report.json import dumps
from roofline.render.timeline.work import notes

WORDS = TimelineWords(notes)  # the sentences the document holds: the work's notes, as the text shows them


def render(doc: TimelineSet) -> str:
    return dumps(timeline_json(doc, WORDS))
