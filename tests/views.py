"""The report views the renderers format, built from analyses as the pipeline's last step builds them."""

from __future__ import annotations

from collections.abc import Sequence

from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.view import ReportSetView, ReportView, report_set


def views(analyses: Sequence[ReportAnalysis], spread_threshold_pct: float | None = None) -> ReportSetView:
    """The view of the reports (with their spreads when a threshold is given)."""
    return report_set(analyses, spread_threshold_pct)


def view(analysis: ReportAnalysis) -> ReportView:
    """The view of one report."""
    return views([analysis]).reports[0]
