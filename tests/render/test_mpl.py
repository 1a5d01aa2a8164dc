"""roofline.render.mpl: plain-text decade labels on log axes, and figures drawn where the command chose."""

from __future__ import annotations

import os

import pytest
from matplotlib.figure import Figure

from roofline.core import parallel
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


def test_log_axes_label_each_decade_without_mathtext_and_have_no_minor_ticks() -> None:
    fig, ax = _log_figure()
    fig.draw_without_rendering()
    ys, xs = ([t.get_text() for t in axis.get_ticklabels() if lo <= t.get_position()[i] <= hi]
              for i, axis, (lo, hi) in ((1, ax.yaxis, ax.get_ylim()), (0, ax.xaxis, ax.get_xlim())))
    assert ys == ["1 G", "10 G", "100 G", "1 T", "10 T", "100 T"]
    assert xs == ["0.1", "1", "10", "100", "1000"]
    assert not any("$" in t for t in xs + ys)
    assert list(ax.xaxis.get_minorticklocs()) == [] and list(ax.yaxis.get_minorticklocs()) == []


def _figure_bytes(pid_file: str) -> Figure:
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    return _log_figure()[0]


def test_drawn_gives_the_same_bytes_in_the_spare_process_as_here(tmp_path) -> None:
    here = mpl.drawn(_figure_bytes, (str(tmp_path / "here"),), "png")
    parallel.start_spare(lambda: None)
    try:
        there = mpl.drawn(_figure_bytes, (str(tmp_path / "there"),), "png")
        assert parallel._SPARE is not None
        spare_pid = parallel._SPARE.pid
    finally:
        parallel.stop_spare()
    assert here == there and here.startswith(b"\x89PNG")
    assert (tmp_path / "here").read_text() == str(os.getpid())
    assert (tmp_path / "there").read_text() == str(spare_pid)
