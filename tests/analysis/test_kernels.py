"""roofline.analysis.kernels: a kernel's launches pooled. Where its launches ran at different clocks (so their
kernel-clock roofs differ), the pooled percent of roof is the summed work over the work each launch's own roofs
allow in its time, recomputed here from every launch's analysis: never above the highest launch's."""

from __future__ import annotations

import pytest

from roofline.analysis.kernels import aggregate
from roofline.analysis.roofline import analyze_report
from roofline.core.model import LEVELS, PRECISIONS

A40 = "a40_julia-fp16x2_full"


def test_pooled_percent_of_roof_weighs_each_launch_roof_by_its_time(roofline_report) -> None:
    """A40 julia__5_11155: a 70 us launch with a 678 GB/s DRAM roof and a 9.4 us one at a lower clock (547 GB/s).
    Against the short launch's roofs alone the pair read 104% of roof."""
    analysis = analyze_report(roofline_report(A40))
    group = next(g for g in analysis.groups if "julia__5_11155" in g.name)
    launches = list(group.launches)
    assert len(launches) == 2
    used = [k.ceilings[k.roof.ceilings] for k in launches]
    assert len({c.bytes_per_s["dram"] for c in used}) == 2  # the two clocks give two DRAM roofs
    times = [k.duration_s.value or 0.0 for k in launches]
    util = {}
    for key in (*PRECISIONS, *LEVELS):
        work = [(k.flops[key] if key in PRECISIONS else k.bytes[key]).value for k in launches]
        roofs = [c.roof(key) or 0.0 for c in used]
        if all(w is not None for w in work) and all(roofs):
            util[key] = 100 * sum(w or 0.0 for w in work) / sum(r * t for r, t in zip(roofs, times, strict=True))
    stats = aggregate(group.launches)
    assert stats.roof.pct_of_roof == pytest.approx(max(util.values()), rel=1e-9)
    assert (stats.roof.pct_of_roof or 0.0) <= max(k.roof.pct_of_roof or 0.0 for k in launches)


def test_pooled_stats_carry_all_flop_per_s_the_sum_of_the_measured_precisions(roofline_report) -> None:
    analysis = analyze_report(roofline_report(A40))
    stats = aggregate(analysis.groups[0].launches)
    known = [v.value for v in stats.flop_per_s.values() if v.value is not None]
    assert known and stats.total_flop_per_s == sum(known)
