"""`roofline timeline --plot`: several files share one time axis (a slower rank draws longer bars), a ranks panel
draws each rank's busy time and span on one axis; with --work a roofline panel follows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from matplotlib.patches import Rectangle

from roofline.analysis.timeline import timeline_set
from roofline.nsys.timeline import read_timeline
from roofline.render.timeline.plot import BARS, ROOM_FOR_LABELS, build, draw
from tests.conftest import find_shared_nsys

RANKS = ["gp100_miniweather-openacc_2021.2-export2022.2.sqlite", "rtx3090_memfusion-conv-nvtx_2023.1.sqlite"]
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "nsys" / "h100-examples.sqlite"


def test_each_file_has_its_own_time_axis_and_the_ranks_get_a_panel() -> None:
    doc = timeline_set([read_timeline(find_shared_nsys(name)) for name in RANKS])
    fig = build(doc)
    ranks, *panels = fig.axes
    for ax, t in zip(panels, doc.timelines, strict=True):
        assert ax.get_xlim() == pytest.approx((0.0, max(k.total_s for k in t.kernels[:BARS]) * 1e3 * ROOM_FOR_LABELS))
    widths = [p.get_width() for p in ranks.patches if isinstance(p, Rectangle)]
    assert widths[:2] == pytest.approx([r.busy_s * 1e3 for r in doc.ranks])  # busy, then idle bars
    assert [a + b for a, b in zip(widths[:2], widths[2:4], strict=True)] == pytest.approx(
        [r.span_s * 1e3 for r in doc.ranks])
    assert "one axis for all ranks" in ranks.get_xlabel()


def test_a_short_file_beside_a_long_one_shows_its_bars_and_its_gaps_apart() -> None:
    """The RTX 3090 conv profile (6 ms of kernels) beside the V100 OpenMP offload (696 ms): on one shared axis its
    14 bars were too short to see. Each panel's longest bar now spans 1 / ROOM_FOR_LABELS of its axis; the 3090's
    three longest idle gaps, within 1 ms of each other on the 0.87 s streams axis, share one label "1, 2, 3"
    (they piled up at the axis' left end); no text overlaps another or leaves the figure (the V100 rank's label
    ran out of it)."""
    from roofline.analysis.streams import streams_view
    from roofline.nsys.load import load_with_streams
    from tests.render.text_layout import text_problems

    names = ["rtx3090_memfusion-conv-nvtx_2023.1.sqlite", "v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite"]
    loaded = [load_with_streams(find_shared_nsys(name), None, None, "kernel") for name in names]
    doc = timeline_set([x.timeline for x in loaded],
                       streams=streams_view([x.trace for x in loaded if x.trace is not None]))
    assert doc.streams is not None
    fig = build(doc)
    _, streams_ax, *panels = fig.axes
    for ax in panels:
        longest = max(p.get_width() for p in ax.patches if isinstance(p, Rectangle))
        assert longest / ax.get_xlim()[1] == pytest.approx(1 / ROOM_FOR_LABELS)
    starts = sorted([g.start_s for g in doc.streams.gaps if g.rank == 0][:3])  # the three longest, drawn
    assert starts[-1] - starts[0] < 0.001 < 0.02 * doc.streams.span_s
    numbers = [t.get_text() for t in streams_ax.texts if t.get_color() == "#b03a2e"]
    assert "1, 2, 3" in numbers and numbers.count("1") == 1
    assert text_problems(fig) == []


def test_one_file_has_no_ranks_panel() -> None:
    fig = build(timeline_set([read_timeline(EXAMPLE)]))
    assert len(fig.axes) == 1 and draw(timeline_set([read_timeline(EXAMPLE)]), "png")[:4] == b"\x89PNG"


def test_a_panel_that_leaves_kernels_out_says_how_many_it_draws() -> None:
    """H200 nvFuser has 16 kernels, one more than a panel draws: its title says it draws the longest BARS of them;
    the RTX 3090 file, 14 kernels, says nothing of the kind."""
    names = ["h200_nvfuser-matmul-nvtx_2025.1.sqlite", "rtx3090_memfusion-conv-nvtx_2023.1.sqlite"]
    doc = timeline_set([read_timeline(find_shared_nsys(name)) for name in names])
    titles = {t.path: ax.get_title(loc="left") for t, ax in zip(doc.timelines, build(doc).axes[1:], strict=True)}
    for t in doc.timelines:
        drawn = f"(the {BARS} longest of {len(t.kernels)} kernels)"
        assert (drawn in titles[t.path]) == (len(t.kernels) > BARS)
    assert any(len(t.kernels) > BARS for t in doc.timelines)


def test_top_sets_the_bars_per_panel_as_it_sets_the_table_rows() -> None:
    """--top 8 draws the 8 longest kernels of each file (the H200 nvFuser profile has 16), said in the title."""
    doc = timeline_set([read_timeline(find_shared_nsys("h200_nvfuser-matmul-nvtx_2025.1.sqlite"))])
    (ax,) = build(doc, top=8).axes
    (t,) = doc.timelines
    assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == 8
    assert f"(the 8 longest of {len(t.kernels)} kernels)" in ax.get_title(loc="left")


def test_the_streams_panel_draws_each_rank_and_stream_on_the_shared_axis(tmp_path: Path) -> None:
    """Two ranks of the small multi-stream export: a row per NVTX depth and per stream of each, the kernel bars
    those of the streams view, the axis its span; the plot and the HTML page carry it."""
    from matplotlib.collections import PolyCollection

    from roofline.analysis.streams import streams_view
    from roofline.nsys.streams import stream_trace
    from roofline.render.timeline import html
    from tests.nsys import streams_export

    paths = [streams_export.write(tmp_path / "a.sqlite"),
             streams_export.write(tmp_path / "b.sqlite", streams_export.SESSION_NS + 1_000_000)]
    view = streams_view([stream_trace(p, p) for p in paths])
    assert view is not None
    doc = timeline_set([read_timeline(p) for p in paths], streams=view)
    _, panel, *_ = build(doc).axes
    labels = [t.get_text() for t in panel.get_yticklabels()]
    # a.sqlite and b.sqlite carry no rank: the files by their place given, no rank claimed
    assert labels[:4] == ["file 1 NVTX depth 0", "file 1 NVTX depth 1", "file 1 NVTX depth 2", "file 1 GPU 0 stream 0"]
    assert "file 2 GPU 0 stream 13" in labels and len(labels) == 2 * (3 + 3)
    assert panel.get_xlim() == pytest.approx((0.0, view.span_s))
    drawn = [len(c.get_paths()) for c in panel.collections if isinstance(c, PolyCollection)]
    assert sum(len(r.kernel_bars) + len(r.copy_bars) + len(r.memset_bars) for r in view.rows) <= sum(drawn)
    assert "under kernels" in panel.get_xlabel() and "session start" in panel.get_xlabel()
    page = html.render(doc)
    assert "copy time under kernels" in page.lower() and '<th class="name">before (stream)</th>' in page
    assert '<td class="name">kernel ' in page  # the gap table's kernel names wrap, its GPU column does not


def test_the_streams_axis_label_stays_inside_the_figure_and_nvtx_names_inside_their_bars(tmp_path: Path) -> None:
    """Two ranks name each GPU's copies on the axis label: wrapped, it ends inside the figure. An NVTX name is
    clipped to its own bar (the analysis names no two overlapping ranges)."""
    from roofline.analysis.streams import streams_view
    from roofline.nsys.streams import stream_trace
    from tests.nsys import streams_export

    paths = [streams_export.write(tmp_path / "a.sqlite"),
             streams_export.write(tmp_path / "b.sqlite", streams_export.SESSION_NS + 1_000_000)]
    view = streams_view([stream_trace(p, p) for p in paths])
    assert view is not None
    fig = build(timeline_set([read_timeline(p) for p in paths], streams=view))
    panel = fig.axes[1]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    label = panel.xaxis.label.get_window_extent(renderer)
    assert label.x0 >= 0 and label.x1 <= fig.bbox.width
    names = [t for t in panel.texts if t.get_color() == "white"]
    boxes = [t.get_clip_box() for t in names]
    assert names and all(t.get_clip_on() for t in names)
    assert all(box is not None and box.width < panel.bbox.width for box in boxes)


def test_the_ranks_axis_ends_at_the_longest_span_with_the_labels_inside() -> None:
    """The GEM V100 pair's shape (busy 86.8 ms and 152 ms of 6.73 s spans) ran to 1.75x the longest span, 40% of the
    panel empty; it now ends 2% past it, each label after its short busy bar; a rank busy most of its span carries
    its label inside the busy bar (white, right-aligned) rather than past the axis. Rows by rank, named so."""
    from roofline.analysis.timeline import timeline_set
    from roofline.core.timeline import DeviceTime, KernelTime, Timeline
    from roofline.render.timeline.plot import RANK_AXIS_END

    def one(path: str, busy: float, span: float) -> Timeline:
        return Timeline(path, (KernelTime("k", 1, busy, busy, busy, busy, (0,)),),
                        (DeviceTime(0, "V100", 1, busy, span),), ())

    doc = timeline_set([one("gem-rank1.sqlite", 0.152, 6.70), one("gem-rank0.sqlite", 0.0868, 6.73),
                        one("gem-rank2.sqlite", 6.5, 6.6)])
    ranks = build(doc).axes[0]
    assert ranks.get_xlim() == pytest.approx((0.0, 6730 * RANK_AXIS_END))
    labels: dict[str, Any] = {t.get_text().strip(): t for t in ranks.texts}  # Annotations: get_ha, xy
    assert [tick.get_text() for tick in ranks.get_yticklabels()] == [
        "rank 0: gem-rank0.sqlite", "rank 1: gem-rank1.sqlite", "rank 2: gem-rank2.sqlite"]
    slow = labels["busy 6.5 s, +5343.9% vs others (busier GPU)"]  # the others' median: 119 ms
    assert (slow.get_ha(), slow.get_color(), slow.xy[0]) == ("right", "white", pytest.approx(6500))
    waits = labels["busy 86.8 ms, -97.4% vs others (less busy GPU)"]
    assert (waits.get_ha(), waits.xy[0]) == ("left", pytest.approx(86.8))
