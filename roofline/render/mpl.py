"""Matplotlib set-up shared by the plots: the file formats, a figure made without pyplot (no GUI backend, no
global state), saving it to bytes with the generator mark in the file's metadata, and the text layout every plot
uses so nothing is clipped or drawn over other text: names shortened in the middle, notes wrapped to the figure,
and labels placed on the first free spot among their candidates. matplotlib is imported inside the functions
only, so ``roofline --help`` never loads it."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from roofline.core.units import middle_cut, si
from roofline.errors import UsageError
from roofline.render import GENERATOR
from roofline.render.names import plot_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox
    from matplotlib.typing import RcKeyType

PlotFormat = Literal["png", "svg", "pdf"]
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
_SAVE_RC: dict[RcKeyType, Any] = {"svg.hashsalt": "roofline"}  # fixed SVG ids: the same plot gives the same file
# zlib level of the PNGs: 4 against Pillow's default 6 saves 23-36% of a plot's drawing and save (44 ms of 193 ms on
# the T4 report's plot, 120 ms of 334 ms on the RTX 4070 Ti one) for files 1% larger (docs/benchmarks.md)
PNG_COMPRESSION = 4


def plot_format(path: Path) -> PlotFormat:
    """The format of a plot file from its name; UsageError (before any work) for a suffix not written here."""
    if path.is_dir():
        raise UsageError(f"{path}: a folder, not a plot file", f"name the plot file, e.g. {path / 'roofline.png'}")
    suffix = path.suffix.lower()
    if suffix == ".png" or suffix == ".svg" or suffix == ".pdf":
        return "png" if suffix == ".png" else "svg" if suffix == ".svg" else "pdf"
    raise UsageError(f"{path}: unknown plot format '{path.suffix}'", f"end the name with {', '.join(PLOT_SUFFIXES)}")


LAYOUT_PAD_IN = 0.08  # constrained layout's margin around everything, so hinting differences cannot clip text


def figure(width_in: float, height_in: float, constrained: bool = False, dpi: float = 100.0) -> Figure:
    """An empty figure of this size (inches), independent of pyplot and of any display, with an Agg canvas so
    text can be measured at the ``dpi`` it is saved with; ``constrained``: matplotlib's constrained layout places
    axes, legends and notes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    layout = ConstrainedLayoutEngine(w_pad=LAYOUT_PAD_IN, h_pad=LAYOUT_PAD_IN) if constrained else None
    fig = Figure(figsize=(width_in, height_in), dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def freeze_layout(fig: Figure) -> None:
    """Run the layout engine once and keep its result, so labels placed afterwards cannot move the axes."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")


NARROW_DECADES = 2.5  # a log axis spanning fewer decades also has ticks and labels at 2 and 5 times each decade


def log_axes(ax: Axes, x: bool = True, y: bool = True) -> None:
    """Log scale on the chosen axes, labelled in plain text with SI prefixes ("100 G", "1 T", "0.1"): a tick and a
    label per decade, and on an axis spanning under ``NARROW_DECADES`` also at 2 and 5 times each decade.
    matplotlib's default log ticks are mathtext labels ("$10^{12}$") and eight minor ticks per decade, each tick a
    set of artists: together they took two thirds of a roofline plot's drawing time (docs/benchmarks.md)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    for on, set_scale, axis in ((x, ax.set_xscale, ax.xaxis), (y, ax.set_yscale, ax.yaxis)):
        if on:
            set_scale("log")
            axis.set_major_locator(LogLocator(base=10.0))
            axis.set_major_formatter(FuncFormatter(decade_label))
            axis.set_minor_locator(_narrow_minor_locator())
            axis.set_minor_formatter(FuncFormatter(decade_label))


def _narrow_minor_locator() -> Any:
    """A locator of ticks at 2 and 5 times each decade on an axis spanning under ``NARROW_DECADES``, none on a
    wider one."""
    from matplotlib.ticker import LogLocator

    class NarrowMinor(LogLocator):
        def tick_values(self, vmin: float, vmax: float) -> Any:
            lo, hi = sorted((vmin, vmax))
            return super().tick_values(vmin, vmax) if 0 < lo and hi / lo < 10 ** NARROW_DECADES else []

    return NarrowMinor(base=10.0, subs=(2.0, 5.0))


def decade_label(value: float, _position: object = None) -> str:
    """A log axis tick label: ``1e12`` -> ``"1 T"``, ``1000`` -> ``"1000"``, ``0.01`` -> ``"0.01"``, ``1e-5`` ->
    ``"1e-05"``."""
    return f"{value:g}" if 0.001 <= value < 1e4 else si(value, digits=3) if value >= 1e4 else f"{value:.0e}"


def log_steps(start: float, decades: float, count: int) -> list[float]:
    """``count`` positions on a log axis from ``start``, ``decades`` apart: candidate spots for a label."""
    return [start * 10 ** (decades * k) for k in range(count)]


def middle(text: str, width: int) -> str:
    """``text`` as a plot draws it (``names.plot_text``), its middle cut to fit ``width`` characters."""
    return middle_cut(plot_text(text), width)


NOTE_FONT = 7.5  # points: notes under the axes
NOTE_LINE_IN = NOTE_FONT * 1.35 / 72  # inches per note line


def wrap(lines: Sequence[str], width_in: float, font_pt: float = NOTE_FONT) -> list[str]:
    """Note lines wrapped to fit ``width_in`` inches of text at ``font_pt`` (a wide glyph is 0.62 em)."""
    chars = max(20, int(width_in * 72 / (font_pt * 0.62)))
    return [part for line in lines for part in textwrap.wrap(line, chars, break_on_hyphens=False) or [""]]


class LabelPlacer:
    """Places labels in axes so that no two overlap and none leaves its axes: each label takes the first of its
    candidate positions that is free, or is left out (``place`` returns None). Use after ``freeze_layout``."""

    PAD_PX = 2.0

    def __init__(self, fig: Figure) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = fig.canvas
        assert isinstance(canvas, FigureCanvasAgg), "make the figure with render.mpl.figure"
        self.renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
        self.taken: list[Bbox] = []

    def block(self, artist: Text) -> None:
        """Keep other labels off an existing text (an empty one, such as an arrow's annotation, takes no room)."""
        if artist.get_text().strip():
            self.taken.append(artist.get_window_extent(self.renderer).padded(self.PAD_PX))

    def block_points(self, ax: Axes) -> None:
        """Keep labels off the markers of the scatter plots in ``ax`` (the kernels' points), each as its square."""
        import numpy as np
        from matplotlib.collections import PathCollection
        from matplotlib.transforms import Bbox

        pixels = self.renderer.points_to_pixels(1.0)
        for dots in (c for c in ax.collections if isinstance(c, PathCollection)):
            offsets, sizes = np.asarray(dots.get_offsets()), dots.get_sizes()
            centres = dots.get_offset_transform().transform(offsets) if len(offsets) else ()
            for i, (x, y) in enumerate(centres):
                half = (sizes[i % len(sizes)] if len(sizes) else 36.0) ** 0.5 * pixels / 2
                self.taken.append(Bbox.from_extents(x - half, y - half, x + half, y + half))

    def place(self, ax: Axes, text: str, candidates: Sequence[dict[str, Any]], **style: Any) -> Text | None:
        """The label at the first candidate where it fits, else None. A candidate is ``ax.annotate``'s placement:
        ``xy`` (data coordinates), and ``xytext`` with ``textcoords``, ``ha``, ``va`` as needed."""
        for spot in candidates:
            label = ax.annotate(text, **{**style, **spot})
            box = label.get_window_extent(self.renderer).padded(self.PAD_PX)
            if _inside(box, ax.bbox) and not any(box.overlaps(other) for other in self.taken):
                self.taken.append(box)
                return label
            label.remove()
        return None


def around(xy: tuple[float, float], distances: Sequence[float] = (4.0, 9.0)) -> list[dict[str, Any]]:
    """Candidate spots for a point's label: beside it, above, below and diagonally, nearest first (points)."""
    spots = []
    for d in distances:
        for dx, dy, ha, va in ((1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"),
                               (-1, -1, "right", "top"), (1.4, 0, "left", "center"), (-1.4, 0, "right", "center"),
                               (0, 1.4, "center", "bottom"), (0, -1.4, "center", "top")):
            spots.append({"xy": xy, "xytext": (dx * d, dy * d), "textcoords": "offset points", "ha": ha, "va": va})
    return spots


def _inside(box: Bbox, outer: Bbox) -> bool:
    inside: bool = box.x0 >= outer.x0 and box.y0 >= outer.y0 and box.x1 <= outer.x1 and box.y1 <= outer.y1
    return inside


def to_bytes(fig: Figure, fmt: PlotFormat, mark: bool = True, **savefig: Any) -> bytes:
    """The figure as PNG, SVG or PDF bytes at the figure's own dpi (the one its text was measured at),
    reproducible (no dates, fixed SVG ids); ``mark`` puts the generator mark in the metadata (left out for SVG
    inlined in an HTML page)."""
    from matplotlib import rc_context

    out = io.BytesIO()
    if fmt == "png":
        savefig.setdefault("pil_kwargs", {"compress_level": PNG_COMPRESSION})
    with rc_context(_SAVE_RC):
        fig.savefig(out, format=fmt, metadata=metadata(fmt, mark), dpi="figure", **savefig)
    return out.getvalue()


def svg_element(svg: bytes) -> str:
    """An SVG file (saved without the mark) as an ``<svg>`` element for an HTML page: no XML prologue, DTD or
    namespace URLs."""
    text = svg.decode()
    element = text[text.index("<svg"):]
    for attr in (' xmlns:xlink="http://www.w3.org/1999/xlink"', ' xmlns="http://www.w3.org/2000/svg"'):
        element = element.replace(attr, "", 1)
    return element


def metadata(fmt: PlotFormat, mark: bool) -> dict[str, str | None]:
    """savefig metadata: the generator mark (when ``mark``) and no creation date."""
    tag = GENERATOR if mark else None
    if fmt == "png":
        return {"Software": tag} if tag else {}
    if fmt == "svg":
        return {"Creator": tag, "Date": None, "Format": None, "Type": None}
    return {"Creator": tag, "Producer": tag, "CreationDate": None}
