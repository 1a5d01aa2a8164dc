"""roofline: kernel-level hierarchical roofline analysis of NVIDIA Nsight Compute reports.

Nothing heavy is imported here: ``import roofline`` and ``roofline --help`` load neither ncu_report nor
matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from roofline.model import Report


def load(path: str) -> "Report":
    """Load an ``.ncu-rep`` file (or a ``*.roofline.json`` report model) into the report model."""
    from roofline.reader import load_report

    return load_report(path)


__all__ = ["__version__", "load"]
