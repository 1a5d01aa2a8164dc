"""The typed documents the facade (``roofline.facade``) answers, one per kind of result: the result and the layout
its renderers read (``roofline.render.base`` registers the formats of each), nothing another kind uses. They sit
below the renderers so that the facade returns them without importing a renderer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

from msgspec import Struct

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.grade import ReportGrade
    from roofline.analysis.launches import ReportAnalysis
    from roofline.analysis.timeline import TimelineSet
    from roofline.analysis.view import LeftOut, ReportSetView
    from roofline.compare.pairing import Comparison
    from roofline.compare.places import GpuGroups
    from roofline.compare.ranking import AppSummary
    from roofline.compare.realtime import RealTimeView
    from roofline.compare.regression import DiffResult


class ReportDocument(Struct, frozen=True):
    """``report`` (and ``analyze``, ``plot``): the view of the reports (``analysis.view``), the table's width, the
    plot images written beside a Markdown document (relative to it) and the kernels in a plot's legend."""

    view: ReportSetView
    width: int = 80
    images: Sequence[str] = ()
    top: int = 0

    @property
    def analyses(self) -> Sequence[ReportAnalysis]:
        return tuple(v.analysis for v in self.view.reports)


class CompareDocument(Struct, frozen=True):
    """``compare``: the comparison, the table's width, the plot image beside a Markdown document, and whether the
    plot shows percent of each report's own roof."""

    comparison: Comparison
    width: int = 80
    images: Sequence[str] = ()
    normalize: bool = False

    @property
    def image(self) -> str:
        return self.images[0] if self.images else ""


class ProjectDocument(Struct, frozen=True):
    """``project``: the comparison of one report with its projections onto another GPU."""

    comparison: Comparison
    width: int = 80


class DiffDocument(Struct, frozen=True):
    """``diff``: the regression gate's result."""

    result: DiffResult
    width: int = 80


class SummaryDocument(Struct, frozen=True):
    """``summary``: each report's summary, the kernel groups shown per report, and the groups per GPU its plot
    draws (``compare.places``)."""

    summaries: Sequence[AppSummary]
    width: int = 80
    top: int = 0
    left_out: Sequence[LeftOut] = ()  # the report files the command went on past
    panels: Sequence[GpuGroups] = ()  # per GPU, its reports' groups merged (the plot's panels)


class TimelineDocument(Struct, frozen=True):
    """``timeline``: the Nsight Systems files' kernels, and the kernels shown per file (0: all)."""

    timelines: TimelineSet
    width: int = 80
    top: int = 0


class RealtimeDocument(Struct, frozen=True):
    """``summary --nsys``: ncu's kernels beside their real run time, and the kernels shown (0: all)."""

    view: RealTimeView
    width: int = 80
    top: int = 0


class GradeDocument(Struct, frozen=True):
    """``grade``: each kernel's grade against the roof of its work, its conditions and work checks."""

    grades: ReportGrade
    width: int = 80


Document: TypeAlias = (ReportDocument | CompareDocument | ProjectDocument | DiffDocument | SummaryDocument
                       | TimelineDocument | RealtimeDocument | GradeDocument)
