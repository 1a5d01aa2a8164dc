"""The JSON of `report`, `summary`, `compare` and `diff` on the real reports equals the pinned documents
(tests/pinned_cases.py): every number within 1e-12 relative, everything else exactly."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MISSING_SHARED, SHARED_REPORTS
from tests.pinned_cases import PINNED, cases, pinned, run_case

RELATIVE = 1e-12
CASES = dict(cases())


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def differences(old: Any, new: Any, where: str = "$") -> list[str]:
    """Where two JSON documents differ: numbers beyond RELATIVE, any other leaf, keys or lengths."""
    if _number(old) and _number(new):
        same = math.isclose(old, new, rel_tol=RELATIVE, abs_tol=0.0)
    elif isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            return [f"{where}: keys {sorted(old.keys() ^ new.keys())} differ"]
        return [d for k in old for d in differences(old[k], new[k], f"{where}.{k}")]
    elif isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{where}: {len(old)} items pinned, {len(new)} now"]
        return [d for i, pair in enumerate(zip(old, new, strict=True)) for d in differences(*pair, f"{where}[{i}]")]
    else:
        same = old == new and type(old) is type(new)
    return [] if same else [f"{where}: {old!r} pinned, {new!r} now"]


def test_every_shared_report_is_pinned():
    if not SHARED_REPORTS.is_dir():
        pytest.skip(MISSING_SHARED)
    assert sorted(p.name.removesuffix(".json.gz") for p in PINNED.glob("*.json.gz")) == sorted(CASES)


def test_differences_sees_a_relative_change_above_the_tolerance_only():
    assert differences({"a": [1.0, "x"]}, {"a": [1.0 * (1 + 1e-13), "x"]}) == []
    assert differences({"a": [1.0, "x"]}, {"a": [1.0 + 1e-9, "x"]}) == ["$.a[0]: 1.0 pinned, 1.000000001 now"]
    assert differences({"a": None}, {"a": 0.0}) == ["$.a: None pinned, 0.0 now"]
    assert differences({"a": 1}, {"b": 1}) == ["$: keys ['a', 'b'] differ"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_equals_the_pinned_document(name: str, tmp_path: Path):
    if "ncu-reps" in " ".join(CASES[name]) and not SHARED_REPORTS.is_dir():
        pytest.skip(MISSING_SHARED)
    found = differences(pinned(name), run_case(CASES[name], tmp_path / "out.json"))
    assert not found, f"{len(found)} differences, first: " + "; ".join(found[:5])
