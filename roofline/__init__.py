"""roofline: kernel-level hierarchical roofline analysis of NVIDIA Nsight Compute reports.

The Python API: ``load`` reads one report into the model, ``analyze_files`` runs the whole analysis of report
files (the pipeline every command uses) with ``AnalysisOptions``, ``to_dataframe`` lays the launches of analyses out
as a pandas DataFrame. Nothing heavy is imported here: ``import roofline`` and ``roofline --help`` load neither
ncu_report nor matplotlib, and ``analyze_files`` / ``AnalysisOptions`` come from ``roofline.pipeline`` on first
access.

The API sits above the renderers (as the command line does): at import it registers how a notebook shows an
analysis and a comparison (``roofline.core.display``, which their ``_repr_html_`` looks up), hooks that import the
renderers only when a notebook asks. So no result type imports a renderer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from roofline.core import display
from roofline.core.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from roofline.analysis.launches import ReportAnalysis
    from roofline.compare.pairing import Comparison
    from roofline.core.model import Report
    from roofline.pipeline import AnalysisOptions, analyze_files

INTERRUPTED = 130  # the exit status after Ctrl-C (128 + SIGINT), as typer gives it
if sys.argv[:1] and os.path.basename(sys.argv[0]) == "roofline":  # the console script, importing its entry point
    import signal

    def _interrupted_at_start(signum: int, frame: object) -> None:
        """Ctrl-C while the command's modules load: end quietly (``cli.app.main`` puts Python's handler back)."""
        os._exit(INTERRUPTED)

    signal.signal(signal.SIGINT, _interrupted_at_start)

_PIPELINE_NAMES = ("analyze_files", "AnalysisOptions")


def load(path: str | os.PathLike[str]) -> Report:
    """Load an ``.ncu-rep`` file (or a ``*.roofline.json`` report model) into the report model."""
    from roofline.ncu.reader import load_report

    return load_report(path)


def to_dataframe(analyses: ReportAnalysis | Sequence[ReportAnalysis]) -> pandas.DataFrame:
    """The launches of one analysis (or several) as a pandas DataFrame, one row per launch and one column per JSON
    leaf (units in ``.attrs["units"]``). Needs pandas: RooflineError with the install line otherwise."""
    from roofline.analysis.launches import ReportAnalysis
    from roofline.pipeline import build_view
    from roofline.render.report.flat import to_dataframe as frame

    return frame(build_view([analyses] if isinstance(analyses, ReportAnalysis) else analyses).reports)


def _report_html(report_analysis: ReportAnalysis) -> str:
    """An analysis as a notebook shows it: the HTML report's summary and kernel ranking."""
    from roofline.pipeline import build_view
    from roofline.render.report.html import notebook

    return notebook(build_view([report_analysis]).reports[0])


def _comparison_html(c: Comparison) -> str:
    """A comparison as a notebook shows it: the HTML comparison without its plot."""
    from roofline.render.compare.html import notebook

    return notebook(c)


display.register_html("report", _report_html)
display.register_html("compare", _comparison_html)


def __getattr__(name: str) -> object:
    """``roofline.analyze_files`` and ``roofline.AnalysisOptions``, imported on first access."""
    if name in _PIPELINE_NAMES:
        from roofline import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'roofline' has no attribute {name!r}")


__all__ = ["__version__", "load", "analyze_files", "AnalysisOptions", "to_dataframe"]
