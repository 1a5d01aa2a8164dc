"""The realtime document (summary --nsys) as typed structs, from the shipped H100 reports and their nsys export: its
kind, every analysed kernel with its real time, and the builtins what the text reads back."""

from __future__ import annotations

import json
from pathlib import Path

from roofline.compare.realtime import weigh
from roofline.documents.common import builtins
from roofline.documents.realtime import RealtimeJson, realtime_json
from roofline.nsys.load import load_timeline
from roofline.pipeline import AnalysisOptions, analyze_files
from roofline.render.names import json_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_shipped_pair_gives_a_realtime_document() -> None:
    analyses = analyze_files(sorted((EXAMPLES / "h100").glob("*.roofline.*")), AnalysisOptions())
    view = weigh(analyses, load_timeline(EXAMPLES / "nsys" / "h100-examples.sqlite", None))
    doc = realtime_json(view)
    assert isinstance(doc, RealtimeJson) and doc.kind == "realtime" and doc.kernels
    assert all(k.total_s > 0 and k.count > 0 for k in doc.kernels)
    assert builtins(doc) == json.loads(json_text(doc))
