"""roofline.core.readonly: read-only mappings that pickle, and the plain JSON of what msgspec does not encode."""

from __future__ import annotations

import pickle
from types import MappingProxyType

import msgspec
import numpy as np
import pytest

from roofline.core import readonly


def test_a_read_only_mapping_pickles_and_comes_back_read_only() -> None:
    back = pickle.loads(pickle.dumps({"m": MappingProxyType({"a": 1, "b": [2.5]})}))
    assert isinstance(back["m"], MappingProxyType) and back["m"] == {"a": 1, "b": [2.5]}
    with pytest.raises(TypeError):
        back["m"]["a"] = 2  # type: ignore[index]


def test_registering_again_changes_nothing() -> None:
    readonly.picklable_mappings()
    assert pickle.loads(pickle.dumps(MappingProxyType({"x": 1}))) == {"x": 1}


def test_plain_gives_json_a_dict_for_a_read_only_mapping_and_a_number_for_a_numpy_scalar() -> None:
    doc = {"m": MappingProxyType({"k": np.float64(1.5)}), "n": np.int64(3)}
    assert msgspec.json.decode(msgspec.json.encode(doc, enc_hook=readonly.plain)) == {"m": {"k": 1.5}, "n": 3}
    with pytest.raises(TypeError, match="object is not JSON"):
        msgspec.json.encode(object(), enc_hook=readonly.plain)
