"""roofline.render.terminal: kernel names fitted to a table column."""

from __future__ import annotations

from roofline.core.kernel_names import KernelName
from roofline.render.terminal import Chain, chained


def test_a_chain_of_names_keeps_its_arrow_and_shows_where_alike_names_part():
    alike = Chain((KernelName("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"),
                   KernelName("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")))
    text = chained(alike, 34)
    assert len(text) <= 34 and " -> " in text and "hsh" in text and "tst" in text
    assert chained(Chain((KernelName("basic"), KernelName("warptiling"))), 40) == "basic -> warptiling"
    assert chained(Chain((KernelName("_kernel_agent"), KernelName("matrix_addition2D"))), 12) == "_k…t -> ma…D"
