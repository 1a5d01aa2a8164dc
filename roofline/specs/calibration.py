"""Calibrated ceilings: the rates ``roofline calibrate`` measured on a GPU with its microbenchmarks
(``specs.microbench``), a third set of roofs beside the datasheet's and the report's (``--ceilings calibrated``).

Each roof is measured twice: under ncu with its default clock control (the clocks a report's kernels run at,
timed by ncu's ``gpu__time_duration``) and without a profiler (the GPU's default clocks, CUDA events). The
analysis uses the ncu-clock figure. A file holds the spec id it belongs to and a ``measured`` section
(``device_specs/measured/<id>.yaml``). Pure functions: the command does the running and the file I/O.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roofline.core.model import LEVELS, PRECISIONS, Ceilings, KernelLaunch
from roofline.errors import SpecError
from roofline.ncu import metrics as m
from roofline.specs.microbench import NVTX_PREFIX

# The roofs calibrate measures: memory levels in bytes/s, the others in FLOP/s (names as in device_specs peaks).
BANDWIDTHS = ("dram", "l2")
FLOP_RATES = ("fp64", "fp32", "tensor_fp64", "tensor_tf32", "tensor_fp16", "tensor_bf16", "tensor_fp8")
ROOFS = (*BANDWIDTHS, *FLOP_RATES)
NCU, DEFAULT = "ncu", "default"  # the two clock settings a roof is measured at
NCU_METRICS = (m.DURATION, m.SM_CLOCK)  # what the timing run under ncu collects
HINT = "run 'roofline calibrate' on that GPU (it writes ID.calibration.yaml; see device_specs/README.md)"


@dataclass(frozen=True)
class Rate:
    """One roof at one clock setting: the median over the timed launches, its range and the SM clock."""

    median: float
    low: float
    high: float
    runs: int
    sm_clock_hz: float | None = None

    @property
    def spread_pct(self) -> float:
        """Range over the runs as a percent of the median."""
        return 100.0 * (self.high - self.low) / self.median


@dataclass(frozen=True)
class MeasuredRoof:
    """A roof as measured: how (``method``), at ncu's clocks and at the default clocks; ``missing`` says why a
    roof could not be measured (its library or its hardware is missing)."""

    method: str = ""
    ncu: Rate | None = None
    default: Rate | None = None
    missing: str = ""

    @property
    def used(self) -> Rate | None:
        """The rate the analysis uses: the one at ncu's clocks, the clocks a report's kernels ran at."""
        return self.ncu


@dataclass(frozen=True)
class Calibration:
    """Every calibrated roof of one GPU, with the spec it belongs to and when and with what it was measured."""

    spec_id: str
    device: str
    date: str
    software: str
    roofs: Mapping[str, MeasuredRoof]
    path: str = ""


# --- From the microbenchmarks' results ----------------------------------------------------------------
def rate(work: float, seconds: Iterable[float], sm_clocks: Iterable[float] = ()) -> Rate | None:
    """Work per second over launches timed one by one; None when no launch was timed."""
    rates = sorted(work / s for s in seconds if s > 0)
    if not rates:
        return None
    clocks = [c for c in sm_clocks if c > 0]
    return Rate(statistics.median(rates), rates[0], rates[-1], len(rates),
                statistics.median(clocks) if clocks else None)


def ncu_timings(launches: Sequence[KernelLaunch]) -> dict[str, tuple[list[float], list[float]]]:
    """Per benchmark, the durations (s) and SM clocks (Hz) ncu measured for the launches in its NVTX range."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for launch in launches:
        names = [r for r in launch.nvtx_ranges if r.startswith(NVTX_PREFIX)]
        duration = m.duration_s(launch).value
        if not names or duration is None:
            continue
        times, clocks = out.setdefault(names[-1][len(NVTX_PREFIX):], ([], []))
        times.append(duration)
        clock = m.sm_clock_hz(launch).value
        if clock is not None:
            clocks.append(clock)
    return out


def measure(benchmarks: Sequence[Mapping[str, Any]], ncu_launches: Sequence[KernelLaunch] | None,
            ncu_missing: str = "") -> dict[str, MeasuredRoof]:
    """The roofs from the default-clock run's benchmarks (``microbench`` JSON) and the launches ncu timed (None
    when no ncu run was made, ``ncu_missing`` saying why)."""
    timed = ncu_timings(ncu_launches or ())
    roofs = {}
    for b in benchmarks:
        if b["name"] not in ROOFS:
            continue
        if b.get("missing"):
            roofs[b["name"]] = MeasuredRoof(missing=b["missing"])
            continue
        times, clocks = timed.get(b["name"], ([], []))
        ncu = rate(b["work"], times, clocks)
        roofs[b["name"]] = MeasuredRoof(b["method"], ncu, rate(b["work"], b["seconds"]),
                                        "" if ncu else ncu_missing or "ncu timed no launch of this benchmark")
    return roofs


# --- As ceilings --------------------------------------------------------------------------------------
def measured_ceilings(cal: Calibration, tensor_dtype: str) -> Ceilings:
    """The calibrated roofs as a ceiling set; the tensor roof is the one of ``tensor_dtype``; a roof not
    calibrated is None with the reason."""
    where = f"the calibration of {cal.spec_id} ({Path(cal.path).name + ', ' if cal.path else ''}{cal.date})"
    keys = {**{k: k for k in (*PRECISIONS, *LEVELS)}, "tensor": f"tensor_{tensor_dtype}"}  # as the file names them
    values: dict[str, float | None] = {}
    missing: dict[str, str] = {}
    for key, roof_key in keys.items():
        roof = cal.roofs.get(roof_key)
        used = roof.used if roof else None
        values[key] = used.median if used else None
        if used is None:
            why = roof.missing if roof and roof.missing else "not a roof calibrate measures"
            missing[key] = f"{roof_key} not measured in {where}: {why}"
    clocks = sorted(r.used.sm_clock_hz for r in cal.roofs.values() if r.used and r.used.sm_clock_hz)
    span = "" if not clocks else f", SM clock {clocks[0] / 1e9:.2f}" + (
        f"-{clocks[-1] / 1e9:.2f}" if clocks[-1] - clocks[0] > 5e6 else "") + " GHz"
    note = f"measured {cal.date} by roofline calibrate under ncu's clock control{span}"
    return Ceilings("calibrated", {k: values[k] for k in PRECISIONS}, {k: values[k] for k in LEVELS}, clock_note=note,
                    tensor_dtype=tensor_dtype, missing=missing,
                    sm_clock_hz=statistics.median_low(clocks) if clocks else None)


# --- The YAML file ------------------------------------------------------------------------------------
def to_yaml_dict(cal: Calibration) -> dict[str, Any]:
    """The file's content: the spec id and the ``measured`` section, each roof with its method and rates."""
    roofs: dict[str, Any] = {}
    for key in ROOFS:
        roof = cal.roofs.get(key)
        if roof is None:
            continue
        entry: dict[str, Any] = {"method": roof.method} if roof.method else {}
        for name, r in ((NCU, roof.ncu), (DEFAULT, roof.default)):
            if r is not None:
                entry[name] = {"median": _sig(r.median), "low": _sig(r.low), "high": _sig(r.high), "runs": r.runs,
                               **({"sm_clock_hz": _sig(r.sm_clock_hz)} if r.sm_clock_hz else {})}
        if roof.missing:
            entry["missing"] = roof.missing
        roofs[key] = entry
    return {"id": cal.spec_id, "measured": {"device": cal.device, "date": cal.date, "software": cal.software,
                                            "roofs": roofs}}


def _sig(x: float) -> float:
    """Four significant digits: the spread of the runs is larger than that."""
    return float(f"{x:.4g}")


def is_calibration(data: Any) -> bool:
    """Whether a parsed YAML document is a calibration file (a ``measured`` section, no datasheet ``peaks``)."""
    return isinstance(data, dict) and "measured" in data and "peaks" not in data


def parse(data: Any, path: str) -> Calibration:
    """A calibration file's content, checked; SpecError naming the file and the key otherwise."""
    def fail(what: str) -> SpecError:
        return SpecError(f"{path}: {what}", "regenerate it with 'roofline calibrate --output' (device_specs/README.md)")

    if not is_calibration(data) or not isinstance(data.get("id"), str) or not isinstance(data["measured"], dict):
        raise fail("expected 'id' (a device spec id) and a 'measured' mapping at the top")
    section = data["measured"]
    roofs = section.get("roofs")
    if not isinstance(roofs, dict):
        raise fail("measured.roofs must be a mapping of roof names")
    parsed = {}
    for key, entry in roofs.items():
        if key not in ROOFS:
            raise fail(f"measured.roofs.{key}: unknown roof (expected one of {', '.join(ROOFS)})")
        if not isinstance(entry, dict):
            raise fail(f"measured.roofs.{key} is {entry!r:.40}, expected a mapping (method, ncu, default)")
        parsed[key] = MeasuredRoof(str(entry.get("method", "")), _rate(entry.get(NCU), f"{key}.{NCU}", fail),
                                   _rate(entry.get(DEFAULT), f"{key}.{DEFAULT}", fail), str(entry.get("missing", "")))
    return Calibration(data["id"], str(section.get("device", "")), str(section.get("date", "")),
                       str(section.get("software", "")), parsed, path)


def _rate(entry: Any, where: str, fail: Any) -> Rate | None:
    """One rate of a file, checked: median, low and high positive and ordered, runs a whole number."""
    if entry is None:
        return None
    numbers = [entry.get(k) if isinstance(entry, dict) else None for k in ("median", "low", "high")]
    runs = entry.get("runs") if isinstance(entry, dict) else None
    if (not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < float("inf") for x in numbers)
            or isinstance(runs, bool) or not isinstance(runs, int)):
        raise fail(f"measured.roofs.{where}: needs positive finite median, low, high and a whole number of runs")
    median, low, high = (float(x) for x in numbers if isinstance(x, (int, float)))
    if not low <= median <= high:
        raise fail(f"measured.roofs.{where}: expected low <= median <= high")
    clock = entry.get("sm_clock_hz")
    return Rate(median, low, high, runs, float(clock) if isinstance(clock, (int, float)) else None)
