"""The shared pieces of the documents: finite numbers or null, a null's reason recorded, plain data out."""

from __future__ import annotations

import math

import numpy as np

from roofline.analysis.results import Value
from roofline.documents.common import Tool, builtins, number, value_or_null, values_or_null


def test_a_non_finite_number_is_null() -> None:
    assert [number(v) for v in (1.5, None, math.nan, math.inf, -math.inf, 3)] == [1.5, None, None, None, None, 3]


def test_a_null_value_keeps_its_reason_under_its_path() -> None:
    missing: dict[str, str] = {}
    assert value_or_null(Value(None, "because"), "bytes.l2", missing) is None
    assert value_or_null(Value(math.inf, via="x"), "flops.fp32", missing) is None
    assert values_or_null({"a": Value(2.0), "b": Value(None)}, "p", missing) == {"a": 2.0, "b": None}
    assert missing == {"bytes.l2": "because", "flops.fp32": "not a finite number (inf)", "p.b": "not measured"}


def test_builtins_are_plain_data_with_numpy_scalars_as_python_numbers() -> None:
    out = builtins({"tool": Tool("roofline", "1"), "x": np.float64(2.5), "n": np.int64(3)})
    assert out == {"tool": {"name": "roofline", "version": "1"}, "x": 2.5, "n": 3}
    assert type(out["x"]) is float and type(out["n"]) is int
