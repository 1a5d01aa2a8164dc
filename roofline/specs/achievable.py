"""What a loaded GPU sustains, as opposed to its datasheet: the SM clock it holds under load and the fraction of each
unit's peak a saturating kernel reaches (device_specs: ``sustained_clock_hz``,
``memory.achievable_bandwidth_bytes_per_s``, the calibrated roofs of ``measured/``; per memory type
``architecture/memory.yaml``). Each figure with its source."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from roofline.core.choices import TargetClock

ClockChoice: TypeAlias = TargetClock  # the clock a peak is taken at

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec

MEMORY_FILE = "memory.yaml"
CLOCK_CHOICES: tuple[ClockChoice, ...] = ("sustained", "boost", "base")
FULL_PEAK = "the unit's peak: pipes, issue slots and caches reach it under a saturating load"
FIT_MARK = "fit on the development data"  # how a spec's source says its figure is a fit, not a public fact
# The power rule (docs/figures.md): dynamic power C V^2 f with the voltage rising about in proportion to the clock
# over the boost range gives P(f) = P(boost) (f / boost)^3; P(boost) = WATTS_PER_LANE_GHZ x SMs x FP32 lanes per
# SM x boost in GHz. One global constant, fitted on the development data (benchmarks/bench_projection.py).
POWER_EXPONENT = 3.0
WATTS_PER_LANE_GHZ = 0.0285


class Sourced(NamedTuple):
    """A number with where it comes from."""

    value: float
    source: str


def sustained_clock(spec: DeviceSpec) -> Sourced:
    """The SM clock the GPU holds under sustained load: ``sustained_clock_hz`` where the spec gives it, else the
    power rule's clock where it gives its board power, else boost."""
    if spec.sustained_clock_hz is not None:
        return Sourced(spec.sustained_clock_hz, spec.sources.get("sustained_clock_hz", ""))
    ruled = power_limited_clock(spec)
    if ruled is not None:
        return ruled
    return Sourced(spec.boost_clock_hz, "the boost clock (the spec gives neither sustained_clock_hz nor "
                                        "board_power_w: no limit under load is known, so none is taken)")


def power_limited_clock(spec: DeviceSpec, watts_per_lane_ghz: float = WATTS_PER_LANE_GHZ) -> Sourced | None:
    """The highest clock up to boost whose power, ``P(f) = w x SMs x lanes x boost_GHz x (f / boost)^3``, fits
    the board power, never below the spec's base clock (the clock NVIDIA rates the board to hold at that power);
    None where the spec gives no ``board_power_w``."""
    if spec.board_power_w is None:
        return None
    at_boost = watts_per_lane_ghz * spec.sm_count * spec.fp32_lanes_per_sm * spec.boost_clock_hz / 1e9
    share = min(1.0, (spec.board_power_w / at_boost) ** (1.0 / POWER_EXPONENT))
    rule = (f"power rule: {share:.2f} x the {spec.boost_clock_hz / 1e6:.0f} MHz boost fits the "
            f"{spec.board_power_w:g} W board ({spec.sources.get('board_power_w', 'board_power_w')}) at "
            f"{watts_per_lane_ghz:g} W per FP32 lane and GHz at boost, power as (f / boost)^3 (the constant "
            f"a fit on the development data, docs/figures.md)")
    base = spec.base_clock_hz
    if base is not None and spec.boost_clock_hz * share < base:
        return Sourced(base, f"the base clock ({spec.sources.get('base_clock_hz', 'base_clock_hz')}), which the "
                             f"board is rated to hold at its power: above the {rule}")
    return Sourced(spec.boost_clock_hz * share, rule)


def is_fit(source: str) -> bool:
    """Whether a figure's source says it was fitted on the development data (not a public fact)."""
    return FIT_MARK in source


def clock(spec: DeviceSpec, choice: ClockChoice = "sustained") -> Sourced | None:
    """The SM clock of ``choice``; None for ``base`` where the spec gives no base clock."""
    if choice == "sustained":
        return sustained_clock(spec)
    if choice == "boost":
        return Sourced(spec.boost_clock_hz, spec.sources.get("boost_clock_hz", "boost_clock_hz"))
    if spec.base_clock_hz is None:
        return None
    return Sourced(spec.base_clock_hz, spec.sources.get("base_clock_hz", "base_clock_hz"))


def achievable_dram_bandwidth(spec: DeviceSpec) -> Sourced | None:
    """The DRAM bandwidth a stream-like copy reaches: the spec's own figure, else the datasheet's times its memory
    type's fraction; None where neither is known."""
    if spec.memory_achievable_bytes_per_s is not None:
        return Sourced(spec.memory_achievable_bytes_per_s,
                       spec.sources.get("memory.achievable_bandwidth_bytes_per_s", ""))
    default = memory_type_fraction(spec.memory_type)
    if default is None:
        return None
    return Sourced(spec.memory_bandwidth_bytes_per_s * default.value,
                   f"{default.value:.2f} x the datasheet's {spec.memory_bandwidth_bytes_per_s / 1e9:.0f} GB/s "
                   f"({spec.memory_type} default: {default.source})")


def achievable_fraction(spec: DeviceSpec, unit: str) -> Sourced:
    """The fraction of a unit's peak (time model term keys: ``dram``, ``l2``, ``fp32``, ...) a saturating kernel
    reaches on this GPU; 1.0 for the units inside the SMs and where nothing better is known. Either case ("DRAM")."""
    unit = unit.lower()
    if unit == "dram":
        dram = achievable_dram_bandwidth(spec)
        if dram is not None:
            return Sourced(dram.value / spec.memory_bandwidth_bytes_per_s, dram.source)
        return Sourced(1.0, f"no achievable DRAM bandwidth for {spec.memory_type}: {FULL_PEAK}")
    if unit == "l2":
        l2 = spec.measured.roofs.get("l2") if spec.measured is not None else None
        rate = l2.default if l2 is not None else None
        if rate is not None and spec.l2_bytes_per_s and spec.measured is not None:
            return Sourced(min(1.0, rate.median / spec.l2_bytes_per_s),
                           f"roofline calibrate L2 read at default clocks ({shown_path(spec.measured.path)})")
    return Sourced(1.0, FULL_PEAK)


@functools.cache
def l2_default_fraction() -> Sourced | None:
    """The fraction of ncu's L2 sector peak reads of L2-resident data reach on a GPU without its own L2 calibration
    (architecture/memory.yaml ``l2_achievable_fraction``); None where the file gives none."""
    return _sourced(_memory_file().get("l2_achievable_fraction"))


def shown_path(path: str) -> str:
    """A spec file's path as the outputs name it: a shipped one as "device_specs/measured/x.yaml" (not where this
    install keeps it), a user's own as given."""
    from pathlib import Path

    from roofline.specs.catalog import builtin_folder

    folder = builtin_folder().resolve()
    here = Path(path).resolve()
    return f"device_specs/{here.relative_to(folder).as_posix()}" if here.is_relative_to(folder) else path


def memory_type_fraction(memory_type: str) -> Sourced | None:
    """The default achievable fraction of a memory type's datasheet bandwidth (architecture/memory.yaml)."""
    entry = _memory_fractions().get(memory_type.strip().upper().replace("HBM2E", "HBM2e").replace("HBM3E", "HBM3e"))
    return entry


@functools.cache
def _memory_fractions() -> dict[str, Sourced]:
    """Each memory type's achievable fraction of its datasheet bandwidth (architecture/memory.yaml)."""
    table = _memory_file().get("achievable_fraction") or {}
    return {str(k): found for k, v in table.items() if (found := _sourced(v)) is not None}


@functools.cache
def _memory_file() -> dict[str, Any]:
    """architecture/memory.yaml as read (an empty mapping where it holds none)."""
    from roofline.specs import safe_yaml
    from roofline.specs.architecture import ARCHITECTURE_FOLDER
    from roofline.specs.catalog import builtin_folder

    data = safe_yaml.load_yaml(builtin_folder() / ARCHITECTURE_FOLDER / MEMORY_FILE)
    return data if isinstance(data, dict) else {}


def _sourced(entry: object) -> Sourced | None:
    """A ``{value, source}`` entry with a fraction in (0, 1], else None."""
    if not isinstance(entry, dict) or not isinstance(entry.get("value"), int | float) or not 0.0 < entry["value"] <= 1:
        return None
    return Sourced(float(entry["value"]), str(entry.get("source", "")))
