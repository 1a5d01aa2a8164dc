"""Datasheet ceilings for a GPU no YAML spec names, derived from the report's device attributes.

A peak is SMs x the per-SM rate of the compute capability x the boost clock (``max_gpu_frequency_khz``); DRAM
bandwidth is 2 (double data rate) x the memory clock x the bus width / 8. ``SM_RATES`` is the one table of
per-SM rates. A rate the compute capability does not settle (Tensor Cores, Hopper's FP64) stays out, with
the reason, rather than being guessed.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct, field

from roofline.core.model import Device
from roofline.core.units import si
from roofline.specs.catalog import DERIVED_ID, DERIVED_LABEL, DeviceSpec, SpecMatch

FLOP_PER_FMA = 2
DATA_RATE = 2  # the memory clock ncu reports (memory_clock_rate) moves data on both edges
TENSOR_GAP = ("Tensor Core rates are not set by the compute capability: GeForce and data-centre parts of one CC "
              "differ (FP32 accumulate at half rate on GeForce) and some quote tensor figures at another clock")


class SmRates(Struct, frozen=True):
    """FMA results per clock per SM of one compute capability (an HFMA2 gives two FP16 results); None where the
    CC does not settle the rate, with the reason in ``gaps``."""

    architecture: str
    fp32: int
    fp64: int | None
    fp16: int | None
    source: str
    gaps: Mapping[str, str] = field(default_factory=dict)


# FMA results per clock per SM. "ncu" = the *_pred_on.sum.peak_sustained counters of the report of that CC in
# ../shared/ncu-reps (thread instructions per cycle over the SM count). Guide = CUDA C++ Programming Guide,
# "Arithmetic Instructions", throughput table (results per clock cycle per multiprocessor).
SM_RATES: Mapping[str, SmRates] = {
    "7.0": SmRates("Volta", 64, 32, 128, "CUDA C++ Programming Guide throughput table, 7.x column (FP16 128, FP32 "
                   "64, FP64 32 results/clk/SM); ncu V100 report: FFMA 64, DFMA 32 per SM"),
    "7.5": SmRates("Turing", 64, 2, 128, "CUDA C++ Programming Guide throughput table, 7.x column (FP16 128, FP32 "
                   "64; FP64 2 on 7.5); ncu T4 and GTX 1660 SUPER reports: FFMA 64, DFMA 2 per SM"),
    "8.0": SmRates("Ampere", 64, 32, 256, "NVIDIA A100 whitepaper, Table 1 (FP32 19.5, FP64 9.7, FP16 non-Tensor "
                   "78 TFLOPS at 108 SMs x 1.41 GHz); ncu A100 report: FFMA 64, DFMA 32 per SM"),
    "8.6": SmRates("Ampere", 128, 2, 128, "NVIDIA GA102 whitepaper, Appendix A (FP16 non-Tensor equal to FP32, 128 "
                   "FP32 cores/SM); ncu A10G report: FFMA 128, DFMA 2, HFMA2 64 (128 FP16 FMA) per SM"),
    "8.9": SmRates("Ada", 128, 2, 128, "NVIDIA Ada whitepaper, Appendix A (RTX 4090: FP16 non-Tensor equal to FP32, "
                   "128 FP32 cores/SM); ncu RTX 4070 Ti report: FFMA 128, DFMA 2 per SM"),
    "9.0": SmRates("Hopper", 128, None, 256, "NVIDIA H100 whitepaper, Table 3 (H100 SXM5: FP32 66.9, FP16 non-Tensor "
                   "133.8 TFLOPS at 132 SMs x 1.98 GHz); ncu GH200 report: FFMA 128, HFMA2 128 per SM",
                   {"fp64": "FP64 is not set by CC 9.0: H100 runs 64 DFMA/clk/SM, the H800 2 (ncu peak counters)"}),
    "10.0": SmRates("Blackwell", 128, 64, None, "NVIDIA HGX B200 specifications, per GPU (FP32 75, FP64 37 TFLOPS: "
                    "FP64 at half the FP32 rate); Blackwell SM: 128 FP32 cores",
                    {"fp16": "NVIDIA publishes no non-Tensor FP16 rate for CC 10.0"}),
    "12.0": SmRates("Blackwell", 128, 2, 128, "NVIDIA RTX Blackwell whitepaper, GeForce RTX 5090 table (FP16 "
                    "non-Tensor equal to FP32, 128 FP32 cores/SM); CUDA C++ Programming Guide (FP32:FP64 64:1)"),
}


def dram_bandwidth(memory_clock_hz: float, bus_width_bits: int) -> float:
    """DRAM bytes/s: 2 (double data rate) x the memory clock as CUDA reports it x the bus width in bytes."""
    return DATA_RATE * memory_clock_hz * bus_width_bits / 8


def derive(device: Device) -> SpecMatch | None:
    """A spec of datasheet peaks derived from ``device``'s attributes; None without the SM count, the boost clock,
    the memory clock and bus width, or a compute capability ``SM_RATES`` knows (the GPU then has no datasheet
    ceilings, as before)."""
    rates = SM_RATES.get(device.compute_capability or "")
    sms, clock_hz = device.sm_count, device.max_clock_hz
    memory_hz, bus = device.memory_clock_hz, device.memory_bus_width_bits
    if rates is None or not sms or not clock_hz or not memory_hz or not bus:
        return None
    clock, dram = _clock_attribute(device), dram_bandwidth(memory_hz, bus)
    peaks, sources, derived = _peaks(sms, clock_hz, rates, clock)
    sources["memory.bandwidth_bytes_per_s"] = f"device__attribute_{_memory_attribute(device)}, global_memory_bus_width"
    derived["memory.bandwidth_bytes_per_s"] = f"2 x {memory_hz / 1e6:.0f} MHz x {bus} bit / 8 = {si(dram, 'B/s')}"
    gaps = {"tensor": TENSOR_GAP, **rates.gaps, "l2": "no L2 bandwidth follows from device attributes",
            "l1": "no L1 bandwidth follows from device attributes"}
    spec = DeviceSpec(
        id=DERIVED_ID, path="", display_names=(device.name,), architecture=rates.architecture,
        compute_capability=device.compute_capability or "", sm_count=sms, boost_clock_hz=clock_hz,
        tensor_clock_hz=None, memory_type="", memory_bytes=device.total_memory_bytes,
        memory_bandwidth_bytes_per_s=dram, l2_bytes=device.l2_cache_bytes, peaks=peaks, sources=sources,
        fp32_lanes_per_sm=rates.fp32, derived=derived, gaps=gaps,
        notes=f"per-SM rates: {rates.source}; boost clock from device__attribute_{clock}")
    how = (f"{DERIVED_LABEL}, no device spec matches '{device.name}': SMs x per-SM rates of CC "
           f"{device.compute_capability} x the {clock_hz / 1e9:.3g} GHz boost clock (device__attribute_{clock}); "
           "DRAM = 2 x memory clock x bus width / 8")
    return SpecMatch(spec, how)


def _peaks(sms: int, clock_hz: float, rates: SmRates,
           clock: str) -> tuple[dict[str, float], dict[str, str], dict[str, str]]:
    """Each peak the rates give (FLOP/s), its source and its formula."""
    peaks, sources, derived = {}, {}, {}
    for key in ("fp64", "fp32", "fp16"):
        fma = getattr(rates, key)
        if fma is None:
            continue
        peaks[key] = sms * fma * FLOP_PER_FMA * clock_hz
        sources[f"peaks.{key}"] = f"device__attribute_multiprocessor_count and {clock}; per-SM rate: {rates.source}"
        derived[f"peaks.{key}"] = (f"{sms} SMs x {fma} FMA x 2 FLOP x {clock_hz / 1e9:.4g} GHz = "
                                   f"{si(peaks[key], 'FLOP/s')}")
    return peaks, sources, derived


def _memory_attribute(device: Device) -> str:
    """The attribute the memory clock came from (the reader takes max_mem_frequency_khz, else memory_clock_rate)."""
    return "max_mem_frequency_khz" if device.attributes.get("max_mem_frequency_khz") else "memory_clock_rate"


def _clock_attribute(device: Device) -> str:
    """The attribute the boost clock came from (the reader takes max_gpu_frequency_khz, else clock_rate)."""
    return "max_gpu_frequency_khz" if device.attributes.get("max_gpu_frequency_khz") else "clock_rate"
