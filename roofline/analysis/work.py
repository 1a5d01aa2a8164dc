"""The work a kernel does per launch, compared across two reports before their times are: a speedup of times
means something only for the same work.

Per launch (the mean over a kernel's launches) the comparison reads the FLOPs of each precision, the bytes of
each memory level, the threads launched (grid x block) and the warp instructions executed
(``smsp__inst_executed.sum``, InstructionStats section, where the report has it). Each is compared with a
tolerance (``roofline.core.thresholds.WORK_TOLERANCE`` by default: different when the larger over the smaller
exceeds 1 + tolerance).

Which of them decide "different work":

* the counts set by the problem: the **FLOPs of each precision**, where the kernel has FLOPs (counted operations
  are the same on any GPU and for any tiling of the same work), else the **threads launched** of the same kernel
  (the same names) without FLOPs (copies, fills, scans), whose launch size follows the problem size;
* where those differ, the **governing resource**, where the verdicts of both sides name the same one
  (``governing``): the bytes of the memory level, the FLOPs of the precision (or Tensor) or the instructions of the
  busiest unit. A DRAM-bound kernel whose DRAM bytes match is the same work even where another build computes 4.2x
  the FLOPs per element; where both differ, the pair is compared by the governing resource's throughput.

Bytes and instructions that differ while the FLOPs match do not make other work: for the same work they change
with the GPU (cache sizes, the instruction set) and with the implementation (coalescing, unrolling), exactly the
changes a regression gate must see as slower. Kernels paired across names (``--match family``, ``--map``) without
FLOPs are compared on their governing resource only, else not at all: each launches what its own tiling asks for.

Only what both sides measured **the same way** is compared. FP16 FLOPs leave out the zero-product HFMA2 register
moves only where the report holds the SASS counts (``--set full``); where one side could and the other could not,
both are compared with the moves counted (added back on the side that left them out), and the pair says so. A
memory level whose bytes come from different metric definitions on the two sides (e.g. ``lts__t_bytes`` against
the ncu 2025 ``lts2xbar``) is not compared.

For pairs of different work the figure to compare is the throughput of what decided: bytes/s of the governing
level, FLOP/s, instructions/s or threads/s (DRAM bytes/s where FLOPs decided on a kernel without FLOPs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING

from msgspec import Struct, field

from roofline.analysis.launches import Launches
from roofline.analysis.results import RoofPosition, Verdict, flops_sum
from roofline.core.labels import NAMES, basis_label, measure_label
from roofline.core.model import LEVELS, PRECISIONS
from roofline.core.resources import DRAM_BYTES, Resource
from roofline.core.thresholds import FLOPS_FILL_SHARE, WORK_TOLERANCE
from roofline.ncu.metrics import PIPE_SHARED, SHARED_PIPE_PRECISIONS

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

LAUNCH = "launch"  # the governing "resource" of a small-grid kernel: its launch, too few blocks to fill the GPU
LATENCY = "latency"  # that of a latency-bound kernel: no unit near its peak, its warps waiting
MIXED = "mixed definitions"  # a level whose launches use more than one byte definition


class Work(Struct, frozen=True):
    """A kernel's work per launch (mean over its launches): FLOPs per precision, bytes per level, threads launched
    and warp instructions executed; None where a launch of it does not have the value. ``fp16_moves``: the FP16
    FLOPs of zero-product HFMA2 register moves the FP16 FLOPs leave out (None where the report cannot count them);
    ``definitions``: the metric definition of each level's bytes ("" where unknown)."""

    flops: Mapping[str, float | None]
    bytes: Mapping[str, float | None]
    threads: float | None
    instructions: float | None
    fp16_moves: float | None = None
    definitions: Mapping[str, str] = field(default_factory=dict)

    @property
    def total_flops(self) -> float | None:
        """All measured FLOPs per launch; None when no precision was measured."""
        total: float | None = flops_sum(self.flops)
        return total

    @property
    def flops_partial(self) -> bool:
        """Whether ``total_flops`` is a lower bound: a total of the precisions measured, another not measured."""
        return self.total_flops is not None and any(v is None for v in self.flops.values())

    def amount(self, key: str) -> float | None:
        """The work per launch of a measure key: "flops" (all precisions), "flops.fp32", "bytes.dram", "threads",
        "instructions"."""
        r = Resource.of(key)
        if r.kind == "flops":
            return self.flops.get(r.name) if r.name else self.total_flops
        if r.kind == "bytes":
            return self.bytes.get(r.name)
        return {"threads": self.threads, "instructions": self.instructions}.get(key)


def rate_unit(key: str) -> str:
    """The throughput unit of a measure key: "FLOP/s", "FP32 FLOP/s", "DRAM bytes/s", "threads/s"."""
    r = Resource.of(key)
    if r.kind == "flops":
        return f"{NAMES[r.name]} FLOP/s" if r.name else "FLOP/s"
    return f"{measure_label(key)}/s"


class Measure(Struct, frozen=True):
    """One quantity of work on both sides: per launch, the ratio other / base, and whether it is beyond the
    tolerance (``differs``) and is one of those that decide (``decides``). ``ratio`` is None where either side
    lacks the value, or base is 0 and other is not, or the sides define it differently (``apart`` says how)."""

    key: str  # "flops.fp32", "bytes.dram", "threads", "instructions"
    base: float | None
    other: float | None
    ratio: float | None
    differs: bool
    decides: bool
    apart: tuple[str, ...] = ()  # the sides' definitions (A's, B's short names) where they differ; () when comparable

    @property
    def label(self) -> str:
        """E.g. "FP32 FLOPs", "DRAM bytes", "threads", "instructions"."""
        return measure_label(self.key)


class WorkNoteKind(Enum):
    """What a note on a work comparison says, as data (the renderers' prose writes the sentence)."""

    FP16_MOVES_COUNTED = "fp16 moves counted"  # one side cannot separate the HFMA2 register moves: both count them
    NOT_COMPARED = "not compared"  # a measure the sides define differently (its ``Measure.apart``)


class WorkNote(Struct, frozen=True):
    """A note on a work comparison: its kind, the measure it concerns (``key``) and, for the FP16 moves, the side
    whose report cannot separate them ("A" or "B"); for a measure not compared, the sides' definitions."""

    kind: WorkNoteKind
    key: str
    side: str = ""
    apart: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The measure's name: "L2 bytes", "FP16 FLOPs"."""
        return measure_label(self.key)


class WorkCheck(Struct, frozen=True):
    """The work of a kernel on another report against the base: every measure, what decided (``basis``: a measure
    key, "flops" for every precision, "" for nothing), the governing resource of each side, and the unit of the
    throughput that replaces the speedup when the work differs (with the ratio of work in that unit)."""

    measures: tuple[Measure, ...]
    basis: str
    different: bool
    tolerance: float
    unit_key: str  # the measure key whose work the throughput divides ("" when no throughput can be formed)
    work_ratio: float | None  # other / base work, in the unit's work
    governing: tuple[str | None, str | None] = (None, None)  # the resource that bounds each side (base, other)
    notes: tuple[WorkNote, ...] = ()  # what was compared under a common definition, or left out for lack of one
    # all FLOPs per launch of each side (base, other) as compared (one FP16 definition on both); None without any
    flops: tuple[float | None, float | None] = (None, None)
    flops_partial: tuple[bool, bool] = (False, False)  # per side: ``flops`` a lower bound (a precision not measured)

    @property
    def unit(self) -> str:
        """The throughput unit: "DRAM bytes/s", "FP32 FLOP/s", "FLOP/s", "threads/s", ...; "" without one."""
        return rate_unit(self.unit_key) if self.unit_key else ""

    @property
    def basis_label(self) -> str:
        """What decided, named: "FLOPs", "threads launched", "DRAM bytes", "FP32 FLOPs"."""
        return basis_label(self.basis)

    @property
    def governs_both(self) -> bool:
        """Whether what decided is the resource that bounds both sides."""
        return self.basis == self.governing[0] == self.governing[1]


def governing(verdict: Verdict, roof: RoofPosition) -> str | None:
    """The resource that bounds a kernel, from its verdict: "bytes.<level>" (memory units), "flops.<precision>"
    (FP64, FMA, FP16 and tensor pipes, or the roof for a roofline-only verdict), "instructions" (other compute
    units: ALU, issue, load/store, ...), ``LATENCY`` (latency-bound), ``LAUNCH`` (small grid); without the unit
    breakdown, the roof of the verdict's side nearest to the kernel; None without a verdict."""
    if verdict.bound is None:
        return None
    if verdict.bound == "latency":
        return LATENCY
    if verdict.bound == "small_grid":
        return LAUNCH
    unit = verdict.busiest
    if unit is None:  # throughputs without their breakdown: the side's roof nearest to the kernel
        keys = PRECISIONS if verdict.bound == "compute" else LEVELS if verdict.bound == "memory" else ()
        used = {k: roof.utilization_pct[k] for k in keys if roof.utilization_pct.get(k) is not None}
        return None if not used else _key(max(used, key=lambda k: used[k]))
    metric = unit.metric
    if metric in LEVELS or metric in PRECISIONS:
        return _key(metric)
    for prefix, level in (("dram__", "dram"), ("fbpa__", "dram"), ("lts__", "l2"), ("l1tex__", "l1")):
        if metric.startswith(prefix):
            return str(Resource("bytes", level))
    if "fp64" in metric or "dmma" in metric:
        return _flops_or_instructions(unit.pct, roof, ("fp64",))
    if metric.startswith(PIPE_SHARED):
        return _flops_or_instructions(unit.pct, roof, SHARED_PIPE_PRECISIONS)
    if any(pipe in metric for pipe in ("tensor", "fma", "fp16")):
        return _flops_or_instructions(unit.pct, roof, ("tensor", "fp16") if "tensor" in metric else ("fp32", "fp16"))
    return "instructions"


def _flops_or_instructions(pipe_pct: float, roof: RoofPosition, precisions: tuple[str, ...]) -> str:
    """The FLOPs of the precision of a busy FP pipe nearest its roof; "instructions" where those FLOPs fill less than
    half the roof that the pipe's busy share would give: the pipe is busy with other instructions (conversions to
    and from FP64 on a GeForce FP64 pipe, register moves), which no FLOP roof bounds. Without FLOP counts, the
    pipe's first precision."""
    shares = {p: roof.utilization_pct[p] for p in precisions if roof.utilization_pct.get(p) is not None}
    if not shares:  # no FLOP counts (a basic set): the pipe's first precision, its FLOPs unknown
        return str(Resource("flops", precisions[0]))
    nearest = max(shares, key=lambda p: shares[p])
    return str(Resource("flops", nearest)) if shares[nearest] >= pipe_pct * FLOPS_FILL_SHARE else "instructions"


def _key(roof: str) -> str:
    """The measure key of a roof: "dram" -> "bytes.dram", "fp32" -> "flops.fp32"."""
    return str(Resource.roof(roof, LEVELS))


def launch_work(launches: Launches) -> Work:
    """The mean work per launch of a kernel's launches (None where any launch lacks it), from the report's columns;
    a level's definition is its launches' one (``MIXED`` where they differ)."""
    import numpy as np

    c, at = launches.table.columns, launches.indices

    def mean(column: np.ndarray) -> float | None:
        values = column[at]
        return None if not len(values) or np.isnan(values).any() else sum(values.tolist()) / len(values)

    def definition(column: np.ndarray) -> str:
        found = set(column[at].tolist())
        return found.pop() if len(found) == 1 else MIXED if found else ""

    return Work(flops={p: mean(c.flops[p].values) for p in PRECISIONS},
                bytes={level: mean(c.bytes[level].values) for level in LEVELS},
                threads=mean(c.threads), instructions=mean(c.instructions), fp16_moves=mean(c.fp16_moves),
                definitions={level: definition(c.definitions[level]) for level in LEVELS})


def compare_work(base: Work, other: Work, tolerance: float = WORK_TOLERANCE, same_kernel: bool = True,
                 governs: tuple[str | None, str | None] = (None, None)) -> WorkCheck:
    """Compare the work of a kernel on another report with the base (see the module docstring); ``same_kernel``:
    the same kernel names on both sides, so that threads launched can stand for the work; ``governs``: the
    resource that bounds each side (``governing``)."""
    (base, other), notes = _common_definitions(base, other)
    pairs = [*((str(Resource("flops", p)), base.flops[p], other.flops[p]) for p in PRECISIONS),
             *((str(Resource("bytes", lv)), base.bytes[lv], other.bytes[lv]) for lv in LEVELS),
             ("threads", base.threads, other.threads), ("instructions", base.instructions, other.instructions)]
    apart = {str(Resource("bytes", lv)): _apart(base.definitions.get(lv, ""), other.definitions.get(lv, ""))
             for lv in LEVELS}
    raw = {key: _measure(key, a, b, tolerance, apart.get(key, ())) for key, a, b in pairs}
    basis, deciding = _basis(raw, same_kernel, governs)
    measures = tuple(Measure(m.key, m.base, m.other, m.ratio, m.differs, m.key in deciding and _known(m), m.apart)
                     for m in raw.values())
    different = any(m.decides and m.differs for m in measures)
    unit_key, ratio = _throughput(base, other, basis)
    notes += tuple(WorkNote(WorkNoteKind.NOT_COMPARED, k, apart=m.apart) for k, m in raw.items() if m.apart)
    return WorkCheck(measures, basis, different, tolerance, unit_key, ratio, governs, notes,
                     (base.total_flops, other.total_flops), (base.flops_partial, other.flops_partial))


def _known(m: Measure) -> bool:
    """Whether a measure has values on both sides, comparable, and work on at least one."""
    return m.base is not None and m.other is not None and not m.apart and bool(m.base or m.other)


def _basis(measures: Mapping[str, Measure], same_kernel: bool,
           governs: tuple[str | None, str | None]) -> tuple[str, set[str]]:
    """What decided, and the measures that decide. The counts set by the problem (the FLOPs of each precision, or
    the threads of the same kernel without FLOPs) make the same work when they match; where they differ, the work
    on the resource that governs both sides still makes it the same work when that matches (FLOPs that differ
    while the governing bytes match are shown, not decisive), and decides with them otherwise. Bytes or
    instructions that differ while the FLOPs match stay the same work: that is how an implementation gets slower
    on one GPU, which a regression gate must see as slower."""
    flops = {k for k, m in measures.items() if Resource.of(k).kind == "flops" and _known(m)}
    primary, keys = ("flops", flops) if flops else \
        ("threads", {"threads"}) if same_kernel and _known(measures["threads"]) else ("", set())
    shared = governs[0] if governs[0] == governs[1] else None
    gov = shared if shared is not None and shared in measures and _known(measures[shared]) else None
    if primary and not any(measures[k].differs for k in keys):
        return primary, keys
    if gov is not None:
        return gov, {gov} if not measures[gov].differs else keys | {gov}
    return primary, keys


def _common_definitions(base: Work, other: Work) -> tuple[tuple[Work, Work], tuple[WorkNote, ...]]:
    """FP16 FLOPs under one definition (``fp16_moves_counted``), and a note naming the side that could not
    separate the moves where they were added back."""
    counted = fp16_moves_counted((base, other))
    if counted is None:
        return (base, other), ()
    blind = "A" if base.fp16_moves is None else "B"
    return (counted[0], counted[1]), (WorkNote(WorkNoteKind.FP16_MOVES_COUNTED, str(Resource("flops", "fp16")),
                                               side=blind),)


def fp16_moves_counted(works: Sequence[Work]) -> tuple[Work, ...] | None:
    """The works' FP16 FLOPs under one definition: where some left the zero-product HFMA2 register moves out and
    others could not (``fp16_moves`` known on some only), the moves added back on those that left them out; None
    where the works already share one (all or none could, or one has no FP16 FLOPs). The one rule for work from
    reports of different sets (``compare``, ``timeline --work``)."""
    from msgspec.structs import replace

    if len({w.fp16_moves is not None for w in works}) < 2 or any(w.flops["fp16"] is None for w in works):
        return None
    return tuple(replace(w, flops={**w.flops, "fp16": (w.flops["fp16"] or 0.0) + w.fp16_moves}, fp16_moves=None)
                 if w.fp16_moves is not None else w for w in works)


def _apart(a: str, b: str) -> tuple[str, ...]:
    """Two byte definitions that cannot be compared, by their short names (() when they can: the same, or either
    unknown)."""
    if not a or not b or a == b:
        return ()
    return a.split(":")[0], b.split(":")[0]


def _measure(key: str, base: float | None, other: float | None, tolerance: float,
             apart: tuple[str, ...] = ()) -> Measure:
    if base is None or other is None or apart:
        return Measure(key, base, other, None, False, False, apart)
    ratio = other / base if base else (1.0 if not other else None)
    differs = max(base, other) > (1.0 + tolerance) * min(base, other)
    return Measure(key, base, other, ratio, differs, False)


def _throughput(base: Work, other: Work, basis: str) -> tuple[str, float | None]:
    """The measure whose throughput compares the pair, and the work ratio in it: the governing resource where it
    decided, else FLOPs where both sides have FLOPs, else DRAM bytes where both moved DRAM bytes, else threads."""
    governed = (basis,) if basis not in ("", "flops", "threads") else ()
    for key in (*governed, "flops", DRAM_BYTES, "threads"):
        a, b = base.amount(key), other.amount(key)
        if a and b:
            return key, b / a
    return "", None
