"""Kernels placed on a GPU's roofline with their work from an ncu report and their time from an nsys timeline
(`timeline --work`, `analyze --no-counters --work-from`): the fallback where ncu is refused the counters.

The work a launch does (FLOPs of each precision, bytes moved at each memory level) is set by the problem and the
code, not by the GPU's speed, so a report made where counters are allowed (another machine, another GPU) gives it;
nsys times each launch where ncu cannot run. A report's launch and the timeline's launches are matched by kernel
instance (``kernel_key``) and launch configuration (grid and block): the same kernel on the same problem. Per
match: FLOPs and bytes per launch (the mean over the report's launches of that configuration), time per launch
(nsys's median), so performance = FLOPs / time and arithmetic intensity = FLOPs / bytes at each level. The roofs
are the datasheet's of the GPU that nsys ran on (``device_specs/``), and the kernel's place against them is the
report's own formula (``roofline.roof_position``): percent of roof = the longest time its work needs at a roof
(each precision's FLOPs, each level's bytes) over its time; attainable = FLOPs / that roof time (for one precision,
min(compute roof, intensity x bandwidth at each level)).

Several reports of one kernel (``--work`` repeated) pool their launches: the work per launch is the mean over all
of them. Their FP16 FLOPs first take one definition, by the rule ``compare`` follows across sets
(``work.fp16_moves_counted``): a ``--set roofline`` report cannot separate the zero-product HFMA2 register moves
from FP16 arithmetic, so where one report left them out and another could not, the moves are counted in every
report (added back where they were left out), as each kernel's ``fp16_moves``, ``fp16_move_flops`` and
``blind_reports`` say (the renderers write the note). FP16 FLOPs that may be moves (counted without
the SASS counts that would separate them) stay in the FLOPs, as ``report`` counts them, but do not set the
kernel's precision where it has FLOPs of another: the label comes from FP16 arithmetic the reports could separate
(``Fp16Moves``).

What this assumes, and says: DRAM bytes depend on the L2 size (a working set that fits one GPU's L2 and not the
other's is read from DRAM once on one and many times on the other), so a note names two GPUs whose L2 sizes differ
by ``L2_RATIO_FLAG`` or more. Pure functions; no I/O.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from enum import Enum

from msgspec import Struct

from roofline.analysis.kernels import attainable_flop_per_s, roof_time
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.results import LaunchAnalysis, Value, flops_sum
from roofline.analysis.roofline import intensity, rate, roof_position
from roofline.analysis.work import Work, fp16_moves_counted
from roofline.core.kernel_names import kernel_key
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, Device
from roofline.core.thresholds import L2_RATIO_FLAG
from roofline.core.timeline import LaunchConfigTime, Timeline
from roofline.core.units import dims
from roofline.ncu.metrics import FlopNoteKind, hfma_move_flops
from roofline.specs.catalog import DeviceSpec, spec_ceilings

Dims = tuple[int, int, int]


class Fp16Moves(Enum):
    """How a kernel's FP16 FLOPs hold the zero-product HFMA2 register moves (no arithmetic; ncu counts them as HFMA)."""

    UNCOUNTED = "may be moves"  # no report could separate them: its FP16 FLOPs, from HFMA2 alone, may be moves
    ADDED_BACK = "moves counted"  # reports of different sets: the moves counted in all (``work.fp16_moves_counted``)


class BorrowedKernel(Struct, frozen=True):
    """One kernel instance and launch configuration: its work per launch (ncu), its time (nsys), its place, each
    figure computed once when the match is made (``_kernel``)."""

    name: str  # the instance (``kernel_key``)
    short_name: str
    grid: Dims
    block: Dims
    nsys: LaunchConfigTime
    ncu_launches: int  # the report's launches of this instance and configuration (their mean work is used)
    ncu_time_s: float | None  # the report's median duration of them (ncu's replay, for comparison)
    flops: dict[str, float | None]  # per launch, by precision (PRECISIONS); None: not measured
    tensor_dtype: str | None  # the Tensor Core data type with the most FLOPs, where the kernel ran Tensor Cores
    bytes: dict[str, float | None]  # per launch, by memory level (LEVELS)
    precision: str | None  # the precision with the most FLOPs (its roof is the compute roof); None: no FLOPs
    compute_roof: float | None  # FLOP/s of that precision on the nsys GPU (datasheet), None without a spec
    bandwidth: dict[str, float | None]  # bytes/s per level on the nsys GPU (datasheet)
    time_s: float  # the time per launch: nsys's median launch of this configuration
    total_flops: float | None  # of all precisions measured, per launch
    flop_per_s: float | None  # total FLOPs over the time (None without FLOPs)
    intensity: dict[str, float | None]  # FLOPs per byte by level (None without FLOPs or bytes)
    bytes_per_s: dict[str, float | None]  # by level
    attainable_flop_per_s: float | None  # the roofs' FLOP/s at its intensity (None without FLOPs or a roof)
    pct_of_roof: float | None  # the roofline position (``roofline.roof_position``) against the nsys GPU's roofs
    limiter: str | None  # the roof closest to it: a precision, or a memory level
    fp16_moves: Fp16Moves | None = None  # where its FP16 FLOPs count register moves (None: arithmetic alone, or none)
    fp16_move_flops: float | None = None  # ADDED_BACK: the moves' FP16 FLOPs per launch added back (their mean)
    blind_reports: tuple[str, ...] = ()  # the reports that cannot separate the moves (UNCOUNTED, ADDED_BACK)


class BorrowedWork(Struct, frozen=True):
    """The timeline's kernels with the report's work, against the nsys GPU's roofs."""

    reports: tuple[str, ...]
    ncu_gpu: str  # the reports' GPUs, comma-separated
    nsys_gpu: str | None
    spec_id: str | None  # the spec of the nsys GPU; None: no roofs (unknown GPU)
    ceilings: Ceilings | None  # the spec's datasheet roofs (the tensor roof per kernel is in its compute_roof)
    kernels: tuple[BorrowedKernel, ...]  # by nsys total time, largest first
    unmatched_ncu: tuple[str, ...]  # the report's kernels with no launch of that instance and configuration in nsys
    unmatched_nsys: tuple[LaunchConfigTime, ...]  # the timeline's with no launch of them in the report
    notes: tuple[str, ...]
    label: str  # where the work and the time come from
    matched_share: float  # the matched kernels' share of the timeline's kernel time
    unmatched_nsys_shares: tuple[float, ...]  # each of ``unmatched_nsys``'s share of it


def borrow_work(timeline: Timeline, configs: Sequence[LaunchConfigTime], analyses: Sequence[ReportAnalysis],
                spec: DeviceSpec | None) -> BorrowedWork:
    """Match the reports' launches with the timeline's by instance and launch configuration, and place each."""
    by_config: dict[tuple[str, Dims, Dims], list[tuple[str, LaunchAnalysis]]] = {}
    for path, la in ((a.report.path, la) for a in analyses for la in a.valid_launches):
        launch = la.launch
        if launch.grid is None or launch.block is None:
            continue
        name = launch.name if timeline.group_by == "function" else kernel_key(launch.name, launch.demangled_name)
        by_config.setdefault((name, launch.grid, launch.block), []).append((path, la))
    nsys = {(c.name, c.grid, c.block): c for c in configs}
    ceilings = spec_ceilings(spec) if spec is not None else None
    kernels = [_kernel(nsys[key], launches, spec) for key, launches in by_config.items() if key in nsys]
    kernels.sort(key=lambda k: (-k.nsys.total_s, k.name))
    matched = {(k.name, k.grid, k.block) for k in kernels}
    gpu = timeline.devices[0] if timeline.devices else None
    devices = list({a.device.name: a.device for a in analyses}.values())
    unmatched = tuple(c for c in configs if (c.name, c.grid, c.block) not in matched)
    total = sum(c.total_s for c in (*(k.nsys for k in kernels), *unmatched))
    ncu_gpu, nsys_gpu = ", ".join(d.name for d in devices), gpu.name if gpu else None
    return BorrowedWork(tuple(a.report.path for a in analyses), ncu_gpu, nsys_gpu, spec.id if spec else None,
                        ceilings, tuple(kernels), tuple(_describe(*key) for key in by_config if key not in nsys),
                        unmatched, _notes(devices, gpu.l2_bytes if gpu else None, spec, nsys_gpu),
                        f"work measured by ncu on {ncu_gpu}, time by nsys on {nsys_gpu or 'an unnamed GPU'}",
                        sum(k.nsys.total_s for k in kernels) / total if total > 0 else 0.0,
                        tuple(c.total_s / total for c in unmatched))


def _kernel(config: LaunchConfigTime, matched: list[tuple[str, LaunchAnalysis]],
            spec: DeviceSpec | None) -> BorrowedKernel:
    """One match: the mean work of the reports' launches (FP16 under one definition), the nsys GPU's roofs for it."""
    launches = [la for _, la in matched]
    works = [_launch_work(la) for la in launches]
    counted = fp16_moves_counted(works)
    flops = {p: _mean([w.flops[p] for w in counted or works]) for p in PRECISIONS}
    moves, blind = _fp16_moves(matched, works, counted is not None)
    data = {lv: _mean([la.bytes[lv].value for la in launches]) for lv in LEVELS}
    tensor: dict[str, float] = {}
    for la in launches:
        for name, n in la.tensor_flops_by_type.items():
            tensor[name] = tensor.get(name, 0.0) + n
    dtype = max(tensor, key=lambda d: tensor[d]) if any(tensor.values()) else None
    precision = _precision(flops, works, moves is not None)
    ceilings = spec_ceilings(spec, dtype) if spec is not None else None
    times = [la.duration_s.value for la in launches if la.duration_s.value is not None]
    time = Value(config.median_s if config.median_s > 0 else None, "nsys measured no time")
    work = {p: Value(v, "not measured") for p, v in flops.items()}
    moved = {lv: Value(v, "not measured") for lv, v in data.items()}
    total = flops_sum(flops)
    some = bool(total)  # rates and intensities of a kernel with FLOPs (none of one without: not on the roofline)
    compute_roof = ceilings.roof(precision) if ceilings is not None and precision else None
    roof = roof_position(work, moved, time.value, ceilings) if ceilings is not None else None
    limiter = roof.limiter if roof is not None and (compute_roof or not some) else None  # FLOPs need their roof
    return BorrowedKernel(config.name, config.short_name, config.grid, config.block, config, len(launches),
                          statistics.median(times) if times else None, flops, dtype, data, precision, compute_roof,
                          dict(ceilings.bytes_per_s) if ceilings is not None else dict.fromkeys(LEVELS),
                          config.median_s, total, rate(Value(total), time).value if some else None,
                          {lv: v.value if some else None for lv, v in intensity(work, moved).items()},
                          {lv: rate(b, time).value for lv, b in moved.items()},
                          attainable_flop_per_s(work, roof_time(work, moved, ceilings)).value
                          if some and ceilings is not None else None,
                          roof.pct_of_roof if limiter is not None and roof is not None else None, limiter, moves,
                          _mean([w.fp16_moves for w in works]) if moves is Fp16Moves.ADDED_BACK else None, blind)


def _launch_work(la: LaunchAnalysis) -> Work:
    """A launch's FLOPs, with the FP16 FLOPs of the register moves it left out (None where it cannot count them)."""
    moves = hfma_move_flops(la.launch)
    return Work({p: la.flops[p].value for p in PRECISIONS}, {}, None, None, None if moves is None else float(moves))


def _fp16_moves(matched: list[tuple[str, LaunchAnalysis]], works: list[Work],
                added: bool) -> tuple[Fp16Moves | None, tuple[str, ...]]:
    """Whether the kernel's FP16 FLOPs count register moves, and the reports that cannot separate them: those of
    the launches without the moves' count where moves were added back (``added``; reports that separated none
    leave their FP16 FLOPs arithmetic), else those whose FP16 FLOPs come from HFMA2 alone without it (as
    ``report`` notes them)."""
    if added:  # where the reports that separate the moves found none, the others' FP16 FLOPs hold none either
        blind = tuple(dict.fromkeys(p for (p, _), w in zip(matched, works, strict=True) if w.fp16_moves is None))
        return (Fp16Moves.ADDED_BACK, blind) if any(w.fp16_moves for w in works) else (None, ())
    blind = tuple(dict.fromkeys(p for p, la in matched
                                if any(n.kind is FlopNoteKind.HFMA_MOVES_UNCOUNTED for n in la.notes)))
    return (Fp16Moves.UNCOUNTED if blind else None), blind


def _precision(flops: Mapping[str, float | None], works: list[Work], may_be_moves: bool) -> str | None:
    """The precision with the most FLOPs, FP16 by its arithmetic: where its FLOPs may be register moves, the mean
    FP16 of the launches that left the moves out, else none (FP16 then labels only a kernel without other FLOPs,
    where no report could tell its moves apart)."""
    arithmetic = [w.flops["fp16"] for w in works if w.fp16_moves is not None]
    fp16 = _mean(arithmetic) if may_be_moves and arithmetic else None if may_be_moves else flops["fp16"]
    known = {p: v for p, v in {**flops, "fp16": fp16}.items() if v}
    if not known:
        return "fp16" if flops["fp16"] and not arithmetic else None
    return max(known, key=lambda p: known[p] or 0.0)


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _describe(name: str, grid: Dims, block: Dims) -> str:
    return f"{name} grid {dims(grid)} block {dims(block)}"


def _notes(devices: Sequence[Device], nsys_l2: int | None, spec: DeviceSpec | None,
           nsys_gpu: str | None) -> tuple[str, ...]:
    """Where the numbers may mislead: L2 sizes apart, no spec for the nsys GPU."""
    notes = []
    l2 = nsys_l2 or (spec.l2_bytes if spec is not None else None)
    for device in devices:
        ncu_l2 = device.l2_cache_bytes
        if ncu_l2 and l2 and max(ncu_l2, l2) / min(ncu_l2, l2) >= L2_RATIO_FLAG:
            notes.append(f"the L2 of {device.name} holds {ncu_l2 / 2**20:.0f} MiB, that of "
                         f"{nsys_gpu or 'the nsys GPU'} {l2 / 2**20:.0f} MiB: a working set between the two sizes "
                         "stays in one L2 and not in the other, so the DRAM bytes (and the DRAM intensity) may "
                         "differ on the nsys GPU; FLOPs and L1 bytes do not depend on it")
    if spec is None:
        notes.append(f"no device spec matches {nsys_gpu or 'the nsys GPU'}: the kernels have no roofs; add one "
                     "with --specs (roofline specs list shows the known GPUs)")
    return tuple(notes)
