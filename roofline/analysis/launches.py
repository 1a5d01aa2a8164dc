"""A report's analysis by column: every launch's figures as arrays (``Columns``) and each launch's
``LaunchAnalysis`` built only when it is read or given whole (``LaunchTable``, ``Launches``), the kernel groups
and the report's analysis built on them. The columns are what groups, rankings and comparisons read, so a summary
of a large report builds few launches; ``report`` builds them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from msgspec import Struct, field
from msgspec.structs import replace

from roofline.analysis.results import LaunchAnalysis, Side
from roofline.core import display
from roofline.core.choices import GroupBy
from roofline.core.cohorts import Plan, launch_plan, take_launch
from roofline.core.model import CeilingSet, Device, KernelLaunch, Report

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


# --- Every launch of a report, by column ------------------------------------------------------------------
class Figure(Struct, frozen=True):
    """One ``Value`` of every launch, by column: the numbers (NaN where None), the reasons and how each was got."""

    values: np.ndarray
    reasons: np.ndarray
    vias: np.ndarray



class Columns(Struct, frozen=True):
    """The figures the groups, rankings and comparisons read, one element per launch of the report (NaN and
    None where a launch has none): what ``roofline.analysis.roofline`` computed and the inputs of the pooled verdict
    (``verdict.pooled_verdict``: each launch's throughputs, or why it has none)."""

    duration: Figure
    flops: Mapping[str, Figure]
    bytes: Mapping[str, Figure]
    pct_of_roof: np.ndarray
    bound: np.ndarray  # the verdict's bound (None where undecided)
    attained: np.ndarray  # Verdict.attained_pct
    recoverable: np.ndarray  # analysis.recoverable_time
    small_grid: np.ndarray  # analysis.small_grid_time (NaN: no time or no verdict)
    no_throughputs: np.ndarray  # why a launch has no SpeedOfLight throughputs (a NoThroughputs), "" where it has
    sm_pct: np.ndarray
    memory_pct: np.ndarray
    waves: np.ndarray
    units: Mapping[str, tuple[str, Side, np.ndarray]]  # breakdown unit metric -> (name, side, percent of peak)
    instructions: np.ndarray
    threads: np.ndarray  # threads launched (grid x block)
    invalid: np.ndarray  # bool: the launch is kept but left out (KernelLaunch.invalid)
    fp16_moves: np.ndarray  # FP16 FLOPs of zero-product HFMA2 register moves left out (NaN: not counted)
    definitions: Mapping[str, np.ndarray]  # per level: the metric definition of its bytes ("" where none)
    roofs: Mapping[str, np.ndarray]  # per precision and level: the roof of the ceiling set used (NaN where none)
    tensor_dtype: np.ndarray  # the Tensor Core data type the "tensor" roof is for (None where none)


class LaunchTable:
    """The analysis of every launch of a report: its columns, and each launch's ``LaunchAnalysis``, given
    (``rows``) or built when first read from its part's result (``roofline.core.cohorts.take_launch``, along the
    part's plan, made when a launch of it is first read)."""

    def __init__(self, launches: Sequence[KernelLaunch], parts: Sequence[tuple[Sequence[int], Any]],
                 columns: Columns, rows: Sequence[LaunchAnalysis] | None = None) -> None:
        import numpy as np

        self.launches = tuple(launches)
        self.columns = columns
        self.parts = tuple(parts)
        self._part = np.zeros(len(self.launches), dtype=np.intp)  # launch -> its part and its place in the part
        self._place = np.zeros(len(self.launches), dtype=np.intp)
        for number, (positions, _) in enumerate(parts):
            self._part[np.asarray(positions, dtype=np.intp)] = number
            self._place[np.asarray(positions, dtype=np.intp)] = np.arange(len(positions))
        self._rows: dict[int, LaunchAnalysis] = dict(enumerate(rows or ()))  # the launches built so far
        self._plans: dict[int, Plan | bool | None] = {}  # per part

    def row(self, i: int) -> LaunchAnalysis:
        """Launch ``i``'s analysis (in report order)."""
        if i not in self._rows:
            part = int(self._part[i])
            result = self.parts[part][1]
            if part not in self._plans:
                self._plans[part] = launch_plan(result)
            self._rows[i] = take_launch(result, int(self._place[i]), self._plans[part])
        return self._rows[i]

    def with_rows(self, rows: Sequence[LaunchAnalysis]) -> LaunchTable:
        """The same launches and columns, with every launch's analysis given (one per launch, in report order): each
        recoverable time held to what its time model lets a change keeping the work save (``within_reach``)."""
        return LaunchTable(self.launches, self.parts, replace(self.columns, recoverable=within_reach(
            self.columns.recoverable, rows)), rows)

    @property
    def built(self) -> int:
        """How many launches' analyses have been built so far."""
        return len(self._rows)

    def view(self, indices: np.ndarray | Sequence[int]) -> Launches:
        """Some launches, by position."""
        import numpy as np

        return Launches(self, np.asarray(indices, dtype=np.intp))

    def all(self) -> Launches:
        """Every launch, in report order."""
        import numpy as np

        return Launches(self, np.arange(len(self.launches), dtype=np.intp))


class Launches(Sequence["LaunchAnalysis"]):
    """Launches of one report (all, the valid ones or a group's) as a sequence of ``LaunchAnalysis`` built as they
    are read; ``indices`` are their positions in the report and ``table`` holds their columns."""

    def __init__(self, table: LaunchTable, indices: np.ndarray) -> None:
        self.table = table
        self.indices = indices

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, k: int) -> LaunchAnalysis: ...

    @overload
    def __getitem__(self, k: slice) -> list[LaunchAnalysis]: ...

    def __getitem__(self, k: int | slice) -> LaunchAnalysis | list[LaunchAnalysis]:
        if isinstance(k, slice):
            return [self.table.row(i) for i in self.indices[k].tolist()]
        return self.table.row(int(self.indices[k]))

    def __iter__(self) -> Iterator[LaunchAnalysis]:
        return (self.table.row(i) for i in self.indices.tolist())

    def __repr__(self) -> str:
        return f"Launches({len(self)} of {len(self.table.launches)})"

    def __eq__(self, other: object) -> bool:
        """The same analyses in the same order (each is built to compare)."""
        return isinstance(other, Launches) and len(self) == len(other) and all(
            a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal by content, which is not hashable

    @property
    def times(self) -> np.ndarray:
        """Each launch's duration in seconds, 0 where it has none (as ``duration or 0.0`` reads it)."""
        import numpy as np

        times: np.ndarray = np.nan_to_num(self.table.columns.duration.values[self.indices], nan=0.0)
        return times

    @property
    def kernel_launches(self) -> list[KernelLaunch]:
        """The model's launches, without building their analyses."""
        return [self.table.launches[i] for i in self.indices.tolist()]

    def where(self, mask: np.ndarray) -> Launches:
        """The launches where ``mask`` (over these launches) is true."""
        return Launches(self.table, self.indices[mask])


class KernelGroup(Struct, frozen=True):
    """Launches grouped by kernel name (or NVTX range): count, time, spread, and recoverable time.

    ``recoverable_s`` is the sum over launches of ``analysis.recoverable_s``: the time the group would save
    with its busiest unit (or roof) at its peak. Small-grid launches (too few blocks to fill the GPU) are not
    held back by a unit's peak: their time is ``small_grid_s``, not counted as recoverable; None where no launch
    has both a time and a verdict (whether any is a small grid is not known). Launches with neither a throughput
    nor a roof position are not counted.
    """

    name: str
    launches: Launches
    total_s: float | None
    median_s: float | None
    min_s: float | None
    max_s: float | None
    time_share: float | None
    median_pct_of_roof: float | None
    recoverable_s: float | None = None
    small_grid_s: float | None = None
    functions: tuple[str, ...] = ()  # the function names of its launches (one when grouped by kernel or function)
    by: GroupBy = "kernel"  # what ``name`` is: a kernel's demangled name, a function name or an NVTX range

    @property
    def longest(self) -> LaunchAnalysis:
        """The group's longest launch (the first of equals): the one a kernel's section and advice describe."""
        return self.launches.table.row(self.longest_position)

    @property
    def longest_position(self) -> int:
        """The position in the report of the group's longest launch (``longest``)."""
        import numpy as np

        return int(self.launches.indices[int(np.argmax(self.launches.times))])

    @property
    def small_grid_launches(self) -> Launches:
        """The group's small-grid launches: too few blocks to fill the GPU (``roofline.small_grid_time``)."""
        launches = self.launches
        return launches.where(launches.table.columns.bound[launches.indices] == "small_grid")


class ReportAnalysis(Struct, frozen=True):
    """The analysis of one report: device, matched spec, each launch, and launches grouped by kernel."""

    report: Report
    spec_id: str | None
    spec_match: str
    ceilings_used: CeilingSet
    launches: Launches
    groups: tuple[KernelGroup, ...] = field(default=())
    total_time_s: float | None = None

    @property
    def device(self) -> Device:
        return self.report.device

    @property
    def valid_launches(self) -> Launches:
        """The launches that are analysed: all but those marked invalid (kept in ``launches`` to be shown)."""
        return self.launches.where(~self.launches.table.columns.invalid[self.launches.indices])

    def with_rows(self, rows: Sequence[LaunchAnalysis]) -> ReportAnalysis:
        """The same analysis with every launch's ``LaunchAnalysis`` given (in report order): the diagnosed ones."""
        table = self.launches.table.with_rows(rows)
        return replace(self, launches=Launches(table, self.launches.indices),
                       groups=tuple(_regrouped(g, table) for g in self.groups))

    def _repr_html_(self) -> str | None:
        """The analysis as Jupyter shows it: the hook the Python API registers (the HTML report's summary and kernel
        ranking, ``roofline.core.display``)."""
        return display.html("report", self)


def within_reach(recoverable: np.ndarray, rows: Sequence[LaunchAnalysis]) -> np.ndarray:
    """Each launch's recoverable time (gap to its busiest unit's full peak) at most its time above the floor at the
    peaks a kernel can reach (``TimeModel.reach_gap_s``, the grade's most saved): the full peaks are not all
    reachable, and no estimate claims time past the achievable ones. As it was where a launch has no time model."""
    import numpy as np

    out = np.array(recoverable, dtype=float, copy=True)
    for i, row in enumerate(rows):
        if row.time_model is not None and not np.isnan(out[i]):
            out[i] = row.time_model.within_reach(float(out[i]))
    return out


def _regrouped(group: KernelGroup, table: LaunchTable) -> KernelGroup:
    """A group's launches in ``table``, its recoverable time summed again from the table's column."""
    import numpy as np

    saved = table.columns.recoverable[group.launches.indices]
    known: list[float] = saved[~np.isnan(saved)].tolist()
    return replace(group, launches=Launches(table, group.launches.indices),
                   recoverable_s=sum(known) if known else None)


def no_valid_launch(analysis: ReportAnalysis) -> str:
    """Why a report has no kernel, as ``grade`` and ``summary`` refuse it: none of its launches is valid (the first
    one's problem), or it has none."""
    launches = analysis.report.launches
    first = next((k for k in launches if k.invalid), None)
    if first is None:
        return "the report holds no kernel launch"
    if len(launches) == 1:
        return f"its one launch is invalid ({first.key}, {first.invalid})"
    return f"none of its {len(launches)} launches is valid (first: {first.key}, {first.invalid})"


class KernelSpread(Struct, frozen=True):
    """One kernel's total time in each report (e.g. each MPI rank) and how far the slowest is from the
    fastest: ``spread_pct = 100 x (max - min) / min``; ``flagged`` when above the threshold."""

    name: str
    total_s: Mapping[str, float | None]  # report path -> total time of the kernel there, for the reports that ran it
    spread_pct: float | None
    flagged: bool
