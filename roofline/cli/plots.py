"""The plots a command draws with ``--plot`` (or the ``plot`` command): a one-line error, and no file, where
nothing has a place on them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from roofline.core.labels import LEGEND_KERNELS
from roofline.documents.kinds import ReportDocument
from roofline.render.base import INSTRUCTION_PLOT, MEMORY_PLOT, OCCUPANCY_PLOT, PLOT, find_format, render_image

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.mpl import PlotFormat


# each detail plot's image format and the plot the view says it holds a kernel or not
DETAIL_PLOTS: dict[str, Literal["instruction", "memory", "occupancy"]] = {
    INSTRUCTION_PLOT: "instruction", MEMORY_PLOT: "memory", OCCUPANCY_PLOT: "occupancy"}


def image(drawn: bytes | None) -> bytes:
    """A kind's plot that always draws something (the command has refused an empty one before)."""
    assert drawn is not None
    return drawn


def report_plot(document: ReportDocument, fmt: PlotFormat, target: Path, name: str = "plot") -> bytes:
    """The roofline plot (``name`` "plot"), the instruction roofline plot ("instruction-plot"), the memory chart
    ("memory-plot") or the occupancy calculator ("occupancy-plot") of the reports; a one-line error, and no file,
    when no kernel of any report has a place on it (as the view decides: ``on_plot``, ``on_detail_plot``)."""
    from roofline.errors import RooflineError

    if not holds(document, name):
        empty = find_format("report", name).empty
        assert empty is not None, name  # each report image registers its words
        nothing, fix = empty()
        names = ", ".join(str(a.report.path) for a in document.analyses) or "the reports"
        also = ", or leave out the plot" if name == PLOT else ", or plot --kind roofline"
        raise RooflineError(f"{target}: not written, nothing to plot: no kernel of {names} {nothing}", f"{fix}{also}")
    return image(render_image("report", document, fmt, name))


def holds(document: ReportDocument, name: str) -> bool:
    """Whether the report image ``name`` holds a kernel: a point on the roofline plot, or a kernel among the
    ``top`` longest drawn on a detail plot."""
    from roofline.analysis.view import on_detail_plot

    if name == PLOT:
        return any(v.on_plot for v in document.view.reports)
    return on_detail_plot(document.view, DETAIL_PLOTS[name], document.top or LEGEND_KERNELS)
