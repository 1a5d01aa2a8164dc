"""A kernel's time on another GPU, projected from its measured time, work and verdict (``project``): the model of
``roofline project`` and ``compare --project-to``, one place for each of its formulas. Pure functions; no I/O.

The time per launch on the target at the clock chosen (its boost, as users run it, or the base clock ncu locks:
the time ncu would measure there), from the median launch time ``t`` on the source:

1. **Governing resource** ``r`` (``analysis.work.governing``, from the verdict's busiest unit): DRAM, L2 or L1
   bytes, the FLOPs of a precision, instructions, latency (a latency-bound kernel) or the launch (a small grid).
2. **Scaling of the governing resource**, after Habitat's roofline wave scaling (Yu et al., "Habitat: A
   Runtime-Based Computational Performance Predictor for Deep Neural Network Training", USENIX ATC'21, section 4:
   a kernel keeps its share of the resource that bounds it, so its time scales by the ratio of that resource's peak;
   11.8% mean error over six GPUs in the paper): ``t x P_src(r) / P_tgt(r)``, ``P`` the datasheet peak of ``r``
   (FLOP/s of the precision, bytes/s of the level). Where a datasheet gives no peak for ``r`` (L1 and L2 in most
   specs, instructions in all), ``P`` is taken proportional to SMs x clock (step 3): the same rate per SM and clock on
   both GPUs; a kernel whose FP64 pipe is its busiest unit scales by the FP64 peaks (its conversions run at that
   rate too: 1/64 of FP32 on a GeForce, 1/2 on a data-centre board), and Tensor work of a type the target lacks
   (TF32 on Turing) meets the target's FP32 roof. A latency-bound kernel's warps wait with no unit near its
   peak, and a small grid leaves SMs idle: each SM works through its share of the blocks at a rate their latencies
   set, so ``P`` is SMs x clock as above, and step 4 keeps a grid that fits in one round of blocks on both GPUs at
   the clock alone (more SMs do not shorten one block's latency) and gives one that needs more rounds there its
   rounds. A DRAM- or L2-bound kernel is limited by the bytes its SMs keep in flight as well as by the bandwidth
   (Little's law), continuously (``_in_flight``: a smooth minimum of both, no cliff at ncu's 80% mark): far below
   the peak it gets no faster than the SM count allows, at the peak it scales by the bandwidths (the CuPy triad of
   examples/h100, 74% of DRAM, runs in about the same time on the H200's 43% more bandwidth).
3. **Clocks.** The source's time is at the SM clock ncu measured (``metrics.sm_clock_hz`` of the median launch:
   ``sm__cycles_elapsed.avg.per_second``, the GPC clock in a basic set; ncu locks the clocks to base while it
   profiles, ``--clock-control base`` by default, Nsight Compute CLI documentation, "Clock Control"). The
   projection is for the target at the clock ``clock`` names: ``sustained`` (what ``project`` and ``compare``
   choose by default: the clock a loaded GPU holds, ``specs.achievable.sustained_clock``), ``boost`` (the boost
   clock of its spec; this module's default, for its formulas' tests) or ``base`` (the SM clock ncu locks there,
   the spec's ``base_clock_hz``: the time ``ncu`` would measure on it). The datasheet peaks of both GPUs are at
   boost, so a resource the SM clock paces (FLOPs, instructions, L1 and L2 bytes, latency) is scaled by
   ``(f_src / boost_src) / (f_tgt / boost_tgt)`` besides step 2's ratio; Tensor work timed against datasheet
   Tensor figures takes each figure's own clock in place of the boost (``DeviceSpec.clock_of``: the H100 SXM5's
   FP16 figure holds at 1830 MHz, its FP64 one at the 1980 MHz boost), ``ClockUse.tensor_factor``; the target's
   Tensor work at most at that clock (above it the work would beat the datasheet figure), or as far above it as
   the source ran above its own figure's clock (``ClockUse.tensor_cap_hz``). DRAM bandwidth
   is the memory's own and takes no clock factor. A kernel that ran below the source's locked base clock
   (``base_clock_hz`` of its spec) was held there by power (the Tensor Core GEMMs of examples/h100 ran at 1.28-1.34
   GHz under a 1.58 GHz base): it keeps that share of the chosen clock on the target, ``f_tgt = clock x min(1,
   f_src / base_src)``. Where the report gives no SM clock both GPUs are taken at the same fraction of their boost
   clocks (factor 1), and the basis says so. The roofline bound (step 5) takes the target's roofs at the chosen
   clock. A kernel whose blocks ask for more shared memory than a block may have on the target cannot launch there
   as built (``shared_memory_fit``): the time is that of a build that fits, and the output says so.
3b. **L2 size** (``l2_term``). The DRAM bytes ``D`` a kernel moves depend on the L2 that filters its L2 requests
   (``L`` bytes, ``bytes.l2``). Its working set is taken as ``W = D`` (every DRAM byte a distinct byte: the unique
   footprint where the source's L2 held it, ``W <= S_src``). Of the reuse the source's L2 served, ``L - D``, the
   share that no longer fits the target's L2 misses there: ``D_t = D + (L - D) x (1 - min(W, S_tgt) / min(W,
   S_src))`` where ``S_tgt < min(W, S_src)``; bounded below by ``D`` (all still fits) and above by ``L`` (every
   request misses), and those two bound the interval. On a larger L2 the bytes could fall toward the unique
   footprint only where the source's L2 was too small for ``W`` (``W > S_src``), and the report does not hold that
   footprint: ``D`` is kept, and the term says so. A DRAM-governed time scales by ``D_t / D``; the roofline bound
   takes ``D_t``. L2 sizes: the report's ``device__attribute_l2_cache_size`` and the target spec's ``l2_bytes``.
4. **Wave quantisation.** A grid runs in ``ceil(w)`` waves of blocks, ``w`` = waves per SM
   (``launch__waves_per_multiprocessor``); on the target, with as many blocks resident per SM (the same occupancy),
   ``w_t = w x SM_src / SM_tgt``. Step 2 scales the continuous ``w``, so the time is multiplied by the tail's
   weight ``(ceil(w_t) / w_t) / (ceil(w) / w)``; for the resources of the SMs only (FLOPs, instructions, L1, and
   latency and small grids: their rounds of blocks): DRAM and L2 bandwidth belong to the whole chip.
5. **Floor.** No kernel is projected below ``LAUNCH_FLOOR_S``, the shortest launch ncu measured in any report this
   project has (``analysis.time_model``), nor below its measured work at the target's datasheet peaks (the
   roofline bound: every FP and byte term at the target's peak per unit), nor, where another resource governs,
   below the work of its other busy units there: the busiest other unit inside the SMs at the target's rate per SM
   and clock, and the DRAM (its percent of peak in the breakdown x ``t``, with the L2 term's bytes) at the target's
   datasheet bandwidth.
6. **Interval** ``[t' / BAND, t' x BAND]``, ``BAND`` by how much of the model is assumed (``BANDS``), widened by the
   L2 term's range for a DRAM-governed kernel, its low end no lower than the floor or the roofline bound (the
   measured work against the target's roofs at the chosen clock).

The roofline bound is kept beside the projection: the most the target could gain on the measured work.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.kernels import REFERENCE_S, KernelStats, per_launch, roof_time
from roofline.analysis.results import Value
from roofline.analysis.roofline import roof_position
from roofline.analysis.work import LATENCY, LAUNCH, governing
from roofline.core.choices import TargetClock, one_of
from roofline.core.labels import NAMES, measure_label
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, Device
from roofline.core.resources import DRAM_BYTES, FP64_FLOPS, L1_BYTES, TENSOR_FLOPS, Resource
from roofline.core.thresholds import CLOCK_TOLERANCE, LAUNCH_FLOOR_S
from roofline.core.units import seconds, si
from roofline.errors import RooflineError
from roofline.ncu.metrics import FP64_PIPE, LAUNCH_SHARED

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    from roofline.specs.catalog import DeviceSpec

# How far the measured time can be from the projection, as a factor either way: where the datasheet gives the
# governing peak on both GPUs ("datasheet"); where a rate per SM and clock is assumed ("per SM"); for a
# latency-bound kernel ("latency") or a small grid ("launch"), whose time neither the clock nor the SMs alone set
# (the memory latency is the memory's own, a block's work is what the tiling made it); where the projection was
# raised to another resource's time there (the measured work at the target's peaks, another unit), whose latency
# the projection does not model either ("another resource sets it").
RAISED = "another resource sets it"
# The resources no unit's peak sets, scaled by their rounds of blocks per SM and clock (step 2), and their words
_ROUNDS = {LATENCY: "latency bound, its blocks", LAUNCH: "small grid, its blocks"}
BANDS = {"datasheet": 1.25, "per SM": 1.5, LATENCY: 2.0, LAUNCH: 2.0, RAISED: 2.0}
# How sharply a kernel's rate turns from the bytes-in-flight limit to the bandwidth limit (the p of a smooth minimum,
# ``_in_flight``): 3 puts the three triads of examples/h100 and examples/h200 (74%, 82% and 92% of the H100's DRAM
# peak) within 12% of their measured H200 times; 1 (harmonic) and a hard minimum miss the 74% one by 20% or more.
# The per-launch model takes the same constant against the achievable bandwidth (``projection_launches.in_flight``).
IN_FLIGHT_SHARPNESS = 3.0


class ClockUse(Struct, frozen=True):
    """The clocks a projection assumes (step 3): the target's (``choice`` boost or base, ``target_hz``, its boost
    ``target_boost_hz``), the source's as ncu measured it (``source_hz``; None: not in the report) against its boost
    and its base (``source_base_hz``, the spec's, None where it gives none), the share of the chosen clock the
    kernel keeps there (``share``: below 1 where the source ran under its locked base, held there by power), and the
    factor on the resources the SM clock paces."""

    choice: TargetClock
    target_hz: float
    target_boost_hz: float
    source_hz: float | None
    source_boost_hz: float | None
    factor: float
    source_base_hz: float | None = None
    share: float = 1.0
    source_tensor_hz: float | None = None  # the clock the source spec's Tensor figure holds at, where not its boost
    target_tensor_hz: float | None = None  # the same on the target

    @property
    def tensor_factor(self) -> float:
        """The factor on Tensor work timed against datasheet Tensor figures, each of which holds at its spec's
        Tensor clock (``DeviceSpec.clock_of``): the source's measured clock over its figure's clock, over the
        target's chosen clock (at the share the source kept, at most ``tensor_cap_hz``) over its figure's clock."""
        if self.source_hz is None or not self.source_boost_hz:
            return self.factor
        figure = self.target_tensor_hz or self.target_boost_hz
        there = min(self.target_hz * self.share, self.tensor_cap_hz) / figure
        return (self.source_hz / (self.source_tensor_hz or self.source_boost_hz)) / there

    @property
    def tensor_cap_hz(self) -> float:
        """The most the target's Tensor work runs at: the clock its figure holds at (above it the work would beat
        the datasheet's peak), or above it by the share the source ran above its own figure's clock (measured: a
        load light enough to hold more)."""
        figure = self.target_tensor_hz or self.target_boost_hz
        if self.source_hz is None or not self.source_boost_hz:
            return figure
        return figure * max(1.0, self.source_hz / (self.source_tensor_hz or self.source_boost_hz))

    @property
    def text(self) -> str:
        """The clocks in words, for the basis."""
        there = f"{self.choice} clock {self.target_hz / 1e9:.3g} GHz on the target"
        if self.source_hz is None or not self.source_boost_hz:
            return f"{there}; the source's clock not in the report: both at the same share of boost"
        held = (f" x {self.share:.3g}, the share of its {self.source_base_hz / 1e9:.3g} GHz base the source kept"
                if f"{self.share:.3g}" != "1" and self.source_base_hz else "")  # a share that reads as 1 is none
        return (f"{there}{held}; the source at {self.source_hz / 1e9:.3g} GHz (measured; boost "
                f"{self.source_boost_hz / 1e9:.3g})")

    def tensor_text(self) -> str:
        """The clocks in words for Tensor work: the Tensor clocks that differ from the boosts."""
        clocks = [f"{who} Tensor figure at {hz / 1e9:.3g} GHz" for who, hz in
                  (("the target's", self.target_tensor_hz), ("the source's", self.source_tensor_hz)) if hz]
        return self.text + (f"; {', '.join(clocks)}" if clocks else "")


class L2Term(Struct, frozen=True):
    """Step 3b, per launch: the DRAM bytes ``dram_bytes`` (D) and L2 request bytes ``l2_bytes`` (L) measured, the
    working set taken (W = D), both L2 sizes, and the DRAM bytes on the target (``dram_there``, between ``low`` and
    ``high``); ``note`` says which case applies."""

    dram_bytes: float
    l2_bytes: float
    working_set_bytes: float
    source_l2_bytes: int
    target_l2_bytes: int
    dram_there: float
    low: float
    high: float
    note: str
    factor: float = 1.0  # DRAM bytes there over here (``l2_term``)


class SharedMemoryFit(Struct, frozen=True):
    """Whether the kernel as built can launch on the target: the shared memory its blocks ask for (the source
    driver's reserve per block left out) against the most a block may have there (``compute_capability``'s opt-in
    limit)."""

    need_bytes: int
    limit_bytes: int
    compute_capability: str

    @property
    def fits(self) -> bool:
        return self.need_bytes <= self.limit_bytes


class Projection(Struct, frozen=True):
    """A kernel's time per launch projected onto another GPU (``projected_s`` in ``[low_s, high_s]``), how
    (``basis``), and the roofline lower bound of its measured work on that GPU with the gain it leaves."""

    target: str
    projected_s: Value
    low_s: Value
    high_s: Value
    basis: str
    governing: str | None
    bound_s: Value  # roofline lower bound: T_roof of the measured work against the target's datasheet roofs
    limiter: str | None
    left_out: tuple[str, ...]
    max_speedup: Value  # measured time per launch / bound: the most the target could gain
    clock: ClockUse | None = None
    l2: L2Term | None = None
    l2_reason: str = ""  # why there is no L2 term, where ``l2`` is None
    shared_memory: SharedMemoryFit | str = "not checked"  # the blocks' shared memory there, or why it is not checked


def project(stats: KernelStats, source: Device, spec: DeviceSpec, clock: TargetClock = "boost",
            there_hz: float | None = None, source_spec: DeviceSpec | None = None) -> Projection:
    """The kernel's time per launch on ``spec``'s GPU at its ``clock`` (see the module docstring), with the roofline
    bound. ``there_hz``: the target's clock where ``clock`` is base and the spec gives none (the SM clock ncu
    measured there, from a report of the target); ``source_spec``: the source GPU's spec (its base clock, the
    clock of its Tensor figures)."""
    from roofline.specs.catalog import spec_ceilings

    clocks = clock_use(stats, source, spec, clock, there_hz, source_spec)
    l2, l2_reason = l2_term(stats, source, spec)
    peaks = _without_missing_tensor_type(spec_ceilings(spec, stats.ceilings.tensor_dtype), stats, spec)
    target = _at_clock(peaks, clocks) if isinstance(clocks, ClockUse) else peaks
    moved = _with_dram(stats, l2.dram_there if l2 else None)
    bound = per_launch(roof_time(stats.flops, moved, target), stats.count)
    limiter = roof_position(stats.flops, moved, REFERENCE_S, target, shown_pct=0.0).limiter
    gain = _ratio(stats.per_launch_s, bound)
    resource = _fp64_pipe(stats) or governing(stats.verdict, stats.roof)
    t = stats.median_s.value
    scale = _scale(resource, stats, source, spec, peaks) if t is not None else \
        f"no launch time: {stats.median_s.reason}"
    if isinstance(clocks, str):
        scale = clocks
    if t is None or isinstance(scale, str) or isinstance(clocks, str):
        why = Value(None, str(scale))
        return Projection(spec.id, why, why, why, why.reason, resource, bound, limiter, _left_out(stats, target), gain,
                          None, l2, l2_reason, shared_memory_fit(stats, source, spec))
    ratio, how, band = scale
    ratio, how = _in_flight(resource, stats, source, spec, ratio, how)
    paced = _paced(resource)
    tensor = resource == TENSOR_FLOPS and band == "datasheet"  # Tensor figures hold at their own clocks
    factor = (clocks.tensor_factor if tensor else clocks.factor) if paced else 1.0
    ratio *= factor
    per_sm = resource in ("instructions", L1_BYTES, *_ROUNDS) or Resource.of(resource).kind == "flops"
    waves, wave_text = _waves(stats.verdict.waves_per_sm, source, spec) if per_sm else (1.0, "")
    dram = l2.factor if l2 is not None and resource == DRAM_BYTES else 1.0
    scaled = t * ratio * waves * dram
    others, other_unit = max(_other_units(stats, source, spec, resource, t, clocks),
                             _dram_work(stats, peaks, resource, t * (l2.factor if l2 is not None else 1.0)))
    projected = max(scaled, LAUNCH_FLOOR_S, bound.value or 0.0, others)
    if projected > scaled * (1.0 + 1e-9):  # another term sets the time there: its latency is not modelled
        band = LAUNCH if projected == LAUNCH_FLOOR_S else RAISED
    spread = (l2.low / l2.dram_there, l2.high / l2.dram_there) if dram != 1.0 and l2 is not None else (1.0, 1.0)
    low = max(projected * spread[0] / BANDS[band], LAUNCH_FLOOR_S, bound.value or 0.0)
    high = max(projected * spread[1] * BANDS[band], low)
    basis = "; ".join(x for x in (
        f"{seconds(t)} measured x {ratio:.3g} ({how}"
        + (f"; x {factor:.3g} clocks: {clocks.tensor_text() if tensor else clocks.text})"
           if abs(factor - 1) > 1e-3 else ")"),
        wave_text,
        f"x {dram:.3g} DRAM bytes, L2 size: {l2.note}" if dram != 1.0 and l2 is not None else "",
        f"floor {seconds(LAUNCH_FLOOR_S)} (the shortest launch measured)" if scaled < LAUNCH_FLOOR_S else "",
        f"raised to {seconds(bound.value)}, its measured work at the target's peaks ({limiter})"
        if bound.value is not None and bound.value > max(scaled, LAUNCH_FLOOR_S, others) else "",
        f"raised to {seconds(others)}, {other_unit}"
        if others > max(scaled, LAUNCH_FLOOR_S, bound.value or 0.0) else "",
        f"interval: times or divided by {BANDS[band]:g} ({band})"
        + (", and the DRAM bytes between all fitting and every L2 request missing" if spread != (1.0, 1.0) else ""))
        if x)
    return Projection(spec.id, Value(projected, via=basis), Value(low), Value(high), basis, resource, bound, limiter,
                      _left_out(stats, target), gain, clocks, l2, l2_reason, shared_memory_fit(stats, source, spec))


def shared_memory_fit(stats: KernelStats, source: Device, spec: DeviceSpec) -> SharedMemoryFit | str:
    """The shared memory the kernel's blocks ask for (``launch__shared_mem_per_block`` less the source driver's
    reserve per block, a device attribute) against the target's opt-in limit per block; or why it is not checked."""
    from roofline.specs.architecture import shared_memory_optin

    limit = shared_memory_optin(spec.compute_capability)
    reserve = source.attributes.get("reserved_shared_memory_per_block")
    if stats.shared_mem_per_block_bytes is None:
        return f"not checked: the report gives no shared memory per block ({LAUNCH_SHARED})"
    if not isinstance(reserve, int | float):
        return "not checked: the report gives no reserved shared memory per block (a device attribute)"
    if limit is None:
        return (f"not checked: no shared memory limit listed for compute capability {spec.compute_capability} "
                "(device_specs/architecture/limits.yaml)")
    return SharedMemoryFit(stats.shared_mem_per_block_bytes - int(reserve), limit, spec.compute_capability)


def clock_use(stats: KernelStats, source: Device, spec: DeviceSpec, clock: TargetClock = "boost",
              there_hz: float | None = None, source_spec: DeviceSpec | None = None) -> ClockUse | str:
    """The clocks of step 3, or why there are none (base chosen, and neither the spec nor ``there_hz`` gives it)."""
    dtype = stats.ceilings.tensor_dtype or ""
    tensors = (source_spec.tensor_figure_clock(dtype) if source_spec is not None else None,
               spec.tensor_figure_clock(dtype))  # the clocks the Tensor figures hold at, where not the boosts
    source_base_hz = source_spec.base_clock_hz if source_spec is not None else None
    if clock == "base":
        target_hz = spec.base_clock_hz or there_hz
        if target_hz is None:
            return (f"no projection at the base clock: the spec {spec.id} gives no base_clock_hz (add it with its "
                    "source, device_specs/README.md, or use --clock boost)")
    elif clock == "sustained":
        from roofline.specs.achievable import sustained_clock

        target_hz = sustained_clock(spec).value
    else:
        target_hz = spec.boost_clock_hz
    measured, boost = stats.sm_clock_hz.value, source.max_clock_hz
    if not measured or not boost:
        return ClockUse(clock, target_hz, spec.boost_clock_hz, measured, boost, 1.0, source_base_hz, 1.0, *tensors)
    share = held_share(measured, source_base_hz)
    factor = (measured / boost) / (target_hz * share / spec.boost_clock_hz)
    return ClockUse(clock, target_hz, spec.boost_clock_hz, measured, boost, factor, source_base_hz, share, *tensors)


def held_share(measured_hz: float, base_hz: float | None) -> float:
    """The share of its locked base clock a launch kept, held below it by power or heat: 1 within
    ``CLOCK_TOLERANCE`` of the base (locked to it, as ``grade`` reads the clock), or without a base."""
    if not base_hz or measured_hz >= base_hz * (1.0 - CLOCK_TOLERANCE):
        return 1.0
    return measured_hz / base_hz


def require_clock(spec: DeviceSpec, clock: TargetClock) -> None:
    """RooflineError (one line) for a clock that is none of ``TargetClock``'s, or base where the target's spec gives
    no base clock."""
    one_of("clock", clock, TargetClock)
    if clock == "base" and spec.base_clock_hz is None:
        raise RooflineError(f"--clock base: the spec {spec.id} ({spec.path}) gives no base_clock_hz",
                            "add it with its source (device_specs/README.md), or use --clock boost (clock='boost' in "
                            "Python)")


def require_a_clock(specs: Sequence[DeviceSpec], clock: TargetClock) -> None:
    """RooflineError (one line) where no spec of several targets gives the clock (``require_clock``): each would
    get a row without a projection. Where one gives it, the others get that row and its reason, as under --to all."""
    refused = []
    for spec in specs:
        try:
            require_clock(spec, clock)
            return
        except RooflineError as e:
            refused.append(e)
    if refused:
        raise RooflineError(f"--clock {clock}: none of the specs {', '.join(s.id for s in specs)} gives a "
                            f"{clock}_clock_hz", refused[0].hint)


def _paced(resource: str | None) -> bool:
    """Whether the SM clock paces a resource (everything but DRAM bandwidth)."""
    return resource is not None and resource != DRAM_BYTES


def _at_clock(target: Ceilings, clocks: ClockUse) -> Ceilings:
    """The target's roofs at the projection's clock: FLOP, L1 and L2 roofs scaled from boost, the Tensor roof from
    the clock its figure holds at; DRAM unchanged."""
    share = clocks.target_hz / clocks.target_boost_hz
    tensor = min(clocks.target_hz, clocks.tensor_cap_hz) / (clocks.target_tensor_hz or clocks.target_boost_hz)
    if abs(share - 1.0) < 1e-9 and abs(tensor - 1.0) < 1e-9:
        return target
    flops = {k: v * (tensor if k == "tensor" else share) if v else v for k, v in target.flop_per_s.items()}
    return replace(target, flop_per_s=flops,
                   bytes_per_s={k: v * share if v and k != "dram" else v for k, v in target.bytes_per_s.items()})


def l2_term(stats: KernelStats, source: Device, spec: DeviceSpec) -> tuple[L2Term | None, str]:
    """Step 3b: the DRAM bytes per launch on the target's L2, or why not (see the module docstring)."""
    d, r = stats.bytes["dram"].value, stats.bytes["l2"].value
    s_src, s_tgt = source.l2_cache_bytes, spec.l2_bytes
    if d is None or r is None:
        return None, f"no L2 term: {'DRAM' if d is None else 'L2'} bytes not measured"
    if not s_src or not s_tgt:
        return None, f"no L2 term: no L2 size for the {'source (report)' if not s_src else 'target (spec)'}"
    d, r = d / stats.count, r / stats.count
    if not d:
        return None, "no L2 term: no DRAM bytes"
    w = d
    reuse = max(0.0, r - d)
    held_src, held_tgt = min(w, s_src), min(w, s_tgt)
    if held_tgt < held_src:
        there = d + reuse * (1.0 - held_tgt / held_src)
        held = (f"working set {si(w, 'B')} (its DRAM bytes) in the source's {si(s_src, 'B')} L2" if w <= s_src else
                f"the source's {si(s_src, 'B')} L2 held part of the {si(w, 'B')} it moved from DRAM")
        note = (f"{held}; on the target's {si(s_tgt, 'B')}, {1 - held_tgt / held_src:.0%} of the "
                f"{si(reuse, 'B')} of L2 requests it served beyond the DRAM bytes ({si(r, 'B')} - {si(d, 'B')}) "
                "miss")
        return L2Term(d, r, w, s_src, s_tgt, there, d, max(r, d), note, there / d), ""
    if w > s_src and s_tgt > s_src and reuse > 0:
        note = (f"working set over {si(s_src, 'B')} on the source: on the {si(s_tgt, 'B')} L2 the DRAM bytes may "
                "fall toward the unique footprint, which the report does not give; kept")
        return L2Term(d, r, w, s_src, s_tgt, d, d, d, note), ""
    fits = "fits both L2s" if w <= s_tgt else "no reuse for a larger L2 to keep"
    return L2Term(d, r, w, s_src, s_tgt, d, d, d, f"working set {si(w, 'B')} {fits}: DRAM bytes kept"), ""


def _with_dram(stats: KernelStats, dram_there: float | None) -> dict[str, Value]:
    """The kernel's bytes with the DRAM bytes of the L2 term (per launch there, so summed over its launches)."""
    if dram_there is None:
        return dict(stats.bytes)
    return {**stats.bytes, "dram": Value(dram_there * stats.count, via="DRAM bytes on the target's L2 (L2 term)")}


def _other_units(stats: KernelStats, source: Device, spec: DeviceSpec, resource: str | None,
                 t: float, clocks: ClockUse) -> tuple[float, str]:
    """The largest of the other busy units inside the SMs (the verdict's top units but the governing one) on the
    target: its time at its peak, ``pct / 100 x t``, at the target's rate per SM and clock; the governing unit
    scaled by its own peak can fall below them (an FP64 pipe 32 times faster leaves the issue slots). (0, "") where
    not known."""
    if not source.sm_count or not source.max_clock_hz or resource in (None, LAUNCH, LATENCY):
        return 0.0, ""
    rate = _sm_rate_ratio(source, spec) * clocks.factor
    busiest = stats.verdict.busiest
    inside = [u for u in stats.verdict.top_units if u.metric.split("__", 1)[0] in ("sm", "smsp", "l1tex")
              and (busiest is None or u.metric != busiest.metric)]
    if not inside:
        return 0.0, ""
    top = max(inside, key=lambda u: u.pct)
    return top.pct / 100.0 * t * rate, f"the work of the {top.name} at the target's rate per SM and clock"


def _dram_work(stats: KernelStats, target: Ceilings, resource: str | None, t: float) -> tuple[float, str]:
    """The DRAM's work on the target where it does not govern: its time at its peak here, ``pct / 100 x t`` (``t``
    with the DRAM bytes there, the L2 term), at the target's datasheet bandwidth; a kernel scaled by another resource
    (its SMs, its FLOPs) can fall below it. (0, "") where not known."""
    own = stats.datasheet.roof("dram") if stats.datasheet is not None else None
    theirs = target.roof("dram")
    if resource == DRAM_BYTES or stats.dram_pct is None or not own or not theirs:
        return 0.0, ""
    return stats.dram_pct / 100.0 * t * own / theirs, (f"the DRAM's work (at {stats.dram_pct:.0f}% of its peak "
                                                         "here) at the target's bandwidth")


def _fp64_pipe(stats: KernelStats) -> str | None:
    """"flops.fp64" where the FP64 pipe is the busiest unit: its work, conversions and moves included, runs at the
    FP64 rate, which differs 32-fold between a GeForce (1/64 of FP32) and a data-centre board (1/2); None otherwise
    (``work.governing`` decides, which calls a pipe busy beyond its FLOPs "instructions")."""
    busiest = stats.verdict.busiest
    return FP64_FLOPS if stats.verdict.bound == "compute" and busiest is not None and \
        busiest.metric.startswith(FP64_PIPE) else None


def _without_missing_tensor_type(target: Ceilings, stats: KernelStats, spec: DeviceSpec) -> Ceilings:
    """The target's roofs, its tensor roof the one the kernel's Tensor Core work runs at there where the target has
    no Tensor Cores of its type (``_stand_in``)."""
    if target.flop_per_s["tensor"] is not None or not stats.flops["tensor"].value:
        return target
    dtype = (target.tensor_dtype or "").lower()
    roof, which = _stand_in(dtype, target, spec)
    if not roof:
        return target
    return replace(target, flop_per_s={**target.flop_per_s, "tensor": roof},
                   missing={k: v for k, v in target.missing.items() if k != "tensor"},
                   scaled={**target.scaled, "tensor": f"{no_tensor_figure(spec.id, dtype)}: {which}"})


def no_tensor_figure(spec_id: str, dtype: str) -> str:
    """Why Tensor work of ``dtype`` has no Tensor roof on a target: its spec gives no figure of that type, which
    says no more than that (device_specs/README.md: a spec omits what the GPU lacks or what cannot be sourced)."""
    return f"the spec {spec_id} gives no tensor_{dtype} figure (the GPU lacks it or it is not sourced)"


def _stand_in(dtype: str, target: Ceilings, spec: DeviceSpec) -> tuple[float | None, str]:
    """The roof Tensor Core work of ``dtype`` runs at on a GPU without Tensor Cores of that type, and its words:
    FP64 on the FP64 cores (DMMA on a GPU without FP64 Tensor Cores), FP8 on the FP16 Tensor Cores (the same work
    in FP16, its bytes as the FP8 kernel moved them), any other type (TF32 on Turing) on the FP32 cores."""
    if dtype == "fp8" and spec.peaks.get("tensor_fp16"):
        return spec.peaks["tensor_fp16"], "the FP16 Tensor roof (the work in FP16, its bytes as measured in FP8)"
    precision = "fp64" if dtype == "fp64" else "fp32"
    return target.flop_per_s[precision], f"the {precision.upper()} roof"


def _scale(resource: str | None, stats: KernelStats, source: Device, spec: DeviceSpec,
           target: Ceilings) -> tuple[float, str, str] | str:
    """Time ratio target / source from the governing resource's peaks (step 2), what it compares, and its band;
    or why there is none."""
    if resource is None:
        return f"no projection: no verdict ({stats.verdict.reason or 'not decided'})"
    clocks = (source.max_clock_hz, spec.boost_clock_hz)
    group, key = Resource.of(resource)
    own = stats.datasheet.roof(key) if stats.datasheet is not None and key else None
    theirs = target.roof(key) if key else None
    if own and theirs:
        unit = "FLOP/s" if group == "flops" else "B/s"
        stand_in = target.scaled.get(key, "") if resource == TENSOR_FLOPS else ""  # ``_without_missing_tensor_type``
        return own / theirs, f"{measure_label(resource)} peak {own:.3g} -> {theirs:.3g} {unit}, datasheets" + \
            (f"; {stand_in}" if stand_in else ""), "datasheet"
    if not clocks[0] or not source.sm_count:
        lacking = "" if resource in _ROUNDS else f"no datasheet {measure_label(resource)} peak on both GPUs, and "
        return f"no projection: {lacking}the report does not give the SM count and boost clock to scale by"
    if resource in _ROUNDS:  # each SM works through its share of the blocks at the rate their latencies allow
        return (*_per_sm_and_clock(_ROUNDS[resource], source, spec), resource)
    return (*_per_sm_and_clock(measure_label(resource), source, spec), "per SM")


def _per_sm_and_clock(what: str, source: Device, spec: DeviceSpec) -> tuple[float, str]:
    """The time ratio at the same rate per SM and clock on both GPUs (``_sm_rate_ratio``), and its text."""
    return _sm_rate_ratio(source, spec), (f"{what} per SM and clock: {source.sm_count} SMs x "
                                          f"{(source.max_clock_hz or 0) / 1e9:.3g} GHz -> {spec.sm_count} x "
                                          f"{spec.boost_clock_hz / 1e9:.3g}")


def _sm_rate_ratio(source: Device, spec: DeviceSpec) -> float:
    """Target time over source time at the same rate per SM and clock: (SMs x boost clock) there over here."""
    return (source.sm_count or 0) * (source.max_clock_hz or 0.0) / (spec.sm_count * spec.boost_clock_hz)


def _in_flight(resource: str | None, stats: KernelStats, source: Device, spec: DeviceSpec, ratio: float,
               how: str) -> tuple[float, str]:
    """Step 2b: the bytes a kernel keeps in flight limit its rate (Little's law: rate = bytes in flight / latency),
    continuously: its achieved DRAM or L2 rate ``a`` is a smooth minimum of the level's peak ``B`` and the rate its
    bytes in flight allow ``C``, ``a = (B^-p + C^-p)^(-1/p)``; ``C`` follows from the measured percent of peak
    ``u = a / B``: ``C = B (u^-p - 1)^(-1/p)``. On the target ``C`` scales with the SMs (as many bytes in flight
    per SM) and ``B`` is the target's peak; the time ratio is ``a / a_target``. No cliff at ncu's 80% mark: at
    100% of the peak it is the bandwidth ratio, far below it the SM ratio."""
    moved = Resource.of(resource)
    level = moved.name if moved.kind == "bytes" else ""
    used = stats.roof.utilization_pct.get(level) if level in ("dram", "l2") else None
    if used is None or not source.sm_count or not 0.0 < used < 100.0 or not ratio:
        return ratio, how
    u, p = used / 100.0, IN_FLIGHT_SHARPNESS
    in_flight = (u ** -p - 1.0) ** (-1.0 / p)  # C / B on the source
    there = in_flight * spec.sm_count / source.sm_count  # C_target / B_source
    peak = 1.0 / ratio  # B_target / B_source
    achieved = (peak ** -p + there ** -p) ** (-1.0 / p)  # a_target / B_source
    scaled = u / achieved
    if abs(scaled / ratio - 1.0) < 1e-3:
        return ratio, how
    return scaled, (f"{NAMES[level]} at {used:.0f}% of its peak: the bytes in flight per SM limit it as well as the "
                    f"bandwidth (Little's law, {source.sm_count} -> {spec.sm_count} SMs; {how})")


def _waves(waves: float | None, source: Device, spec: DeviceSpec) -> tuple[float, str]:
    """The wave-quantisation factor (step 4) and its text; 1 where the waves or the SM count are unknown."""
    if not waves or not source.sm_count:
        return 1.0, ""
    there = waves * source.sm_count / spec.sm_count
    factor = (math.ceil(there) / there) / (math.ceil(waves) / waves)
    if abs(factor - 1.0) < 1e-3:
        return 1.0, ""
    return factor, f"x {factor:.3g} waves ({waves:.3g} -> {there:.3g} per SM, {math.ceil(waves)} -> " \
                   f"{math.ceil(there)} rounds)"


def _ratio(num: Value, den: Value) -> Value:
    if num.value is None or den.value is None:
        return Value(None, f"no projected bound: {num.reason or den.reason or 'not measured'}")
    return Value(num.value / den.value) if den.value else Value(None, "zero projected bound")


def _left_out(stats: KernelStats, target: Ceilings) -> tuple[str, ...]:
    """Precisions and levels the roofline bound cannot include: no ceiling in the spec, or not measured."""
    out = [f"{p} (no {p} ceiling in the spec)" for p in PRECISIONS
           if stats.flops[p].value and not target.flop_per_s[p]]
    for level in LEVELS:
        if stats.bytes[level].value is None:
            out.append(f"{level} (bytes not measured)")
        elif not target.bytes_per_s[level]:
            out.append(f"{level} (no {level} bandwidth in the spec)")
    return tuple(out)
