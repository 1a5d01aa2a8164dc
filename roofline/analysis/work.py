"""The work a kernel does per launch, compared across two reports before their times are: a speedup of times
means something only for the same work.

Per launch (the mean over a kernel's launches) the comparison reads the FLOPs of each precision, the bytes of
each memory level, the threads launched (grid x block) and the warp instructions executed
(``smsp__inst_executed.sum``, InstructionStats section, where the report has it). Each is compared with a
tolerance (``roofline.core.thresholds.WORK_TOLERANCE`` by default: different when the larger over the smaller
exceeds 1 + tolerance).

Which of them decide "different work":

* the **FLOPs of each precision**, where the kernel has FLOPs: counted operations are set by the algorithm and
  the problem size, and are the same on any GPU and for any tiling of the same work;
* the **threads launched**, for a kernel without FLOPs on either side (copies, fills, scans) that is the same
  kernel on both sides (the same names), where the launch size is what follows the problem size. Kernels paired
  across names (``--match family``, ``--map``) launch what their own tiling asks for, so without FLOPs their
  work is not compared.

Bytes and instructions are compared and shown, but do not decide: for the same work they change with the
GPU (cache sizes, the instruction set) and with the implementation (coalescing, unrolling), and those are
exactly the changes a regression gate must see as slower, not set aside as other work. Likewise threads do not
decide for a kernel with FLOPs: a library picks other tiles on another GPU for the same matrix multiply.

For pairs of different work the figure to compare is throughput: FLOP/s for a kernel with FLOPs, else DRAM
bytes/s where both sides moved DRAM bytes, else threads per second (time per thread launched).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from roofline.analysis.launches import Launches
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS
from roofline.core.thresholds import WORK_TOLERANCE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

Basis = Literal["flops", "threads", ""]  # what decided the comparison ("": nothing comparable)


@dataclass(frozen=True)
class Work:
    """A kernel's work per launch (mean over its launches): FLOPs per precision, bytes per level, threads launched
    and warp instructions executed; None where a launch of it does not have the value."""

    flops: Mapping[str, float | None]
    bytes: Mapping[str, float | None]
    threads: float | None
    instructions: float | None

    @property
    def total_flops(self) -> float | None:
        """All measured FLOPs per launch; None when no precision was measured."""
        known = [v for v in self.flops.values() if v is not None]
        return sum(known) if known else None


@dataclass(frozen=True)
class Measure:
    """One quantity of work on both sides: per launch, the ratio other / base, and whether it is beyond the
    tolerance (``differs``) and is one of those that decide (``decides``). ``ratio`` is None where either side
    lacks the value, or base is 0 and other is not."""

    key: str  # "flops.fp32", "bytes.dram", "threads", "instructions"
    base: float | None
    other: float | None
    ratio: float | None
    differs: bool
    decides: bool

    @property
    def label(self) -> str:
        """E.g. "FP32 FLOPs", "DRAM bytes", "threads", "instructions"."""
        group, _, which = self.key.partition(".")
        return f"{NAMES[which]} {'FLOPs' if group == 'flops' else group}" if which else self.key


@dataclass(frozen=True)
class WorkCheck:
    """The work of a kernel on another report against the base: every measure, what decided, and the unit of the
    throughput that replaces the speedup when the work differs (with the ratio of work in that unit)."""

    measures: tuple[Measure, ...]
    basis: Basis
    different: bool
    tolerance: float
    unit: str  # "FLOP/s", "DRAM bytes/s", "threads/s"; "" when no throughput can be formed
    work_ratio: float | None  # other / base work, in the unit's work

    @property
    def summary(self) -> str:
        """"same work (FLOPs within 5%)" at a 5% tolerance,
        "different work: FP32 FLOPs 1199x, ...", or why it was not compared."""
        tol = f"{100 * self.tolerance:g}%"
        if not self.basis:
            return ("work not compared: no FLOP counts on both sides, and threads launched stand for the work only "
                    "for the same kernel with a known launch configuration")
        if not self.different:
            return f"same work ({'FLOPs' if self.basis == 'flops' else 'threads launched'} within {tol})"
        return "different work: " + ", ".join(f"{m.label} {ratio_text(m)}" for m in self.measures
                                              if m.decides and m.differs)

    @property
    def other_differences(self) -> tuple[Measure, ...]:
        """Measures beyond the tolerance that do not decide (bytes, instructions, or threads of a FLOP kernel)."""
        return tuple(m for m in self.measures if m.differs and not m.decides)


def launch_work(launches: Launches) -> Work:
    """The mean work per launch of a kernel's launches (None where any launch lacks it), from the report's columns."""
    import numpy as np

    c, at = launches.table.columns, launches.indices

    def mean(column: np.ndarray) -> float | None:
        values = column[at]
        return None if not len(values) or np.isnan(values).any() else sum(values.tolist()) / len(values)

    return Work(flops={p: mean(c.flops[p].values) for p in PRECISIONS},
                bytes={level: mean(c.bytes[level].values) for level in LEVELS},
                threads=mean(c.threads), instructions=mean(c.instructions))


def compare_work(base: Work, other: Work, tolerance: float = WORK_TOLERANCE, same_kernel: bool = True) -> WorkCheck:
    """Compare the work of a kernel on another report with the base (see the module docstring); ``same_kernel``:
    the same kernel names on both sides, so that threads launched can stand for the work."""
    flop_keys = [f"flops.{p}" for p in PRECISIONS
                 if base.flops[p] is not None and other.flops[p] is not None and (base.flops[p] or other.flops[p])]
    threads_known = base.threads is not None and other.threads is not None
    basis: Basis = "flops" if flop_keys else "threads" if threads_known and same_kernel else ""
    pairs = [*((f"flops.{p}", base.flops[p], other.flops[p]) for p in PRECISIONS),
             *((f"bytes.{lv}", base.bytes[lv], other.bytes[lv]) for lv in LEVELS),
             ("threads", base.threads, other.threads), ("instructions", base.instructions, other.instructions)]
    measures = tuple(_measure(key, a, b, tolerance, key in flop_keys or (basis == "threads" and key == "threads"))
                     for key, a, b in pairs)
    different = any(m.decides and m.differs for m in measures)
    unit, ratio = _throughput(base, other)
    return WorkCheck(measures, basis, different, tolerance, unit, ratio)


def _measure(key: str, base: float | None, other: float | None, tolerance: float, decides: bool) -> Measure:
    if base is None or other is None:
        return Measure(key, base, other, None, False, False)
    ratio = other / base if base else (1.0 if not other else None)
    differs = max(base, other) > (1.0 + tolerance) * min(base, other)
    return Measure(key, base, other, ratio, differs, decides)


def _throughput(base: Work, other: Work) -> tuple[str, float | None]:
    """The throughput unit for the pair and the work ratio in it: FLOP/s where both sides have FLOPs, else DRAM
    bytes/s where both moved DRAM bytes, else threads/s."""
    for unit, a, b in (("FLOP/s", base.total_flops, other.total_flops),
                       ("DRAM bytes/s", base.bytes["dram"], other.bytes["dram"]),
                       ("threads/s", base.threads, other.threads)):
        if a and b:
            return unit, b / a
    return "", None


def ratio_text(m: Measure) -> str:
    """A measure's ratio for a table: "1199x", "0.25x", or "0 -> 28.7k" where the base is zero."""
    from roofline.core.units import ratio, si

    if m.ratio is not None:
        return f"{ratio(m.ratio)}x"
    if m.base is None or m.other is None:
        return "n/a"
    return f"{si(m.base)} -> {si(m.other)}"
