"""The ``realtime`` document (``roofline summary --nsys -f json``): ncu's kernels beside their real run time in
Nsight Systems, ranked by recoverable real time, the share of the application they cover, and the kernels either
tool lacks."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.results import Bound
from roofline.analysis.time_gap import TimeGap
from roofline.compare.realtime import RealKernel, RealTimeView
from roofline.core.version import GENERATOR
from roofline.documents.common import SCHEMA_VERSION, Generator, Number, Tool, Version, number, tool
from roofline.documents.timeline import GroupBy


class RealKernelDoc(Struct, frozen=True):
    """One analysed kernel with its real time: nsys's launches and time, ncu's, and the time it may recover;
    ``missing`` holds the reason of every null."""

    name: str
    short_name: str
    nsys_name: str
    matched_by: str
    count: int
    total_s: float
    median_s: float
    app_share: float
    ncu_launches: int
    ncu_total_s: Number
    recoverable_share: Number
    recoverable_real_s: Number
    small_grid_s: Number
    bound: Bound | None
    pct_of_roof: Number
    ncu_over_nsys: Number
    missing: dict[str, str] = {}


class NsysOnly(Struct, frozen=True):
    """A kernel of the timeline that no report analysed."""

    name: str
    short_name: str
    count: int
    total_s: float


class RealtimeJson(Struct, frozen=True):
    """``roofline summary --nsys -f json``."""

    generator: Generator
    schema_version: Version
    kind: Literal["realtime"]
    tool: Tool
    nsys: str
    reports: list[str]
    analysed_share: float
    kernel_s: float
    recoverable_real_s: Number
    kernels: list[RealKernelDoc]
    unmatched_ncu: list[str]
    group_by: GroupBy
    unmatched_nsys: list[NsysOnly]
    notes: list[str]
    time_gaps: list[TimeGap] = []  # the kernels whose nsys and ncu times differ by over 2x, with the likely cause
    missing: dict[str, str] = {}  # the reason of a null recoverable_real_s


def realtime_json(view: RealTimeView) -> RealtimeJson:
    """The document of ``summary --nsys``."""
    return RealtimeJson(
        GENERATOR, SCHEMA_VERSION, "realtime", tool(), view.timeline.path, list(view.reports), view.analysed_share,
        view.timeline.kernel_s, number(view.recoverable_real_s), [real_kernel(k) for k in view.kernels],
        list(view.unmatched_ncu), view.timeline.group_by,  # type: ignore[arg-type]
        [NsysOnly(k.name, k.function, k.count, k.total_s) for k in view.unmatched_nsys], list(view.notes),
        list(view.time_gaps), total_missing(view))


def total_missing(view: RealTimeView) -> dict[str, str]:
    """The reason of a null total recoverable real time: no kernel matched, or none of them has one."""
    if view.recoverable_real_s is not None:
        return {}
    why = ("no kernel of the reports matched one of the timeline" if not view.kernels else
           "no matched kernel has a recoverable time (each one's reason under its missing)")
    return {"recoverable_real_s": why}


def real_kernel(k: RealKernel) -> RealKernelDoc:
    """One matched kernel's row, each null with its reason."""
    doc = RealKernelDoc(
        k.ncu.name, k.nsys.function, k.nsys.name, k.matched_by, k.nsys.count, k.nsys.total_s, k.nsys.median_s,
        k.app_share, k.ncu.launches, k.ncu.total_s, number(k.recoverable_share), number(k.recoverable_real_s),
        k.ncu.small_grid_s, k.ncu.bound, number(k.ncu.pct_of_roof), number(k.ncu_over_nsys))  # type: ignore[arg-type]
    return replace(doc, missing=kernel_missing(doc))


NO_NCU_TIME = "no launch of the kernel has a time in the ncu reports"
WHERE_LONGEST = "in the report where it took the most time (its bound and percent of roof are that report's)"


def kernel_missing(doc: RealKernelDoc) -> dict[str, str]:
    """The reason of each null figure of a kernel's row."""
    no_time = doc.ncu_total_s is None
    unrecoverable = (NO_NCU_TIME if no_time else "the kernel's ncu time is 0" if doc.ncu_total_s == 0 else
                     "no launch of the kernel has both a time and a percent of roof or a throughput breakdown")
    why = {"ncu_total_s": NO_NCU_TIME, "recoverable_share": unrecoverable, "recoverable_real_s": unrecoverable,
           "small_grid_s": NO_NCU_TIME if no_time else "no launch of the kernel has a verdict (whether it is a "
           "small grid is not known)",
           "bound": f"the kernel's launches have no verdict {WHERE_LONGEST}",
           "pct_of_roof": f"no launch of the kernel has a percent of roof {WHERE_LONGEST}",
           "ncu_over_nsys": NO_NCU_TIME if no_time else "nsys's median launch time is 0"}
    return {key: text for key, text in why.items() if getattr(doc, key) is None}
