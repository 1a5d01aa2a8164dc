"""The resource key: read from and written as its dotted text, the JSON's form."""

from __future__ import annotations

from roofline.core.model import LEVELS
from roofline.core.resources import Resource


def test_a_key_reads_as_kind_and_name_and_writes_back_the_same_text():
    for text in ("flops.fp32", "bytes.dram", "instructions", "launch"):
        assert str(Resource.of(text)) == text
    assert Resource.of("flops.tensor") == Resource("flops", "tensor")
    assert Resource.of("threads") == Resource("threads", "")


def test_no_key_is_the_empty_resource():
    assert Resource.of(None) == Resource.of("") == Resource("", "")


def test_a_roof_is_bytes_at_a_level_and_flops_of_a_precision():
    assert Resource.roof("l2", LEVELS) == Resource("bytes", "l2")
    assert Resource.roof("fp64", LEVELS) == Resource("flops", "fp64")
