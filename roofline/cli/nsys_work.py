"""An nsys profile with ncu reports' work placed on its GPU's roofline, as `roofline timeline --work` and
`roofline analyze --no-counters --work-from` ask the facade for it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.timeline import TimelineSet


def with_work(profile: Path, reports: list[Path], nsys: str | None, group_by: str,
              specs: list[Path] | None) -> TimelineSet:
    """The profile's timeline with the reports' work placed on the roofs of the profile's GPU (``borrow_work``)."""
    from roofline.cli.options import work_options
    from roofline.facade import Roofline

    return Roofline(work_options(specs)).timeline([profile], nsys=nsys, group_by=group_by, work=reports).timelines
