"""A report's analysis by column (``analysis.launches``): the recoverable time of each launch and group, once the
launches are diagnosed, is held to what the achievable peaks allow (``within_reach``). The two bounds come from the
tests' own helpers: the busiest unit's gap from the raw throughputs (``tests/analysis/test_reconcile.gap_from_raw``)
and the floor at the achievable peaks from each unit's percent and the spec's fractions
(``tests/analysis/test_grade.independent_floor``); and a fact: a plain copy at its achievable DRAM peak recovers
nothing."""

from __future__ import annotations

import pytest

from roofline.analysis.roofline import recoverable_s
from roofline.pipeline import AnalysisOptions, analyze_files
from tests.analysis.test_grade import independent_floor, spec_of
from tests.analysis.test_reconcile import gap_from_raw

LAUNCH_FLOOR = 1.5e-6


@pytest.mark.parametrize("name", ["rtx4090_smem-transpose_full", "v100_miniweather-openacc_full",
                                  "a100-80gb_cutlass-gemm_full", "rtx3080_sgemm-vs-cublas_full"])
def test_recoverable_time_is_the_busiest_units_gap_held_to_the_achievable_floor(name, shared_report, raw_actions):
    """Each launch's recoverable time is min(its busiest unit's gap, its time above the launch floor, its time above
    the floor at the achievable peaks), and each group's the sum of its launches': summary showed 4.2 ms recoverable
    for a kernel grade said could save nothing (the gap to the units' full peaks alone)."""
    (a,) = analyze_files([shared_report(name)])
    spec = spec_of(a)
    raws = raw_actions(name)
    held = 0
    for raw, k in zip(raws, a.launches, strict=True):
        if k.launch.invalid or k.verdict.bound == "small_grid" or k.duration_s.value is None:
            continue
        duration = k.duration_s.value
        floor = independent_floor(k, spec, a.device.sm_count)
        expected = min(gap_from_raw(raw, k), duration - LAUNCH_FLOOR, duration - min(floor, duration))
        assert recoverable_s(k) == pytest.approx(expected, rel=1e-9, abs=1e-12), k.launch.key
        held += duration - floor < gap_from_raw(raw, k) - 1e-12
    for g in a.groups:
        saved = [recoverable_s(k) for k in g.launches if recoverable_s(k) is not None]
        assert g.recoverable_s == pytest.approx(sum(saved), rel=1e-12) if saved else g.recoverable_s is None
    if name == "rtx4090_smem-transpose_full":
        assert held  # the achievable floor holds some launch below its gap to the full peaks
        (copy,) = [g for g in a.groups if g.name == "copyGmem"]  # 94.7% of ncu's DRAM peak, a 0.89 fraction's past
        assert copy.recoverable_s == 0.0


def test_without_diagnostics_the_recoverable_time_is_the_gap_to_the_full_peaks(shared_report, raw_actions):
    """A caller who asks for no diagnostics gets no time model, so the gap to the units' full peaks, as documented
    in ``AnalysisOptions``: never less than the diagnosed figure."""
    name = "rtx4090_smem-transpose_full"
    (full,) = analyze_files([shared_report(name)])
    (lean,) = analyze_files([shared_report(name)], AnalysisOptions(diagnostics=False))
    for raw, whole, bare in zip(raw_actions(name), full.launches, lean.launches, strict=True):
        if bare.verdict.bound == "small_grid" or bare.duration_s.value is None:
            continue
        expected = min(gap_from_raw(raw, bare), bare.duration_s.value - LAUNCH_FLOOR)
        assert recoverable_s(bare) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert recoverable_s(whole) <= recoverable_s(bare) + 1e-15
