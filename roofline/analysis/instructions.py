"""The Instruction Roofline Model of one launch (pure): warp instructions per second against the schedulers' issue
peak, and instruction intensity, warp instructions per 32-byte transaction, at each memory level against that
level's bandwidth in transactions (Ding & Williams, PMBS 2019; Concurrency and Computation 2021).

It places kernels that do little floating-point work (integer, search, sorting, data movement) on a roofline
too. The counters and formulas are in ``roofline.ncu.metrics``; the transaction roofs are the byte roofs of the
ceiling set the launch's roofline uses, over 32 bytes. The model's walls place global and shared accesses against
reference patterns, in warp instructions per transaction, for the bytes each thread's loads and stores move as the
SASS counts them (``ncu.metrics.access_width``: a kernel of 16-byte loads is coalesced at 1/16, not 1/4), else for
4-byte words, as the model draws them.
"""

from __future__ import annotations

from collections.abc import Mapping

from roofline.analysis.results import InstructionRoofline, IntegerRoofline, LaunchAnalysis, MemoryWalls, Value
from roofline.core.model import LEVELS, Device
from roofline.ncu import metrics as m
from roofline.ncu.metrics import Measured

GIGA = 1e9
# The walls of a warp of 32 threads each moving ``width`` bytes (Ding & Williams, PMBS 2019, who draw them
# for 4-byte words). Global memory, in warp instructions per 32-byte sector: every thread at one address is 1
# sector (stride 0); consecutive addresses cover 32 x width bytes, 32 x width / 32 sectors and never under one
# (unit stride: 1/4 for 4-byte words, 1/16 for 16-byte ones, 1 for bytes); each thread in its own sector 32
# (scattered). Shared memory, in warp instructions per wavefront of 32 banks x 4 bytes: without bank conflicts
# 32 x width / 128 wavefronts and never under one (1 up to 4-byte words, 1/4 for 16-byte ones); all threads on
# one bank 32 (32-way conflict).
THREADS, SECTOR_BYTES, WAVEFRONT_BYTES, WORD_BYTES = 32, 32, 128, 4
GLOBAL_WALLS = {"stride_0": 1.0, "unit_stride": SECTOR_BYTES / (THREADS * WORD_BYTES), "scattered": 1 / THREADS}
SHARED_WALLS = {"no_conflict": 1.0, "conflict_32_way": 1 / THREADS}
WIDTH_WALLS = {"global": ("unit_stride", SECTOR_BYTES), "shared": ("no_conflict", WAVEFRONT_BYTES)}
NO_WIDTHS = ("4-byte words assumed: no per-opcode SASS counts (sass__inst_executed_per_opcode_with_modifier_all); "
             "re-profile with --set full (SourceCounters section)")
TRANSACTION_DEFINITIONS = {"l1": m.L1_DEFINITION, "l2": m.L2_DEFINITION, "dram": m.DRAM_DEFINITION}


def instruction_roofline(analysis: LaunchAnalysis, device: Device) -> InstructionRoofline:
    """The instruction roofline position and roofs of one analysed launch."""
    launch, duration = analysis.launch, analysis.duration_s
    warps = m.warp_instructions(launch)
    threads = m.thread_instructions(launch)
    moved = m.transactions(launch)
    ceilings = analysis.ceilings[analysis.roof.ceilings]
    peak = m.peak_warp_instructions_per_s(launch, device)
    warp_gips = _giga_rate(Value.of(warps), duration)
    peak_gips = Value(peak.value / GIGA, via=f"({peak.via}) / 1e9") if peak.value is not None else Value.of(peak)
    return InstructionRoofline(
        warp_gips=warp_gips,
        thread_gips_per_32=_giga_rate(Value.of(threads), duration, m.THREADS_PER_WARP),
        peak_warp_gips=peak_gips,
        issue_pct=_percent(warp_gips, peak_gips, "warp_gips / peak_warp_gips x 100") if peak_gips.value != 0
        else Value(None, "no issue peak"),
        transactions={level: Value.of(moved[level]) for level in LEVELS},
        intensity={level: _intensity(Value.of(warps), Value.of(moved[level]), level) for level in LEVELS},
        thread_intensity={level: _intensity(_per_warp(Value.of(threads)), Value.of(moved[level]), level,
                                            "thread instructions / 32") for level in LEVELS},
        definitions=TRANSACTION_DEFINITIONS,
        peak_gtxn_per_s={level: _transaction_roof(ceilings.bytes_per_s[level], ceilings.missing.get(level, ""),
                                                  ceilings.source) for level in LEVELS},
        ceilings=ceilings.source,
        global_memory=_memory_walls(m.global_accesses(launch), GLOBAL_WALLS, "global",
                                    m.access_widths(launch, "global")),
        shared_memory=_memory_walls(m.shared_accesses(launch), SHARED_WALLS, "shared",
                                    m.access_widths(launch, "shared")),
        integer=integer_roofline(analysis, device),
    )


def integer_roofline(analysis: LaunchAnalysis, device: Device | None = None) -> IntegerRoofline:
    """Integer thread instructions per second against the integer pipe's peak (the report's own, else the ceiling of
    the compute capability, ``integer_ceiling``), and per byte at each level."""
    count = Value.of(m.integer_instructions(analysis.launch))
    rate = _giga_rate(count, analysis.duration_s)
    peak = Value.of(m.integer_peak(analysis.launch))
    if peak.value is None and device is not None:
        peak = integer_ceiling(analysis, device, peak.reason)
    peak_giops = Value(peak.value / GIGA, via=f"({peak.via}) / 1e9") if peak.value is not None else peak
    return IntegerRoofline(giops=rate, peak_giops=peak_giops, pct_of_peak=_percent(rate, peak_giops),
                           intensity={level: _per_byte(count, analysis.bytes[level], level) for level in LEVELS})


def integer_ceiling(analysis: LaunchAnalysis, device: Device, why_not_own: str) -> Value:
    """Integer thread instructions per second: the compute capability's integer lanes per SM (device_specs/
    architecture/integer.yaml, cited there) x SMs x the measured SM clock; None saying what is missing."""
    from roofline.specs.architecture import integer_lanes

    lanes = integer_lanes(device.compute_capability)
    clock = m.sm_clock_hz(analysis.launch)
    if lanes is None:
        return Value(None, f"{why_not_own}; and no integer ceiling for compute capability "
                           f"{device.compute_capability or 'unknown'} in device_specs/architecture/integer.yaml")
    if not device.sm_count or clock.value is None:
        return Value(None, f"no SM count or SM clock for the integer ceiling: {clock.reason or 'no SM count'}")
    return Value(lanes.per_sm * device.sm_count * clock.value,
                 via=f"{lanes.per_sm:g} integer lanes/SM (CC {device.compute_capability}, "
                     f"device_specs/architecture/integer.yaml) x {device.sm_count} SMs x {clock.via}")


def _percent(rate: Value, peak: Value, via: str = "giops / peak_giops x 100") -> Value:
    """``rate`` as a percentage of ``peak``; None naming the one that is missing."""
    if rate.value is None:
        return Value(None, rate.reason)
    if peak.value is None:
        return Value(None, peak.reason)
    return Value(100 * rate.value / peak.value, via=via)


def _per_byte(count: Value, moved: Value, level: str) -> Value:
    """Integer instructions per byte at one level; None where either is unmeasured or no byte moved."""
    return _per_unit(count, moved, level, ("integer instructions", "bytes", "integer"))


def _memory_walls(accesses: Mapping[str, tuple[Measured, Measured]], walls: Mapping[str, float],
                  space: str, widths: Mapping[str, Mapping[int, float]] | None = None) -> MemoryWalls:
    """Each operation's warp instructions per transaction, beside the walls of the space's access widths."""
    intensity = {op: _access_intensity(Value.of(inst), Value.of(moved), f"{space} {op}")
                 for op, (inst, moved) in accesses.items()}
    ran = {op: found for op, found in (widths or {}).items() if found}
    if not ran:
        why = NO_WIDTHS if widths is None else f"4-byte words assumed: no {space} loads or stores in the SASS"
        return MemoryWalls(intensity=intensity, walls=walls, width_note=why)
    every: dict[int, float] = {}
    for found in ran.values():
        for w, n in found.items():
            every[w] = every.get(w, 0.0) + n
    name = WIDTH_WALLS[space][0]
    return MemoryWalls(
        intensity=intensity, walls={**walls, name: width_wall(every, space)},
        width_bytes={op: sum(w * n for w, n in found.items()) / sum(found.values()) for op, found in ran.items()},
        width_walls={op: width_wall(found, space) for op, found in ran.items()},
        width_mixed={op: len(found) > 1 for op, found in ran.items()}, width_source="sass",
        width_note="; ".join(f"{op} " + ", ".join(f"{n:.0f} x {w} B" for w, n in sorted(found.items()))
                             for op, found in ran.items()))


def width_wall(widths: Mapping[int, float], space: str) -> float:
    """The space's width-dependent wall (global unit stride, shared no conflict) for warp instructions of the given
    bytes per thread (``widths``: width -> instructions): the instructions over the transactions each takes at
    least, 32 threads x width over the transaction's bytes and never under one."""
    per_transaction = WIDTH_WALLS[space][1]
    least = sum(n * max(1.0, THREADS * w / per_transaction) for w, n in widths.items())
    return sum(widths.values()) / least


def _access_intensity(instructions: Value, moved: Value, what: str) -> Value:
    """Warp instructions per transaction of one kind of access; None where it issued no instruction."""
    if instructions.value == 0:
        return Value(None, f"no {what} instructions")
    found = _intensity(instructions, moved, what)
    return found if found.value is None else Value(found.value, via=f"{instructions.via} / {moved.via}")


def _giga_rate(count: Value, duration: Value, per: int = 1) -> Value:
    """A count / ``per`` per second of the launch's duration, in units of 1e9."""
    if count.value is None:
        return count
    if duration.value is None or duration.value <= 0:
        return Value(None, f"no kernel duration: {duration.reason or 'zero duration'}")
    scale = f" / {per}" if per != 1 else ""
    return Value(count.value / per / duration.value / GIGA, via=f"({count.via}){scale} / duration / 1e9")


def _per_warp(threads: Value) -> Value:
    """Thread instructions / 32, the model's y-axis: warp instructions as if every thread were active."""
    if threads.value is None:
        return threads
    return Value(threads.value / m.THREADS_PER_WARP, via=f"({threads.via}) / {m.THREADS_PER_WARP}")


def _intensity(warps: Value, moved: Value, level: str, what: str = "warp instructions") -> Value:
    """Instructions (``what``) per transaction at one level; None where either is unmeasured or nothing moved."""
    return _per_unit(warps, moved, level, (what, "transactions", "instruction"))


def _per_unit(count: Value, moved: Value, level: str, words: tuple[str, str, str]) -> Value:
    """``count`` per unit ``moved`` at one level, ``words`` naming the count, the unit and the intensity; None where
    either is unmeasured or nothing moved."""
    what, unit, kind = words
    if count.value is None:
        return Value(None, count.reason)
    if moved.value is None:
        return Value(None, moved.reason)
    if moved.value == 0:
        return Value(None, f"no {unit} at {level}: {kind} intensity is unbounded")
    return Value(count.value / moved.value, via=f"{what} / {level} {unit}")


def _transaction_roof(bytes_per_s: float | None, why: str, source: str) -> Value:
    """A level's byte roof as 32-byte transactions per second / 1e9."""
    if bytes_per_s is None:
        return Value(None, f"no {source} roof: {why}" if why else f"no {source} roof")
    return Value(bytes_per_s / m.BYTES_PER_SECTOR / GIGA, via=f"{source} bytes/s / {m.BYTES_PER_SECTOR} / 1e9")
