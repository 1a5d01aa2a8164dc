"""roofline.render.mpl: plain-text decade labels on log axes."""

from __future__ import annotations

import pytest

from roofline.render import mpl


@pytest.mark.parametrize("value, label", [(1e12, "1 T"), (3e13, "30 T"), (1e4, "10 k"), (1000.0, "1000"),
                                          (1.0, "1"), (0.01, "0.01"), (0.001, "0.001"), (1e-5, "1e-05")])
def test_a_decade_reads_in_plain_text_with_an_si_prefix(value, label) -> None:
    assert mpl.decade_label(value) == label


def _log_figure():
    fig = mpl.figure(4.0, 3.0)
    ax = fig.add_subplot()
    mpl.log_axes(ax)
    ax.set_xlim(0.05, 2e3)
    ax.set_ylim(3e8, 2e14)
    return fig, ax


def _labels(ax, axis, i: int, which: str = "major") -> list[str]:
    lo, hi = sorted(ax.get_ylim() if i else ax.get_xlim())
    return [t.get_text() for t in axis.get_ticklabels(which=which) if lo <= t.get_position()[i] <= hi and t.get_text()]


def test_a_wide_log_axis_labels_each_decade_without_mathtext_or_minor_ticks() -> None:
    fig, ax = _log_figure()
    fig.draw_without_rendering()
    ys, xs = _labels(ax, ax.yaxis, 1), _labels(ax, ax.xaxis, 0)
    assert ys == ["1 G", "10 G", "100 G", "1 T", "10 T", "100 T"]
    assert xs == ["0.1", "1", "10", "100", "1000"]
    assert not any("$" in t for t in xs + ys)
    assert list(ax.xaxis.get_minorticklocs()) == [] and list(ax.yaxis.get_minorticklocs()) == []  # not eight


def test_a_narrow_log_axis_labels_two_and_five_times_each_decade() -> None:
    fig, ax = _log_figure()
    ax.set_ylim(15, 300)
    fig.draw_without_rendering()
    assert _labels(ax, ax.yaxis, 1) == ["100"]
    assert _labels(ax, ax.yaxis, 1, "minor") == ["20", "50", "200"]
    assert [v for v in ax.yaxis.get_minorticklocs() if 15 <= v <= 300] == pytest.approx([20, 50, 200])


def test_a_png_is_saved_at_the_chosen_compression_with_its_mark() -> None:
    from roofline.render import GENERATOR

    fig = mpl.figure(4.0, 3.0, dpi=50)
    fig.add_subplot().plot([1, 2, 3], [3, 1, 2])
    png = mpl.to_bytes(fig, "png")
    assert png.startswith(b"\x89PNG") and GENERATOR.encode() in png
    start = png.index(b"IDAT") + 4
    flevel = png[start + 1] >> 6  # the zlib header's level class (RFC 1950): 1 for levels 2-5, 2 for 6 (Pillow's own)
    assert mpl.PNG_COMPRESSION == 4 and flevel == 1
