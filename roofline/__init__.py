"""roofline: kernel-level hierarchical roofline analysis of NVIDIA Nsight Compute reports.

The Python API: ``load`` reads one report into the model, ``analyze_files`` runs the whole analysis of report
files (the pipeline every command uses) with ``AnalysisOptions``. Nothing heavy is imported here:
``import roofline`` and ``roofline --help`` load neither ncu_report nor matplotlib, and ``analyze_files`` /
``AnalysisOptions`` come from ``roofline.pipeline`` on first access.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from roofline.core.model import Report
    from roofline.pipeline import AnalysisOptions, analyze_files

_PIPELINE_NAMES = ("analyze_files", "AnalysisOptions")


def load(path: str | os.PathLike[str]) -> Report:
    """Load an ``.ncu-rep`` file (or a ``*.roofline.json`` report model) into the report model."""
    from roofline.ncu.reader import load_report

    return load_report(path)


def __getattr__(name: str) -> object:
    """``roofline.analyze_files`` and ``roofline.AnalysisOptions``, imported on first access."""
    if name in _PIPELINE_NAMES:
        from roofline import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'roofline' has no attribute {name!r}")


__all__ = ["__version__", "load", "analyze_files", "AnalysisOptions"]
