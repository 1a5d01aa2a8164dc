"""Hot spots (``analysis.hotspots``): instructions by warp samples, the lines they aggregate to, and the lines that
hold a stall reason's samples. Hand-made launches give exact sums; real reports check the aggregation against the
per-PC counters read independently (``tests/ncu/test_pc_sampling.py``)."""

from __future__ import annotations

import pytest

from roofline.analysis.hotspots import hotspots, responsible, without_lines
from roofline.core.model import KernelLaunch, PcCounters, PcSampling
from roofline.ncu import metrics as m
from tests.ncu.test_pc_sampling import IN_REPO, _path, _report, independent

PCS = (
    PcCounters(0x10, 5, {"selected": 5}, sass="IMAD R1, R2, R3, R4", file="k.cu", line=10),
    PcCounters(0x20, 60, {"long_scoreboard": 55, "selected": 5}, sass="LDG.E R5, [R2.64]", file="k.cu", line=12),
    PcCounters(0x30, 25, {"long_scoreboard": 20, "wait": 5}, sass="FFMA R6, R5, R5, R6", file="k.cu", line=12),
    PcCounters(0x40, 10, {"wait": 4, "selected": 6}, sass="STG.E [R8.64], R6", file="k.cu", line=14),
    PcCounters(0x50, 0, {}, memory={"derived__memory_l2_theoretical_sectors_global_excessive": 96.0},
               sass="STG.E [R9.64], R7", file="k.cu", line=15),
)


def _launch(pcs: tuple[PcCounters, ...] = PCS, total: int = 100) -> KernelLaunch:
    return KernelLaunch(0, 0, "k", pc_sampling=PcSampling(total, pcs))


def test_kernels_whose_samples_have_no_source_line_are_named_once_as_their_hot_spots_say() -> None:
    unplaced = tuple(PcCounters(pc.pc_offset, pc.samples, pc.stalls, sass=pc.sass) for pc in PCS)
    bare = [KernelLaunch(i, 0, "bare", pc_sampling=PcSampling(100, unplaced)) for i in range(2)]
    unsampled = KernelLaunch(3, 0, "quiet", pc_sampling=PcSampling(0, unplaced))
    launches = [_launch(), *bare, unsampled, KernelLaunch(4, 0, "none")]
    assert without_lines(launches) == ["bare"]
    for launch in launches:  # the same condition as the launch's hot spots: samples, and no line among them
        h = hotspots(launch)
        assert (launch.name in without_lines([launch])) == bool(h is not None and h.total_samples and not h.lines)


def test_instructions_are_ordered_by_samples_with_their_shares() -> None:
    h = hotspots(_launch())
    assert h is not None and h.total_samples == 100
    assert [(pc.pc_offset, share) for pc, share in h.pcs] == [(0x20, 0.60), (0x30, 0.25), (0x40, 0.10), (0x10, 0.05)]


def test_lines_sum_their_instructions_and_name_the_top_stall() -> None:
    h = hotspots(_launch())
    assert h is not None
    first = h.lines[0]
    assert (first.where, first.samples, first.share) == ("k.cu:12", 85, 0.85)
    assert dict(first.stalls) == {"long_scoreboard": 75, "selected": 5, "wait": 5}
    assert first.top_stall == "long_scoreboard"
    assert [pc.pc_offset for pc in first.pcs] == [0x20, 0x30]
    assert h.lines[1].top_stall == "wait"  # a warp issuing ("selected", 6 of 10) is no stall
    assert [line.line for line in h.lines] == [12, 14, 10, 15]
    assert h.source_missing == ""


def test_responsible_names_the_lines_holding_most_of_a_stall_reason() -> None:
    h = hotspots(_launch())
    assert h is not None
    text = responsible(h, lambda pc: pc.stalls.get("long_scoreboard", 0), "long_scoreboard samples")
    assert text == "k.cu line 12 holds 100% of the long_scoreboard samples"
    excess = responsible(h, lambda pc: pc.memory.get("derived__memory_l2_theoretical_sectors_global_excessive", 0),
                         "excessive L2 sectors")
    assert excess == "k.cu line 15 holds 100% of the excessive L2 sectors"
    waits = responsible(h, lambda pc: pc.stalls.get("wait", 0), "wait samples")
    assert waits == "k.cu line 12 holds 56% of the wait samples (rests on 9 samples)"  # 5 of 9: past half at once
    issuing = responsible(h, lambda pc: pc.stalls.get("selected", 0), "selected samples")
    assert issuing == "k.cu lines 12, 14 hold 69% of the selected samples (rests on 16 samples)"  # 6 of 16, 5 more


def test_without_line_information_instructions_are_named_and_the_fix_given() -> None:
    bare = tuple(PcCounters(pc.pc_offset, pc.samples, pc.stalls, sass=pc.sass) for pc in PCS)
    h = hotspots(_launch(bare))
    assert h is not None and h.lines == () and h.source_missing == m.HINT_LINEINFO
    assert "-lineinfo" in h.source_missing
    text = responsible(h, lambda pc: pc.stalls.get("long_scoreboard", 0), "long_scoreboard samples")
    assert text == "the instruction at +0x20 (LDG.E) holds 73% of the long_scoreboard samples"  # 55 of 75: past half


def test_a_count_only_on_instructions_without_a_line_names_those_instructions() -> None:
    excess = {"derived__memory_l2_theoretical_sectors_global_excessive": 96.0}
    pcs = (*PCS[:4], PcCounters(0x60, 0, {}, memory=excess, sass="STG.E [R9.64], R7"))  # no file:line
    h = hotspots(_launch(pcs))
    assert h is not None and h.lines
    text = responsible(h, lambda pc: pc.memory.get("derived__memory_l2_theoretical_sectors_global_excessive", 0),
                       "excessive L2 sectors")
    assert text == "the instruction at +0x60 (STG.E) holds 100% of the excessive L2 sectors"


def test_an_instruction_is_named_by_its_opcode_without_its_predicate() -> None:
    pcs = (PcCounters(0x70, 10, {"barrier": 10}, sass="@!P0  BRA 0x7f509b7a0200"),)
    h = hotspots(_launch(pcs, total=10))
    assert h is not None
    text = responsible(h, lambda pc: pc.stalls.get("barrier", 0), "barrier samples")
    assert text == "the instruction at +0x70 (BRA) holds 100% of the barrier samples (rests on 10 samples)"


def test_no_per_pc_samples_gives_no_hotspots_and_nothing_counted_gives_no_text() -> None:
    assert hotspots(KernelLaunch(0, 0, "k")) is None
    h = hotspots(_launch((), total=0))
    assert h is not None and h.pcs == () and h.lines == ()
    assert responsible(h, lambda pc: pc.samples, "samples") == ""


@pytest.mark.parametrize("name", [IN_REPO[0], "rtx4090_smem-transpose_full", "v100_miniweather-openacc_full"],
                         ids=["triad-cupy", "rtx4090", "v100"])
def test_real_reports_first_hotspot_and_line_sums(name) -> None:
    path = _path(name)
    for launch, want in zip(_report(path).launches, independent(path), strict=True):
        h = hotspots(launch)
        assert h is not None and want is not None
        assert sum(pc.samples for pc, _ in h.pcs) == h.total_samples == want["total"]
        assert sum(share for _, share in h.pcs) == pytest.approx(1.0)
        assert h.pcs[0][0].samples == want["top_samples"]
        placed = sum(pc.samples for pc, _ in h.pcs if pc.file is not None)
        assert sum(line.samples for line in h.lines) == placed


def test_line_samples_pool_launches_and_shifts_compare_shares() -> None:
    from roofline.analysis.hotspots import line_samples, line_shifts

    pooled = line_samples([_launch(), _launch()])
    assert pooled == {"k.cu:10": 10, "k.cu:12": 170, "k.cu:14": 20}  # the memory-only line 15 has no samples
    moved = {"k.cu:12": 50, "k.cu:14": 50}
    shifts = line_shifts(pooled, moved)
    assert shifts is not None
    assert [(s.where, round(s.base_share, 3), s.new_share) for s in shifts] == [
        ("k.cu:14", 0.1, 0.5), ("k.cu:12", 0.85, 0.5), ("k.cu:10", 0.05, 0.0)]  # +40, -35, -5 points
    assert shifts[1].change_pts == pytest.approx(-35.0)
    assert line_shifts(pooled, pooled) == ()
    assert line_shifts(pooled, {}) is None


def test_a_model_whose_total_is_zero_gives_shares_of_zero_not_an_error() -> None:
    h = hotspots(_launch(PCS[:2], total=0))  # hand-written: samples on instructions, none in all
    assert h is not None and [share for _, share in h.pcs] == [0.0, 0.0] and h.lines[0].share == 0.0


def test_consecutive_lines_are_named_as_a_range() -> None:
    pcs = tuple(PcCounters(16 * i, 10, {"long_scoreboard": 10}, file="k.cu", line=line)
                for i, line in enumerate((88, 89, 90, 91, 95)))
    h = hotspots(_launch(pcs, total=50))
    assert h is not None
    text = responsible(h, lambda pc: pc.stalls.get("long_scoreboard", 0), "long_scoreboard samples")
    assert text == "k.cu lines 88-90 hold 60% of the long_scoreboard samples"  # 3 lines at most, ties in line order
