"""The renderer contract and the one registry of output formats, plots included.

Each kind of result has its own document type (``ReportDocument``, ``CompareDocument``, ...: the facade builds them,
``roofline.documents.kinds``): the result and the layout its renderers read, nothing another kind uses. A format is
a name (``--format``, or ``plot`` for the image a ``--plot`` option or the ``plot`` command writes), the document
type it renders (its kind of result), the suffix of the file it is written to by default, and its ``Renderer``: a
function of that document (and, for an image, the file type) that imports its module when called, so the command
line starts without the renderers, and hands the module's function the document's fields. mypy checks each renderer
against its document's fields and its function's parameters; tests/render/test_base.py checks that each format's
renderer takes its document type: that is the typed contract of each kind. A new format is its renderer plus one
line in ``FORMATS``; the commands list, check and write formats only through this module.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from msgspec import Struct

from roofline.documents.kinds import (
    CompareDocument,
    DiffDocument,
    Document,
    GradeDocument,
    ProjectDocument,
    RealtimeDocument,
    ReportDocument,
    SummaryDocument,
    TimelineDocument,
)
from roofline.render.mpl import PLOT_SUFFIXES

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.mpl import PlotFormat

D = TypeVar("D", contravariant=True)
Kind = Literal["report", "compare", "diff", "summary", "project", "timeline", "realtime", "grade"]
Output = str | bytes


DOCUMENTS: dict[Kind, type[Document]] = {
    "report": ReportDocument, "compare": CompareDocument, "project": ProjectDocument, "diff": DiffDocument,
    "summary": SummaryDocument, "timeline": TimelineDocument, "realtime": RealtimeDocument,
    "grade": GradeDocument}
KINDS: dict[type[Document], Kind] = {document: kind for kind, document in DOCUMENTS.items()}
PLOT = "plot"  # the name of a kind's image format (--plot FILE); not a --format choice
INSTRUCTION_PLOT = "instruction-plot"  # plot --kind instruction
MEMORY_PLOT = "memory-plot"  # plot --kind memory
OCCUPANCY_PLOT = "occupancy-plot"  # plot --kind occupancy
PNGS = "pngs"  # the PNGs written beside a Markdown document


class Renderer(Protocol[D]):
    """A format's renderer of documents of type D: their output (text, bytes; an image's None where it has nothing
    to draw), ``plot_format`` the image's file type (PNG where none is given). Each imports its module when called,
    so the command line starts without the renderers (nor matplotlib)."""

    def __call__(self, document: D, plot_format: PlotFormat | None = None, /) -> Any: ...


class Empty(Protocol):
    """An image's words where it has nothing to draw: what no kernel has, and how to get it (from its renderer's
    module, imported when called)."""

    def __call__(self) -> tuple[str, str]: ...


class Format(Struct, frozen=True):
    """One output format of one kind of result, registered by its document type: ``renderer`` takes the document;
    ``to_file``: written to reports/<first report><suffix> by default, not to stdout; ``plots``: the format (of the
    same kind) whose PNGs are written beside the document and named in it; ``choice``: a --format choice (the images
    are not: a --plot file, the plot command, the PNGs beside a document; their renderers return None where they
    have nothing to draw); ``inline``: the document holds its plot (an SVG in the HTML page); ``empty``: an image's
    words where it has nothing to draw (``Empty``)."""

    name: str
    document: type[Document]
    suffix: str
    renderer: Renderer[Any]
    to_file: bool = False
    plots: str | None = None
    choice: bool = True
    inline: bool = False
    empty: Empty | None = None  # an image's words where it has nothing to draw

    @property
    def kind(self) -> Kind:
        """The kind of result whose document the format renders."""
        return KINDS[self.document]

    @property
    def draws(self) -> bool:
        """Whether the format draws a plot with matplotlib: its own, one beside it or one inside it."""
        return self.name == PLOT or self.plots is not None or self.inline

    def render(self, document: Document, plot_format: PlotFormat | None = None) -> Any:
        """The output of ``document`` (of this format's document type) in this format."""
        assert isinstance(document, self.document), (self.kind, type(document))
        return self.renderer(document, plot_format)


# --- The renderers, each adapting its document to its module's function ------------------------------------
def _report_table(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.table import render

    return render(d.view, d.width)


def _report_json(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.json import render

    return render(d.view)


def _report_markdown(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.markdown import render

    return render(d.view, d.images)


def _report_html(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.html import render

    return render(d.view)


def _report_csv(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.flat import render

    return render(d.view)


def _report_plot(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.plot import image

    return image(d.view, plot_format or "png", d.top)


def _report_instruction_plot(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.instruction_plot import image

    return image(d.analyses, plot_format or "png", d.top)


def _report_memory_plot(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.memory_plot import image

    return image(d.view, plot_format or "png", d.top)


def _report_occupancy_plot(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.occupancy_plot import image

    return image(d.view, plot_format or "png", d.top)


def _report_plot_empty() -> tuple[str, str]:
    from roofline.render.report.plot import NOTHING_TO_PLOT, PLOT_FIX

    return NOTHING_TO_PLOT, PLOT_FIX


def _report_instruction_plot_empty() -> tuple[str, str]:
    from roofline.render.report.instruction_plot import FIX, NOTHING

    return NOTHING, FIX


def _report_memory_plot_empty() -> tuple[str, str]:
    from roofline.render.report.memory_plot import FIX, NOTHING

    return NOTHING, FIX


def _report_occupancy_plot_empty() -> tuple[str, str]:
    from roofline.render.report.occupancy_plot import FIX, NOTHING

    return NOTHING, FIX


def _report_pngs(d: ReportDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.report.plot import pngs

    return pngs(d.view)


def _compare_table(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.table import comparison_text

    return comparison_text(d.comparison, d.width)


def _compare_json(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.json import comparison_json

    return comparison_json(d.comparison)


def _compare_markdown(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.markdown import comparison_markdown

    return comparison_markdown(d.comparison, d.image)


def _compare_html(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.html import comparison_html

    return comparison_html(d.comparison, d.normalize)


def _compare_plot(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.plot import comparison_plot

    return comparison_plot(d.comparison, plot_format or "png", d.normalize)


def _compare_pngs(d: CompareDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.plot import pngs

    return pngs(d.comparison, d.normalize)


def _diff_table(d: DiffDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.table import diff_text

    return diff_text(d.result, d.width)


def _diff_json(d: DiffDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.json import diff_json

    return diff_json(d.result)


def _diff_markdown(d: DiffDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.markdown import diff_markdown

    return diff_markdown(d.result)


def _summary_table(d: SummaryDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.table import summary_text

    return summary_text(d.summaries, d.width)


def _summary_json(d: SummaryDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.json import summary_json

    return summary_json(d.summaries, d.top, d.left_out)


def _summary_plot(d: SummaryDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.plot import summary_plot

    return summary_plot(d.panels, plot_format or "png")


def _summary_plot_empty() -> tuple[str, str]:
    from roofline.render.compare.plot import SUMMARY_NOTHING
    from roofline.render.report.plot import PLOT_FIX

    return SUMMARY_NOTHING, PLOT_FIX


def _project_table(d: ProjectDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.table import projection_text

    return projection_text(d.comparison, d.width)


def _project_json(d: ProjectDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.json import projection_json

    return projection_json(d.comparison)


def _project_markdown(d: ProjectDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.projection_pages import projection_markdown

    return projection_markdown(d.comparison)


def _project_html(d: ProjectDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.projection_pages import projection_html

    return projection_html(d.comparison)


def _project_csv(d: ProjectDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.compare.projection_pages import projection_csv

    return projection_csv(d.comparison)


def _timeline_table(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.text import render_table

    return render_table(d.timelines, d.top, d.width)


def _timeline_json(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.json import render

    return render(d.timelines)


def _timeline_csv(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.text import render_csv

    return render_csv(d.timelines)


def _timeline_markdown(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.text import render_markdown

    return render_markdown(d.timelines, d.top)


def _timeline_html(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.html import render

    return render(d.timelines, d.top)


def _timeline_plot(d: TimelineDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.plot import draw

    return draw(d.timelines, plot_format or "png", d.top)


def _realtime_table(d: RealtimeDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.realtime import render_table

    return render_table(d.view, d.top, d.width)


def _realtime_json(d: RealtimeDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.timeline.realtime import render_json

    return render_json(d.view)

def _grade_table(d: GradeDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.grade.table import render

    return render(d.grades, d.width)


def _grade_json(d: GradeDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.grade.json import render

    return render(d.grades)


def _grade_markdown(d: GradeDocument, plot_format: PlotFormat | None = None) -> Any:
    from roofline.render.grade.markdown import render

    return render(d.grades)


FORMATS: tuple[Format, ...] = (
    Format("table", ReportDocument, ".txt", _report_table),
    Format("json", ReportDocument, ".json", _report_json),
    Format("markdown", ReportDocument, ".md", _report_markdown, to_file=True, plots=PNGS),
    Format("html", ReportDocument, ".html", _report_html, to_file=True, inline=True),
    Format("csv", ReportDocument, ".csv", _report_csv),
    Format(PLOT, ReportDocument, ".png", _report_plot, choice=False, empty=_report_plot_empty),
    Format(INSTRUCTION_PLOT, ReportDocument, ".png", _report_instruction_plot, choice=False,
           empty=_report_instruction_plot_empty),
    Format(MEMORY_PLOT, ReportDocument, ".png", _report_memory_plot, choice=False, empty=_report_memory_plot_empty),
    Format(OCCUPANCY_PLOT, ReportDocument, ".png", _report_occupancy_plot, choice=False,
           empty=_report_occupancy_plot_empty),
    Format(PNGS, ReportDocument, ".png", _report_pngs, choice=False),
    Format("table", CompareDocument, ".txt", _compare_table),
    Format("json", CompareDocument, ".json", _compare_json),
    Format("markdown", CompareDocument, "-compare.md", _compare_markdown, to_file=True, plots=PNGS),
    Format("html", CompareDocument, "-compare.html", _compare_html, to_file=True, inline=True),
    Format(PLOT, CompareDocument, ".png", _compare_plot, choice=False),
    Format(PNGS, CompareDocument, ".png", _compare_pngs, choice=False),
    Format("table", DiffDocument, ".txt", _diff_table),
    Format("json", DiffDocument, ".json", _diff_json),
    Format("markdown", DiffDocument, ".md", _diff_markdown),
    Format("table", SummaryDocument, ".txt", _summary_table),
    Format("json", SummaryDocument, ".json", _summary_json),
    Format(PLOT, SummaryDocument, ".png", _summary_plot, choice=False, empty=_summary_plot_empty),
    Format("table", ProjectDocument, ".txt", _project_table),
    Format("json", ProjectDocument, ".json", _project_json),
    Format("markdown", ProjectDocument, "-project.md", _project_markdown, to_file=True),
    Format("html", ProjectDocument, "-project.html", _project_html, to_file=True),
    Format("csv", ProjectDocument, "-project.csv", _project_csv),
    Format("table", TimelineDocument, ".txt", _timeline_table),
    Format("json", TimelineDocument, ".json", _timeline_json),
    Format("csv", TimelineDocument, ".csv", _timeline_csv),
    Format("markdown", TimelineDocument, "-timeline.md", _timeline_markdown, to_file=True),
    Format("html", TimelineDocument, "-timeline.html", _timeline_html, to_file=True, inline=True),
    Format(PLOT, TimelineDocument, ".png", _timeline_plot, choice=False),
    Format("table", RealtimeDocument, ".txt", _realtime_table),
    Format("json", RealtimeDocument, ".json", _realtime_json),
    Format("table", GradeDocument, ".txt", _grade_table),
    Format("json", GradeDocument, ".json", _grade_json),
    Format("markdown", GradeDocument, "-grade.md", _grade_markdown),
)


def image_names(document_name: str, count: int) -> list[str]:
    """File names of the plots beside a document ``NAME.md``: ``NAME.png``, or ``NAME-1.png``, ... per plot."""
    stem = document_name[:-3] if extension(document_name) == ".md" else document_name
    return [f"{stem}.png"] if count == 1 else [f"{stem}-{i}.png" for i in range(1, count + 1)]


def format_names(kind: Kind) -> tuple[str, ...]:
    """The --format choices of one kind of result, in the order the help lists them (the images are not)."""
    return tuple(f.name for f in FORMATS if f.kind == kind and f.choice)


def extension(name: str) -> str:
    """A file name's extension, lower case (``"out.HTML"`` and ``".html"`` -> ``".html"``; ``""`` without one)."""
    base = os.path.basename(name)
    return "." + base.rpartition(".")[2].lower() if "." in base else ""


EXTENSION_ALIASES = {".htm": ".html", ".markdown": ".md"}  # other names of a format's extension


def format_by_extension(kind: Kind, name: str) -> str | None:
    """The --format choice of ``kind`` whose files end as ``name`` does (``x.html`` and ``x.htm`` -> html, ``x.md``
    -> markdown, ``x.txt`` -> table), None where no choice does."""
    ext = extension(name)
    ext = EXTENSION_ALIASES.get(ext, ext)
    return next((f.name for f in FORMATS if f.kind == kind and f.choice and extension(f.suffix) == ext), None) \
        if ext else None


def known_extensions() -> frozenset[str]:
    """The extensions of every file a format or a plot writes: a name ending in another tells nothing of its
    format."""
    return frozenset({extension(f.suffix) for f in FORMATS} | set(PLOT_SUFFIXES) | set(EXTENSION_ALIASES))


def draws_images(kind: Kind) -> bool:
    """Whether ``kind`` has an image format (``--plot``)."""
    return any(f.kind == kind and f.name == PLOT for f in FORMATS)


def images_beside(kind: Kind, reports: int) -> int:
    """How many plots a document of ``kind`` over ``reports`` files writes beside it when every report has
    something to plot: one per report (``report``), one (``compare``)."""
    return max(1, reports) if kind == "report" else 1


def plot_is_beside(document: Document) -> bool:
    """Whether the PNG beside a Markdown document is the document's --plot figure itself: a comparison's one plot,
    or the roofline plot of one report (several reports get a plot each beside, and one --plot of them all)."""
    return isinstance(document, CompareDocument) or (isinstance(document, ReportDocument)
                                                     and len(document.view.reports) == 1)


def find_format(kind: Kind, name: str) -> Format:
    """The format ``name`` of ``kind`` (the command line has already checked the name against ``format_names``)."""
    return next(f for f in FORMATS if f.kind == kind and f.name == name)


def render_image(kind: Kind, document: Document, plot_format: PlotFormat, name: str = PLOT) -> bytes | None:
    """A kind's image (``plot``, or ``instruction-plot`` of reports) as PNG, SVG or PDF bytes; None where nothing
    would be drawn."""
    image: bytes | None = find_format(kind, name).render(document, plot_format)
    return image
