"""The streams reader (``nsys.streams``): labels numbered by first occurrence, spans grouped by GPU and stream and
sorted as (start, end, label) tuples sort."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from roofline.nsys.streams import _ids, stream_trace
from tests.nsys import streams_export


def test_labels_are_numbered_by_first_occurrence_on_either_path() -> None:
    keys = np.array([7, 3, 7, 9, 3, 0], dtype=np.int64)
    small: dict[str, int] = {}
    wide: dict[str, int] = {}
    by_table = _ids(keys, lambda k: f"k{k}", small)  # small ids: the lookup table
    by_unique = _ids(np.stack((keys, keys), axis=1), lambda k: f"k{k[0]}", wide)  # rows of keys: np.unique
    assert list(small) == list(wide) == ["k7", "k3", "k9", "k0"]
    assert by_table.tolist() == by_unique.tolist() == [0, 1, 0, 2, 1, 3]


def test_spans_per_stream_are_sorted_like_tuples(tmp_path: Path) -> None:
    trace = stream_trace(streams_export.write(tmp_path / "a.sqlite"), Path("a.sqlite"))
    keys = [(a.device_id, a.stream_id, a.kind) for a in trace.activities]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for a in trace.activities:
        spans = [tuple(s) for s in np.asarray(a.spans).tolist()]
        assert spans == sorted(spans) and len(spans) > 0
    assert sum(len(a.spans) for a in trace.activities if a.kind == "kernel") == 5
