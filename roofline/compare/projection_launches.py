"""A workload's time on another GPU, launch by launch, unit by unit: the per-launch time model
(``analysis.time_model``) taken to the target. Pure functions; no I/O. ``docs/figures.md`` states each formula.

For each launch (identical launches, the same kernel, grid, block and work, grouped with their count):

1. **Each unit's term to the target** at that target's own rate of the unit. A unit inside the SMs does
   ``t x f_src x S_src x r_src(u)`` operations (``t`` its term: the time its work needs at its peak; ``f`` the SM
   clock, ``S`` the SMs, ``r(u)`` the unit's operations per SM and clock); on the target they take
   ``ops / (f_tgt x S_tgt x r_tgt(u))``. ``r``: FP32, FP64 and each Tensor Core type from each GPU's cited peaks
   (``peak / (S x clock of the figure)``), the integer lanes from ``architecture/integer.yaml``, the issue slots and
   the load/store, L1 and special-function paths the same per SM and clock (``architecture/throughput.yaml``).
   Where the target's FP32 lanes also run INT32 (GA10x, Ada) FP32 and integer work share them: a term
   ``(FP32 ops + INT32 ops) / FP32 lanes``. Tensor work of a type the target lacks runs on its FP32 lanes. Where
   the target issues FP32 FMAs in pairs and the source does not (``.f32x2`` from CC 10.0: ``paired_fp32``), the
   issue slots of a library kernel (``library_kernel``: the target's library runs a kernel built for it) lose half
   the FMA pipe's instructions; a framework's scalar kernels have no two-wide operations to pair. Where the
   source's FMA term is the pipe's heavy half (CC 8.6 on: FP32 and IMAD on half the lanes, FP32 alone on the
   other), the FP32 lanes take the whole pipe's work and the heavy half is a term of its own at 64 IMAD lanes per
   SM on both (``split_fma_pipe``).
   L2 bytes go at the ratio of the two whole L2s' bytes per clock times the clocks where both are cited
   (``architecture/throughput.yaml`` ``l2_bytes_per_clock``, by compute capability, in proportion to the L2 size:
   the L2's slices set its rate, not the SMs), else at the ratio of cited L2 bandwidths at the clocks, else at
   the SMs x clock ratio. DRAM: the source's achieved fraction of its achievable bandwidth is kept, so the term
   scales by ``A_src / A_tgt`` (``specs.achievable``); no SM clock applies. Onto a GPU of more achievable
   bandwidth the bytes the launch keeps in flight bound it too (``in_flight``, Little's law, as many per SM there).
2. **Tail**: the busiest SM-paced unit in whole blocks per SM, ``ceil(B / S) / (B / S)``, for the target's S: the
   unit busiest there (wave quantisation lengthens whatever bounds each wave; a stand-in term aside), except for a
   grid of at most one block per source SM, sized to the source's SMs, which keeps the source's busiest unit.
3. **The time**: the source's measured time over its floor (largest term, tail and launch floor included), the
   launch's efficiency ``e``, applied to the target's floor: ``t_tgt = max(e x max(T'), launch floor)``; a stand-in
   term (Tensor work of a type the target lacks, on its FP32 lanes) counts at its own peak, without ``e``: the
   library's other kernel there does not keep the source Tensor kernel's efficiency. A launch of at most one block
   per SM on both GPUs (``one_wave``; not a persistent library grid, which the library resizes) takes
   ``t_tgt = max(measured x f_src / f_tgt, max(T'), launch floor)``: each block alone on an SM on both, its chain of
   latencies at the clocks' ratio, the target's bandwidth binding only where its peaks need longer. Either way no
   launch moves its DRAM bytes faster than the target's achievable DRAM bandwidth (``achievable_floor``): ``e`` came
   from the source's binding unit, which on the target may be another one. The governing unit is the largest
   translated term.
4. **The clock**: the target at ``--clock`` (its sustained clock under load by default), the source at the SM clock
   ncu measured for the launch (``metrics.sm_clock_hz``: the GPC clock where a basic set holds no SM clock).
5. **Interval**: ``[t x low, t x high]`` per launch, ``(low, high)`` by the launch's class (``INTERVALS``: conv,
   matmul, other), percentiles of published / projected over the leave-one-GPU-out pairs of that class (conv the
   5th-95th, matmul the 10th-90th, other the 7.5th-92.5th), whose residuals hold the cases where the target likely
   runs another kernel (``OTHER_KERNEL``: said so, not widened further: a class of their own covered no more); the
   low end no lower than the launch's work at the target's peaks (``floor_of``: at its boost clock and datasheet
   DRAM bandwidth; only the FLOPs where another kernel is likely, none for a convolution); the workload's interval
   is the sum of its launches' ends.
"""

from __future__ import annotations

import enum
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from roofline.analysis.results import Value
from roofline.analysis.time_model import time_model
from roofline.analysis.verdict import busy_units, paced_by_blocks, whole_blocks
from roofline.compare.projection import IN_FLIGHT_SHARPNESS, held_share, no_tensor_figure
from roofline.core.thresholds import LAUNCH_FLOOR_S, TAIL_NAMED
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import Launches
    from roofline.analysis.results import LaunchAnalysis, Term
    from roofline.core.model import Device
    from roofline.specs.achievable import ClockChoice
    from roofline.specs.catalog import DeviceSpec

THROUGHPUT_FILE = "throughput.yaml"
# A roof term's key (a report without breakdowns: ``time_model._roof_terms``) -> the unit whose rate it goes at
ROOF_UNITS = {"fp32": "FMA", "fp64": "FP64", "fp16": "FP16", "tensor": "tensor", "l1": "L1", "l2": "L2", "dram": "DRAM"}
# The interval per class of launch: the projection times (low, high), percentiles of published / projected (conv the 5th
# and 95th, matmul the 10th and 90th, other the 7.5th and 92.5th) over the leave-one-GPU-out pairs of the class in
# benchmarks/bench_projection.py (``interval_factors``, docs/benchmarks.md): each GPU's sustained clock and achievable
# bandwidth set without its own data, each pair in the class of the launch group with most of its projected time
# (``launch_class``, as here). Asymmetric where the model leans one way. A convolution's library (cuDNN) picks its
# algorithm per GPU, so the target may run another kernel than the one measured: its interval is the widest
# (``ALGORITHM_CHOSEN``), its ends the outermost percentiles. Checked without each GPU (its intervals from the other
# GPUs' factors): 82% of the development pairs covered at a 23% median half-width (round 8; the percentiles chosen on
# these pairs, docs/benchmarks.md; "other" refreshed in rounds 11, 15 and 17).
INTERVALS: dict[str, tuple[float, float]] = {
    "matmul": (0.77, 1.18),
    "conv": (0.39, 2.46),  # its residuals hold the targets' other algorithms (TF32 work on a T4) already
    "other": (0.87, 1.33),  # the norms, pools and elementwise kernels of the development data
}
# Where a Tensor type's FLOPs go on a GPU without Tensor Cores of that type (a stand-in term): FP64 MMA (DMMA) on
# the FP64 lanes, every other type on the FP32 lanes (unit_rates key, words); 2 FLOP per lane and clock (an FMA).
STAND_IN_LANES: dict[str, tuple[str, str]] = {"fp64": ("FP64", "FP64 lanes"), "": ("FMA", "FP32 lanes")}
ALGORITHM_CHOSEN = ("conv", "dgrad", "wgrad", "fprop", "implicit_gemm", "winograd", "fft")  # in a kernel's name
MATMUL = ("gemm", "matmul", "cutlass", "xmma", "gemv")  # in a kernel's name, a convolution's words aside
# Why the target's library would likely run another kernel than the one measured (LaunchProjection.other_kernel)
OTHER_KERNEL: dict[str, str] = {
    "tensor_type": "the target's spec gives no Tensor figure of its data type (the GPU lacks those Tensor Cores or "
                   "the figure is not sourced): its Tensor work is timed on other lanes, and its library would "
                   "likely run another algorithm",
    "architecture": "a library kernel built for a newer or architecture-specific compute capability (sm<NN>_ in its "
                    "name) the target cannot run: its library picks another kernel there",
    "persistent": "a library kernel with one block per source SM (a persistent grid): the library sizes it to the "
                  "target's SMs, so no tail of whole blocks is kept there",
}
# a library kernel's target architecture in its name: cuBLAS/cuDNN's "sm80_xmma_...", cuBLAS 12's "nvjet_sm90_..."
ARCH_IN_NAME = r"(?:^|_)sm(\d)(\d+)_"
ARCH_SPECIFIC = 90  # from sm_90 on, library kernels use architecture-specific instructions (wgmma, tcgen05)
STAND_IN_EFFICIENCY = 1.0
NOTHING_TO_PROJECT = "no launch with a time and a time model"  # the source report's lack, whatever the target
ONE_WAVE = "one wave"  # the term of a launch of at most one block per SM on both GPUs (``one_wave``)
SHARED = "FP32+INT32"  # the term of FP32 and integer work on lanes that run both (GA10x, Ada)
DRAM_FLOOR = "DRAM achievable"  # the DRAM bytes at the target's achievable bandwidth (``achievable_floor``)
RUNS_ON = " on "  # a stand-in term's name: its key, this, the units its work runs on ("tensor on FP32 lanes")
SAME_TIME = 1e-9  # relative: two times this close are one sum rounded two ways (the DRAM floor's name, above)
_MEMORY_CLOCKED = ("DRAM", "DRAM achievable")  # terms of DRAM bytes, which the memory's own clock paces
SHARED_PIPE = "shared pipe"  # the time model's term of sm__pipe_shared_cycles_active (metrics.PIPE_SHARED)
SAME_PIPE = 0.02  # a shared pipe whose time is within this share of the FP64 pipe's is that pipe's work
FMA_HEAVY = "FMA heavy"  # the term of the FMA pipe's heavy half (FP32 and IMAD), where the source splits the pipe



class UnitTerm(Struct, frozen=True):
    """One time-model term on both GPUs: the seconds its work needs at the unit's peak here (``source_s``) and there
    (``target_s``), and how it was taken there."""

    key: str
    source_s: float
    target_s: float
    how: str
    stand_in: bool = False  # the work runs on other units there (Tensor work of a type the target lacks)
    runs_on: str = ""  # those units, for a stand-in term ("FP32 lanes")


class LaunchProjection(Struct, frozen=True):
    """Identical launches (``count`` of them: one kernel, grid, block and work) projected onto the target: per launch
    the measured time, the projected one in ``[low_s, high_s]``, the unit that governs there and every term."""

    name: str
    count: int
    grid: int | None
    block: int | None
    measured_s: float
    projected_s: float
    low_s: float
    high_s: float
    governing: str
    efficiency: float  # measured time over the source's floor
    terms: tuple[UnitTerm, ...]
    nvtx_ranges: tuple[str, ...] = ()  # the NVTX ranges the launches ran in, outermost first
    other_kernel: tuple[str, ...] = ()  # keys of OTHER_KERNEL: why the target would likely run another kernel
    clock_hz: float | None = None  # the target's SM clock for these launches (below the chosen one: power-held)


class RangeTotal(Struct, frozen=True):
    """The launches of one NVTX range: measured and projected totals, the interval's ends summed."""

    name: str
    launches: int
    measured_s: float
    projected_s: float
    low_s: float
    high_s: float


class KernelTotal(Struct, frozen=True):
    """One kernel name's launches summed from their groups (``LaunchProjection``): no launch is projected from
    another's size. ``governing``: the unit that governs most of its projected time."""

    name: str
    count: int
    groups: int  # groups of identical launches under this name
    measured_s: float  # the sum of count x measured
    projected_s: float  # the sum of count x projected
    low_s: float
    high_s: float
    governing: str
    other_kernel: tuple[str, ...] = ()  # keys of OTHER_KERNEL any of its groups carries


class LeftOutCause(str, enum.Enum):
    """Why a launch is left out of a projection's totals."""

    NO_TIME = "no_time"  # ncu stored no duration for it
    NO_TIME_MODEL = "no_time_model"  # neither a unit's throughput nor a FLOP or byte roof was measured


# Why a launch is left out, in words (the renderers' and the refusal of a report with nothing to project)
LEFT_OUT_WORDS = {LeftOutCause.NO_TIME: "no measured time (ncu stored none)",
                  LeftOutCause.NO_TIME_MODEL: "no time model (no unit's throughput nor FLOP or byte roof measured)"}


class LeftOutKernel(Struct, frozen=True):
    """The launches of one kernel left out of a projection for one cause."""

    name: str
    launches: int
    cause: LeftOutCause


class WorkloadProjection(Struct, frozen=True):
    """Every launch of a report projected onto ``target``: the total there (``projected_s`` = the sum of count x
    projected over ``launches``) in ``[low_s, high_s]``, against the measured total; the clock and the DRAM
    bandwidth assumed there and the source's DRAM bandwidth, each with its source; ``reason`` says why there is
    none (``launches`` empty)."""

    target: str
    clock: str
    clock_hz: float | None  # null with ``reason`` where nothing was projected, as the times below
    clock_source: str
    dram_bytes_per_s: float | None
    dram_source: str
    measured_s: float | None
    projected_s: float | None
    low_s: float | None
    high_s: float | None
    launches: tuple[LaunchProjection, ...]
    left_out: int = 0  # launches without a time or a model
    reason: str = ""
    ranges: tuple[RangeTotal, ...] = ()  # per NVTX range, where the report has them
    kernels: tuple[KernelTotal, ...] = ()  # per kernel name, summed from ``launches`` (``kernel_totals``)

    launch_count: int = 0  # the launches of ``launches``: the sum of their counts
    speedup: float | None = None  # measured total / projected total (above 1: faster there); null without launches
    governing: str | None = None  # the unit governing most of the projected total (count x projected by unit)
    source_dram_bytes_per_s: float | None = None  # the source GPU's achievable DRAM bandwidth: a DRAM term goes
    source_dram_source: str = ""  # as source over target (``dram_bytes_per_s``); its source
    left_out_kernels: tuple[LeftOutKernel, ...] = ()  # the ``left_out`` launches by kernel name and cause
    power_held: int = 0  # launch groups at a share of ``clock_hz``: they ran below the source's base clock (power)
    # on the report's own GPU: the launch groups that reached a DRAM rate above ``dram_bytes_per_s`` there, whose
    # DRAM floor is that rate (``dram_reached``), and the highest such rate (null where none did)
    dram_reached: int = 0
    dram_reached_bytes_per_s: float | None = None


class _Gpu(Struct, frozen=True):
    """What the translation needs of one GPU: SMs, its clock, its rates per SM and clock, its DRAM bandwidth."""

    spec_id: str
    sms: int
    clock_hz: float
    rates: Mapping[str, float]
    shares_int: float | None
    dram: float | None
    l2: float | None  # L2 bandwidth at this clock from the cited bytes per clock (``l2_bytes_per_clock``)
    compute_capability: str | None = None
    l2_spec: float | None = None  # L2 bandwidth at this clock from the spec's own figure, where it gives one
    dram_datasheet: float | None = None  # the datasheet DRAM bandwidth: the ratio where either lacks an achievable one
    boost_hz: float = 0.0  # the boost clock (the floor of an interval: ``floor_of``)
    # per Tensor Core type, the clock its figure holds at (``DeviceSpec.clock_of``): the most it runs at there
    tensor_hz: Mapping[str, float] = {}

    def tensor_clock(self, dtype: str, clock_hz: float, over: float = 1.0) -> float:
        """``clock_hz`` for Tensor work of ``dtype``, at most the clock its Tensor figure holds at (the H100 SXM5's
        FP16 figure at 1830 MHz: above it the work would beat the datasheet's peak) times ``over``
        (``tensor_over``)."""
        return min(clock_hz, self.tensor_hz.get(dtype, clock_hz) * over)


def tensor_over(here: _Gpu, dtype: str) -> float:
    """How far above its Tensor figure's clock the source ran (at least 1): measured there, a load light enough to
    hold more, so the target may run as far above its own."""
    return max(1.0, here.clock_hz / here.tensor_hz.get(dtype, here.clock_hz))


def project_workload(launches: Launches | Iterable[LaunchAnalysis], source: Device, source_spec: DeviceSpec,
                     target: DeviceSpec, clock: ClockChoice = "sustained") -> WorkloadProjection:
    """Every launch of ``launches`` (a report's valid launches) projected onto ``target`` (module docstring)."""
    from roofline.specs.achievable import achievable_dram_bandwidth
    from roofline.specs.achievable import clock as clock_of

    held = clock_of(target, clock)
    dram = achievable_dram_bandwidth(target)
    if held is None:
        return _none(target, clock, f"no {clock} clock in the spec {target.id}")
    there = _gpu(target, held.value, dram.value if dram else None)
    source_dram = achievable_dram_bandwidth(source_spec)
    groups: dict[tuple[object, ...], list[LaunchAnalysis]] = {}
    untimed: list[str] = []  # the kernel names of launches without a time, one per launch
    for la in launches:
        if la.duration_s.value is None:
            untimed.append(la.launch.name)
            continue
        groups.setdefault(_identity(la), []).append(la)
    out, unmodelled, reached = [], [], []
    for group in groups.values():
        got = _project_group(group, source, source_spec, source_dram.value if source_dram else None, there)
        if got is None:
            unmodelled += [la.launch.name for la in group]
        else:
            out.append(got)
            rate = dram_reached(_middle(group), target.id == source_spec.id, there.dram)
            reached += [rate] if rate is not None else []
    out.sort(key=lambda p: -p.count * p.projected_s)
    measured = sum(p.count * p.measured_s for p in out) if out else None
    projected = sum(p.count * p.projected_s for p in out) if out else None
    return WorkloadProjection(
        target.id, clock, held.value, held.source, dram.value if dram else None,
        dram.source if dram else _no_dram(target),
        measured, projected, sum(p.count * p.low_s for p in out) if out else None,
        sum(p.count * p.high_s for p in out) if out else None, tuple(out),
        len(untimed) + len(unmodelled), "" if out else NOTHING_TO_PROJECT, range_totals(out),
        kernel_totals(out), sum(p.count for p in out), measured / projected if measured and projected else None,
        _governing(out), source_dram.value if source_dram else None,
        source_dram.source if source_dram else _no_dram(source_spec),
        left_out_kernels=(*_left_out(untimed, LeftOutCause.NO_TIME),
                          *_left_out(unmodelled, LeftOutCause.NO_TIME_MODEL)),
        power_held=sum(1 for p in out if p.clock_hz is not None and p.clock_hz < held.value),
        dram_reached=len(reached), dram_reached_bytes_per_s=max(reached, default=None))


def _left_out(names: Sequence[str], cause: LeftOutCause) -> tuple[LeftOutKernel, ...]:
    """Launches left out for ``cause`` (one name per launch), per kernel name in order of first launch."""
    return tuple(LeftOutKernel(name, n, cause) for name, n in Counter(names).items())


def project_everywhere(launches: Launches | Iterable[LaunchAnalysis], source: Device, source_spec: DeviceSpec,
                       targets: Iterable[DeviceSpec],
                       clock: ClockChoice = "sustained") -> tuple[WorkloadProjection, ...]:
    """The workload projected onto each of ``targets`` (``project_workload``), fastest total first; those without a
    projection (``reason``) last, by id."""
    kept = list(launches)
    out = [project_workload(kept, source, source_spec, t, clock) for t in targets]
    return tuple(sorted(out, key=lambda w: (not w.launches, w.projected_s if w.launches else 0.0, w.target)))


def kernel_speedup(launches: Launches | Iterable[LaunchAnalysis], source: Device, source_spec: DeviceSpec,
                   target: DeviceSpec, clock: ClockChoice = "base") -> Value:
    """The launches' measured total over their projected total on ``target`` (``project_workload``): compare's
    expected speedup across GPUs, the number ``roofline project --to TARGET --clock CLOCK`` gives these launches."""
    w = project_workload(launches, source, source_spec, target, clock)
    if w.speedup is None or w.clock_hz is None:
        return Value(None, f"no projection onto {target.id}: {w.reason or 'no projected time'}")
    return Value(w.speedup, via=f"measured / projected per launch onto {target.id} at its {clock} clock "
                                f"{w.clock_hz / 1e9:.3g} GHz, {len(w.launches)} launch groups")


def range_totals(groups: Sequence[LaunchProjection]) -> tuple[RangeTotal, ...]:
    """Each NVTX range's launches summed (a launch counts in every range it ran in), in order of first launch."""
    names = dict.fromkeys(r for g in groups for r in g.nvtx_ranges)
    out = []
    for name in names:
        inside = [g for g in groups if name in g.nvtx_ranges]
        out.append(RangeTotal(name, sum(g.count for g in inside), sum(g.count * g.measured_s for g in inside),
                              sum(g.count * g.projected_s for g in inside), sum(g.count * g.low_s for g in inside),
                              sum(g.count * g.high_s for g in inside)))
    return tuple(out)


def kernel_totals(groups: Sequence[LaunchProjection]) -> tuple[KernelTotal, ...]:
    """Each kernel name's groups summed (count, measured, projected, interval ends), the largest projected first."""
    names: dict[str, list[LaunchProjection]] = {}
    for g in groups:
        names.setdefault(g.name, []).append(g)
    out = []
    for name, inside in names.items():
        total = {key: sum(g.count * getattr(g, key) for g in inside)
                 for key in ("measured_s", "projected_s", "low_s", "high_s")}
        out.append(KernelTotal(name, sum(g.count for g in inside), len(inside), total["measured_s"],
                               total["projected_s"], total["low_s"], total["high_s"], _governing(inside) or "",
                               tuple(dict.fromkeys(k for g in inside for k in g.other_kernel))))
    return tuple(sorted(out, key=lambda k: -k.projected_s))


def _governing(groups: Sequence[LaunchProjection]) -> str | None:
    """The unit that governs most of ``groups``' projected time (count x projected summed by governing unit)."""
    shares: dict[str, float] = {}
    for g in groups:
        shares[g.governing] = shares.get(g.governing, 0.0) + g.count * g.projected_s
    return max(shares, key=lambda k: shares[k]) if shares else None


def _no_dram(spec: DeviceSpec) -> str:
    """Why a GPU has no achievable DRAM bandwidth (the DRAM terms then go at the datasheets' ratio)."""
    kind = (f"its memory type {spec.memory_type!r} has no default in architecture/memory.yaml" if spec.memory_type
            else "it gives no memory type (a spec derived from the report's device attributes has none)")
    return (f"not known: the spec {spec.id} gives no memory.achievable_bandwidth_bytes_per_s and {kind}; DRAM terms "
            "go at the datasheet bandwidths' ratio")


def _none(target: DeviceSpec, clock: str, why: str) -> WorkloadProjection:
    return WorkloadProjection(target.id, clock, None, "", None, "", None, None, None, None, (), 0, why)


def _identity(la: LaunchAnalysis) -> tuple[object, ...]:
    """Launches with the same kernel, grid, block, work (FLOPs and bytes to 3 significant digits) and NVTX ranges
    are one."""
    work = tuple(_sig(v.value) for v in (*la.flops.values(), *la.bytes.values()))
    return la.launch.name, la.grid_size, la.block_size, work, la.launch.nvtx_ranges


def _sig(x: float | None) -> float | None:
    return float(f"{x:.3g}") if x else x


def _middle(group: Sequence[LaunchAnalysis]) -> LaunchAnalysis:
    """The launch of a group of identical launches whose terms stand for the group's."""
    return group[len(group) // 2] if len(group) > 2 else group[0]


def _project_group(group: Sequence[LaunchAnalysis], source: Device, source_spec: DeviceSpec,
                   source_dram: float | None, there: _Gpu) -> LaunchProjection | None:
    """One group of identical launches: its middle launch's terms at the group's mean time projected, so that count
    x measured is the launches' measured sum (None without a time model)."""
    times = [la.duration_s.value or 0.0 for la in group]
    la = _middle(group)
    model = la.time_model or time_model(la, source)
    units = [t for t in model.terms if t.kind in ("unit", "roof")]
    if not units:
        return None
    measured = sum(times) / len(times)  # the mean: a group's launches can differ in time (bimodal sorts)
    # basic sets hold only the GPC clock; a report without any clock metric ran, by ncu's default clock control,
    # at the base clock it locks (where the spec gives it)
    clock = m.sm_clock_hz(la.launch).value or source_spec.base_clock_hz or source_spec.boost_clock_hz
    here = _gpu(source_spec, float(clock), source_dram, source.sm_count)
    there = power_held(there, la, float(clock), source_spec)
    terms = translate(units, la, here, there)
    blocks = la.grid_size
    tail_here = _tail(units, blocks, here.sms, lambda t: t.seconds)
    there_s = {u.key: 0.0 if u.stand_in else u.target_s for u in terms}  # by key: ``split_fma_pipe`` reorders
    if FMA_HEAVY in there_s:  # the source's FMA term (its heavy half) is both halves' terms there: the slower paces
        there_s["FMA"] = max(there_s.get("FMA", 0.0), there_s[FMA_HEAVY])
    tail_there = _tail(units, blocks, there.sms, lambda t: there_s.get(unit_key(t), 0.0),
                       by_seconds=bool(blocks and blocks > here.sms))
    floor = max([t.seconds for t in units] + [tail_here, LAUNCH_FLOOR_S])
    efficiency = measured / floor if floor else 1.0
    flags = other_kernel(la.launch.name, blocks, here, there)
    if "persistent" in flags:
        tail_there = 0.0
    if tail_there:
        terms.append(UnitTerm("tail", tail_here, tail_there, f"in whole blocks per SM: {blocks} blocks on "
                                                             f"{here.sms} -> {there.sms} SMs"))
    terms = in_flight(terms, la, measured, here, there)
    top = max(terms, key=lambda t: t.target_s)
    projected = max(_target_time(terms, efficiency), LAUNCH_FLOOR_S)
    wave = one_wave(measured, blocks, here, there) if not top.stand_in and "persistent" not in flags else None
    if wave is not None:
        terms.append(wave)
        top = max(terms, key=lambda t: t.target_s)
        projected = max(top.target_s, LAUNCH_FLOOR_S)
    floor_there, tied = achievable_floor(la, here, there), None
    if floor_there is not None and floor_there.target_s > projected:
        # a floor above the units' time by rounding alone (on its own GPU a launch's floor is its own time) leaves
        # the unit named: identical launches get one name
        tied = floor_there if floor_there.target_s <= projected * (1.0 + SAME_TIME) else None
        terms.append(floor_there)
        top, projected = floor_there, floor_there.target_s
    if top.stand_in:
        flags = ("tensor_type", *flags)
    low, high = interval_of(la.launch.name)
    moved = la.bytes["dram"].value if "dram" in la.bytes else None
    # never above the projection, which counted Tensor FLOPs (2:4-sparse ones among them) over a dense rate could be
    dtype = _tensor_dtype(la)
    over = tensor_over(here, dtype)
    least = min(floor_of(terms, there, moved, flags, launch_class(la.launch.name), flop_floor(la, there, over),
                         dtype, over), projected)
    return LaunchProjection(la.launch.name, len(group), blocks, la.block_size, measured, projected,
                            max(projected * low, least), projected * high,
                            governing_key([t for t in terms if t is not tied]), efficiency,
                            tuple(sorted(terms, key=lambda t: -t.target_s)), la.launch.nvtx_ranges, flags,
                            there.clock_hz)


def floor_of(terms: Sequence[UnitTerm], there: _Gpu, dram_bytes: float | None, other: Sequence[str] = (),
             kind: str = "other", flops_s: float = 0.0, dtype: str = "fp16", over: float = 1.0) -> float:
    """The least time the launch's work takes there, which no interval goes below: each SM-clocked unit's work at
    its peak at the target's boost clock (the fastest it runs: a GPU holds more than its sustained clock under a
    lighter load; Tensor work of ``dtype`` at most at its figure's clock, ``tensor_over``), the tail's whole blocks
    and a stand-in term's work on the lanes it runs on included, and the DRAM
    bytes at the datasheet bandwidth (a triad reaches 92% of it, above a stream copy's achievable rate); never below
    the launch floor. The one-wave term is an estimate, not a floor. Where the target would likely run another
    kernel (``other``), only its counted FLOPs bind it (``flops_s``, ``flop_floor``: a matrix product's are the same
    in any kernel; its bytes and instructions, integer multiply-adds on the FMA pipe among them, are not); a
    convolution's algorithm sets even its FLOPs (Winograd, FFT), so only the launch floor binds one."""
    if kind == "conv":
        return LAUNCH_FLOOR_S
    if other:
        return max(flops_s, LAUNCH_FLOOR_S)
    tensor = there.tensor_clock(dtype, there.clock_hz, over) / there.tensor_clock(dtype, there.boost_hz, over)
    kept = [t.target_s * (tensor if t.key == "tensor" and not t.stand_in else there.clock_hz / there.boost_hz)
            for t in terms if t.key not in (ONE_WAVE, *_MEMORY_CLOCKED)]
    if dram_bytes and there.dram_datasheet:
        kept.append(dram_bytes / there.dram_datasheet)
    return max([*kept, flops_s, LAUNCH_FLOOR_S])


def flop_floor(la: LaunchAnalysis, there: _Gpu, over: float = 1.0) -> float:
    """The launch's counted FLOPs at the target's peaks at its boost clock, the slowest precision's time (each runs on
    its own pipe): FP32 and FP64 at 2 FLOP per lane and clock, FP16 at 4 per HFMA2 lane, each Tensor type at its
    rate (at most at its figure's clock, ``tensor_over``), a type the target lacks on its FP32 (FP64: FP64) lanes;
    0 where none is counted."""
    per = there.sms * there.boost_hz
    times = []
    for precision, unit, per_op in (("fp32", "FMA", 2.0), ("fp64", "FP64", 2.0), ("fp16", "FP16", 4.0)):
        flops = la.flops[precision].value if precision in la.flops else None
        if flops and there.rates.get(unit):
            times.append(flops / (per_op * there.rates[unit] * per))
    for dtype, flops in la.tensor_flops_by_type.items():
        lanes, _ = STAND_IN_LANES.get(dtype, STAND_IN_LANES[""])
        rate = there.rates.get(f"tensor_{dtype}")
        if flops and rate:
            times.append(flops / (rate * there.sms * there.tensor_clock(dtype, there.boost_hz, over)))
        elif flops and there.rates.get(lanes):
            times.append(flops / (2.0 * there.rates[lanes] * per))
    return max(times, default=0.0)


def in_flight(terms: list[UnitTerm], la: LaunchAnalysis, measured: float, here: _Gpu,
              there: _Gpu) -> list[UnitTerm]:
    """Step 1b: on a GPU of more achievable DRAM bandwidth, the bytes a launch keeps in flight bound its DRAM rate
    (Little's law). Its rate ``a`` is a smooth minimum of the achievable bandwidth ``A`` and the rate its bytes in
    flight allow ``C`` (``a = (A^-p + C^-p)^(-1/p)``, ``p`` = ``IN_FLIGHT_SHARPNESS``); ``C`` follows from the
    launch's measured fraction of the source's achievable bandwidth ``u = a / A``, and scales with the SMs there
    (as many bytes in flight per SM). Only for a launch DRAM bound on the source (its DRAM term the largest, the tail
    included): another unit's launch keeps fewer bytes in flight than it could. The DRAM term takes the longer of
    ``u / a_tgt`` and the bandwidths' ratio: where the target has less bandwidth the launch is kept at its fraction
    (its latency there is not known)."""
    moved = la.bytes["dram"].value if "dram" in la.bytes else None
    dram = next((t for t in terms if t.key == "DRAM"), None)
    if dram is None or not moved or not here.dram or not there.dram or not measured or there.dram <= here.dram \
            or dram.source_s < max(t.source_s for t in terms):
        return terms
    used, p = moved / measured / here.dram, IN_FLIGHT_SHARPNESS
    if not 0.0 < used < 1.0:
        return terms
    allowed = (used ** -p - 1.0) ** (-1.0 / p) * there.sms / here.sms  # C there over the source's A
    reached = ((there.dram / here.dram) ** -p + allowed ** -p) ** (-1.0 / p)  # a there over the source's A
    ratio = used / reached
    return [UnitTerm(t.key, t.source_s, t.source_s * ratio,
                     f"{t.how}; its bytes in flight bound it there: {100 * used:.0f}% of the achievable bandwidth "
                     f"here, the same bytes in flight per SM (Little's law, {here.sms} -> {there.sms} SMs)")
            if t.key == "DRAM" and t.source_s * ratio > t.target_s else t for t in terms]


def power_held(there: _Gpu, la: LaunchAnalysis, clock: float, source_spec: DeviceSpec) -> _Gpu:
    """The target at the share of its chosen clock that a launch held below the source's locked base clock by power
    kept (the Tensor Core GEMMs of examples/h100 ran at 1.28-1.34 GHz under a 1.58 GHz base), as the per-kernel model
    (``compare.projection``, step 3) takes it; only from a launch long enough to read its clock
    (``metrics.clock_judged``: shorter ones read it low)."""
    from msgspec.structs import replace

    share = held_share(clock, source_spec.base_clock_hz)
    if share == 1.0 or not m.clock_judged(la.launch):
        return there
    return replace(there, clock_hz=there.clock_hz * share)


def governing_key(terms: Sequence[UnitTerm]) -> str:
    """The term that governs the time there: the largest; a tail within ``TAIL_NAMED`` of the largest other term is
    that term's whole blocks (a launch of many waves), so the unit is named, not its tail; a stand-in term by the
    units its work runs on there ("tensor on FP32 lanes": the target has no Tensor Cores of its type)."""
    top = max(terms, key=lambda t: t.target_s)
    if top.stand_in and top.runs_on:
        return f"{top.key}{RUNS_ON}{top.runs_on}"
    rest = [t for t in terms if t.key != "tail"]
    if top.key == "tail" and rest:
        unit = max(rest, key=lambda t: t.target_s)
        if unit.target_s * (1.0 + TAIL_NAMED) >= top.target_s:
            return unit.key
    return top.key


def achievable_floor(la: LaunchAnalysis, here: _Gpu, there: _Gpu) -> UnitTerm | None:
    """The launch's DRAM bytes at the target's achievable DRAM bandwidth (``specs.achievable``: what a stream-like
    copy reaches there): no launch moves them faster, whatever the source kernel's efficiency on its other units.
    On the report's own GPU the launch's own DRAM rate where it is higher: it reached that rate there (as the time
    model's what-ifs take it). None without DRAM bytes or an achievable bandwidth there."""
    moved = la.bytes["dram"].value if "dram" in la.bytes else None
    if not moved or not there.dram:
        return None
    took = la.duration_s.value
    reached = dram_reached(la, there.spec_id == here.spec_id, there.dram)
    if reached is not None:
        return UnitTerm(DRAM_FLOOR, took or 0.0, moved / reached,
                        f"{moved / 1e6:.4g} MB of DRAM traffic at the {reached / 1e9:.0f} GB/s the launch reached on "
                        f"this GPU, above its achievable {there.dram / 1e9:.0f} GB/s")
    return UnitTerm(DRAM_FLOOR, moved / here.dram if here.dram else 0.0, moved / there.dram,
                    f"{moved / 1e6:.4g} MB of DRAM traffic at the target's achievable {there.dram / 1e9:.0f} GB/s")


def dram_reached(la: LaunchAnalysis, own: bool, achievable: float | None) -> float | None:
    """The DRAM rate a launch reached on the report's own GPU (``own``: the target is it), where above that GPU's
    ``achievable`` DRAM bandwidth: the rate its DRAM floor takes there (``achievable_floor``); None elsewhere."""
    moved = la.bytes["dram"].value if "dram" in la.bytes else None
    took = la.duration_s.value
    if not own or not moved or not took or not achievable:
        return None
    return moved / took if moved / took > achievable else None


def one_wave(measured: float, blocks: int | None, here: _Gpu, there: _Gpu) -> UnitTerm | None:
    """A launch of at most one block per SM on both GPUs (one partial wave, the same grid): each block runs alone on
    an SM on both, so its chain of latencies holds the time there as here, at the SM clocks' ratio; the same blocks
    keep the same bytes in flight, so the target's bandwidth binds only where its unit peaks need longer (no
    efficiency on the other terms then). None for a grid larger than either GPU's SMs or unknown."""
    if not blocks or blocks > here.sms or blocks > there.sms:
        return None
    return UnitTerm(ONE_WAVE, measured, measured * here.clock_hz / there.clock_hz,
                    f"{blocks} blocks, at most one per SM on {here.sms} and {there.sms} SMs: the measured time at the "
                    f"SM clocks' ratio {here.clock_hz / 1e9:.3g} -> {there.clock_hz / 1e9:.3g} GHz")


def _target_time(terms: Sequence[UnitTerm], efficiency: float) -> float:
    """The launch's time there before the launch floor: the source's efficiency on the largest term the source's
    kernel keeps; a stand-in term (Tensor work of a type the target lacks) at its own peak, as the library's other
    kernel there (an FP32 SIMT one) is not the source's Tensor kernel and does not keep its efficiency."""
    kept = [t.target_s for t in terms if not t.stand_in]
    stand_in = [t.target_s * STAND_IN_EFFICIENCY for t in terms if t.stand_in]
    return max([efficiency * max(kept, default=0.0), *stand_in])


def other_kernel(name: str, blocks: int | None, here: _Gpu, there: _Gpu) -> tuple[str, ...]:
    """Why the target's library would likely run another kernel (keys of ``OTHER_KERNEL``) for a library kernel
    (cuBLAS, cuDNN, CUTLASS: a tile or ``sm<NN>_`` in its name): one built for a compute capability the target cannot
    run, one whose grid is one block per source SM."""
    if not library_kernel(name):
        return ()
    out = []
    built = re.search(ARCH_IN_NAME, name)
    target = _cc(there.compute_capability)
    if built and target is not None:
        arch = (int(built[1]), int(built[2]))
        if arch > target or (arch[0] * 10 + arch[1] >= ARCH_SPECIFIC and arch[0] != target[0]):
            out.append("architecture")
    if blocks and here.sms and blocks == here.sms and there.sms != here.sms:
        out.append("persistent")
    return tuple(out)


def library_kernel(name: str) -> bool:
    """A library kernel built per architecture (cuBLAS, cuDNN, CUTLASS), by its name: its tile (``tilesize256x128x8``,
    ``128x64``) or its architecture (``sm80_``). Words such as "gemm" or "conv" do not count: users' and frameworks'
    own kernels carry them too (``conv_depthwise2d_forward_kernel``, a ``naive_gemm``)."""
    return bool(re.search(r"\d+x\d+", name) or re.search(ARCH_IN_NAME, name))


def _cc(compute_capability: str | None) -> tuple[int, int] | None:
    """"8.9" -> (8, 9); None where not given."""
    if not compute_capability or "." not in compute_capability:
        return None
    major, minor = compute_capability.split(".", 1)
    return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None


def launch_class(name: str) -> str:
    """A launch's class for its interval, by its kernel's name: conv, matmul or other."""
    lowered = name.lower()
    if any(word in lowered for word in ALGORITHM_CHOSEN):
        return "conv"
    return "matmul" if any(word in lowered for word in MATMUL) else "other"


def interval_of(name: str) -> tuple[float, float]:
    """The factors on the projection at the interval's ends (``INTERVALS``), by the launch's class."""
    return INTERVALS[launch_class(name)]


def _tail(units: Sequence[Term], blocks: int | None, sms: int, seconds: Callable[[Term], float],
          by_seconds: bool = False) -> float:
    """The busiest SM-paced unit's time (``seconds``) in whole blocks per SM on ``sms`` SMs; 0 without a grid size.
    Busiest by ``seconds`` where ``by_seconds`` (the GPU the blocks run on), else by the source's time."""
    paced = [t for t in units if t.sm_local and (t.kind == "roof" or paced_by_blocks(t.metric))]
    if not blocks or not paced:
        return 0.0
    busiest = max(paced, key=seconds if by_seconds else lambda t: t.seconds)
    return seconds(busiest) * float(whole_blocks(blocks, sms))


def translate(units: Sequence[Term], la: LaunchAnalysis, here: _Gpu, there: _Gpu) -> list[UnitTerm]:
    """Each unit term on the target (step 1 of the module docstring)."""
    out = []
    dtype = _tensor_dtype(la)
    tensor_flops = la.flops["tensor"].value if "tensor" in la.flops else None
    for t in units:
        out.append(_translate(t, dtype, here, there, tensor_flops))
    out = shared_pipe_as_its_work(split_fma_pipe(units, la, out, here, there))
    fma_there = next((u for u in out if u.key == "FMA"), None)
    if fma_there is not None and paired_fp32(here.compute_capability, there.compute_capability) \
            and library_kernel(la.launch.name):
        pipe = fma_there.target_s
        out = [UnitTerm(u.key, u.source_s, max(u.target_s - 0.5 * pipe, pipe),
                        f"{u.how}; the FP32 FMAs issued in pairs there (.f32x2): half their issue slots")
               if u.key == "issue" else u for u in out]
    out, fp16_s = fp16_on_fma_pipe(out, there.compute_capability)
    if there.shares_int is not None:
        fma = next((u for u in out if u.key == "FMA"), None)  # the whole pipe's work (``split_fma_pipe``)
        alu = next((t for t in units if t.key == "ALU"), None)
        fp32_here, int_here, fp32_there = here.rates.get("FMA"), here.rates.get("ALU"), there.rates.get("FMA")
        if fma is not None and alu is not None and fp32_here and int_here and fp32_there:
            ops = (fma.source_s * fp32_here + alu.seconds * int_here) * here.clock_hz * here.sms
            out.append(UnitTerm(SHARED, max(fma.source_s, alu.seconds),
                                ops / (fp32_there * there.clock_hz * there.sms) + fp16_s,
                                "FP32 and INT32 operations together on the target's FP32 lanes, which run both"
                                + ("; with the FP16 work, on the same lanes there" if fp16_s else "")))
    return out


def split_fma_pipe(units: Sequence[Term], la: LaunchAnalysis, out: list[UnitTerm], here: _Gpu,
                   there: _Gpu) -> list[UnitTerm]:
    """Where the source's FMA term is its heavy half (``m.PIPE_FMA_HEAVY``: CC 8.6 and later, the half of the FP32
    lanes that also runs IMAD) and the report gives the whole pipe (``m.PIPE_FMA``, which counts both halves), the
    FP32 lanes' term goes there with the whole pipe's work, and the heavy half's work, integer multiply-adds
    included, as a term of its own at the same rate per SM and clock (``FMA_HEAVY``: 64 IMAD lanes per SM on every
    compute capability from 7.0). Unchanged otherwise."""
    fma = next((t for t in units if t.key == "FMA"), None)
    whole = _pct(la, m.PIPE_FMA)
    if fma is None or not fma.metric.startswith(m.PIPE_FMA_HEAVY) or whole is None:
        return out
    heavy = fma.inputs.get("pct_of_peak")
    if not heavy or whole >= heavy:
        return out
    per_clock = (here.clock_hz * here.sms) / (there.clock_hz * there.sms)
    lanes = [u for u in out if u.key == "FMA"]
    kept = [u for u in out if u.key != "FMA"]
    for u in lanes:
        kept.append(UnitTerm(u.key, u.source_s * whole / heavy, u.target_s * whole / heavy,
                             f"{u.how}; the whole FMA pipe's work ({whole:.0f}% of its peak, both halves)"))
    kept.append(UnitTerm(FMA_HEAVY, fma.seconds, fma.seconds * per_clock,
                         f"the FMA pipe's heavy half ({heavy:.0f}% of its peak), IMAD included, at 64 lanes per SM "
                         f"on both: {here.sms} -> {there.sms} SMs"))
    return kept


def _pct(la: LaunchAnalysis, metric: str) -> float | None:
    """A breakdown unit's percent of peak in the launch (None: not listed)."""
    return next((u.pct for u in busy_units(la.launch) if u.metric.startswith(metric + ".")), None)


def fp16_on_fma_pipe(out: list[UnitTerm], target_cc: str | None) -> tuple[list[UnitTerm], float]:
    """Where the target runs FP16 on its FMA pipes (from ``architecture/throughput.yaml`` ``fp16_on_fma_from``: GA10x,
    Ada, Hopper and later) and the source had an FP16 pipe of its own (7.x, 8.0), the FMA and FP16 terms there both
    take the sum of their times: their work shares the pipes (the tail reads either by key). Also the FP16 time
    added (0: unchanged)."""
    entry = _throughput().get("fp16_on_fma_from")
    since, tgt = (_cc(str(entry["value"])) if isinstance(entry, dict) and "value" in entry else None), _cc(target_cc)
    fp16 = next((u for u in out if u.key == "FP16"), None)
    fma = next((u for u in out if u.key == "FMA"), None)
    if since is None or tgt is None or tgt < since or fp16 is None or fma is None or not fp16.target_s:
        return out, 0.0
    both = fma.target_s + fp16.target_s
    how = "on the FMA pipes there, with the other's work"
    return [UnitTerm(u.key, u.source_s, both, f"{u.how}; {how}") if u.key in ("FMA", "FP16") else u
            for u in out], fp16.target_s


def paired_fp32(source_cc: str | None, target_cc: str | None) -> bool:
    """Whether the target issues FP32 FMAs two to an instruction (``.f32x2``, from the compute capability of
    ``architecture/throughput.yaml`` ``fp32_pairs_from``) where the source does not: then an FMA-pipe instruction
    of the source takes half an issue slot there, ``T'_issue = max(T'_issue - T'_FMA / 2, T'_FMA)``."""
    entry = _throughput().get("fp32_pairs_from")
    since = _cc(str(entry["value"])) if isinstance(entry, dict) and "value" in entry else None
    src, tgt = _cc(source_cc), _cc(target_cc)
    return since is not None and src is not None and tgt is not None and src < since <= tgt


def unit_key(t: Term) -> str:
    """A time-model term's key on both GPUs (``UnitTerm.key``): a roof term by the unit its work goes at."""
    return ROOF_UNITS.get(t.metric, t.key) if t.kind == "roof" else t.key


def shared_pipe_as_its_work(out: list[UnitTerm]) -> list[UnitTerm]:
    """The shared pipe's term at the rate of the FP64 work it carries: it runs FP64, FP16 or Tensor work, by GPU
    (``metrics.SHARED_PIPE_PRECISIONS``); where its time is the FP64 pipe's (a V100's FP64 kernels: both at 70.3%
    of their peaks in v100_miniweather-openacc_full), the FP64 rate per SM and clock there paces it, not one rate
    for every GPU (a data-centre FP64 rate against a GeForce's 1/64). Tensor and FP16 work keep the same rate per SM
    and clock: taking the Tensor ratio made the development data's leave-one-GPU-out error 1.9 points worse (a
    shared pipe over elapsed cycles is paced by whole blocks, the Tensor pipe's term is not)."""
    shared = next((u for u in out if u.key == SHARED_PIPE), None)
    fp64 = next((u for u in out if u.key == "FP64" and u.source_s > 0 and not u.stand_in), None)
    if shared is None or fp64 is None or abs(shared.source_s - fp64.source_s) > SAME_PIPE * shared.source_s:
        return out
    busiest = fp64
    ratio = busiest.target_s / busiest.source_s
    moved = UnitTerm(shared.key, shared.source_s, shared.source_s * ratio,
                     f"the work it carries: as the {busiest.key} term, x{ratio:.3g}")
    return [moved if u is shared else u for u in out]


def _translate(t: Term, dtype: str, here: _Gpu, there: _Gpu, tensor_flops: float | None = None) -> UnitTerm:
    key = unit_key(t)
    if key == "DRAM" or t.metric.startswith(("dram__", "fbpa__")):
        if here.dram and there.dram:
            return UnitTerm(key, t.seconds, t.seconds * here.dram / there.dram,
                            f"the same fraction of the achievable DRAM bandwidth: {here.dram / 1e9:.0f} -> "
                            f"{there.dram / 1e9:.0f} GB/s")
        if here.dram_datasheet and there.dram_datasheet:  # one kind on both sides: the datasheets
            return UnitTerm(key, t.seconds, t.seconds * here.dram_datasheet / there.dram_datasheet,
                            f"no achievable DRAM bandwidth on {_lacking(here, there)}: the "
                            f"same fraction of the datasheet DRAM bandwidth, {here.dram_datasheet / 1e9:.0f} -> "
                            f"{there.dram_datasheet / 1e9:.0f} GB/s")
        return UnitTerm(key, t.seconds, t.seconds, "no DRAM bandwidth known: kept")
    per_clock = (here.clock_hz * here.sms) / (there.clock_hz * there.sms)
    if key == "L2":
        # one kind of source on both sides: the cited bytes per clock, else the specs' own L2 bandwidths
        mine, theirs = (here.l2, there.l2) if here.l2 and there.l2 else (here.l2_spec, there.l2_spec)
        if mine and theirs:
            return UnitTerm(key, t.seconds, t.seconds * mine / theirs,
                            f"cited L2 bandwidths at the clocks: {mine / 1e9:.0f} -> {theirs / 1e9:.0f} GB/s")
        return UnitTerm(key, t.seconds, t.seconds * per_clock, "L2 bytes at the same rate per SM and clock")
    rate_key = f"tensor_{dtype}" if key == "tensor" else key
    mine, theirs = here.rates.get(rate_key), there.rates.get(rate_key)
    lanes, lane_words = STAND_IN_LANES.get(dtype, STAND_IN_LANES[""])
    if key == "tensor" and mine and not theirs and there.rates.get(lanes):  # no Tensor Cores of this type there
        flops = tensor_flops or t.seconds * mine * here.clock_hz * here.sms
        return UnitTerm(key, t.seconds, flops / (2.0 * there.rates[lanes] * there.clock_hz * there.sms),
                        f"{no_tensor_figure(there.spec_id, dtype)}: its Tensor FLOPs on the {lane_words}; its "
                        "library would likely run another algorithm there", stand_in=True, runs_on=lane_words)
    if key == "tensor" and mine and theirs:
        at = there.tensor_clock(dtype, there.clock_hz, tensor_over(here, dtype))
        capped = f", at most the {at / 1e9:.3g} GHz its figure holds at" if at < there.clock_hz else ""
        return UnitTerm(key, t.seconds, t.seconds * here.clock_hz * here.sms * mine / (at * there.sms * theirs),
                        f"{mine:g} -> {theirs:g} per SM and clock, {here.sms} -> {there.sms} SMs{capped}")
    if mine and theirs:
        return UnitTerm(key, t.seconds, t.seconds * per_clock * mine / theirs,
                        f"{mine:g} -> {theirs:g} per SM and clock, {here.sms} -> {there.sms} SMs")
    return UnitTerm(key, t.seconds, t.seconds * per_clock, "the same rate per SM and clock")


def _lacking(here: _Gpu, there: _Gpu) -> str:
    """The GPUs of a projection without an achievable DRAM bandwidth, by spec id."""
    return " and ".join(g.spec_id for g in (here, there) if not g.dram)


def _tensor_dtype(la: LaunchAnalysis) -> str:
    """The Tensor Core type of most of the launch's Tensor FLOPs (the ceilings' type where none are counted)."""
    by_type = {k: v for k, v in la.tensor_flops_by_type.items() if v}
    if by_type:
        return max(by_type, key=lambda k: by_type[k])
    ceilings = la.ceilings.get("kernel-clock")
    return (ceilings.tensor_dtype if ceilings is not None else None) or "fp16"


def _gpu(spec: DeviceSpec, clock_hz: float, dram: float | None, sms: int | None = None) -> _Gpu:
    """A GPU's facts for the translation, at ``clock_hz``."""
    per_clock = l2_bytes_per_clock(spec)
    own = spec.l2_bytes_per_s * clock_hz / spec.boost_clock_hz if spec.l2_bytes_per_s else None
    return _Gpu(spec.id, sms or spec.sm_count, clock_hz, unit_rates(spec), shared_int_lanes(spec.compute_capability),
                dram, per_clock * clock_hz if per_clock else None, spec.compute_capability, own,
                spec.memory_bandwidth_bytes_per_s or None, spec.boost_clock_hz,
                {k.removeprefix("tensor_"): spec.clock_of("tensor", k.removeprefix("tensor_"))
                 for k, v in spec.peaks.items() if k.startswith("tensor_") and v})


def l2_bytes_per_clock(spec: DeviceSpec) -> float | None:
    """The whole L2's bytes per SM clock (``architecture/throughput.yaml`` ``l2_bytes_per_clock``: the cited figure
    of the spec's compute capability, times its L2 size over the size the figure is for); None where none is cited
    or the spec gives no L2 size."""
    table = _throughput().get("l2_bytes_per_clock")
    entry = table.get(spec.compute_capability or "") if isinstance(table, dict) else None
    if not isinstance(entry, dict) or not spec.l2_bytes:
        return None
    value, size = entry.get("value"), entry.get("l2_mib")
    if not isinstance(value, int | float) or not isinstance(size, int | float) or size <= 0:
        return None
    return float(value) * spec.l2_bytes / (float(size) * 2**20)


def unit_rates(spec: DeviceSpec) -> dict[str, float]:
    """Operations per SM and clock of each time-model unit on a GPU: FMA (FP32 lanes), FP64 (lanes), FP16 (HFMA2
    lanes), each Tensor Core type (FLOPs), ALU (integer lanes), and 1 for the units the same per SM and clock
    everywhere."""
    from roofline.specs.architecture import integer_lanes

    per = spec.sm_count * spec.boost_clock_hz
    rates = {u: 1.0 for u in _same_per_sm()}
    rates["FMA"] = spec.peaks["fp32"] / (2.0 * per)
    if spec.peaks.get("fp64"):
        rates["FP64"] = spec.peaks["fp64"] / (2.0 * per)
    if spec.peaks.get("fp16"):  # HFMA2 thread instructions: 4 FLOP each (without it, the same per SM: _translate)
        rates["FP16"] = spec.peaks["fp16"] / (4.0 * per)
    for key, value in spec.peaks.items():
        if key.startswith("tensor_") and value:
            dtype = key.removeprefix("tensor_")
            rates[key] = value / (spec.sm_count * spec.clock_of("tensor", dtype))
    lanes = integer_lanes(spec.compute_capability)
    if lanes is not None:
        rates["ALU"] = lanes.per_sm
    return rates


@functools.cache
def _throughput() -> dict[str, object]:
    from roofline.specs import safe_yaml
    from roofline.specs.architecture import ARCHITECTURE_FOLDER
    from roofline.specs.catalog import builtin_folder

    data = safe_yaml.load_yaml(builtin_folder() / ARCHITECTURE_FOLDER / THROUGHPUT_FILE)
    return data if isinstance(data, dict) else {}


def _same_per_sm() -> tuple[str, ...]:
    listed = _throughput().get("same_per_sm")
    return tuple(str(u) for u in listed) if isinstance(listed, list) else ()


def shared_int_lanes(compute_capability: str | None) -> float | None:
    """The FP32 lanes that also run INT32 on a compute capability (GA10x, Ada); None where INT32 has its own."""
    table = _throughput().get("fp32_shares_int32")
    entry = table.get(compute_capability or "") if isinstance(table, dict) else None
    return float(entry["value"]) if isinstance(entry, dict) and isinstance(entry.get("value"), int | float) else None


def speedup_text(p: WorkloadProjection) -> str:
    """The total in words, for a basis line."""
    if not p.launches or p.measured_s is None or p.projected_s is None or p.low_s is None or p.high_s is None \
            or p.clock_hz is None:
        return p.reason
    return (f"{len(p.launches)} launch groups, {sum(x.count for x in p.launches)} launches: "
            f"{p.measured_s * 1e3:.4g} ms -> {p.projected_s * 1e3:.4g} ms [{p.low_s * 1e3:.4g}, "
            f"{p.high_s * 1e3:.4g}] at the {p.clock} clock {p.clock_hz / 1e9:.3g} GHz")
