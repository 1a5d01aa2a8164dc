"""The renderer contract and the one registry of output formats.

A format is a name on the command line (``--format``), the kind of result it renders, the suffix of the file it
is written to by default, whether it is text or bytes, and ``render(document)``. The renderers themselves are
imported when a format is used, so the command line starts without them. A new format is its renderer module
plus one line in ``FORMATS``; the commands list, check and write formats only through this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import KernelSpread, ReportAnalysis
    from roofline.render.mpl import PlotFormat

Kind = Literal["report", "compare", "diff", "summary", "project", "timeline", "realtime"]
Output = str | bytes


@dataclass(frozen=True)
class Document:
    """What a renderer renders: the result of one command and how it is laid out.

    ``result`` is, by kind: report, a sequence of ``ReportAnalysis``; compare and project, a ``Comparison``
    (project: of one report, with its projections); diff, a ``DiffResult``; summary, a sequence of ``AppSummary``;
    timeline, a ``TimelineSet``; realtime (``summary --nsys``), a ``RealTimeView``."""

    result: Any
    width: int = 80  # terminal columns of a table
    spreads: Sequence[KernelSpread] = ()  # report: the kernels compared across the reports of one job
    images: Sequence[str] = ()  # Markdown: the plot files written beside the document, relative to it
    normalize: bool = False  # compare: plot percent of each report's own roof
    top: int = 0  # summary: the kernel groups shown per report; timeline: the kernels shown per file (0: all)


@dataclass(frozen=True)
class Format:
    """One output format of one kind of result."""

    name: str
    kind: Kind
    suffix: str  # of the file written when no --output is given (to_file), else of --output's usual name
    render: Callable[[Document], Output]
    to_file: bool = False  # written to reports/<first report><suffix> by default, not to stdout
    # PNGs written beside the document, named in it; None where a report has nothing to plot (no file then)
    plots: Callable[[Document], list[bytes | None]] | None = None


# --- The renderers, imported on use ----------------------------------------------------------------------
def _report_table(d: Document) -> str:
    from roofline.render.report import table

    return table.render(d.result, width=d.width, spreads=d.spreads)


def _report_json(d: Document) -> str:
    from roofline.render.report import json

    return json.render(d.result, d.spreads)


def _report_csv(d: Document) -> str:
    from roofline.render.report import flat

    return flat.render(d.result)


def _report_markdown(d: Document) -> str:
    from roofline.render.report import markdown

    return markdown.render(d.result, d.images)


def _report_plots(d: Document) -> list[bytes | None]:
    from roofline.render.report import plot

    data = [plot.plot_data([a]) for a in d.result]
    return [None if plot.plots_nothing(p) else plot.draw(p, "png") for p in data]


def _report_html(d: Document) -> str:
    from roofline.render.report import html

    return html.render(d.result)


def _compare_table(d: Document) -> str:
    from roofline.render.compare.table import comparison_text

    return comparison_text(d.result, width=d.width)


def _compare_json(d: Document) -> str:
    from roofline.render.compare.json import comparison_json

    return comparison_json(d.result)


def _compare_markdown(d: Document) -> str:
    from roofline.render.compare.markdown import comparison_markdown

    return comparison_markdown(d.result, d.images[0] if d.images else "")


def _compare_plots(d: Document) -> list[bytes | None]:
    from roofline.render.compare.plot import comparison_plot

    return [comparison_plot(d.result, "png", d.normalize)]


def _compare_html(d: Document) -> str:
    from roofline.render.compare.html import comparison_html

    return comparison_html(d.result, d.normalize)


def _diff_table(d: Document) -> str:
    from roofline.render.compare.table import diff_text

    return diff_text(d.result, width=d.width)


def _diff_json(d: Document) -> str:
    from roofline.render.compare.json import diff_json

    return diff_json(d.result)


def _diff_markdown(d: Document) -> str:
    from roofline.render.compare.markdown import diff_markdown

    return diff_markdown(d.result)


def _summary_table(d: Document) -> str:
    from roofline.render.compare.table import summary_text

    return summary_text(d.result, width=d.width)


def _summary_json(d: Document) -> str:
    from roofline.render.compare.json import summary_json

    return summary_json(d.result, d.top)


def _project_table(d: Document) -> str:
    from roofline.render.compare.table import projection_text

    return projection_text(d.result, width=d.width)


def _project_json(d: Document) -> str:
    from roofline.render.compare.json import projection_json

    return projection_json(d.result)


def _timeline_table(d: Document) -> str:
    from roofline.render.timeline import text

    return text.render_table(d.result, d.top, d.width)


def _timeline_json(d: Document) -> str:
    from roofline.render.timeline import json

    return json.render(d.result)


def _timeline_csv(d: Document) -> str:
    from roofline.render.timeline import text

    return text.render_csv(d.result)


def _timeline_markdown(d: Document) -> str:
    from roofline.render.timeline import text

    return text.render_markdown(d.result, d.top)


def _timeline_html(d: Document) -> str:
    from roofline.render.timeline import html

    return html.render(d.result, d.top)


def _realtime_table(d: Document) -> str:
    from roofline.render.timeline import realtime

    return realtime.render_table(d.result, d.top, d.width)


def _realtime_json(d: Document) -> str:
    from roofline.render.timeline import realtime

    return realtime.render_json(d.result)


FORMATS: tuple[Format, ...] = (
    Format("table", "report", ".txt", _report_table),
    Format("json", "report", ".json", _report_json),
    Format("markdown", "report", ".md", _report_markdown, to_file=True, plots=_report_plots),
    Format("html", "report", ".html", _report_html, to_file=True),
    Format("csv", "report", ".csv", _report_csv),
    Format("table", "compare", ".txt", _compare_table),
    Format("json", "compare", ".json", _compare_json),
    Format("markdown", "compare", "-compare.md", _compare_markdown, to_file=True, plots=_compare_plots),
    Format("html", "compare", "-compare.html", _compare_html, to_file=True),
    Format("table", "diff", ".txt", _diff_table),
    Format("json", "diff", ".json", _diff_json),
    Format("markdown", "diff", ".md", _diff_markdown),
    Format("table", "summary", ".txt", _summary_table),
    Format("json", "summary", ".json", _summary_json),
    Format("table", "project", ".txt", _project_table),
    Format("json", "project", ".json", _project_json),
    Format("table", "timeline", ".txt", _timeline_table),
    Format("json", "timeline", ".json", _timeline_json),
    Format("csv", "timeline", ".csv", _timeline_csv),
    Format("markdown", "timeline", "-timeline.md", _timeline_markdown, to_file=True),
    Format("html", "timeline", "-timeline.html", _timeline_html, to_file=True),
    Format("table", "realtime", ".txt", _realtime_table),
    Format("json", "realtime", ".json", _realtime_json),
)


def image_names(document_name: str, count: int) -> list[str]:
    """File names of the plots beside a document ``NAME.md``: ``NAME.png``, or ``NAME-1.png``, ... per plot."""
    stem = document_name.removesuffix(".md")
    return [f"{stem}.png"] if count == 1 else [f"{stem}-{i}.png" for i in range(1, count + 1)]


def format_names(kind: Kind) -> tuple[str, ...]:
    """The --format choices of one kind of result, in the order the help lists them."""
    return tuple(f.name for f in FORMATS if f.kind == kind)


def find_format(kind: Kind, name: str) -> Format:
    """The format ``name`` of ``kind`` (the command line has already checked the name against ``format_names``)."""
    return next(f for f in FORMATS if f.kind == kind and f.name == name)


def memory_plot(analyses: Sequence[ReportAnalysis], fmt: PlotFormat, top: int) -> bytes | None:
    """``plot --kind memory``: the memory chart of the reports' longest kernels; None where none has hit rates."""
    from roofline.render.report import memory_plot as render

    data = render.plot_data(analyses, top)
    return render.draw(data, fmt) if data else None


def instruction_plot(analyses: Sequence[ReportAnalysis], fmt: PlotFormat, top: int) -> bytes | None:
    """``plot --kind instruction``: the instruction roofline plot of the reports; None where no kernel of any report
    has a place on it."""
    from roofline.render.report import instruction_plot as render

    data = render.plot_data(analyses, top)
    return render.draw(data, fmt) if data else None
