"""The ``realtime`` document (``roofline summary --nsys -f json``): ncu's kernels beside their real run time in
Nsight Systems, ranked by recoverable real time, the share of the application they cover, and the kernels either
tool lacks."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from roofline.analysis.results import Bound
from roofline.analysis.time_gap import TimeGap
from roofline.compare.realtime import RealKernel, RealTimeView
from roofline.core.version import GENERATOR
from roofline.documents.common import SCHEMA_VERSION, Generator, Number, Tool, Version, number, tool
from roofline.documents.timeline import GroupBy


class RealKernelDoc(Struct, frozen=True):
    """One analysed kernel with its real time: nsys's launches and time, ncu's, and the time it may recover."""

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


def realtime_json(view: RealTimeView) -> RealtimeJson:
    """The document of ``summary --nsys``."""
    return RealtimeJson(
        GENERATOR, SCHEMA_VERSION, "realtime", tool(), view.timeline.path, list(view.reports), view.analysed_share,
        view.timeline.kernel_s, number(view.recoverable_real_s), [real_kernel(k) for k in view.kernels],
        list(view.unmatched_ncu), view.timeline.group_by,  # type: ignore[arg-type]
        [NsysOnly(k.name, k.function, k.count, k.total_s) for k in view.unmatched_nsys], list(view.notes),
        list(view.time_gaps))


def real_kernel(k: RealKernel) -> RealKernelDoc:
    return RealKernelDoc(
        k.ncu.name, k.nsys.function, k.nsys.name, k.matched_by, k.nsys.count, k.nsys.total_s, k.nsys.median_s,
        k.app_share, k.ncu.launches, k.ncu.total_s, number(k.recoverable_share), number(k.recoverable_real_s),
        k.ncu.small_grid_s, k.ncu.bound, number(k.ncu.pct_of_roof), number(k.ncu_over_nsys))  # type: ignore[arg-type]
