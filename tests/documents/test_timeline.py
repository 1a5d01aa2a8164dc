"""The timeline document as typed structs: ``ranks`` and ``work`` only where there are some, an idle cause's share
null where the GPU was never idle, the builtins what the text reads back."""

from __future__ import annotations

import json
from pathlib import Path

from roofline.analysis.timeline import timeline_set
from roofline.core.timeline import DeviceTime, IdleCause, Timeline
from roofline.documents.common import builtins
from roofline.documents.timeline import TimelineJson, timeline_doc, timeline_json
from roofline.nsys.load import load_timeline
from roofline.render.names import json_text
from roofline.render.timeline.json import WORDS
from tests.nsys.small_export import nsys_export


def test_one_file_has_neither_ranks_nor_work(tmp_path: Path) -> None:
    doc = timeline_json(timeline_set([load_timeline(nsys_export(tmp_path / "app.sqlite"), None)]), WORDS)
    assert isinstance(doc, TimelineJson) and doc.kind == "timeline"
    plain = builtins(doc)
    assert "ranks" not in plain and "work" not in plain
    assert [k["name"] for k in plain["timelines"][0]["kernels"]] == ["gemm", "triad", "tiny"]
    assert plain == json.loads(json_text(doc))


def test_an_idle_share_is_null_where_the_gpu_was_never_idle() -> None:
    busy = DeviceTime(0, "GPU", 1, 1.0, 1.0, idle_causes=(IdleCause("host", "", 0.0),))
    doc = timeline_doc(Timeline("a.sqlite", (), (busy,), ()))
    assert doc.devices[0].idle_s == 0.0 and doc.devices[0].idle_causes[0].share_of_idle is None
