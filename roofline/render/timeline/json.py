"""`roofline timeline` as JSON (``kind: timeline``, documented in docs/json-schema.md): every kernel of every file,
its GPUs and NVTX ranges, and the ranks' totals for several files. Times in seconds, shares as fractions."""

from __future__ import annotations

from typing import Any

from roofline.analysis.timeline import RankTotal, TimelineSet
from roofline.core.timeline import Timeline
from roofline.render.compare.json import head
from roofline.render.report.json import dumps
from roofline.render.timeline import work


def render(doc: TimelineSet) -> str:
    return dumps(document(doc))


def document(doc: TimelineSet) -> dict[str, Any]:
    out = {**head("timeline"), "timelines": [timeline_dict(t) for t in doc.timelines]}
    if doc.ranks:
        out["ranks"] = [rank_dict(r) for r in doc.ranks]
    if doc.work is not None:
        out["work"] = work.document(doc.work)
    return out


def timeline_dict(t: Timeline) -> dict[str, Any]:
    return {
        "path": t.path, "exported_by": t.exported_by, "nvtx_filter": t.nvtx_filter, "group_by": t.group_by,
        "kernel_s": t.kernel_s, "busy_s": t.busy_s,
        "devices": [{"id": d.device_id, "name": d.name, "launches": d.launches, "busy_s": d.busy_s,
                     "span_s": d.span_s, "idle_share": d.idle_share, "idle_s": d.idle_s, "l2_bytes": d.l2_bytes,
                     "idle_causes": [{"kind": c.kind, "detail": c.detail, "seconds": c.seconds,
                                      "share_of_idle": share}
                                     for c, share in zip(d.idle_causes, d.cause_shares, strict=True)]}
                    for d in t.devices],
        "api": [{"name": a.name, "calls": a.calls, "total_s": a.total_s, "median_s": a.median_s, "min_s": a.min_s,
                 "max_s": a.max_s} for a in t.api],
        "transfers": [{"kind": x.kind, "direction": x.direction, "memory": x.memory, "count": x.count,
                       "bytes": x.bytes, "total_s": x.total_s, "median_s": x.median_s,
                       "bytes_per_s": x.bytes_per_s} for x in t.transfers],
        "memory": [{"device": m.device_id, "peak_bytes": m.peak_bytes, "peak_at_s": m.peak_at_s,
                    "final_bytes": m.final_bytes, "series": [list(p) for p in m.series]} for m in t.memory],
        "kernels": [{"name": k.name, "short_name": k.function, "demangled": k.demangled, "count": k.count,
                     "total_s": k.total_s, "share": share,
                     "median_s": k.median_s, "min_s": k.min_s, "max_s": k.max_s, "devices": list(k.devices)}
                    for k, share in zip(t.kernels, t.shares, strict=True)],
        "nvtx": [{"name": r.name, "count": r.count, "total_s": r.total_s} for r in t.nvtx],
    }


def rank_dict(r: RankTotal) -> dict[str, Any]:
    return {"rank": r.rank, "path": r.path, "launches": r.launches, "kernel_s": r.kernel_s, "busy_s": r.busy_s,
            "span_s": r.span_s, "off_median_pct": r.off_median_pct, "outlier": r.outlier,
            "top_kernel": r.top_kernel}
