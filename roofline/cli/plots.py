"""The plots a command draws with ``--plot`` (or the ``plot`` command): a one-line error, and no file, where
nothing has a place on them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from roofline.documents.kinds import ReportDocument
from roofline.render.base import PLOT, find_format, render_image

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.mpl import PlotFormat


def image(drawn: bytes | None) -> bytes:
    """A kind's plot that always draws something (the command has refused an empty one before)."""
    assert drawn is not None
    return drawn


def report_plot(document: ReportDocument, fmt: PlotFormat, target: Path, name: str = "plot") -> bytes:
    """The roofline plot (``name`` "plot"), the instruction roofline plot ("instruction-plot"), the memory chart
    ("memory-plot") or the occupancy calculator ("occupancy-plot") of the reports; a one-line error, and no file,
    when no kernel of any report has a place on it."""
    from roofline.errors import RooflineError

    drawn = render_image("report", document, fmt, name)
    if drawn is None:
        empty = find_format("report", name).empty
        assert empty is not None, name  # each report image registers its words
        nothing, fix = empty()
        names = ", ".join(str(a.report.path) for a in document.analyses) or "the reports"
        also = ", or leave out the plot" if name == PLOT else ", or plot --kind roofline"
        raise RooflineError(f"{target}: not written, nothing to plot: no kernel of {names} {nothing}", f"{fix}{also}")
    return drawn
