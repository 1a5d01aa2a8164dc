"""The work `timeline --work` borrows from ncu reports: FP16 FLOPs under one definition of the zero-product HFMA2
register moves, the rule `compare` follows across sets, and a kernel's precision never set by FLOPs that may be
moves. The CuPy triad of examples/h100 (a = b + s * c over 2^26 FP32 elements) runs one FFMA per element (2 FP32
FLOPs) and one HFMA2 register move per element (``tests/ncu/test_hfma_moves.py`` counts them from the raw
report), which ncu counts as HFMA2: 2 FP16 FLOPs per half x 2 halves = 4 FP16 FLOPs."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from roofline.analysis.borrowed import BorrowedWork, Fp16Moves
from roofline.facade import Roofline
from tests.conftest import REPO

EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"
H100 = REPO / "examples" / "h100"
TRIAD_FULL, TRIAD_ROOFLINE = H100 / "triad-cupy.full.ncu-rep", H100 / "triad-cupy.roofline.ncu-rep"
HALF2_FULL, HALF2_ROOFLINE = H100 / "triad-half2.full.ncu-rep", H100 / "triad-half2.roofline.ncu-rep"
ELEMENTS = 2**26
FP32_FLOPS = 2 * ELEMENTS  # one FFMA per element
MOVE_FLOPS = 4 * ELEMENTS  # one HFMA2 move per element, counted as 2 x 2 FP16 FLOPs
H100_FP32 = 66.9e12  # device_specs/h100-sxm5.yaml's FP32 figure (the FP16 one is twice it)


@functools.cache
def borrowed(*reports: Path) -> BorrowedWork:
    work = Roofline().timeline([EXPORT], work=reports).timelines.work
    assert work is not None
    return work


def triad(*reports: Path, name: str = "triad"):
    (k,) = [k for k in borrowed(*reports).kernels if k.short_name == name]
    return k


def test_a_roofline_set_report_counts_the_moves_but_labels_the_triad_fp32_with_typed_fields() -> None:
    """The moves are said as data (``fp16_moves``, ``blind_reports``), not as a sentence in the analysis's notes
    (the renderers write it: tests/render/timeline/test_work.py)."""
    k = triad(TRIAD_ROOFLINE)
    assert k.flops["fp32"] == pytest.approx(FP32_FLOPS) and k.flops["fp16"] == pytest.approx(MOVE_FLOPS)
    assert k.precision == "fp32" and k.compute_roof == H100_FP32
    assert k.fp16_moves is Fp16Moves.UNCOUNTED and k.blind_reports == (str(TRIAD_ROOFLINE),)
    assert not any("triad" in n for n in borrowed(TRIAD_ROOFLINE).notes)


def test_a_full_set_report_leaves_the_moves_out() -> None:
    k = triad(TRIAD_FULL)
    assert k.flops["fp32"] == pytest.approx(FP32_FLOPS) and k.flops["fp16"] == 0.0
    assert k.precision == "fp32" and k.fp16_moves is None and k.blind_reports == ()


def test_reports_of_both_sets_count_the_moves_in_both_before_the_mean_as_compare_does() -> None:
    """The roofline report cannot leave the moves out, so they are added back to the full report's launch (as
    `compare full roofline` compares them): the mean of the two launches holds them once per launch."""
    k = triad(TRIAD_FULL, TRIAD_ROOFLINE)
    assert k.ncu_launches == 2
    assert k.flops["fp32"] == pytest.approx(FP32_FLOPS) and k.flops["fp16"] == pytest.approx(MOVE_FLOPS)
    assert k.total_flops == pytest.approx(FP32_FLOPS + MOVE_FLOPS)
    assert k.precision == "fp32" and k.compute_roof == H100_FP32
    assert k.fp16_moves is Fp16Moves.ADDED_BACK and k.fp16_move_flops == pytest.approx(MOVE_FLOPS)
    assert k.blind_reports == (str(TRIAD_ROOFLINE),)


def test_a_half2_kernel_stays_fp16_and_a_full_report_without_moves_clears_the_roofline_one() -> None:
    """triad_half2 does its arithmetic in HFMA2 (no moves in the full report): its FP16 FLOPs label it, alone or
    with the roofline report, and with the full report beside it nothing is said of moves."""
    alone = triad(HALF2_ROOFLINE, name="triad_half2")
    assert alone.precision == "fp16" and alone.fp16_moves is Fp16Moves.UNCOUNTED
    both = triad(HALF2_FULL, HALF2_ROOFLINE, name="triad_half2")
    assert both.precision == "fp16" and both.fp16_moves is None and both.ncu_launches == 2
    assert both.flops["fp16"] == pytest.approx(alone.flops["fp16"]) and both.blind_reports == ()
