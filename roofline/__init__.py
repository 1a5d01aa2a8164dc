"""roofline: kernel-level hierarchical roofline analysis of NVIDIA Nsight Compute reports.

The Python API, a shell over the one facade the command line uses too: ``Roofline`` (``roofline.facade``) holds the
options (``AnalysisOptions``) and the spec catalog and answers each command with its typed document; ``load`` reads
one report into the model, ``analyze_files`` analyses report files (``Roofline(options).analyses``),
``to_dataframe`` lays the launches of analyses out as a pandas DataFrame; ``collect`` keeps many reports' figures in
a store and ``query`` asks it SQL (``roofline.store``, which sits above the facade: ``pip install 'roofline[store]'``).
Bad input, a wrong argument included, raises ``RooflineError`` (its subclasses in ``roofline.errors``): one line
naming the file or the argument and the fix.

Importing ``roofline`` does nothing but define these names: nothing heavy is imported (neither ncu_report nor
matplotlib; the facade on first access), no signal handler is set (the console script sets its own,
``roofline.cli.app.main``), and the notebook display hooks (``roofline.core.display``) are registered on the first
use of the API, or by ``show_in_notebooks()``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, cast

from roofline.core.version import __version__
from roofline.errors import RooflineError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow

    from roofline.analysis.launches import ReportAnalysis
    from roofline.compare.pairing import Comparison
    from roofline.core.model import Report
    from roofline.facade import Progress, Roofline
    from roofline.pipeline import AnalysisOptions
    from roofline.specs.catalog import SpecCatalog
    from roofline.store.collect import Outcome

def load(path: str | os.PathLike[str]) -> Report:
    """Load an ``.ncu-rep`` file (or a ``*.roofline.json`` report model) into the report model."""
    from roofline.core.choices import a_path
    from roofline.ncu.reader import load_report

    show_in_notebooks()
    return load_report(a_path("path", path))


def analyze_files(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions | None = None,
                  catalog: SpecCatalog | None = None, jobs: int = 1,
                  done: Callable[[], None] | None = None) -> list[ReportAnalysis]:
    """Analyse report files (``.ncu-rep`` or ``.json`` report models), in the order given, up to ``jobs`` at once
    (``done`` is called after each): ``Roofline(options, catalog, jobs).analyses(paths)``. The first bad file
    raises its RooflineError."""
    from roofline.facade import Roofline

    show_in_notebooks()
    progress = None if done is None else _calling(done)
    return Roofline(options, catalog, jobs, progress).analyses(paths)  # options: None or an AnalysisOptions


def to_dataframe(analyses: ReportAnalysis | Sequence[ReportAnalysis]) -> pandas.DataFrame:
    """The launches of one analysis (or several) as a pandas DataFrame, one row per launch and one column per JSON
    leaf (units in ``.attrs["units"]``). Needs pandas: RooflineError with the install line otherwise."""
    from roofline.analysis.launches import ReportAnalysis
    from roofline.core.choices import instance_of
    from roofline.pipeline import build_view
    from roofline.render.report.flat import to_dataframe as frame

    alone = isinstance(analyses, (ReportAnalysis, str, os.PathLike)) or not isinstance(analyses, Iterable)
    given: list[object] = [analyses] if alone else list(cast("Iterable[object]", analyses))  # an iterator: read once
    for each in given:
        instance_of("analyses", each, ReportAnalysis, "roofline.analyze_files(paths)")
    return frame(build_view(cast("list[ReportAnalysis]", given)).reports)


def collect(paths: Sequence[str | os.PathLike[str]], store: str | os.PathLike[str],
            options: AnalysisOptions | None = None, workers: int | None = None,
            scheduler: str | None = None) -> Outcome:
    """``roofline collect``: report files (folders: their .ncu-rep and .json files; none: the store's own reports)
    analysed into ``store``, here or on a Dask cluster (``workers`` local processes, or ``scheduler``'s address);
    what was analysed, left as it was and failed (``roofline.store.collect.collect``)."""
    from roofline.store.collect import collect as collect_into

    return collect_into(paths, store, options, workers, scheduler)


def query(store: str | os.PathLike[str], sql: str) -> pyarrow.Table:
    """``roofline query``: one SQL statement over a store (DuckDB, embedded; the views launches, advice, reports and
    errors) as a ``pyarrow.Table`` (``.to_pandas()`` for a DataFrame); StoreError (one line) for a missing store or
    SQL DuckDB refuses (``roofline.store.query.query``)."""
    from roofline.store.query import query as ask

    return ask(store, sql)


def show_in_notebooks() -> None:
    """Show analyses and comparisons as HTML in Jupyter: register their hooks (``roofline.core.display``, which
    their ``_repr_html_`` looks up; the hooks import the renderers only when a notebook asks). Done by the first
    use of the API; call it where results are made by the modules below it."""
    from roofline.core import display

    display.register_html("report", _report_html)
    display.register_html("compare", _comparison_html)


def _calling(done: Callable[[], None]) -> Progress:
    """The facade's progress hook that calls ``done`` after each file."""
    from contextlib import nullcontext

    return lambda paths, jobs: nullcontext(done)


def _report_html(report_analysis: ReportAnalysis) -> str:
    """An analysis as a notebook shows it: the HTML report's summary and kernel ranking."""
    from roofline.pipeline import build_view
    from roofline.render.report.html import notebook

    return notebook(build_view([report_analysis]).reports[0])


def _comparison_html(c: Comparison) -> str:
    """A comparison as a notebook shows it: the HTML comparison without its plot."""
    from roofline.render.compare.html import notebook

    return notebook(c)


def __getattr__(name: str) -> object:
    """``roofline.Roofline`` and ``roofline.AnalysisOptions``, imported on first access."""
    if name == "Roofline":
        from roofline.facade import Roofline

        show_in_notebooks()
        return Roofline
    if name == "AnalysisOptions":
        from roofline.pipeline import AnalysisOptions

        return AnalysisOptions
    raise AttributeError(f"module 'roofline' has no attribute {name!r}")


__all__ = ["__version__", "RooflineError", "Roofline", "AnalysisOptions", "load", "analyze_files", "to_dataframe",
           "collect", "query", "show_in_notebooks"]
