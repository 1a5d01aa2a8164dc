"""An nsys profile with ncu reports' work placed on its GPU's roofline: shared by `roofline timeline --work` and
`roofline analyze --no-counters --work-from`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.timeline import TimelineSet


def with_work(profile: Path, reports: list[Path], nsys: str | None, group_by: str,
              specs: list[Path] | None) -> TimelineSet:
    """The profile's timeline with the report's work placed on the roofs of the profile's GPU (``borrow_work``)."""
    from roofline.analysis.borrowed import borrow_work
    from roofline.analysis.timeline import timeline_set
    from roofline.cli.common import analysis_options
    from roofline.core.model import Device
    from roofline.nsys.load import load_with_configs
    from roofline.pipeline import analyze_files
    from roofline.specs.catalog import load_catalog

    timeline, configs = load_with_configs(profile, nsys, group_by)  # a bad profile is refused first
    analyses = analyze_files(reports, analysis_options(None, "function", "kernel-clock", specs, diagnostics=False))
    gpu = next((d.name for d in timeline.devices if d.name), None)
    found = load_catalog(specs or ()).match(Device(gpu)) if gpu else None
    return timeline_set([timeline], borrow_work(timeline, configs, analyses, found.spec if found else None))
