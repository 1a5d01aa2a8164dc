"""Plain data of an nsys profile's GPU work over time, as the reader (``roofline.nsys.streams``) takes it from the
export: each stream's kernels, copies and memsets as intervals, the NVTX ranges, and the unified-memory migrations
under each kernel's launches. Times are the export's nanoseconds (its own clock); ``origin_ns`` places them on the
wall clock where the export records the session's start, so several files (MPI ranks) share one axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ActivityKind = Literal["kernel", "copy", "memset"]
Span = tuple[int, int, int]  # (start ns, end ns, label: an index into StreamTrace.labels)


@dataclass(frozen=True)
class StreamActivity:
    """The intervals of one kind of work on one stream of one GPU, sorted by start."""

    device_id: int
    stream_id: int
    kind: ActivityKind
    spans: npt.NDArray[np.int64] | Sequence[Span]  # rows of (start, end, label): the reader gives an (n, 3) array


@dataclass(frozen=True)
class NvtxSpan:
    """One NVTX range with an end (push/pop or start/end): its thread and name."""

    start: int
    end: int
    thread: int
    name: str


@dataclass(frozen=True)
class StreamTrace:
    """One file's GPU work per stream and its NVTX ranges."""

    path: str
    origin_ns: int | None  # the session's start in ns since the Unix epoch; None: the export does not record it
    activities: tuple[StreamActivity, ...]  # by device, stream and kind
    labels: tuple[str, ...]  # what a span is: a kernel's short name, a copy's direction, "memset"
    nvtx: tuple[NvtxSpan, ...]  # by start


@dataclass(frozen=True)
class Migration:
    """The unified-memory migrations (CUPTI's Unified Host-to-Device, ... copies) that overlap the launches of one
    kernel and launch configuration, and its GPU page faults there."""

    launches: int  # the kernel's launches of that configuration
    launches_with: int  # those during which a migration ran
    bytes: int  # the migrations' bytes (each migration overlapping a launch counted once)
    seconds: float  # the time of the launches under a migration
    faults: int  # GPU page faults starting during the launches (where the export records them)
