"""Text layout check for figures, measured with matplotlib's own Agg renderer: every text drawn stays inside the
figure (and inside its clip box, if it has one), and no two texts' bounding boxes overlap."""

from __future__ import annotations

import itertools
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox, BboxBase

TOLERANCE_PX = 0.5  # rounding of the renderer's extents


def drawn_texts(fig: Figure) -> list[tuple[str, Bbox]]:
    """(text, window extent) of every non-empty text the renderer really draws (tick labels outside the view and
    invisible artists are not drawn, so not counted), by wrapping ``Text.draw`` for one draw of the figure."""
    seen: list[tuple[str, Bbox, Bbox | None]] = []
    original = Text.draw

    def record(self: Text, renderer: Any) -> None:
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            clip = self.get_clip_box() if self.get_clip_on() else None
            seen.append((self.get_text(), self.get_window_extent(renderer), clip))

    canvas = FigureCanvasAgg(fig)
    setattr(Text, "draw", record)  # noqa: B010 (a plain assignment to a method does not type-check)
    try:
        canvas.draw()
    finally:
        setattr(Text, "draw", original)  # noqa: B010
    problems = [f"clipped by its axes: {t!r}" for t, box, clip in seen if clip is not None and not _within(box, clip)]
    assert not problems, problems
    return [(t, box) for t, box, _ in seen]


def text_problems(fig: Figure) -> list[str]:
    """Every text that leaves the figure, is clipped, or overlaps another text; empty when the layout is clean."""
    texts = drawn_texts(fig)
    problems = [f"leaves the figure: {t!r} {box.bounds}" for t, box in texts if not _within(box, fig.bbox)]
    for (t1, b1), (t2, b2) in itertools.combinations(texts, 2):
        if _overlap(b1, b2):
            problems.append(f"overlap: {t1!r} and {t2!r}")
    return problems


def _within(box: Bbox, outer: BboxBase) -> bool:
    return (box.x0 >= outer.x0 - TOLERANCE_PX and box.y0 >= outer.y0 - TOLERANCE_PX
            and box.x1 <= outer.x1 + TOLERANCE_PX and box.y1 <= outer.y1 + TOLERANCE_PX)


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE_PX) and (min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE_PX)


def covered_points(fig: Figure) -> list[str]:
    """Every text drawn over a marker of a scatter plot (a kernel's point): its square of side sqrt(size) points,
    against the text's extent."""
    from matplotlib.collections import PathCollection

    texts = drawn_texts(fig)
    renderer = FigureCanvasAgg(fig).get_renderer()
    pixels = renderer.points_to_pixels(1.0)
    found = []
    for ax in fig.axes:
        for dots in (c for c in ax.collections if isinstance(c, PathCollection)):
            sizes = list(dots.get_sizes()) or [36.0]
            for i, (x, y) in enumerate(dots.get_offset_transform().transform(dots.get_offsets())):
                half = sizes[i % len(sizes)] ** 0.5 * pixels / 2
                point = Bbox.from_extents(x - half, y - half, x + half, y + half)
                found += [f"{t!r} over a point at {x:.0f}, {y:.0f}" for t, box in texts if _overlap(box, point)]
    return found
