"""What a kernel is, for advice that fits it: a tiny grid, a matrix multiply, a reduction, a streaming kernel
(each byte used about once) or none of these. The first that applies wins, in that order:

* tiny grid: under one full wave, so the grid and not the block or a unit's peak holds the kernel back;
* GEMM-like: a matrix multiply or convolution by its name or instruction mix (``diagnostics.tensor_cores``), or a
  GEMM/convolution library kernel;
* reduction: named so (``libraries.REDUCTION_NAME``), or DRAM writes under ``REDUCTION_WRITE_SHARE`` of its reads;
* extra traffic: DRAM moving far more than the kernel's global loads and stores request (the requested bytes under
  ``STREAMING_MIN_REUSE`` x the DRAM bytes): most of the traffic is not their data (local memory, the register
  spills and per-thread arrays the requests leave out; texture or surface accesses), so it is no streaming kernel;
* streaming: by reuse, each byte the kernel requests (its global L1 sectors x 32) coming from DRAM about once (the
  requested bytes at most ``STREAMING_MAX_REUSE`` x the DRAM bytes): nothing is reused, so tiling has nothing to
  keep on chip; a kernel whose requests are served from the caches several times over reuses data, whatever its
  FLOPs per byte. Only where the report lacks the sectors: fewer FLOPs per DRAM byte than
  ``STREAMING_MAX_INTENSITY`` or a tenth of the ridge point (``STREAMING_RIDGE_SHARE``), whichever is higher.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from roofline.analysis.libraries import REDUCTION_NAME, Library
from roofline.analysis.results import LaunchAnalysis
from roofline.core.labels import NAMES
from roofline.core.thresholds import (
    FULL_WAVE,
    REDUCTION_WRITE_SHARE,
    STREAMING_MAX_INTENSITY,
    STREAMING_MAX_REUSE,
    STREAMING_MIN_REUSE,
    STREAMING_RIDGE_SHARE,
)
from roofline.core.units import waves as wave_count
from roofline.ncu import metrics as m

KindName = Literal["tiny_grid", "gemm", "reduction", "extra_traffic", "streaming", "general"]


class KernelKind(Struct, frozen=True):
    """The kind of a kernel and the measurement (or name) that says so; ``reuse``, where the kind rests on it, the
    bytes the global loads and stores request per DRAM byte."""

    name: KindName
    why: str
    reuse: float | None = None


def kernel_kind(analysis: LaunchAnalysis, lib: Library | None, ridge: float | None = None) -> KernelKind:
    """The first kind that applies to the launch (see the module docstring); ``ridge`` is the ridge point of its
    main precision against its limiting memory level (FLOP/byte), when known."""
    waves = analysis.occupancy.waves_per_sm if analysis.occupancy is not None else None
    if waves is not None and waves < FULL_WAVE:
        return KernelKind("tiny_grid", f"{wave_count(waves)} per SM")
    matmul = analysis.tensor_cores.matmul_like if analysis.tensor_cores is not None else ""
    if matmul or (lib is not None and lib.kind in ("gemm", "convolution")):
        return KernelKind("gemm", matmul or f"a {lib.name if lib else ''} {lib.kind if lib else ''} kernel")
    reduction = _reduction(analysis)
    if reduction:
        return KernelKind("reduction", reduction)
    flops, dram = analysis.total_flops, analysis.bytes["dram"].value
    requested = _requested_bytes(analysis)
    if requested is not None and dram:
        reuse = requested / dram
        if reuse < STREAMING_MIN_REUSE:
            return KernelKind("extra_traffic", f"DRAM moves {1 / reuse:.2g}x the bytes its global loads and stores "
                                               f"request ({reuse:.2g} requested bytes per DRAM byte)", reuse)
        if reuse <= STREAMING_MAX_REUSE:
            return KernelKind("streaming", f"each byte requested comes from DRAM about once ({reuse:.2g} requested "
                                           "bytes per DRAM byte)", reuse)
        return KernelKind("general", f"{reuse:.2g} requested bytes per DRAM byte: the caches serve reuse", reuse)
    below = max(STREAMING_MAX_INTENSITY, STREAMING_RIDGE_SHARE * (ridge or 0.0))
    if flops is not None and dram and flops / dram < below:
        return KernelKind("streaming", f"{flops / dram:.3g} FLOP per DRAM byte{_unmeasured(analysis)}")
    return KernelKind("general", "")


def _requested_bytes(analysis: LaunchAnalysis) -> float | None:
    """The bytes the kernel's global loads and stores request: their L1 sectors x 32; None where not measured."""
    counts = [m.counter(analysis.launch, sector).value for sector in m.GLOBAL_SECTORS.values()]
    return None if any(c is None for c in counts) else 32.0 * sum(c or 0.0 for c in counts)


def _reduction(analysis: LaunchAnalysis) -> str:
    """Why the launch looks like a reduction ("" when it does not)."""
    hits = [REDUCTION_NAME.search(n) for n in (analysis.launch.name, analysis.launch.demangled_name) if n]
    hit = next((h for h in hits if h is not None), None)
    if hit is not None:
        return f"its name says '{hit.group(0)}'"
    read, written = (m.counter(analysis.launch, metric).value for metric in m.DRAM_READ_WRITE)
    if read and written is not None and written < REDUCTION_WRITE_SHARE * read:
        return f"DRAM writes {100 * written / read:.2g}% of its reads"
    return ""


def _unmeasured(analysis: LaunchAnalysis) -> str:
    """The precisions the FLOP count leaves out, as a note (" (FP16 not measured)"), or ""."""
    missing = [p for p, v in analysis.flops.items() if v.value is None]
    return f" ({', '.join(NAMES[p] for p in missing)} not measured)" if missing else ""
