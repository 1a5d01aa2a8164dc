"""One report's rows of the store's tables, taken from its report document (``documents.report``, the figures
``report -f json`` writes; ``collect`` gets it from the JSON renderer, as every shell does) and, for the time to
gain, from its analysis (``analysis.advice.lead_saving``, the figure ``summary`` sums). Pure functions: no I/O."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from roofline.analysis.advice import lead_saving
from roofline.analysis.libraries import library
from roofline.analysis.view import ReportView
from roofline.compare.pairing import path_labels
from roofline.core.kernel_names import kernel_key
from roofline.documents.common import NO_LAUNCH_GAIN
from roofline.documents.report import Kernel, Report
from roofline.store.schema import LEVELS, PRECISIONS

Row = dict[str, Any]
# The version of what the rows hold and how (a fix to a figure or a reason bumps it): part of the analysis key, so
# a refresh analyses again the reports an earlier format wrote, whatever roofline's version. 2: the launch's own
# roofs, the reasons keyed by column; 3: the reasons of a report row's nulls; 4: the reasons of the advice rows' nulls
# and of the time model terms'.
ROWS_FORMAT = 4


@dataclass(frozen=True)
class Stamp:
    """What every row of one report carries beside its figures: where the file is, what it held, and which
    roofline and spec catalog analysed it, when."""

    path: str
    content_hash: str
    size_bytes: int
    roofline_version: str
    catalog_hash: str
    collected_at: datetime

    @property
    def report_id(self) -> str:
        """The report's key in the store: its content hash and path, so two copies of a file are two reports."""
        import hashlib

        return hashlib.sha256(f"{self.path}\0{self.content_hash}".encode()).hexdigest()[:24]

    @property
    def date(self) -> str:
        return self.collected_at.strftime("%Y-%m-%d")


def gpu_slug(name: str) -> str:
    """The folder name of a GPU's partition: "NVIDIA A100-PCIE-40GB" -> "nvidia-a100-pcie-40gb"."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown"


def report_rows(doc: Report, view: ReportView, stamp: Stamp) -> dict[str, list[Row]]:
    """The rows of one analysed report, from its document ``doc`` and its view: ``reports`` (one, labelled as
    ``summary`` and ``compare`` label it: ``pairing.path_labels``), ``launches`` (one per launch), ``advice`` (one
    per item of each launch)."""
    source = _source(doc, view.analysis.report.ncu_version or None, stamp)
    launches, advice = [], []
    for i, (analysis, kernel) in enumerate(zip(view.analysis.launches, doc.kernels, strict=True)):
        lib = library((kernel.name, kernel.demangled_name))
        key = kernel_key(kernel.name, kernel.demangled_name)
        launches.append(launch_row(kernel, doc, source, i, key, lib.name if lib else None,
                                   lead_saving(analysis)))
        advice += [advice_row(item, source, i, key, lib.name if lib else None, rank, kernel, doc.reasons)
                   for rank, item in enumerate(kernel.advice, start=1)]
    d = doc.device
    report = {**source, "label": path_labels([stamp.path])[0], "source": doc.source,
              "compute_capability": d.compute_capability, "sm_count": d.sm_count, "max_clock_hz": d.max_clock_hz,
              "spec_id": d.spec_id, "ceilings_used": _text(doc.ceilings_used), "launches": len(doc.kernels),
              "total_time_s": doc.total_time_s, "warnings": list(doc.warnings), "size_bytes": stamp.size_bytes}
    report["missing"] = list(report_reasons(report, doc).items())
    return {"reports": [report], "launches": launches, "advice": advice}


def _source(doc: Report, ncu_version: str | None, stamp: Stamp) -> Row:
    """The columns that name the report a row comes from."""
    return {"report_id": stamp.report_id, "path": stamp.path, "device": doc.device.name,
            "ncu_version": ncu_version, "roofline_version": stamp.roofline_version,
            "catalog_hash": stamp.catalog_hash, "content_hash": stamp.content_hash,
            "collected_at": stamp.collected_at}


def _text(value: Any) -> Any:
    """An enumeration's value as the JSON document writes it; anything else as it is."""
    return value.value if isinstance(value, Enum) else value


def launch_row(k: Kernel, doc: Report, source: Row, index: int, key: str, lib: str | None,
               time_to_gain_s: float | None) -> Row:
    """One launch's figures: its work, time, roofs, verdict, time model, diagnostics and advice totals."""
    roofs = k.ceilings.get(k.ceilings_used)  # the launch's own (kernel-clock roofs follow its clock)
    v, tm, occ, tc, st, mem = k.verdict, k.time_model, k.occupancy, k.tensor_cores, k.stalls, k.memory
    top = st.reasons[0] if st is not None and st.reasons else None
    row: Row = {
        **source, "compute_capability": doc.device.compute_capability, "spec_id": doc.device.spec_id,
        "launch": index, "range": k.range, "action": k.action, "function": k.name,
        "demangled_name": k.demangled_name, "kernel": key, "nvtx": " > ".join(k.nvtx) or None, "library": lib,
        "valid": k.valid, "grid_size": k.grid_size, "block_size": k.block_size,
        "registers_per_thread": k.registers_per_thread, "shared_mem_per_block_bytes": k.shared_mem_per_block_bytes,
        "duration_s": k.duration_s, "time_share": k.time_share,
        **_keyed("flops", k.flops, PRECISIONS), **_keyed("flop_per_s", k.flop_per_s, PRECISIONS),
        **_keyed("bytes", k.bytes, LEVELS), **_keyed("bytes_per_s", k.bytes_per_s, LEVELS),
        **_keyed("intensity", k.intensity, LEVELS), "ceilings_used": _text(k.ceilings_used),
        **{f"roof_{p}_flop_per_s": getattr(roofs, p) if roofs else None for p in PRECISIONS},
        **{f"roof_{lv}_bytes_per_s": getattr(roofs, lv) if roofs else None for lv in LEVELS},
        "pct_of_roof": k.pct_of_roof, "limiter": k.limiter, "bound": _text(k.bound),
        "verdict_basis": _text(v.basis), "sm_pct": v.sm_pct, "memory_pct": v.memory_pct, "waves_per_sm": v.waves_per_sm,
        "busiest_unit": v.busiest.name if v.busiest else None, "busiest_pct": v.busiest.pct if v.busiest else None,
        "verdict": v.text, "recoverable_s": k.recoverable_s, "time_to_gain_s": time_to_gain_s,
        "measured_s": tm.measured_s if tm else None, "floor_s": tm.floor_s if tm else None,
        "floor_term": tm.floor if tm else None, "slack_s": tm.slack_s if tm else None,
        "terms": [{"key": t.key, "kind": _text(t.kind), "seconds": t.seconds, "achievable_s": t.achievable_s,
                   "peak_kind": _text(t.peak_kind)} for t in tm.terms] if tm else [],
        "occupancy_theoretical_pct": occ.theoretical_pct if occ else None,
        "occupancy_achieved_pct": occ.achieved_pct if occ else None,
        "occupancy_limiters": list(occ.limiters) if occ else [],
        "tensor_status": tc.status if tc else None, "tensor_pipe_active_pct": tc.pipe_active_pct if tc else None,
        "top_stall": top.reason if top else None, "top_stall_share": top.share if top else None,
        "issue_active_pct": st.issue_active_pct if st else None,
        "l1_hit_rate_pct": mem.hit_rate_pct.get("l1") if mem else None,
        "l2_hit_rate_pct": mem.hit_rate_pct.get("l2") if mem else None,
        "advice_count": len(k.advice), "combined_saved_s": k.combined_saved_s,
        "combined_floor_s": k.combined_floor_s, "flags": list(k.flags),
    }
    reasons = {**column_reasons(row, k, doc.reasons), **term_reasons(row["terms"], k, doc.reasons)}
    return {**row, "missing": list(reasons.items())}


# The path in the report document (``report -f json``) of a launch's figure, by the store column that holds it,
# where the two differ; a null column's reason is the document's reason at that path or the nearest above it.
COLUMN_PATHS: dict[str, str] = {
    **{f"{prefix}_{key}": f"{prefix}.{key}" for prefix, keys in (
        ("flops", PRECISIONS), ("flop_per_s", PRECISIONS), ("bytes", LEVELS), ("bytes_per_s", LEVELS),
        ("intensity", LEVELS)) for key in keys},
    "verdict_basis": "verdict.basis", "sm_pct": "verdict.sm_pct", "memory_pct": "verdict.memory_pct",
    "waves_per_sm": "verdict.waves_per_sm", "busiest_unit": "verdict.busiest", "busiest_pct": "verdict.busiest",
    "verdict": "verdict.text", "measured_s": "time_model.measured_s", "floor_s": "time_model.floor_s",
    "floor_term": "time_model.floor", "slack_s": "time_model.slack_s",
    "occupancy_theoretical_pct": "occupancy.theoretical_pct", "occupancy_achieved_pct": "occupancy.achieved_pct",
    "tensor_status": "tensor_cores.status", "tensor_pipe_active_pct": "tensor_cores.pipe_active_pct",
    "top_stall": "stalls.reasons", "top_stall_share": "stalls.reasons", "issue_active_pct": "stalls.issue_active_pct",
    "l1_hit_rate_pct": "memory.hit_rate_pct.l1", "l2_hit_rate_pct": "memory.hit_rate_pct.l2",
}
# The reasons of the store's own nulls, which the report document does not hold.
STORE_REASONS: dict[str, str] = {
    "nvtx": "no NVTX range was open around the launch (or the report has no NVTX data)",
    "library": "not a kernel of a library roofline knows by name",
    "time_to_gain_s": NO_LAUNCH_GAIN,
    "ncu_version": "the report does not record the ncu version that wrote it",
}
# The reasons of a report row's nulls where its document gives none (the device's attributes it does not record).
REPORT_REASONS: dict[str, str] = {
    "compute_capability": "the report does not record the GPU's compute capability",
    "sm_count": "the report does not record the GPU's SM count",
    "max_clock_hz": "the report does not record the GPU's maximum SM clock",
    "total_time_s": "the report holds no valid launch to time",
}
NO_REASON = "the report's analysis holds no figure here and gave no reason"  # never expected: a test checks


def column_reasons(row: Row, k: Kernel, reasons: list[str]) -> dict[str, str]:
    """Each null column of a launch's row with its reason: the document's at the column's path or the nearest path
    above it (a roof's from the launch's ceiling set), else the store's own (``STORE_REASONS``)."""
    by_path = {path: reasons[i] for path, i in k.missing.items()}
    roofs = k.ceilings.get(k.ceilings_used)
    for key, i in (roofs.missing.items() if roofs is not None else ()):
        by_path[f"roof_{key}_{'flop' if key in PRECISIONS else 'bytes'}_per_s"] = reasons[i]
    out = {}
    for column, value in row.items():
        if value is None:
            out[column] = _reason_at(COLUMN_PATHS.get(column, column), by_path) or STORE_REASONS.get(
                column, NO_REASON)
    return out


def term_reasons(terms: list[Row], k: Kernel, reasons: list[str]) -> dict[str, str]:
    """Each null field of the time model's terms with its reason, keyed as SQL reads the field
    (``terms[1].achievable_s``: DuckDB counts a list's entries from 1), the document's at its path
    (``time_model.terms[0].achievable_s``) or the nearest above."""
    by_path = {path: reasons[i] for path, i in k.missing.items()}
    return {f"terms[{n}].{field}": _reason_at(f"time_model.terms[{n - 1}].{field}", by_path) or NO_REASON
            for n, term in enumerate(terms, start=1) for field, value in term.items() if value is None}


def report_reasons(row: Row, doc: Report) -> dict[str, str]:
    """Each null column of a report's row with its reason: its launches' where the figure comes from them (the
    total time from their durations, the spec from their datasheet roofs), else the store's own."""
    valid = [k for k in doc.kernels if k.valid]
    from_launches = {"total_time_s": _launch_reason(valid, doc.reasons, "duration_s"),
                     "spec_id": _launch_reason(doc.kernels, doc.reasons, "ceilings.datasheet")}
    return {column: from_launches.get(column) or REPORT_REASONS.get(column) or STORE_REASONS.get(column, NO_REASON)
            for column, value in row.items() if value is None}


def _launch_reason(kernels: list[Kernel], reasons: list[str], path: str) -> str | None:
    """The reason the first of ``kernels`` with a null at ``path`` gives for it, None where none has one."""
    return next((reasons[k.missing[path]] for k in kernels if path in k.missing), None)


def _reason_at(path: str, by_path: Mapping[str, str]) -> str | None:
    """The reason at ``path`` or at the nearest path above it (``a.b.c``, ``a.b``, ``a``)."""
    while path:
        if path in by_path:
            return by_path[path]
        path = path.rpartition(".")[0]
    return None


def _keyed(prefix: str, values: Mapping[str, float | None], keys: tuple[str, ...]) -> Row:
    return {f"{prefix}_{key}": values.get(key) for key in keys}


def advice_row(item: Any, source: Row, index: int, key: str, lib: str | None, rank: int, k: Kernel,
               reasons: list[str]) -> Row:
    """One advice item of launch ``k``, with its estimated saving and what bounds it, and each null column with its
    reason under ``missing`` (the document's at ``advice[rank - 1].<column>`` or the nearest path above, else the
    store's own)."""
    row: Row = {
        **source, "launch": index, "kernel": key, "library": lib, "rank": rank, "kind": item.kind,
        "title": item.title, "cause": item.cause, "topic": item.topic, "mechanism": _text(item.mechanism),
        "source": item.source, "work_share": item.work_share, "est_saved_s": item.est_saved_s,
        "ncu_saved_s": item.ncu_saved_s, "bound_by": item.bound_by, "overlapping": item.overlapping,
        "peak_kind": _text(item.peak_kind)}
    by_path = {path: reasons[i] for path, i in k.missing.items()}
    missing = {column: _reason_at(f"advice[{rank - 1}].{column}", by_path) or STORE_REASONS.get(column, NO_REASON)
               for column, value in row.items() if value is None}
    return {**row, "missing": list(missing.items())}


def error_row(stamp: Stamp, error: str, exit_code: int) -> Row:
    """A report that could not be analysed: its one-line error."""
    return {"path": stamp.path, "content_hash": stamp.content_hash, "roofline_version": stamp.roofline_version,
            "catalog_hash": stamp.catalog_hash, "collected_at": stamp.collected_at, "error": error,
            "exit_code": exit_code, "size_bytes": stamp.size_bytes}
