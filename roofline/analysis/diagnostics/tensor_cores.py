"""Tensor Core diagnostics of one launch: whether it uses Tensor Cores, which MMA instruction families and data
types, how busy the tensor pipe is, the share of its FLOPs run there, and a warning when a matrix-multiply-like
kernel does its floating-point math on the CUDA cores instead.

Inputs are the launch's analysis (FLOPs per precision, DRAM intensity, ceilings) and the tensor metrics:
``sm__inst_executed_pipe_tensor_op_*`` / ``sm__pipe_tensor*_cycles_active`` (percent of peak) and the
``sm__ops_path_tensor_*`` FLOP counters behind ``LaunchAnalysis.flops["tensor"]``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast

from msgspec.structs import replace

from roofline.analysis.libraries import matmul_name
from roofline.analysis.results import (
    BusyUnit,
    LaunchAnalysis,
    TensorCores,
    TensorRoof,
    TensorStatus,
    TensorWorkSource,
    Value,
)
from roofline.analysis.verdict import busy_units
from roofline.core.kernel_families import classify
from roofline.core.model import Device
from roofline.core.tensor_architectures import TensorArch, tensor_architecture
from roofline.core.thresholds import (
    MATMUL_MIN_FMA_SHARE,
    MATMUL_MIN_INTENSITY,
    PIPE_BUSY_PCT,
    TENSOR_ACTIVE_PCT,
    TENSOR_NO_GAIN_RATIO,
)
from roofline.core.units import si
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec

USED: Final = "used"
NOT_USED: Final = "not used"
NEGLIGIBLE: Final = "negligible"
NO_TENSOR_CORES: Final = "no Tensor Cores"
NOT_MEASURED: Final = "not measured"
SIZE_WITH: Final = "--set full"  # the set that counts the FLOPs which size the gain of the Tensor Core advice
TENSOR_TYPE_FOR = {"fp64": "fp64", "fp32": "tf32", "fp16": "fp16"}  # the Tensor Core type for CUDA-core math
FAMILY_NAMES = {"hmma": "HMMA", "imma": "IMMA", "dmma": "DMMA", "gmma": "GMMA"}
FAMILY_TYPES = {"hmma": "FP16/BF16/TF32", "imma": "INT8/INT4", "dmma": "FP64", "gmma": "Hopper warpgroup MMA"}


def architecture(device: Device) -> TensorArch | None:
    """The Tensor Core table's entry for this GPU (``core.tensor_architectures.TENSOR_ARCHITECTURES``), or None for an
    unknown compute capability."""
    return tensor_architecture(device.compute_capability, device.name)


def has_tensor_cores(device: Device) -> bool:
    """Whether the GPU has Tensor Cores: all but those the table lists without (an unknown GPU may have them)."""
    arch = architecture(device)
    return arch is None or bool(arch.families)


def diagnose(analysis: LaunchAnalysis, device: Device, spec: DeviceSpec | None = None) -> TensorCores:
    """Tensor Core status, activity, FLOP share and the matrix-multiply warning for one analysed launch; the
    GPU's datasheet ``spec``, when known, sizes the gain in the warning."""
    arch = architecture(device)
    if arch is not None and not arch.families:
        none = f"{device.name} ({arch.name}) has no Tensor Cores"
        return TensorCores(NO_TENSOR_CORES, arch.name, findings=(none,),
                           missing=dict.fromkeys(("pipe_active_pct", "pipe_elapsed_pct", "flop_share"), none))
    families, active, elapsed = _activity(analysis)
    tensor = analysis.flops["tensor"].value
    status = _status(tensor, families, active, elapsed)
    reason = _unmeasured_reason(analysis) if status == NOT_MEASURED else ""
    result = TensorCores(status, arch.name if arch else None, families,
                         {t: v for t, v in analysis.tensor_flops_by_type.items() if v}, active, elapsed,
                         _flop_share(analysis), _matmul_like(analysis), reason=reason)
    source = m.tensor_work_source(analysis.launch, device) or None
    result = replace(result, missing=_missing(result, analysis), roofs=tensor_roofs(analysis, device, spec),
                     work_source=cast("TensorWorkSource | None", source))
    return _with_findings(result, analysis, arch, device, spec)


# --- A roof per data type the launch did tensor work in ------------------------------------------------
FROM_SASS = "; counted from the SASS (matrix instructions executed x 2 x m x n x k of their shape)"
IMMA_TYPE = "int8"  # the IMMA pipe's roof: INT8 (INT4 runs twice the operations per pipe cycle)


def tensor_roofs(analysis: LaunchAnalysis, device: Device, spec: DeviceSpec | None) -> dict[str, TensorRoof]:
    """Each data type the report counts tensor work for, against its dense roof: the ops_path counters (every type,
    integer ones included) where they count any work, else the IMMA pipe's busy share against the INT8 roof."""
    roofs: dict[str, TensorRoof] = {}
    seconds = analysis.duration_s.value
    source = cast("TensorWorkSource", m.tensor_work_source(analysis.launch, device) or m.TENSOR_FROM_COUNTERS)
    for dtype, ops in m.tensor_ops_by_type(analysis.launch).items():
        if not ops.value:
            continue
        peak = _tensor_roof(analysis, device, spec, dtype)
        achieved = (Value(ops.value / seconds, via=f"({ops.via}) / duration") if seconds
                    else Value(None, analysis.duration_s.reason or "no duration"))
        roofs[dtype] = TensorRoof(dtype, ops.via, achieved, peak, _pct(achieved, peak), source)
    if IMMA_TYPE in roofs:
        return roofs
    share = m.pipe_active_share(analysis.launch, m.IMMA_PIPE_BASES)
    if share.value:
        peak = _tensor_roof(analysis, device, spec, IMMA_TYPE)
        pct = Value(100 * share.value, via=f"100 x {share.via} (IMMA pipe busy share of the elapsed cycles)")
        achieved = (Value(share.value * peak.value, via=f"{share.via} x the INT8 roof (INT8 at the dense rate; INT4 "
                                                        "would do twice the operations)")
                    if peak.value is not None else Value(None, peak.reason))
        roofs[IMMA_TYPE] = TensorRoof(IMMA_TYPE, f"IMMA pipe busy ({share.via})", achieved, peak, pct, "pipe")
    return roofs


def _tensor_roof(analysis: LaunchAnalysis, device: Device, spec: DeviceSpec | None, dtype: str) -> Value:
    """A type's dense tensor roof at the launch's clock: the report's own ops_path peak, else the datasheet's
    (``tensor_<type>`` in the device spec) x the measured SM clock / the clock that figure holds at (``clock_of``)."""
    own = m.tensor_peak(analysis.launch, device, dtype)
    if own.value is not None:
        return Value.of(own)
    if spec is None:
        return Value(None, f"no dense {dtype.upper()} tensor roof: the report holds no ops_path peak and no device "
                           "spec matches this GPU")
    sheet = spec.peaks.get(f"tensor_{dtype}")
    if sheet is None:
        return Value(None, f"no dense {dtype.upper()} tensor roof: the report holds no ops_path peak and its device "
                           f"spec ({spec.id}) lists no tensor_{dtype}")
    clock, reference = m.sm_clock_hz(analysis.launch), spec.clock_of("tensor", dtype)
    if clock.value is None or not reference:
        return Value(sheet, via=f"device spec {spec.id} tensor_{dtype} (datasheet, dense), unscaled: no SM clock")
    return Value(sheet * clock.value / reference,
                 via=f"device spec {spec.id} tensor_{dtype} (datasheet, dense) x {clock.via} / {reference:.4g} Hz")


def _pct(achieved: Value, peak: Value) -> Value:
    if achieved.value is None or peak.value is None:
        return Value(None, achieved.reason or peak.reason)
    return Value(100 * achieved.value / peak.value, via="achieved / roof x 100")


def _missing(t: TensorCores, analysis: LaunchAnalysis) -> dict[str, str]:
    """Reasons for the numbers left None."""
    pipe = f"{m.TENSOR_PIPE_BASES[0]}{{}} not in the report: re-profile with --set full"
    reasons = {"pipe_active_pct": pipe.format(m.PCT_ACTIVE), "pipe_elapsed_pct": pipe.format(m.PCT_ELAPSED),
               "flop_share": analysis.flops["tensor"].reason or "no FLOPs counted"}
    return {key: why for key, why in reasons.items() if getattr(t, key) is None}


# --- Measurements -------------------------------------------------------------------------------------
def _first(analysis: LaunchAnalysis, bases: tuple[str, ...], suffix: str) -> float | None:
    names = _suffixed(bases, suffix)
    if analysis.launch.metrics.keys().isdisjoint(names):  # the common case: no tensor pipe counter, in one look
        return None
    return next((v for v in map(analysis.launch.value, names) if v is not None), None)


@functools.lru_cache(maxsize=256)
def _suffixed(bases: tuple[str, ...], suffix: str) -> tuple[str, ...]:
    """The metric names of ``bases`` with ``suffix``, in order."""
    return tuple(b + suffix for b in bases)


def _activity(analysis: LaunchAnalysis) -> tuple[dict[str, float], float | None, float | None]:
    """Per-family issue rate, and tensor pipe activity while active and over the elapsed time."""
    families = {}
    for family in m.TENSOR_FAMILIES:
        value = _first(analysis, m.tensor_family_bases(family), m.PCT_ACTIVE)
        if value is not None:
            families[family] = value
    return (
        families,
        _first(analysis, m.TENSOR_PIPE_BASES, m.PCT_ACTIVE),
        _first(analysis, m.TENSOR_PIPE_BASES, m.PCT_ELAPSED),
    )


def _status(tensor: float | None, families: Mapping[str, float], active: float | None,
            elapsed: float | None) -> TensorStatus:
    """USED when tensor FLOPs were counted or MMA work shows on the pipe; an exact zero count of float tensor
    FLOPs leaves only integer MMA (IMMA, integer GMMA) as evidence of use."""
    if tensor:
        return USED
    readings = [v for v in (active, elapsed, *families.values()) if v is not None]
    if not readings:
        return NOT_USED if tensor == 0.0 else NOT_MEASURED
    mma = [families.get("imma"), families.get("gmma")] if tensor == 0.0 else readings
    if max((v for v in mma if v is not None), default=0.0) >= TENSOR_ACTIVE_PCT:
        return USED
    return NEGLIGIBLE if max(readings) > 0 and tensor is None else NOT_USED


def _flop_share(analysis: LaunchAnalysis) -> float | None:
    tensor, total = analysis.flops["tensor"].value, analysis.total_flops
    return tensor / total if tensor is not None and total else None


def _unmeasured_reason(analysis: LaunchAnalysis) -> str:
    names = [b + s for b in m.TENSOR_PIPE_BASES for s in (m.PCT_ACTIVE, m.PCT_ELAPSED)]
    if any(n in analysis.launch.nan_metrics for n in names):
        return "ncu stored NaN for the tensor pipe metrics: it could not measure this launch"
    return (f"no tensor pipe metrics ({m.TENSOR_PIPE_BASES[0]}) and no tensor FLOP counters: re-profile with "
            "--set full, or --set roofline with ncu 2025.1 or newer")


# --- Matrix-multiply-like kernels ---------------------------------------------------------------------
def _matmul_like(analysis: LaunchAnalysis) -> str:
    """Why the launch looks like a matrix multiply: its name, or its FMA share with data reuse at every level."""
    hit = matmul_name((analysis.launch.name, analysis.launch.demangled_name))
    if hit:
        return f"its name contains '{hit}'"
    precision = _cuda_core_precision(analysis)
    if precision is None:
        return ""
    share = _fma_share(analysis, precision)
    reuse = {level: analysis.intensity[level].value for level in ("dram", "l2", "l1")}
    measured = {level: v for level, v in reuse.items() if v is not None}
    if (share is None or share < MATMUL_MIN_FMA_SHARE or "l1" not in measured
            or min(measured.values()) < MATMUL_MIN_INTENSITY):
        return ""
    levels = ", ".join(f"{v:.3g} per {level.upper()} byte" for level, v in measured.items())
    return f"instruction mix: {100 * share:.0f}% of its {precision.upper()} FLOPs are FMAs, at {levels}"


def _cuda_core_precision(analysis: LaunchAnalysis) -> str | None:
    """The CUDA-core precision with the most FLOPs (None when none was counted)."""
    known = {p: analysis.flops[p].value or 0.0 for p in TENSOR_TYPE_FOR if analysis.flops[p].value}
    return max(known, key=lambda p: known[p]) if known else None


def _fma_share(analysis: LaunchAnalysis, precision: str) -> float | None:
    """Fraction of one precision's FLOPs that come from FMA instructions."""
    fma = m.fma_instructions(analysis.launch, precision)
    total = analysis.flops[precision].value
    return dict(m.FLOP_TERMS[precision])[m.FMA_OP[precision]] * fma / total if fma is not None and total else None


# --- Findings -----------------------------------------------------------------------------------------
def _with_findings(t: TensorCores, analysis: LaunchAnalysis, arch: TensorArch | None, device: Device,
                   spec: DeviceSpec | None) -> TensorCores:
    lines = [_status_line(t)] if t.status != NOT_MEASURED else [t.reason]
    if t.flops_by_type:
        total = sum(t.flops_by_type.values())
        lines.append("tensor FLOPs by source type: " + ", ".join(
            f"{k.upper()} {si(v, 'FLOP')} ({100 * v / total:.0f}%)" for k, v in t.flops_by_type.items())
            + (FROM_SASS if t.work_source == m.TENSOR_FROM_SASS else ""))
    if t.flop_share is not None and t.status == USED:
        lines.append(f"Tensor Cores executed {100 * t.flop_share:.1f}% of the counted FLOPs")
    lines += [_roof_line(r) for r in t.roofs.values()]
    pipe_note = _hfma2_note(t, analysis, arch)
    lines += [pipe_note] if pipe_note else []
    if t.matmul_like and t.status != USED and analysis.total_flops == 0:
        lines.append(f"looks like a matrix multiply ({t.matmul_like}) but counted no floating-point FLOPs: "
                     "its math is integer (or uncounted) and ran on the CUDA cores")
    warning, advice, gain = _warning(t, analysis, arch, device, spec)
    unsized = bool(advice) and _cuda_core_precision(analysis) is None
    return replace(t, findings=tuple(lines), warning=warning, advice=advice, roof_ratio=gain,
                   size_with=SIZE_WITH if unsized else "")


def _roof_line(r: TensorRoof) -> str:
    """One type's tensor work against its dense roof."""
    unit = "OP/s" if r.dtype.startswith("int") else "FLOP/s"
    sass = ", counted from the SASS" if r.source == m.TENSOR_FROM_SASS else ""
    if r.peak_ops_per_s.value is None:
        return (f"{r.dtype.upper()} tensor work ({si(r.achieved_ops_per_s.value, unit)}{sass}): "
                f"{r.peak_ops_per_s.reason}")
    share = (f"{r.pct_of_peak.value:.1f}% of it" if r.pct_of_peak.value is not None
             else f"its share not known ({r.pct_of_peak.reason})")
    return (f"{r.dtype.upper()} tensor roof {si(r.peak_ops_per_s.value, unit)} (dense): {share}"
            + (f", {si(r.achieved_ops_per_s.value, unit)}" if r.achieved_ops_per_s.value is not None else "") + sass)


def _status_line(t: TensorCores) -> str:
    pipe = _pipe_text(t)
    if t.status == USED:
        fams = ", ".join(f"{FAMILY_NAMES[f]} ({FAMILY_TYPES[f]}) at {v:.1f}% of peak issue"
                         for f, v in t.families.items() if v > 0)
        return "uses Tensor Cores" + (f": {fams}" if fams else "") + (f"; {pipe}" if pipe else "")
    if t.status == NEGLIGIBLE:
        return f"Tensor Core activity negligible ({pipe}; below {TENSOR_ACTIVE_PCT:g}% counts as not used)"
    return "does not use Tensor Cores" + (f" ({pipe})" if pipe else "")


def _pipe_text(t: TensorCores) -> str:
    parts = []
    if t.pipe_active_pct is not None:
        parts.append(f"{t.pipe_active_pct:.2g}% active while SMs were busy")
    if t.pipe_elapsed_pct is not None:
        parts.append(f"{t.pipe_elapsed_pct:.2g}% over the kernel's duration")
    return "tensor pipe " + ", ".join(parts) if parts else ""


def _hfma2_note(t: TensorCores, analysis: LaunchAnalysis, arch: TensorArch | None) -> str:
    """Explain pipe activity without MMA work on GPUs where packed FP16 instructions share the pipe."""
    busy = max([v for v in (t.pipe_active_pct, *t.families.values()) if v is not None], default=0.0)
    if t.status == USED or not busy or arch is None or not arch.hfma2_on_tensor_pipe:
        return ""
    fp16, tensor = analysis.flops["fp16"].value, analysis.flops["tensor"].value
    if fp16 and tensor == 0.0:
        return (f"the {busy:.2g}% tensor pipe activity is not MMA work (no tensor FLOPs counted): on {arch.name} "
                f"packed FP16 (HFMA2) instructions issue on the tensor pipe, and this launch ran {si(fp16, 'FLOP')} "
                "of FP16 on the CUDA cores")
    return (f"the {busy:.2g}% tensor pipe activity may be packed FP16 (HFMA2) instructions, which issue on the "
            f"tensor pipe on {arch.name}")


def _warning(t: TensorCores, analysis: LaunchAnalysis, arch: TensorArch | None, device: Device,
             spec: DeviceSpec | None) -> tuple[str, str, float | None]:
    """A matrix-multiply-like launch whose floating-point math ran on the CUDA cores of a GPU with Tensor Cores:
    the warning and the advice, both with their numbers (empty strings otherwise), and the ratio of the roof the
    advice points to over the CUDA-core roof (None when not known)."""
    if not t.matmul_like or t.status not in (NOT_USED, NEGLIGIBLE) or arch is None:
        return "", "", None
    precision = _cuda_core_precision(analysis)
    if precision is None and analysis.total_flops is not None:
        return "", "", None  # FLOPs were counted and none is floating point (a finding says so)
    if precision is not None and TENSOR_TYPE_FOR[precision] not in arch.float_types:
        return "", "", None
    pipe = _pipe_text(t) or "no tensor activity"
    if precision is None:
        return _unsized_warning(t, analysis, arch, pipe, device, spec)
    name, offer, flops = (
        precision.upper(),
        TENSOR_TYPE_FOR[precision].upper(),
        si(analysis.flops[precision].value, "FLOP"),
    )
    ratio, gain, half = _roof_ratio(analysis, precision, device, spec)
    util = analysis.roof.utilization_pct.get(precision)
    at = f" at {util:.1f}% of the {name} roof" if util is not None else ""
    warning = (f"looks like a matrix multiply ({t.matmul_like}) but its {flops} of {name} math ran on the CUDA cores "
               f"({pipe}); {arch.name} Tensor Cores take {offer}{ratio}")
    if gain is not None and gain < TENSOR_NO_GAIN_RATIO:
        return warning, f"{_sentence(no_faster_text(offer, name, gain, half, arch))}; {flops} ran on the CUDA cores" \
                        f"{at}.", half
    return warning, (f"Run the {name} matrix math on Tensor Cores as {offer} (cuBLAS/cuDNN tensor-op math modes, "
                     f"CUTLASS, or WMMA/MMA instructions): {flops} ran on the CUDA cores{at}{ratio}."), gain


def no_faster_text(offer: str, name: str, gain: float, half: float | None, arch: TensorArch) -> str:
    """The advice where the Tensor Core type that fits the math (``offer``) runs no faster than the CUDA cores'
    ``name`` precision (TF32 on GeForce and workstation Ampere and Ada): the 16-bit types the GPU takes, with their
    gain, are all that would help; the same words whether or not FLOPs were counted."""
    halves = half_types(arch)
    alternative = (f"only {halves} inputs would gain ({half:.3g}x), if the accuracy allows" if half and halves
                   else "Tensor Cores would not raise its ceiling")
    return f"on this GPU {offer} Tensor Cores run no faster than the {name} CUDA cores ({gain:.3g}x): {alternative}"


def _sentence(text: str) -> str:
    """``text`` opening a sentence: its first letter in capitals (the rest as it is: "TF32" stays)."""
    return text[:1].upper() + text[1:]


def tf32_gain(analysis: LaunchAnalysis, device: Device | None, spec: DeviceSpec | None
              ) -> tuple[float | None, float | None]:
    """For FP32 math, the Tensor Core item's figures (``_roof_ratio``): the TF32 tensor roof over the FP32 roof, and
    where that gains nothing (under ``TENSOR_NO_GAIN_RATIO``) the FP16 tensor roof's ratio; None where no peak tells
    (no spec's figure, no peak counter). The library advice (``analysis.advice``) says the same as this item."""
    _, gain, half = _roof_ratio(analysis, "fp32", device, spec)
    return gain, half


def half_types(arch: TensorArch) -> str:
    """The 16-bit floating-point Tensor Core types a GPU takes, "FP16/BF16" (BF16 from compute capability 8.0),
    "FP16" before; "" where it takes neither."""
    return "/".join(x.upper() for x in ("fp16", "bf16") if x in arch.float_types)


def _unsized_warning(t: TensorCores, analysis: LaunchAnalysis, arch: TensorArch, pipe: str, device: Device,
                     spec: DeviceSpec | None) -> tuple[str, str, float | None]:
    """The warning and advice where no FLOPs were counted: the Tensor Core types that fit the precision the busiest
    FP pipe shows (``_pipe_precision``) or the name spells, every type the GPU takes where neither does; and the
    ratio of the roof offered over that precision's CUDA-core roof (``_roof_ratio``), which sizes the gain on the
    time model (the pipe's time at the faster roof) where no FLOPs are counted. Where the type that fits runs no
    faster than the CUDA cores (TF32 on GeForce and workstation Ampere and Ada), the advice is the counted path's:
    only the 16-bit types would gain, and the ratio is theirs."""
    found = _pipe_precision(analysis)
    named = _name_precision(analysis)
    if found is None and named is None:
        offer = "/".join(x.upper() for x in arch.float_types)
        return (f"looks like a matrix multiply ({t.matmul_like}) but ran on the CUDA cores ({pipe}; FLOPs not counted "
                f"in this report); {arch.name} Tensor Cores take {offer}",
                f"Check whether this matrix multiply can run on Tensor Cores ({offer}): {pipe}.", None)
    if found is not None:
        precision, unit = found
        ran = f"the {unit.name}, which runs {precision.upper()} math, is at {unit.pct:.1f}% of its peak"
    else:
        precision = cast(str, named)
        ran = f"its name says {precision.upper()} operands ('{analysis.launch.name}')"
    offer = _offer(precision, arch)
    if not offer:
        return "", "", None
    ratio, gain, half = _roof_ratio(analysis, precision, device, spec) \
        if TENSOR_TYPE_FOR[precision] in arch.float_types else ("", None, None)
    warning = (f"looks like a matrix multiply ({t.matmul_like}) but ran on the CUDA cores ({ran}; {pipe}; FLOPs not "
               f"counted in this report); {arch.name} Tensor Cores take {offer}{ratio}")
    if gain is not None and gain < TENSOR_NO_GAIN_RATIO:  # the type that fits runs no faster: the 16-bit ones
        said = no_faster_text(TENSOR_TYPE_FOR[precision].upper(), precision.upper(), gain, half, arch)
        return warning, f"{_sentence(said)}: {ran}; {pipe}.", half
    return warning, f"Check whether this matrix multiply can run on Tensor Cores as {offer}: {ran}; {pipe}.", gain


# The FP pipes whose work shows a kernel's precision where no FLOPs were counted, by their breakdown units' short
# names (``m.unit_short_name``; the FMA pipe also runs integer multiply-adds, which a matrix multiply of
# floating-point data does not use for its math).
PIPE_PRECISIONS = {"FMA": "fp32", "FP64": "fp64", "FP16": "fp16"}


def _pipe_precision(analysis: LaunchAnalysis) -> tuple[str, BusyUnit] | None:
    """The precision of the busiest FP pipe of the throughput breakdowns (``PIPE_PRECISIONS``) and that pipe; None
    where none is at ``PIPE_BUSY_PCT`` or more."""
    pipes = [(PIPE_PRECISIONS[short], u) for u in busy_units(analysis.launch)
             if (short := m.unit_short_name(u.metric)) in PIPE_PRECISIONS and u.pct >= PIPE_BUSY_PCT]
    return max(pipes, key=lambda pu: pu[1].pct, default=None)


_NAMED_PRECISIONS = {"f32": "fp32", "f64": "fp64", "f16": "fp16", "bf16": "fp16"}  # kernel_families' operand types


def _name_precision(analysis: LaunchAnalysis) -> str | None:
    """The precision a library kernel's name spells (``ampere_sgemm_*``: FP32, ``*_dgemm_*``: FP64), None where it
    spells none or a type of no FP CUDA-core math."""
    found = classify(analysis.launch.name) if analysis.launch.name else None
    return _NAMED_PRECISIONS.get(found.dtype or "") if found is not None else None


def _offer(precision: str, arch: TensorArch) -> str:
    """The Tensor Core types that fit ``precision`` on ``arch``: FP64 for FP64 work; TF32 for FP32 work, FP16/BF16
    inputs if the accuracy allows; FP16/BF16 for FP16 work ("" where the GPU takes none of them)."""
    takes = arch.float_types
    half = "/".join(x.upper() for x in ("fp16", "bf16") if x in takes)
    if precision == "fp64":
        return "FP64" if "fp64" in takes else ""
    if precision == "fp16":
        return half
    if "tf32" in takes:
        return "TF32" + (f", or {half} inputs if the accuracy allows" if half else "")
    return f"{half} inputs if the accuracy allows" if half else ""


def _roof_ratio(analysis: LaunchAnalysis, precision: str, device: Device | None,
                spec: DeviceSpec | None) -> tuple[str, float | None, float | None]:
    """How far the matching tensor roof lies above this precision's CUDA-core roof (text, ratio): datasheet peaks
    when the GPU has a spec, else the report's measured-clock peaks; and, where TF32 runs no faster than FP32
    (GeForce Ampere), the FP16 tensor roof's ratio."""
    wanted = TENSOR_TYPE_FOR[precision]
    for tensor, core, basis in _peak_pairs(analysis, precision, device, spec, wanted):
        if tensor and core:
            fp16 = spec.peaks.get("tensor_fp16") if spec is not None and wanted == "tf32" else None
            half = fp16 / core if fp16 and tensor / core < TENSOR_NO_GAIN_RATIO else None
            note = f"; FP16/BF16 inputs would reach {si(fp16, 'FLOP/s')}" if half else ""  # TF32: CC 8.0 on
            return _ratio_text(wanted, tensor, precision, core, basis) + note, tensor / core, half
    return "", None, None


def _peak_pairs(analysis: LaunchAnalysis, precision: str, device: Device | None, spec: DeviceSpec | None,
                wanted: str) -> list[tuple[float | None, float | None, str]]:
    """(tensor peak, CUDA-core peak, basis) from the datasheet, then from the report's peak counters (with the
    device they are read for)."""
    pairs = [(spec.peaks.get(f"tensor_{wanted}"), spec.peaks.get(precision), "datasheet")] if spec is not None else []
    measured = analysis.ceilings.get("measured-clock")
    if measured is not None and device is not None:
        pairs.append(
            (m.tensor_peak(analysis.launch, device, wanted).value, measured.flop_per_s[precision], "measured-clock")
        )
    return pairs


def _ratio_text(dtype: str, tensor: float, precision: str, core: float, basis: str) -> str:
    return (f"; the {dtype.upper()} tensor roof ({si(tensor, 'FLOP/s')}) is {tensor / core:.3g}x the "
            f"{precision.upper()} roof ({si(core, 'FLOP/s')}, {basis})")
