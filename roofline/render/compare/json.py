"""JSON documents (schema_version 4) of comparisons, regression diffs and application summaries.

Shared with ``render.json``: numbers in SI base units, "not measured" is ``null`` with its reason under the
object's ``missing`` (never 0, never NaN; one entry per kernel, so the reason texts stay in place). ``kind`` says
which document it is: compare, diff or summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from roofline.analysis.kernels import KernelStats
from roofline.analysis.work import WorkCheck
from roofline.compare.noise import Change
from roofline.compare.pairing import Comparison, KernelPair, ReportRef
from roofline.compare.projection import Projection
from roofline.compare.ranking import RECOVERABLE_COUNTS, AppSummary, SummaryRow
from roofline.compare.regression import DiffResult, Verdict
from roofline.core.labels import letter
from roofline.core.version import __version__
from roofline.documents.common import SCHEMA_VERSION, builtins, number, value_or_null, values_or_null
from roofline.documents.report import ceilings_text
from roofline.ncu.metrics import HINT_PC_SAMPLES
from roofline.render import GENERATOR
from roofline.render.report.flat import dataframe, flatten
from roofline.render.report.json import dumps

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from roofline.analysis.view import LeftOut


def comparison_json(c: Comparison) -> str:
    """The ``kind: compare`` document as JSON text."""
    return dumps(comparison_document(c))


def diff_json(d: DiffResult) -> str:
    """The ``kind: diff`` document as JSON text."""
    return dumps(diff_document(d))


def summary_json(summaries: Sequence[AppSummary], top: int, left_out: Sequence[LeftOut] = ()) -> str:
    """The ``kind: summary`` document as JSON text, naming the files ``left_out``."""
    return dumps(summary_document(summaries, top, left_out))


def head(kind: str) -> dict[str, Any]:
    """The keys every document starts with: the generator mark, the schema version, the kind and the tool."""
    return {"generator": GENERATOR, "schema_version": SCHEMA_VERSION, "kind": kind,
            "tool": {"name": "roofline", "version": __version__}}  # the generator first: the file's mark


def comparison_document(c: Comparison) -> dict[str, Any]:
    """``kind: compare``: the reports, every matched kernel with one entry per report, unmatched kernels."""
    return {
        **head("compare"),
        "matching": c.matching,
        "project_to": c.project_to, "clock": c.clock,
        "alpha": c.alpha, "work_tolerance": c.work_tolerance,
        "reports": [{"letter": letter(i), **report_dict(r)} for i, r in enumerate(c.reports)],
        "kernels": [pair_dict(p, c.reports) for p in c.pairs],
        "unmatched": {r.label: list(names) for r, names in zip(c.reports, c.unmatched, strict=True)},
    }


def comparison_dataframe(c: Comparison) -> pandas.DataFrame:
    """A comparison for pandas: one row per matched kernel, one column per leaf of its ``kernels[]`` entry in the
    JSON document (``sides.1.median_s``, ``speedup.1``, ...; report i's values under index i), units in
    ``.attrs["units"]``, as the report's ``to_dataframe``. Needs pandas."""
    return dataframe([flatten(pair_dict(p, c.reports)) for p in c.pairs])


def diff_document(d: DiffResult) -> dict[str, Any]:
    """``kind: diff``: thresholds, verdict and exit code, each BASE/NEW kernel with its change and reasons."""
    c = d.comparison
    t = d.thresholds
    total = d.total
    return {
        **head("diff"),
        "base": report_dict(c.reports[0]), "new": report_dict(c.reports[1]), "matching": c.matching,
        "setup_notes": list(d.setup_notes),
        "thresholds": {"slower_pct": t.slower_pct, "min_share_pct": t.min_share_pct,
                       "total_slower_pct": t.total_slower_pct, "roof_drop_pct": t.roof_drop_pct, "alpha": c.alpha,
                       "work_tolerance": c.work_tolerance, "gate_different_work": t.gate_different_work},
        "regression": bool(d.exit_code), "exit_code": d.exit_code,
        "regressions": [{"kernel": v.pair.label, "reasons": list(v.reasons)} for v in d.regressions],
        "total": None if total is None else {
            "kernels": total.kernels, "base_s": total.base_s, "at_new_speed_s": total.at_new_speed_s,
            "change_pct": total.change_pct, "regressed": d.total_regressed},
        "kernels": [verdict_dict(v, c.reports) for v in d.verdicts],
        "only_in_base": list(c.unmatched[0]), "only_in_new": list(c.unmatched[1]),
    }


def verdict_dict(v: Verdict, reports: Sequence[ReportRef]) -> dict[str, Any]:
    """One kernel of a diff: BASE and NEW aggregates, their work, the change with its noise interval, and why it
    regressed, was not gated or not checked."""
    missing: dict[str, str] = {}
    p = v.pair
    return {
        "key": p.key, "label": p.label, "matched_by": p.matched_by,
        "base": stats_dict(p.side(0), reports[0].label), "new": stats_dict(p.side(1), reports[1].label),
        "work": work_dict(p.work[1] if p.work else None),
        "change": change_dict(v.change),
        "speedup": value_or_null(p.speedup[1], "speedup", missing),
        "expected_speedup": value_or_null(p.expected_speedup[1], "expected_speedup", missing),
        "kept_up": value_or_null(p.kept_up[1], "kept_up", missing),
        "slowdown_pct": value_or_null(v.slowdown_pct, "slowdown_pct", missing),
        "per_work_slowdown_pct": value_or_null(v.per_work_pct, "per_work_slowdown_pct", missing),
        "roof_drop_pct": value_or_null(v.roof_drop_pct, "roof_drop_pct", missing),
        "share_pct": number(v.share_pct), "p_value": number(v.p_value),
        "gated": not v.not_gated, "not_gated": v.not_gated or None,
        "regressed": v.regressed, "reasons": list(v.reasons), "unchecked": list(v.unchecked),
        "hot_lines": hot_lines(v, missing), "missing": missing,
    }


def hot_lines(v: Verdict, missing: dict[str, str]) -> list[dict[str, Any]] | None:
    """The source lines whose share of the kernel's warp samples moved most, BASE -> NEW; null with the reason
    where a report has no samples on the kernel's lines."""
    shifts = v.line_shifts
    if shifts is None:
        missing["hot_lines"] = (f"no warp samples on source lines in both reports: {HINT_PC_SAMPLES}, and compile "
                                "with -lineinfo")
        return None
    return [{"source": s.where, "base_share": s.base_share, "new_share": s.new_share, "change_pts": s.change_pts}
            for s in shifts]


def change_dict(change: Change | None) -> dict[str, Any] | None:
    """A change of launch times (other / base) with its interval, or null where there are no times."""
    if change is None:
        return None
    return {"ratio": change.ratio, "low": change.low, "high": change.high, "confidence": change.confidence,
            "base_launches": change.base_n, "new_launches": change.new_n, "untested": change.untested or None,
            "estimate": "median of the pairwise launch-time ratios (Hodges-Lehmann); interval: Mann-Whitney U inverted"}


def work_dict(check: WorkCheck | None) -> dict[str, Any] | None:
    """The work of a pair's other side against the base, per launch, or null for the base."""
    if check is None:
        return None
    return {"different": check.different, "basis": check.basis or None, "tolerance": check.tolerance,
            "summary": check.summary, "throughput_unit": check.unit or None, "work_ratio": number(check.work_ratio),
            "governing": {"base": check.governing[0], "other": check.governing[1]}, "notes": list(check.notes),
            "measures": {m.key: {"base": number(m.base), "other": number(m.other), "ratio": number(m.ratio),
                                 "differs": m.differs, "decides": m.decides, "apart": m.apart or None}
                         for m in check.measures}}


def summary_document(summaries: Sequence[AppSummary], top: int, left_out: Sequence[LeftOut] = ()) -> dict[str, Any]:
    """``kind: summary``: per report, the top kernel groups ranked by recoverable time; ``left_out`` names the files
    the command could not analyse, where there are some."""
    doc = {**head("summary"), "top": top, "reports": [summary_dict(s) for s in summaries]}
    if left_out:
        doc["left_out"] = [{"path": f.path, "error": f.error} for f in left_out]
    return doc


def report_dict(r: ReportRef) -> dict[str, Any]:
    return {"label": r.label, "path": r.path, "device": r.device, "compute_capability": r.compute_capability,
            "sm_count": r.sm_count, "ncu_version": r.ncu_version or None, "spec_id": r.spec_id,
            "ceilings_used": r.ceilings_used, "launches": r.launches,
            "total_time_s": number(r.total_time_s), "warnings": list(r.warnings)}


def pair_dict(p: KernelPair, reports: Sequence[ReportRef]) -> dict[str, Any]:
    missing: dict[str, str] = {}
    indices = range(len(reports))
    return {
        "key": p.key, "label": p.label, "matched_by": p.matched_by,
        "sides": [stats_dict(s, r.label, proj) if s else None for s, r, proj in
                  zip(p.sides, reports, p.projections or [None] * len(p.sides), strict=True)],
        "work": [work_dict(p.work[i]) if p.work else None for i in indices],
        "change": [change_dict(p.change[i]) if p.change else None for i in indices],
        "headline": [headline_dict(p, i) for i in indices],
        "launch_overhead": [value_or_null(v, f"launch_overhead.{r.label}", missing)
                            for v, r in zip(p.launch_overhead, reports, strict=True)],
        "speedup": [value_or_null(v, f"speedup.{r.label}", missing) for v, r in zip(p.speedup, reports, strict=True)],
        "expected_speedup": [value_or_null(v, f"expected_speedup.{r.label}", missing)
                             for v, r in zip(p.expected_speedup, reports, strict=True)],
        "kept_up": [value_or_null(v, f"kept_up.{r.label}", missing) for v, r in zip(p.kept_up, reports, strict=True)],
        "missing": missing,
    }


def headline_dict(p: KernelPair, i: int) -> dict[str, Any] | None:
    """The figure report i compares with the base by: a speedup (same work), a throughput ratio (different work) or
    a time ratio (work not compared), with its interval; null for the base and without times."""
    change = p.headline(i) if i else None
    if change is None:
        return None
    return {"kind": p.headline_kind(i), "unit": p.headline_unit(i),
            "ratio": change.ratio, "low": change.low, "high": change.high}


def stats_dict(s: KernelStats, report: str, projection: Projection | None = None) -> dict[str, Any]:
    """One kernel's aggregate in one report; ``missing`` holds the reason of every null."""
    missing: dict[str, str] = {}
    out: dict[str, Any] = {
        "report": report, "names": list(s.names), "count": s.count,
        "work_per_launch": None if s.work is None else {
            "flops": {k: number(v) for k, v in s.work.flops.items()},
            "bytes": {k: number(v) for k, v in s.work.bytes.items()},
            "threads": number(s.work.threads), "instructions": number(s.work.instructions)},
        "total_s": value_or_null(s.total_s, "total_s", missing),
        "median_s": value_or_null(s.median_s, "median_s", missing),
        "per_launch_s": value_or_null(s.per_launch_s, "per_launch_s", missing),
        "flops": values_or_null(s.flops, "flops", missing),
        "flop_per_s": values_or_null(s.flop_per_s, "flop_per_s", missing),
        "bytes": values_or_null(s.bytes, "bytes", missing),
        "bytes_per_s": values_or_null(s.bytes_per_s, "bytes_per_s", missing),
        "intensity": values_or_null(s.intensity, "intensity", missing),
        "ceilings": {"source": s.ceilings.source, **builtins(ceilings_text(s.ceilings))},
        "pct_of_roof": number(s.roof.pct_of_roof), "bound": s.verdict.bound, "limiter": s.roof.limiter,
        "roof_time_s": value_or_null(s.roof_time_s, "roof_time_s", missing),
        "attainable_flop_per_s": value_or_null(s.attainable_flop_per_s, "attainable_flop_per_s", missing),
        "projection": projection_dict(projection, missing) if projection else None,
    }
    if s.roof.reason:
        missing["pct_of_roof"] = s.roof.reason
    if s.verdict.bound is None:
        missing["bound"] = s.verdict.reason or "no verdict"
    out["missing"] = missing
    return out


def projection_dict(p: Projection, missing: dict[str, str]) -> dict[str, Any]:
    """A projection's figures; the reason of each null under ``missing`` (keys ``projection.*``)."""
    return {"target": p.target, "kind": "model of the time per launch there, not a measurement",
            "projected_s": value_or_null(p.projected_s, "projection.projected_s", missing),
            "low_s": value_or_null(p.low_s, "projection.low_s", missing),
            "high_s": value_or_null(p.high_s, "projection.high_s", missing), "basis": p.basis,
            "governing": p.governing,
            "bound_s": value_or_null(p.bound_s, "projection.bound_s", missing), "limiter": p.limiter,
            "left_out": list(p.left_out),
            "max_speedup": value_or_null(p.max_speedup, "projection.max_speedup", missing),
            "clock": _clock_dict(p, missing), "l2_term": _l2_dict(p, missing),
            "shared_memory": _shared_memory_dict(p, missing)}


def _shared_memory_dict(p: Projection, missing: dict[str, str]) -> dict[str, Any] | None:
    """Whether the kernel as built can launch on the target: its blocks' shared memory against the limit there."""
    if isinstance(p.shared_memory, str):
        missing["projection.shared_memory"] = p.shared_memory
        return None
    u = p.shared_memory
    return {"shared_mem_per_block_bytes": u.need_bytes, "limit_bytes": u.limit_bytes,
            "compute_capability": u.compute_capability, "fits": u.fits}


def _clock_dict(p: Projection, missing: dict[str, str]) -> dict[str, Any] | None:
    """The clocks a projection assumes (step 3 of compare.projection)."""
    c = p.clock
    if c is None:
        missing["projection.clock"] = p.projected_s.reason or "no projection"
        return None
    if c.source_hz is None:
        missing["projection.clock.source_clock_hz"] = "no SM clock in the report: both at the same share of boost"
    for side, hz in (("source", c.source_tensor_hz), ("target", c.target_tensor_hz)):
        if hz is None:
            missing[f"projection.clock.{side}_tensor_clock_hz"] = \
                f"the {side} spec's Tensor figure holds at its boost clock (or no {side} spec)"
    return {"choice": c.choice, "target_clock_hz": c.target_hz, "target_boost_clock_hz": c.target_boost_hz,
            "source_clock_hz": c.source_hz, "source_boost_clock_hz": c.source_boost_hz,
            "source_tensor_clock_hz": c.source_tensor_hz, "target_tensor_clock_hz": c.target_tensor_hz,
            "factor": c.factor, "tensor_factor": c.tensor_factor}


def _l2_dict(p: Projection, missing: dict[str, str]) -> dict[str, Any] | None:
    """The L2-size term (step 3b of compare.projection): its inputs per launch, the DRAM bytes there and bounds."""
    t = p.l2
    if t is None:
        missing["projection.l2_term"] = p.l2_reason or "no L2 term"
        return None
    return {"dram_bytes": t.dram_bytes, "l2_bytes": t.l2_bytes, "working_set_bytes": t.working_set_bytes,
            "source_l2_bytes": t.source_l2_bytes, "target_l2_bytes": t.target_l2_bytes,
            "dram_bytes_there": t.dram_there, "dram_bytes_low": t.low, "dram_bytes_high": t.high,
            "factor": t.factor, "note": t.note}


def projection_json(c: Comparison) -> str:
    """The ``kind: project`` document as JSON text."""
    return dumps(projection_document(c))


def projection_document(c: Comparison) -> dict[str, Any]:
    """``kind: project``: the report and one entry per kernel with its measured and projected time per launch."""
    kernels = []
    for p in c.pairs:
        proj = p.projections[0] if p.projections else None
        if proj is None:
            continue
        missing: dict[str, str] = {}
        kernels.append({"name": p.label, "count": p.base.count,
                        "measured_s": value_or_null(p.base.median_s, "measured_s", missing),
                        **{k: v for k, v in projection_dict(proj, missing).items() if k != "target"},
                        "missing": missing})
    return {**head("project"), "target": c.project_to, "clock": c.clock, "report": report_dict(c.reports[0]),
            "kernels": kernels}


def summary_dict(s: AppSummary) -> dict[str, Any]:
    return {"report": report_dict(s.report), "by": s.by, "ranked_by": s.ranked_by, "groups": s.group_count,
            "shown_share": number(s.shown_share), "recoverable_s": number(s.recoverable_s),
            "small_grid_s": number(s.small_grid_s), "recoverable_counts": RECOVERABLE_COUNTS,
            "rows": [_row(r) for r in s.rows]}


def _row(r: SummaryRow) -> dict[str, Any]:
    g = r.group
    missing: dict[str, str] = {}
    out: dict[str, Any] = {"rank": r.rank, "name": g.name, "count": len(g.launches), "total_s": number(g.total_s),
           "median_s": number(g.median_s), "min_s": number(g.min_s), "max_s": number(g.max_s),
           "time_share": number(g.time_share), "recoverable_s": number(g.recoverable_s),
           "small_grid_s": number(g.small_grid_s),
           "recoverable_share": number(r.recoverable_share), "median_pct_of_roof": number(g.median_pct_of_roof),
           "pct_of_roof": number(r.stats.roof.pct_of_roof), "bound": r.stats.verdict.bound,
           "intensity": values_or_null(r.stats.intensity, "intensity", missing),
           "flop_per_s": values_or_null(r.stats.flop_per_s, "flop_per_s", missing)}
    if r.stats.roof.reason:
        missing["pct_of_roof"] = r.stats.roof.reason
    if r.stats.verdict.bound is None:
        missing["bound"] = r.stats.verdict.reason or "no verdict"
    out["missing"] = missing
    return out
