"""JSON document of one or more report analyses (schema_version 7, documented in docs/json-schema.md).

"Not measured" is ``null`` with its reason (never 0, never NaN): a kernel's ``missing`` (and each ceiling set's)
maps the null's path to an index into its report's ``reasons``, the table that states each reason once, so
a reason shared by every launch is written once per report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from roofline.analysis.launches import KernelGroup, ReportAnalysis
from roofline.analysis.results import (
    Advice,
    BusyUnit,
    Hotspots,
    InstructionRoofline,
    IntegerRoofline,
    LaunchAnalysis,
    MemoryPicture,
    MemoryWalls,
    Occupancy,
    TensorCores,
    TensorRoof,
    TimeModel,
    Value,
    Verdict,
    WarpStalls,
)
from roofline.analysis.view import ReportSetView, ReportView
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, PcCounters
from roofline.core.thresholds import THIN_SAMPLES
from roofline.core.version import __version__
from roofline.ncu.metrics import (
    BLOCK_DIMS,
    GRID_DIMS,
    HINT_LINEINFO,
    HINT_PC_SAMPLES,
    LAUNCH_BLOCK,
    LAUNCH_GRID,
    LAUNCH_REGISTERS,
    LAUNCH_SHARED,
)
from roofline.render import GENERATOR
from roofline.render.names import json_text
from roofline.render.report.prose import bound_of, estimate_of, inverted_level_text

# 2: bound is the verdict over every unit, with "verdict", "stalls", bytes.l2_total, "clock" roofs;
# 3: each report states its reasons once ("reasons"); a kernel's and a ceiling set's "missing" index into them
# 4: the ceiling sets named as every output names them: kernel-clock, datasheet, measured-clock, calibrated (were
#    clock, spec, report, measured); each report carries its own "ceilings"
# 5: advice is one reconciled list per launch: each item has "topic", "mechanism", "bound", "also" (the ncu rules
#    merged into it), "work_share" and "ncu_saved_s" (ncu's estimate where it was above the bound)
# 6: each kernel has "instruction_roofline": warp and thread GIPS, warp instructions per 32-byte transaction per
#    level, and the issue and transaction roofs (the Instruction Roofline Model)
# 7: "instruction_roofline" has "global_memory" and "shared_memory": per operation warp instructions per sector or
#    wavefront, and the model's walls
# 8: "instruction_roofline" has "integer": integer instructions per second against the integer pipe's peak, and per
#    byte at each level
# 9: `roofline timeline` writes a "kind: timeline" document (nsys kernels ranked by total time)
# 10: comparisons judge work on the governing resource ("work.governing", "work.notes", "measures.*.apart");
#     `roofline project` writes a "kind: project" document
# 11: each kernel has "hotspots": its instructions by warp samples (share, SASS, source line, stall reasons,
#     executions, memory counters) and the source lines they aggregate to, from the per-PC counters of SourceCounters
# 14: a comparison's headline "kind" may be "time_ratio" (work not compared); a timeline's idle causes may be of
#     kind "other_kernels" (with --nvtx); percent of roof pooled with time-weighted roofs, recoverable time at most
#     the time above the launch floor
# 15: a governing resource (a comparison's "work.governing", a projection's "governing") is "latency" for a
#     latency-bound kernel, "launch" for a small grid only (both were "launch")
# 16: a projection's "clock" has the Tensor figures' clocks and "tensor_factor"; "shared_memory" says whether the
#     kernel's blocks fit the target's shared memory per block
SCHEMA_VERSION = 16
HOTSPOTS_SHOWN = 20  # instructions and lines listed per launch, most samples first


def render(view: ReportSetView) -> str:
    """The whole JSON document as text."""
    return dumps(document(view))


def dumps(doc: dict[str, Any]) -> str:
    """Compact JSON text on one line (``names.json_text``); never NaN. Pipe through ``python -m json.tool`` or
    ``jq`` to read it."""
    return json_text(doc)


def document(view: ReportSetView) -> dict[str, Any]:
    """The JSON document as plain data; ``across_reports`` only when several reports were given."""
    spreads = view.spreads
    doc: dict[str, Any] = {
        "generator": GENERATOR,  # the first key: the mark by which roofline knows the file as its own
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "roofline", "version": __version__},
        "reports": [report_dict(v) for v in view.reports],
    }
    if view.left_out:  # the files the command could not analyse, the others written
        doc["left_out"] = [{"path": f.path, "error": f.error} for f in view.left_out]
    if spreads:
        doc["across_reports"] = [
            {"name": s.name, "total_s": {p: number(t) for p, t in s.total_s.items()},
             "spread_pct": number(s.spread_pct), "flagged": s.flagged} for s in spreads
        ]
    return doc


class Reasons:
    """One report's table of reasons: each distinct text once, referred to by its index."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}

    def refs(self, missing: Mapping[str, str]) -> dict[str, int]:
        """``missing`` (path -> reason) with each reason replaced by its index in the table."""
        out = {}
        for path, text in missing.items():
            index = self._index.get(text)
            if index is None:
                index = self._index[text] = len(self.texts)
                self.texts.append(text)
            out[path] = index
        return out


def report_dict(v: ReportView) -> dict[str, Any]:
    """One report: its device, every launch, the groups, and ``reasons``, the texts the launches' ``missing``
    index."""
    a = v.analysis
    d = a.device
    reasons = Reasons()
    no_spec = _no_spec_reason(a)
    kernels = [kernel_dict(k, reasons, no_spec, saved, text)
               for k, saved, text in zip(a.launches, v.recoverable_s, v.verdicts, strict=True)]
    return {
        "path": a.report.path,
        "source": a.report.source,
        "label": a.report.label,
        "device": {
            "name": d.name, "compute_capability": d.compute_capability, "sm_count": d.sm_count,
            "max_clock_hz": d.max_clock_hz, "memory_clock_hz": d.memory_clock_hz,
            "memory_bus_width_bits": d.memory_bus_width_bits, "l2_cache_bytes": d.l2_cache_bytes,
            "total_memory_bytes": d.total_memory_bytes, "spec_id": a.spec_id, "spec_match": a.spec_match or None,
        },
        "ceilings_used": a.ceilings_used,
        "ceilings": {name: ceilings_dict(c, reasons) for name, c in v.ceilings.items()},
        "warnings": list(a.report.warnings),
        "total_time_s": number(a.total_time_s),
        "kernels": kernels,
        "groups": [group_dict(g) for g in a.groups],
        "reasons": reasons.texts,
    }


def with_reasons(kernel: Mapping[str, Any], reasons: Sequence[str]) -> dict[str, Any]:
    """A kernel of ``report_dict`` with the reason texts in place of their indices (``missing`` of the kernel and of
    each ceiling set), as a reader of the document looks them up."""
    ceilings = {name: c if c is None else {**c, "missing": {k: reasons[i] for k, i in c["missing"].items()}}
                for name, c in kernel["ceilings"].items()}
    return {**kernel, "ceilings": ceilings, "missing": {path: reasons[i] for path, i in kernel["missing"].items()}}


# Launch-configuration fields and the launch__* metric each comes from (for the reason when it is null).
_LAUNCH_FIELDS = {"grid": f"{GRID_DIMS[0][:-1]}*", "block": f"{BLOCK_DIMS[0][:-1]}*",
                  "registers_per_thread": LAUNCH_REGISTERS, "shared_mem_per_block_bytes": LAUNCH_SHARED}
_SIZE_FIELDS = {"grid_size": LAUNCH_GRID, "block_size": LAUNCH_BLOCK}


def _no_spec_reason(analysis: ReportAnalysis) -> str:
    d = analysis.device
    return (f"no device spec matches '{d.name}' (CC {d.compute_capability or '?'}); "
            "add a YAML with --specs (see device_specs/README.md)")


def kernel_dict(analysis: LaunchAnalysis, reasons: Reasons, no_spec_reason: str, recoverable_s: float | None,
                verdict_text: str) -> dict[str, Any]:
    """One launch (with its recoverable time and its verdict's line, from the report's view); every null in it has
    its reason under ``missing``, keyed by its path: the reason's index in ``reasons``, the report's table."""
    launch = analysis.launch
    missing: dict[str, str] = {}
    out: dict[str, Any] = {
        "name": launch.name, "demangled_name": launch.demangled_name, "range": launch.range_index,
        "action": launch.action_index, "valid": not launch.invalid, "nvtx": list(launch.nvtx_ranges),
        "grid": list(launch.grid) if launch.grid else None, "block": list(launch.block) if launch.block else None,
        "grid_size": analysis.grid_size, "block_size": analysis.block_size,
        "registers_per_thread": launch.registers_per_thread,
        "shared_mem_per_block_bytes": launch.shared_mem_per_block_bytes,
        "duration_s": value_or_null(analysis.duration_s, "duration_s", missing),
        "time_share": number(analysis.time_share),
        "flops": values_or_null(analysis.flops, "flops", missing),
        "tensor_flops_by_type": dict(analysis.tensor_flops_by_type),
        "flop_per_s": values_or_null(analysis.flop_per_s, "flop_per_s", missing),
        "bytes": values_or_null({**analysis.bytes, "l2_total": analysis.l2_total_bytes}, "bytes", missing),
        "bytes_per_s": values_or_null(analysis.bytes_per_s, "bytes_per_s", missing),
        "intensity": values_or_null(analysis.intensity, "intensity", missing),
        "definitions": {
            **analysis.definitions,
            **(
                {"l2_total": f"all L2 traffic, loads and stores: {analysis.l2_total_bytes.via}"}
                if analysis.l2_total_bytes.value is not None
                else {}
            ),
        },
        "level_notes": [inverted_level_text(level) for level in analysis.inverted_levels],
        "ceilings": {name: ceilings_dict(c, reasons) for name, c in analysis.ceilings.items()},
        "ceilings_used": analysis.roof.ceilings,
        "pct_of_roof": number(analysis.roof.pct_of_roof),
        "limiter": analysis.roof.limiter,
        "utilization_pct": {key: number(v) for key, v in analysis.roof.utilization_pct.items()},
        "bound": analysis.verdict.bound,
        "verdict": verdict_dict(analysis.verdict, verdict_text, missing),
        "recoverable_s": number(recoverable_s),
        "flags": list(analysis.flags),
        "notes": list(analysis.notes),
        "occupancy": occupancy_dict(analysis.occupancy, missing),
        "tensor_cores": tensor_cores_dict(analysis.tensor_cores, missing),
        "stalls": stalls_dict(analysis.stalls, missing),
        "instruction_roofline": instruction_roofline_dict(analysis.instruction_roofline, missing),
        "memory": memory_dict(analysis.memory, missing),
        "hotspots": hotspots_dict(analysis.hotspots, missing),
        "time_model": time_model_dict(analysis.time_model, missing),
    }
    out["ceilings"].setdefault("datasheet", None)
    if out["ceilings"]["datasheet"] is None:
        missing["ceilings.datasheet"] = no_spec_reason
    for key, metric in _LAUNCH_FIELDS.items():
        if out[key] is None:
            total = out.get(f"{key}_size")
            missing[key] = (f"{metric} not in the report (an older ncu or section set): {key}_size holds the total, "
                            f"{total}" if total is not None else
                            f"{metric} not in the report (collect the LaunchStats section)")
    for key in ("grid_size", "block_size"):
        if out[key] is None:
            missing[key] = f"{_SIZE_FIELDS[key]} not in the report (collect the LaunchStats section)"
    if out["time_share"] is None:
        missing["time_share"] = missing.get("duration_s", "no total time for the report")
    if analysis.roof.reason:
        missing["pct_of_roof"] = analysis.roof.reason
    if launch.invalid:  # no diagnostics for a launch whose attributes are impossible
        missing.update({key: f"invalid launch: {launch.invalid}" for key in ("occupancy", "tensor_cores", "stalls",
                                                                                  "instruction_roofline", "memory",
                                                                                  "hotspots")})
    if out["limiter"] is None:
        missing["limiter"] = analysis.roof.reason or "no roof position"
    if out["bound"] is None:
        missing["bound"] = analysis.verdict.reason or "no verdict"
    if out["recoverable_s"] is None:
        missing["recoverable_s"] = (
            missing.get("duration_s") or analysis.roof.reason or "no throughput and no roof position"
        )
    out["advice"] = [advice_dict(item, f"advice[{i}]", missing) for i, item in enumerate(analysis.advice)]
    out["missing"] = reasons.refs(missing)
    return out


def verdict_dict(v: Verdict, text: str, missing: dict[str, str]) -> dict[str, Any]:
    """The verdict's inputs, its busiest units and its one-line explanation; every null has its reason under
    ``missing`` (the verdict's own: what the report lacks, or that the verdict is the roofline's alone)."""
    out = {
        "basis": v.basis, "sm_pct": number(v.sm_pct), "memory_pct": number(v.memory_pct),
        "waves_per_sm": number(v.waves_per_sm), "busiest": unit_dict(v.busiest) if v.busiest else None,
        "top_units": [unit_dict(u) for u in v.top_units], "ncu_title": v.ncu_title or None, "text": text,
    }
    missing.update({f"verdict.{key}": v.reason or "not measured" for key, value in out.items() if value is None})
    return out


def time_model_dict(t: TimeModel | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """The launch's time model: each term's time at its unit's peak, with its formula and inputs; the floor (the
    largest term) and the slack (measured minus floor)."""
    if t is None:
        missing["time_model"] = "not computed"
        return None
    out = {"measured_s": number(t.measured_s), "floor_s": number(t.floor_s) if not t.reason else None,
           "floor": t.floor.key if t.floor is not None and not t.reason else None,
           "slack_s": number(t.slack_s) if not t.reason else None,
           "terms": [{"key": term.key, "name": term.name, "kind": term.kind, "seconds": number(term.seconds),
                      "formula": term.formula, "inputs": {k: number(v) for k, v in term.inputs.items()},
                      "metric": term.metric or None, "side": term.side or None, "sm_local": term.sm_local}
                     for term in t.terms]}
    missing.update({f"time_model.{key}": t.reason or "not measured" for key, value in out.items() if value is None})
    return out


def unit_dict(u: BusyUnit) -> dict[str, Any]:
    return {"name": u.name, "pct": number(u.pct), "side": u.side, "metric": u.metric}


def stalls_dict(s: WarpStalls | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """What the warps wait on; unmeasured figures are null with their reason under ``missing``."""
    if s is None:
        missing["stalls"] = "not computed"
        return None
    missing.update({f"stalls.{key}": reason for key, reason in s.missing.items()})
    return {
        "source": s.source or None,
        "reasons": [{"reason": r, "value": number(v), "share": number(share)} for r, v, share in s.reasons],
        "issue_active_pct": number(s.issue_active_pct), "eligible_per_scheduler": number(s.eligible_per_scheduler),
        "active_per_scheduler": number(s.active_per_scheduler),
    }


def instruction_roofline_dict(r: InstructionRoofline | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """The launch on the instruction roofline, with its roofs; each null has its reason under ``missing`` and each
    number how it was obtained under ``via``."""
    key = "instruction_roofline"
    if r is None:
        missing[key] = "not computed"
        return None
    rates = {"warp_gips": r.warp_gips, "thread_gips_per_32": r.thread_gips_per_32, "peak_warp_gips": r.peak_warp_gips}
    levels = {"transactions": r.transactions, "intensity": r.intensity, "thread_intensity": r.thread_intensity,
              "peak_gtxn_per_s": r.peak_gtxn_per_s}
    out: dict[str, Any] = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in rates.items()}
    out.update({name: values_or_null(values, f"{key}.{name}", missing) for name, values in levels.items()})
    out["definitions"] = dict(r.definitions)
    every = {**rates, **{f"{name}.{level}": v for name, values in levels.items() for level, v in values.items()}}
    out["ceilings"] = r.ceilings
    spaces = {"global_memory": r.global_memory, "shared_memory": r.shared_memory}
    out.update({name: memory_walls_dict(w, f"{key}.{name}", missing) for name, w in spaces.items()})
    every |= {f"{name}.{op}": v for name, w in spaces.items() for op, v in w.intensity.items()}
    out["integer"], integer = integer_dict(r.integer, f"{key}.integer", missing)
    every |= integer
    out["via"] = {path: v.via for path, v in every.items() if v.value is not None}
    return out


def memory_dict(p: MemoryPicture | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """The memory chart: L1 and L2 hit rates (percent) and the traffic per edge; nulls have their reason under
    ``missing``, numbers their metrics under ``via``."""
    if p is None:
        missing["memory"] = "not computed"
        return None
    every = {**{f"hit_rate_pct.{k}": v for k, v in p.hit_rate_pct.items()},
             **{f"traffic.{k}": v for k, v in p.traffic.items()}, **{f"sol_pct.{k}": v for k, v in p.sol_pct.items()}}
    return {"hit_rate_pct": values_or_null(p.hit_rate_pct, "memory.hit_rate_pct", missing),
            "traffic": values_or_null(p.traffic, "memory.traffic", missing), "definitions": dict(p.definitions),
            "sol_pct": values_or_null(p.sol_pct, "memory.sol_pct", missing),
            "via": {path: v.via for path, v in every.items() if v.value is not None}}


def integer_dict(r: IntegerRoofline, key: str, missing: dict[str, str]) -> tuple[dict[str, Any], dict[str, Value]]:
    """The integer roofline (each null with its reason under ``missing``), and its values by path for ``via``."""
    rates = {"giops": r.giops, "peak_giops": r.peak_giops, "pct_of_peak": r.pct_of_peak}
    out: dict[str, Any] = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in rates.items()}
    out["intensity"] = values_or_null(r.intensity, f"{key}.intensity", missing)
    every = {f"integer.{name}": v for name, v in rates.items()}
    return out, every | {f"integer.intensity.{level}": v for level, v in r.intensity.items()}


def hotspots_dict(h: Hotspots | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """The launch's instructions and source lines with the most warp samples (``HOTSPOTS_SHOWN`` of each); a null
    SASS text or source line has its reason under ``missing``."""
    if h is None:
        missing["hotspots"] = f"the report holds no warp samples per instruction: {HINT_PC_SAMPLES}"
        return None
    pcs = []
    for i, (pc, share) in enumerate(h.pcs[:HOTSPOTS_SHOWN]):
        pcs.append({"samples": pc.samples, "share": number(share), **_pc_dict(pc, h),
                    "source": f"{pc.file}:{pc.line}" if pc.file is not None else None})
        if pc.sass is None:
            missing[f"hotspots.pcs[{i}].sass"] = h.sass_missing or "ncu_report gave no SASS text"
        if pc.file is None:
            missing[f"hotspots.pcs[{i}].source"] = h.source_missing
        if pcs[-1]["producer"] is not None and pcs[-1]["producer"]["source"] is None:
            missing[f"hotspots.pcs[{i}].producer.source"] = h.source_missing or HINT_LINEINFO
    lines = [{"source": line.where, "file": line.file, "line": line.line, "samples": line.samples,
              "share": number(line.share), "top_stall": line.top_stall, "top_stalls": list(line.tied_stalls),
              "thin": line.samples < THIN_SAMPLES, "stalls": dict(line.stalls),
              "pcs": [_pc_dict(pc, h) | {"samples": pc.samples} for pc in line.pcs]}
             for line in h.lines[:HOTSPOTS_SHOWN] if line.samples > 0]
    if not lines and h.total_samples:
        missing["hotspots.lines"] = h.source_missing
    return {"total_samples": h.total_samples, "sampled_pcs": len(h.pcs), "pcs": pcs,
            "sampled_lines": sum(line.samples > 0 for line in h.lines), "lines": lines,
            "thin_samples": THIN_SAMPLES, "functions": list(h.functions)}


def _pc_dict(pc: PcCounters, h: Hotspots) -> dict[str, Any]:
    """One instruction: where it is (absolute PC, its function), its counters, its stall ties and, where its warps
    waited on a dependency, the instruction producing the awaited register."""
    found = h.producers.get(pc.pc) if pc.pc is not None else None
    producer = None if found is None else {
        "pc": found.pc, "pc_offset": found.pc_offset, "sass": found.sass, "registers": list(found.registers),
        "stall": found.stall, "source": f"{found.file}:{found.line}" if found.file is not None else None}
    return {"pc_offset": pc.pc_offset, "pc": pc.pc,
            "function": h.function_of(pc) or None,
            "function_pc": pc.function_pc,
            "sass": pc.sass, "stalls": dict(pc.stalls), "top_stalls": list(h.stalls_of(pc)),
            "thin": pc.samples < THIN_SAMPLES, "producer": producer,
            "inst_executed": number(pc.inst_executed), "thread_inst_executed": number(pc.thread_inst_executed),
            "memory": dict(pc.memory)}


def memory_walls_dict(w: MemoryWalls, key: str, missing: dict[str, str]) -> dict[str, Any]:
    """One memory space on the model's walls: per operation its intensity (null with its reason), and the walls."""
    out: dict[str, Any] = values_or_null(w.intensity, key, missing)
    out["walls"] = dict(w.walls)
    return out


def occupancy_dict(o: Occupancy | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """Occupancy diagnostics; unmeasured numbers are null with their reason under ``missing``."""
    if o is None:
        missing["occupancy"] = "not computed"
        return None
    missing.update({f"occupancy.{key}": reason for key, reason in o.missing.items()})
    return {
        "theoretical_pct": number(o.theoretical_pct), "achieved_pct": number(o.achieved_pct),
        "limits": dict(o.limits), "limiters": list(o.limiters), "blocks_per_sm": o.blocks_per_sm,
        "warps_per_block": o.warps_per_block, "waves_per_sm": number(o.waves_per_sm),
        "tail_idle_pct": number(o.tail_idle_pct), "derived_limits": dict(o.derived_limits),
        "what_if": [{"change": w.change, "blocks_per_sm": w.blocks_per_sm, "theoretical_pct": number(w.theoretical_pct),
                     "text": w.text} for w in o.what_if],
        "findings": list(o.findings),
    }


def tensor_cores_dict(t: TensorCores | None, missing: dict[str, str]) -> dict[str, Any] | None:
    """Tensor Core diagnostics; a status of "not measured" has its reason under ``missing``."""
    if t is None:
        missing["tensor_cores"] = "not computed"
        return None
    if t.reason:
        missing["tensor_cores"] = t.reason
    missing.update({f"tensor_cores.{key}": reason for key, reason in t.missing.items()})
    return {
        "status": t.status, "architecture": t.arch,
        "families_pct_of_peak": {k: number(v) for k, v in t.families.items()},
        "flops_by_type": dict(t.flops_by_type), "pipe_active_pct": number(t.pipe_active_pct),
        "pipe_elapsed_pct": number(t.pipe_elapsed_pct), "flop_share": number(t.flop_share),
        "matmul_like": t.matmul_like or None, "warning": t.warning or None, "advice": t.advice or None,
        "findings": list(t.findings),
        "roofs": {dtype: _tensor_roof_dict(r, f"tensor_cores.roofs.{dtype}", missing) for dtype, r in t.roofs.items()},
    }


def _tensor_roof_dict(r: TensorRoof, key: str, missing: dict[str, str]) -> dict[str, Any]:
    """One data type's tensor work against its dense roof, with how each number was obtained."""
    values = {"achieved_ops_per_s": r.achieved_ops_per_s, "peak_ops_per_s": r.peak_ops_per_s,
              "pct_of_peak": r.pct_of_peak}
    out: dict[str, Any] = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in values.items()}
    return out | {"work": r.work, "via": {name: v.via for name, v in values.items() if v.value is not None}}


def advice_dict(a: Advice, path: str, missing: dict[str, str]) -> dict[str, Any]:
    """One advice item; a time saved that is not estimated is null with its reason under ``missing``."""
    if a.est_saved_s is None:
        missing[f"{path}.est_saved_s"] = estimate_of(a) or "not estimated"
    return {"kind": a.kind, "title": a.title, "text": a.text, "condition": a.condition, "cause": a.cause,
            "source": a.source, "also": list(a.also), "topic": a.topic or None, "mechanism": a.mechanism,
            "work_share": number(a.work_share), "est_saved_s": number(a.est_saved_s), "estimate": estimate_of(a),
            "bound": bound_of(a) or None, "bound_by": a.bound_by.value or None, "ncu_saved_s": number(a.ncu_saved_s)}


def ceilings_dict(c: Ceilings, reasons: Reasons | None = None) -> dict[str, Any]:
    """One set of roofs; ``missing`` holds the reason of each null roof, as its index in ``reasons`` when given."""
    out: dict[str, Any] = {f"{p}_flop_per_s": number(c.flop_per_s[p]) for p in PRECISIONS}
    out.update({f"{level}_bytes_per_s": number(c.bytes_per_s[level]) for level in LEVELS})
    out.update({"tensor_dtype": c.tensor_dtype, "clock_note": c.clock_note, "scaled": dict(c.scaled),
                "missing": reasons.refs(c.missing) if reasons is not None else dict(c.missing)})
    return out


def group_dict(g: KernelGroup) -> dict[str, Any]:
    return {
        "name": g.name, "functions": list(g.functions), "count": len(g.launches), "total_s": number(g.total_s),
        "median_s": number(g.median_s),
        "min_s": number(g.min_s), "max_s": number(g.max_s), "time_share": number(g.time_share),
        "median_pct_of_roof": number(g.median_pct_of_roof), "recoverable_s": number(g.recoverable_s),
        "small_grid_s": number(g.small_grid_s),
    }


def number(v: float | None) -> float | None:
    """A finite number, or None (JSON null) for None, NaN and infinities."""
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def value_or_null(v: Value, key: str, missing: dict[str, str]) -> float | None:
    """A Value's number, or null with its reason recorded under ``missing[key]``."""
    out = number(v.value)
    if out is None:
        missing[key] = v.reason or ("not measured" if v.value is None else f"not a finite number ({v.value})")
    return out


def values_or_null(values: Mapping[str, Value], prefix: str, missing: dict[str, str]) -> dict[str, float | None]:
    """Each Value of a mapping as ``value_or_null``, keyed ``prefix.key`` under ``missing``."""
    return {k: value_or_null(v, f"{prefix}.{k}", missing) for k, v in values.items()}
