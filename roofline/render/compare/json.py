"""JSON documents of comparisons, regression diffs, projections and application summaries: the documents of
``documents.compare`` encoded as compact text (``kind`` says which: compare, diff, project or summary)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from roofline.analysis.view import LeftOut
from roofline.compare.pairing import Comparison
from roofline.compare.ranking import AppSummary
from roofline.compare.regression import DiffResult
from roofline.documents import compare
from roofline.documents.common import builtins
from roofline.render.compare.prose import apart_text, gate_note_text, unchecked_text, work_note_text, work_summary
from roofline.render.report.flat import dataframe, flatten
from roofline.render.report.json import dumps

if TYPE_CHECKING:  # pragma: no cover
    import pandas

# the sentences the documents hold, as the pages say them
WORDS = compare.CompareWords(work_note_text, apart_text, work_summary, gate_note_text, unchecked_text)


def comparison_json(c: Comparison) -> str:
    """The ``kind: compare`` document as JSON text."""
    return dumps(compare.compare_json(c, WORDS))


def diff_json(d: DiffResult) -> str:
    """The ``kind: diff`` document as JSON text."""
    return dumps(compare.diff_json(d, WORDS))


def summary_json(summaries: Sequence[AppSummary], top: int, left_out: Sequence[LeftOut] = ()) -> str:
    """The ``kind: summary`` document as JSON text, naming the files ``left_out``."""
    return dumps(compare.summary_json(summaries, top, left_out))


def projection_json(c: Comparison) -> str:
    """The ``kind: project`` document as JSON text."""
    return dumps(compare.project_json(c))


def comparison_dataframe(c: Comparison) -> pandas.DataFrame:
    """A comparison for pandas: one row per matched kernel, one column per leaf of its ``kernels[]`` entry in the
    JSON document (``sides.1.median_s``, ``speedup.1``, ...; report i's values under index i), units in
    ``.attrs["units"]``, as the report's ``to_dataframe``. Needs pandas."""
    return dataframe([flatten(builtins(compare.pair_doc(p, c.reports, WORDS))) for p in c.pairs])
