"""`roofline timeline --work --plot`'s roofline panel: each bandwidth slope ends where it meets the highest compute
roof, and each compute roof starts where the fastest slope meets it (the lower of the two is the roofline)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.lines import Line2D

from roofline.analysis.time_gap import Paired, time_gap
from roofline.cli.nsys_work import with_work
from roofline.core.units import seconds
from roofline.render.timeline.plot import build
from roofline.render.timeline.work import time_gap_lines

REPO = Path(__file__).resolve().parents[3]
EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"
REPORT = REPO / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"


def segment(line: Line2D) -> tuple[tuple[float, float], tuple[float, float]]:
    """A two-point line's ends, (x0, x1) and (y0, y1)."""
    xs, ys = (np.asarray(values, dtype=float) for values in line.get_data())
    return (float(xs[0]), float(xs[-1])), (float(ys[0]), float(ys[-1]))


def test_slopes_end_at_the_compute_roof_and_the_roof_starts_at_the_slope() -> None:
    doc = with_work(EXPORT, [REPORT], None, "kernel", None)
    assert doc.work is not None and doc.work.ceilings is not None
    ax = build(doc).axes[-1]
    slopes = [segment(line) for line in ax.get_lines() if "B/s" in str(line.get_label())]
    roofs = [segment(line) for line in ax.get_lines() if "B/s" not in str(line.get_label())]
    roofs = [(xs, ys) for xs, ys in roofs if ys[0] == ys[1]]
    assert slopes and roofs
    top = max(ys[0] for _, ys in roofs)
    for _, ys in slopes:
        assert max(ys) == pytest.approx(top)  # H100: the 989 TFLOP/s BF16 roof, at 295 FLOP/B of DRAM
    fastest = max(bw for level in ("dram", "l2") if (bw := doc.work.ceilings.bytes_per_s.get(level)))
    assert min(xs[0] for xs, _ in roofs) == pytest.approx(top / fastest)


def test_point_labels_overlap_no_other_text_and_stay_in_the_panel() -> None:
    """The shipped reports of both sets: six kernels, two pairs of near points (the triads, the nvjet GEMMs) under
    roof labels; each label sits where it crosses no other text and no point, and every point is numbered."""
    reports = sorted((*REPO.glob("examples/h100/*.roofline.ncu-rep"), *REPO.glob("examples/h100/*.full.ncu-rep")))
    doc = with_work(EXPORT, reports, None, "kernel", None)
    assert doc.work is not None
    fig = build(doc)
    ax = fig.axes[-1]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().strip()]
    assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(ax.bbox.contains(b.x0, b.y0) and ax.bbox.contains(b.x1, b.y1) for b in boxes)
    numbers = sorted(int(t.get_text().split()[0]) for t in ax.texts if t.get_text().split()[0].isdigit())
    assert numbers == list(range(1, len(doc.work.kernels) + 1))


@pytest.mark.parametrize("nsys_s, ncu_s, words", [(1e-3, 3e-3, "(ncu/nsys 3x, ncu slower)"),
                                                  (8e-3, 1e-3, "(ncu/nsys 0.125x, nsys slower)")])
def test_a_time_gap_line_gives_ncu_over_nsys_as_summary_nsys_does(nsys_s: float, ncu_s: float, words: str) -> None:
    """The line of a kernel whose times are far apart gives its ratio as ncu's time over nsys's, whichever is
    slower, as ``summary --nsys``'s ncu/nsys column does (``timeline --work``'s table has no ratio column)."""
    gap = time_gap(Paired("k", "k", (1, 1, 1), (32, 1, 1), 3, nsys_s, ncu_s), None, False, None, None, None)
    assert gap is not None and gap.ncu_over_nsys == pytest.approx(ncu_s / nsys_s)
    assert gap.nsys_over_ncu == pytest.approx(nsys_s / ncu_s)
    (line,) = time_gap_lines((gap,))
    assert line.startswith(f"k 1x1x1/32x1x1: {seconds(nsys_s)} in nsys, {seconds(ncu_s)} in ncu {words}")


TRIAD = REPO / "examples" / "h100"
TRIAD_FULL, TRIAD_ROOFLINE = TRIAD / "triad-cupy.full.ncu-rep", TRIAD / "triad-cupy.roofline.ncu-rep"
MOVE_FLOPS = 4 * 2**26  # one HFMA2 register move per element of the triad, counted as 2 x 2 FP16 FLOPs


def _moves_notes(*reports: Path) -> list[str]:
    """The work's notes on the triad's FP16 register moves, as the renderers write them."""
    from roofline.render.timeline.work import notes

    work = with_work(EXPORT, list(reports), None, "kernel", None).work
    assert work is not None
    return [n for n in notes(work) if n.startswith("triad:")]


def test_the_moves_note_of_a_roofline_set_report_is_written_from_the_kernels_fields() -> None:
    """The CuPy triad's --set roofline report cannot separate its HFMA2 register moves (fp16_moves UNCOUNTED): the
    note gives its FP16 FLOPs per launch (268 M: 4 x 2^26), the precision they do not set (fp32) and the fix."""
    (note,) = _moves_notes(TRIAD_ROOFLINE)
    assert round(MOVE_FLOPS / 1e6) == 268  # 268,435,456 FP16 FLOPs per launch
    assert "(268 M per launch)" in note and "do not set its precision (fp32)" in note and "--set full" in note


def test_the_moves_note_of_both_sets_names_the_blind_report_and_the_moves_added_back() -> None:
    """Full and roofline reports of the triad: the moves are added back (ADDED_BACK), and the note names the report
    that could not separate them and their FP16 FLOPs per launch; the full report alone needs no note."""
    (note,) = _moves_notes(TRIAD_FULL, TRIAD_ROOFLINE)
    assert str(TRIAD_ROOFLINE) in note and "268 M FP16 FLOPs per launch" in note and "(fp32)" in note
    assert _moves_notes(TRIAD_FULL) == []
