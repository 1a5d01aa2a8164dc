"""The renderer contract (``render.base``): one document type per kind of result, one registry of formats (the
plots too), each format's renderer taking the document fields it names, checked against its annotations."""

from __future__ import annotations

import inspect
import typing

import msgspec
import pytest

import roofline.render.base as base
from roofline.render.base import DOCUMENTS, FORMATS, PLOT, find_format, format_names

# The --format choices of each command, as the help lists them (unchanged by the registry's shape).
CHOICES = {"report": ("table", "json", "markdown", "html", "csv"), "compare": ("table", "json", "markdown", "html"),
           "diff": ("table", "json", "markdown"), "summary": ("table", "json"),
           "project": ("table", "json", "markdown", "html", "csv"),
           "timeline": ("table", "json", "csv", "markdown", "html"), "realtime": ("table", "json"),
           "grade": ("table", "json", "markdown")}


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.kind}-{f.name}")
def test_each_renderer_takes_the_document_type_it_is_registered_by(fmt: base.Format) -> None:
    """The typed contract: a format's renderer takes a document of the type the format is registered by (mypy checks
    that the renderer hands its module's function the document's fields of the types it takes)."""
    hints = typing.get_type_hints(fmt.renderer, vars(base) | {"PlotFormat": object})
    first = next(iter(inspect.signature(fmt.renderer).parameters))
    assert hints[first] is fmt.document and DOCUMENTS[fmt.kind] is fmt.document


def test_no_renderer_module_is_imported_before_a_format_renders() -> None:
    """The registry names its renderers without importing them: the command line starts without them."""
    import subprocess
    import sys

    code = ("import sys, roofline.render.base; print(sorted(m for m in sys.modules if m.startswith("
            "('roofline.render.report', 'roofline.render.compare', 'roofline.render.timeline', 'matplotlib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_kind_has_its_document_and_its_formats() -> None:
    assert set(DOCUMENTS) == set(typing.get_args(base.Kind)) == set(CHOICES)
    for kind, choices in CHOICES.items():
        assert format_names(typing.cast(base.Kind, kind)) == choices
    assert all(issubclass(d, msgspec.Struct) for d in DOCUMENTS.values())


def test_the_plots_are_formats_of_the_registry() -> None:
    plotted = {f.kind for f in FORMATS if f.name == PLOT}
    assert plotted == {"report", "compare", "summary", "timeline"}
    assert find_format("report", "markdown").plots == "pngs" and find_format("compare", "markdown").plots == "pngs"


def test_a_document_of_another_kind_is_refused() -> None:
    with pytest.raises(AssertionError):
        find_format("diff", "json").render(base.ProjectDocument(comparison=None))  # type: ignore[arg-type]


@pytest.mark.parametrize("name, ext", [("out.HTML", ".html"), (".html", ".html"), ("a.b/report", ""),
                                       ("r.tar.gz", ".gz"), ("plain", "")])
def test_extension_is_the_last_dotted_part_of_the_file_name_lower_case(name: str, ext: str) -> None:
    assert base.extension(name) == ext


def test_each_choice_is_named_by_the_extension_of_its_own_suffix() -> None:
    for f in FORMATS:
        if f.choice:
            assert base.format_by_extension(f.kind, "x" + f.suffix) == f.name
    assert base.format_by_extension("compare", "c.md") == "markdown"  # its suffix is -compare.md
    assert base.format_by_extension("summary", "s.html") is None and base.format_by_extension("report", "r") is None
    assert base.format_by_extension("report", "r.HTM") == "html" and base.format_by_extension("diff", "d.markdown") \
        == "markdown"
    assert {".png", ".svg", ".pdf", ".txt", ".json", ".md", ".html", ".csv", ".htm", ".markdown"} == \
        base.known_extensions()


def test_plots_beside_are_one_per_report_and_one_per_comparison() -> None:
    assert base.images_beside("report", 3) == 3 and base.images_beside("report", 0) == 1
    assert base.images_beside("compare", 2) == 1
    assert base.image_names("Doc.MD", 1) == ["Doc.png"] and base.image_names("doc.md", 2) == ["doc-1.png", "doc-2.png"]


def test_each_report_image_registers_its_words_for_nothing_to_draw():
    from roofline.render.report import memory_plot, plot

    images = [f for f in FORMATS if f.kind == "report" and not f.choice and f.name != base.PNGS]
    assert {f.name for f in images} == {PLOT, base.INSTRUCTION_PLOT, base.MEMORY_PLOT, base.OCCUPANCY_PLOT}
    assert all(f.empty is not None and all(f.empty()) for f in images)
    assert find_format("report", PLOT).empty() == (plot.NOTHING_TO_PLOT, plot.PLOT_FIX)
    assert find_format("report", base.MEMORY_PLOT).empty() == (memory_plot.NOTHING, memory_plot.FIX)
