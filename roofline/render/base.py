"""The renderer contract and the one registry of output formats, plots included.

Each kind of result has its own document type (``ReportDocument``, ``CompareDocument``, ...; ``roofline.documents``,
where the facade builds them): the result and the layout its renderers read, nothing another kind uses. A format is
a name (``--format``, or ``plot`` for the image a ``--plot`` option or the ``plot`` command writes), the kind of
result it renders, the suffix of the file it is written to by default, and its renderer: a function named by module
and name, imported when the format is used (so the command line starts without the renderers), called with the
document fields ``fields`` names, in that order (``plot_format``, for an image, is the one argument not in the
document: the suffix of the file). The fields' types and the function's parameters are checked against each other by
tests/render/test_base.py: that is the typed contract of each kind. A new format is its renderer function plus one
line in ``FORMATS``; the commands list, check and write formats only through this module.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct

from roofline.documents import (
    CompareDocument,
    DiffDocument,
    Document,
    ProjectDocument,
    RealtimeDocument,
    ReportDocument,
    SummaryDocument,
    TimelineDocument,
)
from roofline.render.mpl import PLOT_SUFFIXES

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.mpl import PlotFormat

Kind = Literal["report", "compare", "diff", "summary", "project", "timeline", "realtime"]
Output = str | bytes


DOCUMENTS: dict[Kind, type] = {"report": ReportDocument, "compare": CompareDocument, "project": ProjectDocument,
                               "diff": DiffDocument, "summary": SummaryDocument, "timeline": TimelineDocument,
                               "realtime": RealtimeDocument}
PLOT = "plot"  # the name of a kind's image format (--plot FILE); not a --format choice
INSTRUCTION_PLOT = "instruction-plot"  # plot --kind instruction
MEMORY_PLOT = "memory-plot"  # plot --kind memory
PNGS = "pngs"  # the PNGs written beside a Markdown document


class Format(Struct, frozen=True):
    """One output format of one kind of result: ``renderer`` is "module:function", called with the document's
    ``fields`` in order; ``to_file``: written to reports/<first report><suffix> by default, not to stdout;
    ``plots``: the format (of the same kind) whose PNGs are written beside the document and named in it;
    ``choice``: a --format choice (the images are not: a --plot file, the plot command, the PNGs beside a
    document; their renderers return None where they have nothing to draw); ``inline``: the document holds its plot
    (an SVG in the HTML page)."""

    name: str
    kind: Kind
    suffix: str
    renderer: str
    fields: tuple[str, ...]
    to_file: bool = False
    plots: str | None = None
    choice: bool = True
    inline: bool = False

    @property
    def draws(self) -> bool:
        """Whether the format draws a plot with matplotlib: its own, one beside it or one inside it."""
        return self.name == PLOT or self.plots is not None or self.inline

    def function(self) -> Any:
        """The renderer function, imported now."""
        module, name = self.renderer.split(":")
        return getattr(importlib.import_module(module), name)

    def render(self, document: Document, plot_format: PlotFormat | None = None) -> Any:
        """The output of ``document`` (of this format's kind) in this format."""
        assert isinstance(document, DOCUMENTS[self.kind]), (self.kind, type(document))
        extra = {"plot_format": plot_format}
        return self.function()(*(extra[f] if f in extra else getattr(document, f) for f in self.fields))


_REPORT, _COMPARE, _TIMELINE = "roofline.render.report", "roofline.render.compare", "roofline.render.timeline"
FORMATS: tuple[Format, ...] = (
    Format("table", "report", ".txt", f"{_REPORT}.table:render", ("view", "width")),
    Format("json", "report", ".json", f"{_REPORT}.json:render", ("view",)),
    Format("markdown", "report", ".md", f"{_REPORT}.markdown:render", ("view", "images"), to_file=True, plots=PNGS),
    Format("html", "report", ".html", f"{_REPORT}.html:render", ("view",), to_file=True, inline=True),
    Format("csv", "report", ".csv", f"{_REPORT}.flat:render", ("view",)),
    Format(PLOT, "report", ".png", f"{_REPORT}.plot:image", ("view", "plot_format", "top"), choice=False),
    Format(INSTRUCTION_PLOT, "report", ".png", f"{_REPORT}.instruction_plot:image", ("analyses", "plot_format", "top"),
           choice=False),
    Format(MEMORY_PLOT, "report", ".png", f"{_REPORT}.memory_plot:image", ("view", "plot_format", "top"),
           choice=False),
    Format(PNGS, "report", ".png", f"{_REPORT}.plot:pngs", ("view",), choice=False),
    Format("table", "compare", ".txt", f"{_COMPARE}.table:comparison_text", ("comparison", "width")),
    Format("json", "compare", ".json", f"{_COMPARE}.json:comparison_json", ("comparison",)),
    Format("markdown", "compare", "-compare.md", f"{_COMPARE}.markdown:comparison_markdown", ("comparison", "image"),
           to_file=True, plots=PNGS),
    Format("html", "compare", "-compare.html", f"{_COMPARE}.html:comparison_html", ("comparison", "normalize"),
           to_file=True, inline=True),
    Format(PLOT, "compare", ".png", f"{_COMPARE}.plot:comparison_plot", ("comparison", "plot_format", "normalize"),
           choice=False),
    Format(PNGS, "compare", ".png", f"{_COMPARE}.plot:pngs", ("comparison", "normalize"), choice=False),
    Format("table", "diff", ".txt", f"{_COMPARE}.table:diff_text", ("result", "width")),
    Format("json", "diff", ".json", f"{_COMPARE}.json:diff_json", ("result",)),
    Format("markdown", "diff", ".md", f"{_COMPARE}.markdown:diff_markdown", ("result",)),
    Format("table", "summary", ".txt", f"{_COMPARE}.table:summary_text", ("summaries", "width")),
    Format("json", "summary", ".json", f"{_COMPARE}.json:summary_json", ("summaries", "top", "left_out")),
    Format(PLOT, "summary", ".png", f"{_COMPARE}.plot:summary_plot", ("summaries", "plot_format"), choice=False),
    Format("table", "project", ".txt", f"{_COMPARE}.table:projection_text", ("comparison", "width")),
    Format("json", "project", ".json", f"{_COMPARE}.json:projection_json", ("comparison",)),
    Format("table", "timeline", ".txt", f"{_TIMELINE}.text:render_table", ("timelines", "top", "width")),
    Format("json", "timeline", ".json", f"{_TIMELINE}.json:render", ("timelines",)),
    Format("csv", "timeline", ".csv", f"{_TIMELINE}.text:render_csv", ("timelines",)),
    Format("markdown", "timeline", "-timeline.md", f"{_TIMELINE}.text:render_markdown", ("timelines", "top"),
           to_file=True),
    Format("html", "timeline", "-timeline.html", f"{_TIMELINE}.html:render", ("timelines", "top"), to_file=True,
           inline=True),
    Format(PLOT, "timeline", ".png", f"{_TIMELINE}.plot:draw", ("timelines", "plot_format", "top"), choice=False),
    Format("table", "realtime", ".txt", f"{_TIMELINE}.realtime:render_table", ("view", "top", "width")),
    Format("json", "realtime", ".json", f"{_TIMELINE}.realtime:render_json", ("view",)),
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
