"""benchmarks/bench_store.py: its report models are each distinct, analysable, with their amounts scaled and their
rates and percentages left alone, and every 100th is broken, so the benchmark collects what it says it does. The
timing itself is not asserted."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

import roofline
from tests.conftest import REPO


def bench_store() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_store", REPO / "benchmarks" / "bench_store.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_models_are_distinct_scaled_copies_and_every_hundredth_is_broken(tmp_path: Path) -> None:
    bench = bench_store()
    paths, broken = bench.write_models(tmp_path, 101)
    assert broken == 1 and len({p.read_bytes() for p in paths}) == 101
    with pytest.raises(ValueError):
        json.loads(paths[99].read_text())
    template = json.loads(bench.TEMPLATES[5].read_text())
    model = roofline.load(paths[5]).to_dict()
    original = roofline.load(bench.TEMPLATES[5]).to_dict()
    assert model["device"] == original["device"]
    factor = 1 + 5 / 101  # report 5 of 101
    for name, column in original["launches"]["metrics"].items():
        new = model["launches"]["metrics"][name]
        for before, after in zip(column, new, strict=True):
            if isinstance(before, float) and before and bench._is_amount(name):
                assert 0.9 * factor * before <= after <= 1.1 * factor * before
            elif not bench._is_amount(name):
                assert after == before
    assert template["label"] != json.loads(paths[5].read_text())["label"]
