"""roofline.analysis.reconcile: one advice list per launch, each estimate bounded by what its change can physically
save, items on one cause merged, ranked by the bounded estimate.

Every bound is recomputed here from the raw metric values of the shared reports (read with NVIDIA's ncu_report,
``raw_actions``), never from the advice code: the busiest unit's gap is duration x (1 - max(sm__throughput,
gpu__compute_memory_throughput, percent of roof, the busiest SM unit in whole blocks per SM) / 100); a work share
is read from ncu's own message.
"""

from __future__ import annotations

import math
import re

import pytest

from roofline.analysis import reconcile
from roofline.analysis.ncu_rules import excess_sectors, excess_share, rule_share, work_share
from roofline.analysis.results import Advice, EstimateBound
from roofline.analysis.time_model import LAUNCH_FLOOR_S
from roofline.pipeline import analyze_files
from roofline.render.report.prose import estimate_of
from tests.conftest import raw_whole_blocks_pct

FULL_SET = ("rtx3080_sgemm-vs-cublas_full", "rtx3060-laptop_reductions_full", "t4_matrix-add-2d_full",
            "v100_miniweather-openacc_full", "gh200_silu_full-roofline", "rtx4070ti_pytorch-sim_full",
            "a100-80gb_cutlass-gemm_full", "h100-pcie_rmsnorm-float4_full-roofline")
SM, MEMORY = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")


@pytest.fixture(scope="module")
def analysed():
    cache: dict = {}

    def get(name, shared_report):
        if name not in cache:
            cache[name] = analyze_files([shared_report(name)])[0]
        return cache[name]
    return get


def unit_times_from_raw(raw) -> dict[str, float]:
    """Each breakdown unit's time at its peak, pct / 100 x duration, from the raw metrics (ncu's aggregates of
    other units, ..._internal_activity, left out)."""
    duration = raw["gpu__time_duration.sum"] * 1e-9
    out = {}
    for side in (SM, MEMORY):
        for unit in str(raw.value("breakdown:" + side) or "").split(","):
            unit = unit.strip()
            if unit and "_internal_activity" not in unit and raw.has(unit):
                out[unit] = raw[unit] / 100.0 * duration
    return out


def floor_from_raw(raw, scaled: dict[str, float] | None = None) -> float:
    """The largest unit time (after scaling the units whose metric prefix ``scaled`` names), the tail (the busiest
    SM unit x ceil(B / S) / (B / S)) and the launch floor."""
    units = {u: t * (scaled or {}).get(u.split("__")[0], 1.0) for u, t in unit_times_from_raw(raw).items()}
    sm_side = [t for u, t in units.items() if u.split("__")[0] in ("sm", "smsp", "l1tex", "idc")]
    blocks, sms = raw.value("launch__grid_size"), raw.value("device__attribute_multiprocessor_count")
    tail = max(sm_side) * math.ceil(blocks / sms) / (blocks / sms) if sm_side and blocks and sms else 0.0
    return max([*units.values(), tail, LAUNCH_FLOOR_S])


def compulsory_from_raw(raw, excess: float, stores_only: bool = False, loads_only: bool = False) -> tuple[float, float]:
    """(DRAM bytes, the DRAM bytes a coalescing change keeps) from the raw counters: the L1 sectors of global and
    local loads and stores beyond the excess, x 32, that miss in L2 now (x (1 - L2 sector hit rate)), at least the
    stores' sectors beyond all of the excess up to the bytes written, and (``stores_only``: the excess is the
    stores') the loads' sectors up to the bytes read besides, or (``loads_only``) the bytes written and every
    load's sectors that miss (the lines stay needed); at most the DRAM bytes read and written."""
    sectors = {(space, op): raw[f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum"]
               for space in ("global", "local") for op in ("ld", "st")}
    read, written = raw["dram__bytes_read.sum"], raw["dram__bytes_write.sum"]
    useful = 32 * max(0.0, sum(sectors.values()) - excess)
    stores = 32 * max(0.0, sectors[("global", "st")] + sectors[("local", "st")] - excess)
    miss = 1.0 - raw["lts__t_sector_hit_rate.pct"] / 100.0
    if loads_only:
        return read + written, min(read + written, max(useful * miss, written + (useful - stores) * miss))
    loads = min(32 * (sectors[("global", "ld")] + sectors[("local", "ld")]), read) if stores_only else 0.0
    return read + written, min(read + written, max(loads + min(stores, written), useful * miss))


def gap_from_raw(raw, k, whole_blocks: bool = True) -> float:
    """The busiest unit's gap, from the raw throughputs, the launch's percent of roof and (``whole_blocks``) the
    busiest SM unit in whole blocks per SM (the time model's tail, as a percentage of the duration): a change of the
    grid takes that tail away, so its items are held to the gap without it."""
    attained = max(v for v in (raw.value(SM), raw.value(MEMORY), k.roof.pct_of_roof,
                               raw_whole_blocks_pct(raw) if whole_blocks else None) if v is not None)
    duration = raw["gpu__time_duration.sum"] * 1e-9
    return duration * max(0.0, 1.0 - attained / 100.0)


def test_latency_and_grid_items_never_save_more_than_the_busiest_units_gap(analysed, shared_report, raw_actions):
    """Over the full-set reports: every estimated latency or grid item, and every item an ncu latency rule was
    merged into, at most the gap recomputed from the raw throughputs; but the FP64 rate's item (precision), which
    cites the rules of the FP64 pipe it relieves and changes the floor itself (checked against the changed floor
    in the test below)."""
    checked = 0
    for name in FULL_SET:
        for raw, k in zip(raw_actions(name), analysed(name, shared_report).launches, strict=True):
            for item in k.advice:
                merged = any(s.startswith(("ncu CPIStall", "ncu AchievedOccupancy")) for s in item.also)
                if item.est_saved_s is not None and (item.mechanism in ("latency", "grid")
                                                     or (merged and item.mechanism != "precision")):
                    gap = gap_from_raw(raw, k, whole_blocks=item.mechanism != "grid")
                    assert item.est_saved_s <= gap * (1 + 1e-6), (name, k.launch.key, item.title)
                    checked += 1
    assert checked >= 20


def test_a_change_that_leaves_the_floor_where_it_is_claims_no_saving(analysed, shared_report, raw_actions):
    """RTX 4070 Ti generate_encoded_signal (3.3 us): every unit's work takes under the 1.5 us launch floor, so
    converging ncu's divergent lanes (ThreadDivergence, a global estimate) leaves the floor where it is: the item
    claims no saving, keeps ncu's figure beside, and the terminal leaves it out."""
    k = analysed("rtx4070ti_pytorch-sim_full", shared_report).launches[8]
    raw = raw_actions("rtx4070ti_pytorch-sim_full")[8]
    assert max(unit_times_from_raw(raw).values()) < LAUNCH_FLOOR_S
    rule = next(r for r in k.launch.rules if r.rule == "ThreadDivergence" and r.speedup_type == "global")
    item = next(i for i in k.advice if i.topic == "divergence")
    assert item.est_saved_s is None and estimate_of(item).startswith("saves nothing")
    assert item.ncu_saved_s == pytest.approx(raw["gpu__time_duration.sum"] * 1e-9 * rule.speedup_pct / 100)
    assert not reconcile.worth_showing(item, k)


def test_uncoalesced_accesses_off_the_floor_save_nothing(analysed, shared_report, raw_actions):
    """reduceNeighboredLess (RTX 3060 Laptop): "71% of the total" L2 sectors are excessive, but the ALU pipe sets
    the floor (computed here from the raw breakdowns): coalescing cannot move it, so no saving is claimed."""
    k = analysed("rtx3060-laptop_reductions_full", shared_report).launches[1]
    raw = raw_actions("rtx3060-laptop_reductions_full")[1]
    rule = next(r for r in k.launch.rules if r.rule == "UncoalescedGlobalAccess")
    stated = float(re.search(r"\((\d+)% of the total", rule.message).group(1)) / 100.0
    cut = {p: 1 - stated for p in ("lts", "ltc", "dram", "fbpa", "fbp")}
    assert floor_from_raw(raw, cut) == pytest.approx(floor_from_raw(raw))
    item = next(i for i in k.advice if reconcile.cause(i.topic) == "coalescing")  # one item for the pattern
    assert "ncu UncoalescedGlobalAccess" in item.also and item.est_saved_s is None


@pytest.mark.parametrize("message, share", [
    ("the excess is 1.0x of what is needed", 0.0),  # none at 1.0x: nothing to remove
    ("resulting in a total of 25165824 excessive sectors (43% of the total 58720256 sectors)", 0.43),
    ("which represent 40.77% of the overall 4950578 wavefronts", 0.4077),
    ("only 26.4 of the 32 bytes transmitted per sector are utilized", 1 - 26.4 / 32),
    ("accesses 4.1 bytes per thread per memory request; but the address pattern results in 16.1 sectors per "
     "request", 1 - 4.1 / 16.1),
    ("expected 143573052 sectors, got 1003325922 (6.99x)", 1 - 143573052 / 1003325922),
    ("expected 143573052 sectors, got 1003325922 (6.99x) at PC 0x14a9a94cf630", None),  # one instruction's share
    ("only accesses an average of 1.0 sectors out of the possible 4 sectors per cache line", None),  # requests
    ("This kernel achieves an average of 17.5 threads being active per cycle.", 1 - 17.5 / 32),
    ("This kernel executes 100800 fused and 80640 non-fused FP32 instructions", 80640 / 2 / (100800 + 80640)),
    ("All compute pipelines are under-utilized.", None),
])
def test_work_share_read_from_ncus_message(message, share):
    assert work_share(message) == (share if share is None else pytest.approx(share))


ONE_PC = "Uncoalesced global access, expected 189316 sectors, got 207086 (1.09x) at PC 0x7f5e16fb3020"
# A launch of the advice tests' model whose global loads moved 40e6 sectors at L1, with 0.9 GB of DRAM traffic in
# 1 ms (28.125e6 sectors) and 50e6 L2 sectors: the kernel's fewest sectors are the DRAM ones.
SECTORS = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 40e6, "lts__t_sectors.sum": 50e6}
# the other L1 sector counts, so that the bytes a coalescing change keeps are known (none: every load sector)
NO_OTHER_SECTORS = {f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum": 0.0
                    for space, op in (("global", "st"), ("local", "ld"), ("local", "st"))}
DRAM_SECTORS = 0.9e9 / 32


def _sectors_launch():
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch

    (k,) = analysed_model(launch(0, "k", 1e-3, 3e12, 0.9e12, **SECTORS)).launches
    return k


@pytest.mark.parametrize("message, excess", [
    ("resulting in a total of 9437184 excessive sectors (8% of the total 122388480 sectors)", 9437184.0),
    (ONE_PC, 207086.0 - 189316.0),  # one instruction's excess
    ("For global loads only 8.0 of the 32 bytes transmitted per sector are utilized", 0.75 * 40e6),
    ("For global stores only 8.0 of the 32 bytes transmitted per sector are utilized", None),  # stores not counted
    ("only accesses an average of 1.0 sectors out of the possible 4 sectors per cache line", None),  # requests
    ("resulting in 9,437,184 excessive sectors", 9437184.0),  # with thousands separators
    ("This kernel's accesses move 1.0x the sectors they need", 0.0),  # nothing beyond need, whatever the access
])
def test_excess_sectors_stated_counted_or_a_share_of_one_kind_of_access(message, excess):
    found = excess_sectors(message, _sectors_launch())
    assert found == (excess if excess is None else pytest.approx(excess))


def test_the_kind_of_access_is_read_from_the_title_first():
    """A store rule whose message also speaks of loads counts the stores' sectors (none measured here: None), not
    the loads'."""
    message = "On average, only 8.0 of the 32 bytes transmitted per sector are utilized; global loads are fine"
    assert excess_sectors(message, _sectors_launch(), "L1TEX Global Store Access Pattern") is None
    assert excess_sectors(message, _sectors_launch(), "L1TEX Global Load Access Pattern") == pytest.approx(0.75 * 40e6)


def test_excess_sectors_are_a_share_of_the_kernels_fewest_sectors():
    """The share bounds the work removed at either level: over the fewer sectors (DRAM here), at most 1."""
    k = _sectors_launch()
    assert excess_share(8e6, k) == pytest.approx(8e6 / DRAM_SECTORS)
    assert excess_share(64e6, k) == 1.0 and excess_share(None, k) is None
    # an L1 pattern counts L1 too, which this launch's model does not measure: no share rather than a wrong one
    assert k.bytes["l1"].value is None and excess_share(8e6, k, "coalescing:l1") is None


def test_one_instructions_excess_saves_at_most_its_share_of_the_time(analysed, shared_report, raw_actions):
    """RTX 3070 scan (ncu 2020.3): one load instruction moves 207086 sectors where 189316 would do. Of the kernel's
    DRAM sectors (fewer than its L2 sectors; both read here from the raw metrics) that is 0.73%: the item saves at
    most that share of the 337 us, where removing all of the kernel's L2 and DRAM work had let it claim 171 us."""
    k = analysed("rtx3070_scan_full_ncu2020.3", shared_report).launches[0]
    raw = raw_actions("rtx3070_scan_full_ncu2020.3")[0]
    dram = raw["dram__sectors_read.sum"] + raw["dram__sectors_write.sum"]
    assert dram < raw["lts__t_sectors.sum"]
    item = next(i for i in k.advice if "at PC" in i.text and reconcile.cause(i.topic) == "coalescing")
    assert item.work_share == pytest.approx((207086 - 189316) / dram)
    duration = raw["gpu__time_duration.sum"] * 1e-9
    assert item.est_saved_s == pytest.approx(item.work_share * duration)
    assert item.bound_by is EstimateBound.SHARE and not reconcile.worth_showing(item, k)


def _fewest_sectors(raw) -> float:
    return min(raw["lts__t_sectors.sum"], raw["dram__sectors_read.sum"] + raw["dram__sectors_write.sum"])


def test_uncoalesced_stores_remove_their_excess_of_the_kernels_sectors(analysed, shared_report, raw_actions):
    """RTX 3080 naive GEMM: its global stores take 30.9 sectors per warp instruction, where 4 would do; the excess
    (3.57 million sectors, ncu's own rule counts 3.58 million) is 2.2% of the kernel's DRAM sectors (the stores'
    own 87% excess had let it claim 7.71 ms). The excess is the global stores': the DRAM writes (2.30 GB) are no
    more than the useful stores' bytes (2.36 GB, most of them local: register spills), and the loads' reads stay.
    DRAM, the floor, keeps all its bytes, so the item saves nothing (the L2 hit rate alone kept 2.88 GB, and the
    item claimed 2.2% of the 8.85 ms)."""
    name = "rtx3080_sgemm-vs-cublas_full"
    k = next(k for k in analysed(name, shared_report).launches if k.launch.name == "gemm")
    raw = next(a for a in raw_actions(name) if a.name == "gemm").values
    excess = (raw["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
              - 4 * raw["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    (item,) = [i for i in k.advice if i.title == "Coalesce global accesses"]
    assert item.work_share == pytest.approx(excess / _fewest_sectors(raw)) and 0.02 < item.work_share < 0.03
    useful_stores = 32 * (raw["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
                          + raw["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"] - excess)
    assert raw["dram__bytes_write.sum"] <= useful_stores and item.excess_ops == ("st",)
    assert dict(item.change.scales)["DRAM"] == pytest.approx(1.0)
    assert item.est_saved_s is None and item.bound_by is EstimateBound.FLOOR_UNCHANGED


def test_each_level_loses_the_excess_over_its_own_sectors(analysed, shared_report, raw_actions):
    """RTX 4090 naive transpose: its stores move 32 sectors per warp instruction where 4 do, 14.7 million sectors
    beyond need. Of its L2 sectors (18.9 million) that is 78%, so L2 keeps 22%. DRAM keeps its compulsory bytes:
    the excess is the stores', so the loads' 67 MB of reads stay, and the stores' 34 MB written (all its 102 MB;
    the L2 hit rate, which counts the excess sectors' hits, kept 34 MB and a 106 us floor, faster than the report's
    own copy kernel). The bound, measured minus the changed floor, stays above what the report's own shared-memory
    transpose saves (524 us - 145 us), and the changed kernel is no faster than those bytes at the DRAM peak."""
    name = "rtx4090_smem-transpose_full"
    analysis = analysed(name, shared_report)
    k = next(k for k in analysis.launches if k.launch.name == "naiveGmem")
    raw = {a.name: a.values for a in raw_actions(name)}
    naive = raw["naiveGmem"]
    excess = (naive["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
              - 4 * naive["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    (item,) = [i for i in k.advice if i.title == "Coalesce global accesses"]
    assert item.excess_sectors == pytest.approx(excess) and item.change is not None
    scales = dict(item.change.scales)
    assert item.excess_ops == ("st",)
    dram, kept = compulsory_from_raw(naive, excess, stores_only=True)
    assert kept >= naive["dram__bytes_read.sum"] and kept == pytest.approx(dram, rel=1e-3)
    assert scales["L2"] == pytest.approx(1 - excess / naive["lts__t_sectors.sum"])
    assert scales["DRAM"] == pytest.approx(kept / dram, rel=1e-3)
    duration = naive["gpu__time_duration.sum"] * 1e-9
    smem_saves = duration - raw["transposeSmem"]["gpu__time_duration.sum"] * 1e-9
    peak = naive["dram__bytes_read.sum.per_second"] / naive["dram__bytes_read.sum.pct_of_peak_sustained_elapsed"] * 100
    assert smem_saves < item.est_saved_s <= duration - kept / peak


def test_a_stated_total_of_excess_sectors_is_a_share_of_the_kernels(analysed, shared_report, raw_actions):
    """V100 miniWeather: ncu counts 9.4 million excessive sectors of global accesses, 8.1% of the kernel's DRAM
    sectors: at most 8.1% of the 5.62 ms. The L2 access-pattern rule on the same cause ("3.4 sectors of the
    possible 4 per cache line": requests, no share of the work) estimates nothing: a what-if of all L2 and DRAM work
    gone had claimed 4.31 ms."""
    name = "v100_miniweather-openacc_full"
    k = next(k for k in analysed(name, shared_report).launches if k.launch.name == "semi_discrete_step_232_gpu")
    raw = next(a for a in raw_actions(name) if a.name == "semi_discrete_step_232_gpu").values
    (item,) = [i for i in k.advice if reconcile.cause(i.topic) == "coalescing"]
    stated = float(re.search(r"a total of (\d+) excessive sectors", item.text).group(1))
    assert item.work_share == pytest.approx(stated / _fewest_sectors(raw))
    assert item.est_saved_s == pytest.approx(item.work_share * raw["gpu__time_duration.sum"] * 1e-9)
    assert "ncu MemoryCacheAccessPattern: L2 Load Access Pattern" in item.also


def test_a_work_item_without_a_share_is_not_estimated_unless_the_floor_stays(analysed, shared_report):
    """GH200 SiLU: ncu's L2 compression rule states no share of the traffic compression would remove: not
    estimated, ncu's own estimate kept beside; the issue-bound item of examples/h200 keeps "saves nothing", as the
    floor stays even with all of its work gone (tests/analysis/test_advice.py)."""
    k = next(k for k in analysed("gh200_silu_full-roofline", shared_report).launches
             if k.launch.name == "silu_kernel_non_strided")
    (item,) = [i for i in k.advice if i.topic == "l2_compression"]
    assert item.work_share is None and item.est_saved_s is None and item.ncu_saved_s is not None
    assert item.bound_by is EstimateBound.NONE and item.change is None


def test_an_item_a_bound_shows_to_save_nothing_is_left_out():
    """A work item whose message says "1.0x" removes nothing: left out, not listed at 0 s."""
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch
    (k,) = analysed_model(launch(0, "k", 1e-3, 3e12, 0.9e12)).launches
    item = Advice(kind="ncu_rule", title="ncu: DRAM Excessive Read Sectors", text="excess 1.0x", cause="1.0x",
                  source="ncu", est_saved_s=0.6e-3, topic="coalescing:dram", mechanism="work",
                  work_share=work_share("the excess is 1.0x"))
    assert reconcile.reconcile([item], k, None) == ()


def test_one_item_per_cause_citing_ncus_rule(analysed, shared_report):
    """reduceInterleaved: latency-bound; the tool's barrier and wait stalls and ncu's CPIStall rules on the same
    stalls are one item each, the ncu rule cited in ``also``."""
    for k in analysed("rtx3060-laptop_reductions_full", shared_report).launches:
        topics = [i.topic for i in k.advice if i.topic]
        assert len(topics) == len(set(topics)), k.launch.name
    k = analysed("rtx3060-laptop_reductions_full", shared_report).launches[2]
    ncu_stalls = {r.title for r in k.launch.rules if r.rule == "CPIStall" and r.kind == "optimization"}
    assert {"Barrier Stalls", "Wait Stalls"} <= ncu_stalls  # ncu reports both ...
    barrier = [i for i in k.advice if "barrier" in i.text.lower() and "stall" in i.topic]
    assert len(barrier) == 1 and barrier[0].source == "stalls"  # ... the list has each once, the tool's text
    assert "ncu CPIStall: Barrier Stalls" in barrier[0].also


def test_items_under_one_percent_are_left_out_of_the_terminal_only(analysed, shared_report):
    k = analysed("v100_miniweather-openacc_full", shared_report).launches[2]
    tiny = Advice(kind="ncu_rule", title="t", text="t 1", cause="c", source="ncu",
                  est_saved_s=0.009 * k.duration_s.value)
    assert not reconcile.worth_showing(tiny, k)
    assert reconcile.worth_showing(Advice(kind="ncu_rule", title="t", text="t 1", cause="c", source="ncu"), k)


def test_removing_work_at_a_unit_that_is_not_the_floor_saves_nothing(analysed, shared_report, raw_actions):
    """RTX 3080 gemm<128, 8, ...>: ncu's bank conflicts are 40.77% of the shared-load wavefronts (L1), but DRAM is
    the floor and keeps its work: no saving is claimed."""
    k = analysed("rtx3080_sgemm-vs-cublas_full", shared_report).launches[0]
    raw = raw_actions("rtx3080_sgemm-vs-cublas_full")[0]
    item = next(i for i in k.advice if i.topic == "shared_access")
    assert k.verdict.busiest.metric.startswith("dram__")
    assert floor_from_raw(raw, {"l1tex": 1 - 0.4077}) == pytest.approx(floor_from_raw(raw))
    assert item.work_share == pytest.approx(0.4077) and item.est_saved_s is None
    assert item.bound_by is EstimateBound.FLOOR_UNCHANGED


def test_uncoalesced_accesses_save_at_most_measured_minus_the_changed_floor(analysed, shared_report, raw_actions):
    """A40 julia_frb: the L1TEX load pattern wastes sectors; cut at L1, L2 and DRAM (DRAM is the floor) to the
    useful ones, the floor drops to the next unit: the item saves at most measured minus that floor, recomputed
    here from the raw breakdowns."""
    k = analysed("a40_julia-fp16x2_full", shared_report).launches[4]
    raw = raw_actions("a40_julia-fp16x2_full")[4]
    item = next(i for i in k.advice if i.topic.startswith("coalescing"))
    assert k.verdict.busiest.metric.startswith("dram__")
    keep = 1 - item.work_share
    changed = floor_from_raw(raw, {p: keep for p in ("l1tex", "lts", "ltc", "dram", "fbpa", "fbp")})
    assert changed < floor_from_raw(raw)
    duration = raw["gpu__time_duration.sum"] * 1e-9
    assert item.est_saved_s <= duration - changed + 1e-12
    assert item.est_saved_s == pytest.approx(duration - changed, rel=1e-6) or item.est_saved_s < duration - changed


def test_one_access_pattern_at_several_levels_is_one_item(analysed, shared_report):
    """RMSNorm (H100 PCIe): ncu's L1TEX load pattern and its uncoalesced-sectors rule are one item citing both."""
    k = analysed("h100-pcie_rmsnorm-float4_full-roofline", shared_report).launches[0]
    (item,) = [i for i in k.advice if i.topic.startswith("coalescing")]
    assert {"ncu UncoalescedGlobalAccess", "ncu MemoryCacheAccessPattern: L1TEX Global Load Access Pattern"} <= set(
        item.also)


def test_grid_items_are_bounded_by_the_idle_slots_and_the_busiest_units_gap(analysed, shared_report, raw_actions):
    """A100 ReferenceGemm_kernel: a partial last wave idles block slots, but L1 is near its peak: the busiest unit's
    gap with the blocks spread evenly bounds "Fill the last wave" below the idle slots' share. That gap is the time
    model's what-if of the same change (the tail spread evenly, latency hidden), one figure, so the bound is named
    by the what-if."""
    a = analysed("a100-80gb_cutlass-gemm_full", shared_report)
    (k,) = [x for x in a.launches if x.launch.name == "ReferenceGemm_kernel"]
    raw = next(r for r in raw_actions("a100-80gb_cutlass-gemm_full") if r.name == "ReferenceGemm_kernel")
    waves = raw["launch__waves_per_multiprocessor"]
    idle = (math.ceil(waves) - waves) / math.ceil(waves)
    item = next(i for i in k.advice if i.topic == "grid:tail")
    gap = gap_from_raw(raw, k, whole_blocks=False)  # filling the last wave takes the tail of whole blocks away
    assert gap < k.duration_s.value * idle
    assert item.est_saved_s == pytest.approx(gap, rel=1e-6) and item.bound_by == "slack"
    assert item.change is not None and [key for key, _ in item.change.scales] == ["tail"]


def test_no_item_saves_more_than_measured_minus_the_floor_or_lists_one_point_twice(analysed, shared_report,
                                                                                    raw_actions):
    """Over the full-set reports: every estimate is at most measured minus the launch floor; a latency item (and
    the verdict's own) at most measured minus the floor recomputed here from the raw breakdowns; and no launch lists
    two items on one cause."""
    checked = 0
    for name in FULL_SET:
        for raw, k in zip(raw_actions(name), analysed(name, shared_report).launches, strict=True):
            causes = [reconcile.cause(i.topic) for i in k.advice if i.topic]
            assert len(causes) == len(set(causes)), (name, k.launch.name, causes)
            if not raw.has("gpu__time_duration.sum") or not unit_times_from_raw(raw):
                continue
            duration = raw["gpu__time_duration.sum"] * 1e-9
            for item in k.advice:
                if item.est_saved_s is None:
                    continue
                assert item.est_saved_s <= duration - LAUNCH_FLOOR_S + 1e-12, (name, k.launch.name, item.title)
                if item.mechanism in ("latency", "roof"):
                    assert item.est_saved_s <= duration - floor_from_raw(raw) + 1e-12, (name, item.title)
                checked += 1
    assert checked >= 20


def test_a_whole_kernel_share_of_none_stays_none_removed_not_unknown() -> None:
    """"1.0x" removes nothing (0.0, and the item is left out); the per-instruction reading must not turn it into
    an unknown share."""
    from roofline.core.model import RuleResult

    def rule(message: str) -> RuleResult:
        return RuleResult("UncoalescedGlobalAccess", "SourceCounters", "", message, "optimization", (), None, "")

    k = _sectors_launch()
    assert rule_share(rule("This kernel's global loads move 1.0x the sectors they need"), k) == 0.0
    assert rule_share(rule(ONE_PC), k) == pytest.approx((207086 - 189316) / DRAM_SECTORS)


@pytest.mark.parametrize("excess, kept", [("1.0x", False), ("2.0x", True)])
def test_a_rule_that_removes_nothing_is_left_out_end_to_end(excess, kept) -> None:
    """ncu's 60% estimate on a memory-bound launch: at "1.0x" the share is 0.0 and the item goes (a share read as
    unknown would cut all DRAM work instead); at "2.0x" it stays: half of the global loads' 40e6 sectors, a share of
    the kernel's DRAM sectors, bounds it."""
    from roofline.core.model import RuleResult
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch

    rule = RuleResult("UncoalescedGlobalAccess", "SourceCounters", "Uncoalesced Global Accesses",
                      f"This kernel's global loads move {excess} the sectors they need.", "optimization", (),
                      60.0, "global")
    (k,) = analysed_model(launch(0, "k", 1e-3, 3e12, 0.9e12, rules=[rule], **SECTORS, **NO_OTHER_SECTORS)).launches
    items = [i for i in k.advice if any(s.startswith("ncu UncoalescedGlobalAccess") for s in i.also)]
    assert bool(items) == kept
    if kept:
        share = 0.5 * 40e6 / DRAM_SECTORS
        assert items[0].work_share == pytest.approx(share) and items[0].est_saved_s <= share * 1e-3 + 1e-12


def test_the_tools_uncoalesced_excess_counts_the_bytes_the_threads_used():
    """Loads of 1-byte words use 1 byte of each 32-byte sector they move: the excess is 31/32 of their sectors, more
    than the sectors beyond 16 per warp instruction (the widest words' floor) that count without ncu's measure of
    the use nor the SASS's access widths."""
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch

    sectors, requests = 32e6, 1e6  # 32 sectors per warp instruction: scattered
    counts = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": sectors,
              "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": requests, "lts__t_sectors.sum": 50e6}
    use = {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct": 100 / 32}
    items = {}
    for name, extra in (("words", counts), ("bytes", {**counts, **use})):
        (k,) = analysed_model(launch(0, name, 1e-3, 3e12, 0.9e12, **extra)).launches
        (items[name],) = [i for i in k.advice if i.title == "Coalesce global accesses"]
    assert items["words"].excess_sectors == pytest.approx(sectors - 16 * requests)
    assert items["bytes"].excess_sectors == pytest.approx(sectors * 31 / 32)


def test_an_estimate_on_the_fp_and_byte_roofs_alone_is_said_as_at_most(analysed, shared_report, raw_actions):
    """The RTX 4090 cuBLAS SGEMM report has no SpeedOfLight breakdowns (nor throughputs) in its raw metrics: its
    time model sees only the FP and byte roofs, so every saving of its advice is an upper bound ("at most", why
    given); a full-set report's breakdowns leave its estimates as they are."""
    name = "rtx4090_torch-linear-sgemm_custom"
    raws = raw_actions(name)
    assert not any(raw.has(SM) or raw.value("breakdown:" + SM) for raw in raws)
    estimated = [a for k in analysed(name, shared_report).launches for a in k.advice if a.est_saved_s is not None]
    assert estimated and all(a.capped and a.roofs_only for a in estimated)
    assert all(estimate_of(a).startswith("at most: ") and "FP and byte roofs" in estimate_of(a) for a in estimated)
    assert not any(estimate_of(a).startswith(("at most: at most", "at most: bounded")) for a in estimated)
    for name in ("rtx3080_sgemm-vs-cublas_full", "v100_miniweather-openacc_full"):
        assert not any(a.roofs_only for k in analysed(name, shared_report).launches for a in k.advice)


# --- Issue 63: what-ifs a performance engineer would sign ----------------------------------------------------
THROUGHPUTS_REMOVED = ("rtx2070super_alife-143launches_basic", "a100-40gb_selfjoin-cub-sort-154launches_basic")


def _without_throughputs(report):
    """``report`` with every throughput metric (``*pct_of_peak*``) and breakdown list (``breakdown:*``) removed,
    as a report without the SpeedOfLight section holds it."""
    import msgspec

    launches = tuple(msgspec.structs.replace(k, metrics={n: v for n, v in k.metrics.items()
                                                      if "pct_of_peak" not in n and not n.startswith("breakdown:")})
                     for k in report.launches)
    return msgspec.structs.replace(report, launches=launches)


@pytest.fixture(scope="module")
def throughputs_removed(tmp_path_factory):
    """``get(name)``: a shared report without its throughputs, written as a report model (``.roofline.json``) and
    analysed from it, as `roofline report` does."""
    import json

    cache: dict = {}

    def get(name, roofline_report):
        if name not in cache:
            model = _without_throughputs(roofline_report(name))
            path = tmp_path_factory.mktemp("models") / f"{name}.roofline.json"
            path.write_text(json.dumps(model.to_dict()))
            cache[name] = analyze_files([path])[0]
        return cache[name]
    return get


@pytest.mark.parametrize("name", THROUGHPUTS_REMOVED)
def test_without_unit_terms_no_item_saves_more_than_measured_minus_the_launch_floor(
        name, throughputs_removed, roofline_report, raw_actions):
    """Without SpeedOfLight the floor known is the launch term (1.5 us): no item saves more than the raw duration
    minus it (89 and 22 items did before), and an item held there says the rest of the floor is unknown and which
    ncu section would bound it."""
    analysis = throughputs_removed(name, roofline_report)
    held = 0
    for raw, k in zip(raw_actions(name), analysis.launches, strict=True):
        duration = raw["gpu__time_duration.sum"] * 1e-9
        assert k.time_model.reason  # the model has no unit terms
        for item in k.advice:
            if item.est_saved_s is None:
                continue
            assert item.est_saved_s <= duration - 1.5e-6 + 1e-15, (k.launch.name, item.topic, item.est_saved_s)
            if item.bound_by is EstimateBound.LAUNCH_FLOOR:
                held += 1
                assert "rest of the kernel's floor is unknown" in item.bound and "SpeedOfLight" in item.bound
    assert held > 0  # the bound was needed on these reports
    assert all(k.combined_saved_s is None or k.combined_saved_s <= k.duration_s.value - 1.5e-6 + 1e-15
               for k in analysis.launches)


@pytest.mark.parametrize("name", THROUGHPUTS_REMOVED)
def test_without_unit_terms_the_launch_shape_is_one_item(name, throughputs_removed, roofline_report, raw_actions):
    """Under one wave (raw launch__waves_per_multiprocessor < 1) the small grid, the block size, the occupancy and
    the issue slots are one cause: no launch lists two of them."""
    shape = {"grid:small", "block_size", "divergence", "issue", "occupancy:theoretical", "occupancy:achieved"}
    analysis = throughputs_removed(name, roofline_report)
    for raw, k in zip(raw_actions(name), analysis.launches, strict=True):
        if raw.value("launch__waves_per_multiprocessor") is not None and raw["launch__waves_per_multiprocessor"] < 1:
            assert len([a for a in k.advice if a.topic in shape]) <= 1, (k.launch.name, [a.topic for a in k.advice])


def test_one_thread_blocks_are_one_cause_citing_every_rule():
    """1 block of 1 thread on 100 SMs, ncu's Small Grid, Block Size and ThreadDivergence: one item (the small grid),
    the rules cited on it; at most the same work over every SM, and never below the launch floor."""
    from roofline.core.model import RuleResult
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch

    rules = [RuleResult("LaunchConfiguration", "LaunchStats", "Small Grid", "The grid for this launch is configured "
                        "to execute only 1 blocks, which is less than the GPU's 100 multiprocessors.", "warning", (),
                        99.0, "global"),
             RuleResult("LaunchConfiguration", "LaunchStats", "Block Size", "Threads are executed in groups of 32 "
                        "threads called warps. This kernel launch is configured to execute 1 threads per block.",
                        "warning", (), 96.9, "global"),
             RuleResult("ThreadDivergence", "WarpStateStats", "", "Instructions are executed in warps, which are "
                        "groups of 32 threads. On average, only 1.0 of 32 threads are active per warp.",
                        "optimization", (), 96.9, "global")]
    shape = {"launch__grid_size": 1.0, "launch__block_size": 1.0, "launch__waves_per_multiprocessor": 0.0005}
    (k,) = analysed_model(launch(0, "tiny", 4e-6, 1e9, 1e9, rules=rules, **shape)).launches
    items = [a for a in k.advice if a.kind not in ("launch_overhead", "measurement")]
    assert len(items) == 1, [(a.topic, a.source, a.title) for a in items]
    (item,) = items
    assert item.topic == "grid:small"
    assert {"ncu LaunchConfiguration: Small Grid", "ncu LaunchConfiguration: Block Size"} <= set(item.also)
    assert any(s.startswith("ncu ThreadDivergence") for s in item.also)
    assert item.est_saved_s is not None and item.est_saved_s <= min(4e-6 * (1 - 1 / 100), 4e-6 - 1.5e-6) + 1e-18


def test_coalescing_keeps_the_compulsory_dram_traffic(analysed, shared_report, raw_actions):
    """H100 PCIe rmsnorm float4: ncu counts 25.2 M excess sectors of 58.7 M. DRAM keeps the useful bytes that miss in
    L2 now (never DRAM x 0, which saved 173 of 408 us): its time at the DRAM peak after the change is at least
    those bytes over the peak, and at least the ~263 us the 536 MB of the matrix read and written need."""
    name = "h100-pcie_rmsnorm-float4_full-roofline"
    raw = raw_actions(name)[0]
    k = analysed(name, shared_report).launches[0]
    (item,) = [a for a in k.advice if a.topic.startswith("coalescing")]
    excess = 25165824.0  # ncu's message: "a total of 25165824 excessive sectors"
    assert item.excess_sectors == pytest.approx(excess)
    dram, kept = compulsory_from_raw(raw, excess)
    scales = dict(item.change.scales)
    assert scales["DRAM"] == pytest.approx(kept / dram, rel=1e-6) and 0 < scales["DRAM"] <= 1
    peak = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]
    duration = raw["gpu__time_duration.sum"] * 1e-9
    assert item.est_saved_s <= duration - kept / peak * (1 - 1e-9)
    assert item.est_saved_s <= duration - 263e-6 and item.est_saved_s < 173e-6
    assert "DRAM keeps at least" in item.text and "miss in L2" in item.text


def test_more_blocks_per_sm_help_only_where_the_grid_has_them(analysed, shared_report, raw_actions):
    """A40 julia_frb_5885: 84 blocks on 84 SMs, one resident block per SM (raw occupancy limits): a register limit
    allowing two blocks per SM has no second block to run; the occupancy item says so and saves nothing."""
    name = "a40_julia-fp16x2_full"
    raw = next(r for r in raw_actions(name) if r.name == "julia_frb_5885")
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    resident = min(raw[m] for m in raw.values if m.startswith("launch__occupancy_limit_") and raw.value(m))
    assert math.ceil(blocks / sms) <= resident
    k = next(k for k in analysed(name, shared_report).launches if k.launch.name == "julia_frb_5885")
    (item,) = [a for a in k.advice if a.topic == "occupancy:theoretical"]
    assert item.est_saved_s is None and item.bound_by is EstimateBound.NO_MORE_BLOCKS
    assert f"{blocks:.0f} blocks on {sms:.0f} SMs" in item.text


@pytest.mark.parametrize("name", FULL_SET)
def test_the_combined_what_if_bounds_the_items_together(name, analysed, shared_report, raw_actions):
    """Every item at once: never more than the items' sum nor the raw duration minus the combined floor (at least
    the launch floor); items whose sum is above it are marked overlapping, and only those; where every estimate is
    0, they save 0 together."""
    for raw, k in zip(raw_actions(name), analysed(name, shared_report).launches, strict=True):
        estimated = [a for a in k.advice if a.kind != "measurement" and a.est_saved_s is not None]
        if not estimated:
            assert k.combined_saved_s is None
            continue
        if not any(a.est_saved_s for a in estimated):
            assert k.combined_saved_s == 0.0 and k.combined_floor_s is not None
            continue
        duration, total = raw["gpu__time_duration.sum"] * 1e-9, sum(a.est_saved_s for a in estimated)
        assert k.combined_floor_s >= 1.5e-6
        assert k.combined_saved_s <= min(total, duration - k.combined_floor_s) * (1 + 1e-9)
        overlap = len(estimated) > 1 and total > k.combined_saved_s * (1 + 1e-6)
        assert all(a.overlapping == overlap for a in estimated), k.launch.name


@pytest.mark.parametrize("name", FULL_SET)
def test_no_item_is_measured_to_a_datasheet_peak_where_an_achievable_one_is_known(name, analysed, shared_report,
                                                                                   raw_actions):
    """Where the spec knows the DRAM bandwidth a kernel can reach, no item saves more than the raw duration minus
    the DRAM unit's time at that bandwidth (its time at the datasheet peak over the achievable fraction, the
    fraction never below the one the launch reached)."""
    analysis = analysed(name, shared_report)
    for raw, k in zip(raw_actions(name), analysis.launches, strict=True):
        dram = k.time_model.term("DRAM") if k.time_model is not None else None
        if dram is None or dram.achievable_s is None:
            continue
        duration = raw["gpu__time_duration.sum"] * 1e-9
        assert dram.achievable_s >= dram.seconds and dram.achievable_s <= duration * (1 + 1e-9)
        for item in k.advice:
            if item.est_saved_s is not None and item.source != "ncu" and item.change is not None:
                assert item.est_saved_s <= duration - dram.achievable_s * min(
                    [1.0, *(f for key, f in item.change.scales if key == "DRAM")]) + 1e-12


@pytest.mark.parametrize("path", ["shared:a100-80gb_cutlass-gemm_full", "examples/h100/triad-half2.full.ncu-rep",
                                  "examples/h200/sgemm-lineinfo.full.ncu-rep",
                                  "examples/h100/ops/op01-square-matrix-multiplication.json"])
def test_every_item_at_once_saves_at_least_its_largest_item(path, shared_report):
    """The CUTLASS reference GEMM's grid item (1.07 waves: the tail, 312 us, over its L1 term, 277 us) saves at most
    45.4 us by its own bound; every item at once gave 10.7 us, leaving the tail it removes. An item bounded by its
    own mechanism changes the model all the same: the combined floor holds its change. op01's SGEMM: TF32 cuts the
    issue slots its tail follows, the grid item spreads the tail: together the tail is the issue slots' cut time
    (186 us saved, as TF32 alone), not the uncut issue time (53.1 us before the two scales composed)."""
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    from tests.conftest import REPO

    file = shared_report(path.removeprefix("shared:")) if path.startswith("shared:") else REPO / path
    launches = analyze_files([file])[0].valid_launches
    checked = 0
    for k in launches:
        est = [a.est_saved_s for a in k.advice if a.kind != "measurement" and a.est_saved_s]
        if est and k.combined_saved_s is not None:
            assert k.combined_saved_s >= max(est) * (1 - 1e-9), k.launch.name
            checked += 1
    assert checked
    if path == "shared:a100-80gb_cutlass-gemm_full":
        gemm = next(k for k in launches if k.launch.name == "ReferenceGemm_kernel")
        model = gemm.time_model
        l1 = next(t for t in model.terms if t.key == "L1")
        assert gemm.combined_floor_s == pytest.approx(l1.seconds, rel=1e-9)
        assert gemm.combined_saved_s == pytest.approx(model.measured_s - l1.seconds, rel=1e-9)


def test_a_grid_items_floor_is_named_by_the_term_whose_time_it_gives(shared_report, raw_actions):
    """A grid item spreads the blocks evenly, so its floor is no longer the tail: the CUTLASS GEMM's small-grid
    launch (A100, 0:0) floors at the 1.5 us launch floor, its L1 tail (ceil(B / S) / (B / S) x the L1 unit's time,
    2.77 us from the raw counters) gone; the words name the launch floor, not the tail, beside 1.5 us."""
    raw = raw_actions("a100-80gb_cutlass-gemm_full")[0]
    k = analyze_files([shared_report("a100-80gb_cutlass-gemm_full")])[0].launches[0]
    duration = raw["gpu__time_duration.sum"] * 1e-9
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    l1 = max(raw[u] for u in unit_times_from_raw(raw) if u.startswith("l1tex__")) / 100 * duration
    tail = l1 * math.ceil(blocks / sms) / (blocks / sms)
    assert tail == pytest.approx(2.77e-6, rel=0.01) and l1 < LAUNCH_FLOOR_S
    item = next(a for a in k.advice if a.mechanism == "grid" and a.bound_by is EstimateBound.SLACK)
    assert "the kernel at its floor (launch floor, 1.5 us)" in estimate_of(item)
    assert item.est_saved_s == pytest.approx(duration - LAUNCH_FLOOR_S, rel=1e-6)


def test_a_grid_items_floor_is_the_dram_term_at_its_calibrated_roof_not_the_tail():
    """H100 batchnorm (cuDNN bn_fw_tr_1C11_kernel_NCHW, 64 blocks on 132 SMs): the issue slots in whole blocks per
    SM take 26.1% x 550 us x 132 / 64 = 296 us, the DRAM 42.8% x 550 us = 235 us at the 3.35 TB/s datasheet peak,
    279 us at the calibrated 2.823 TB/s. Spreading the blocks leaves the DRAM's 279 us: the bound names DRAM."""
    import json

    from tests.conftest import REPO

    path = REPO / "examples/h100/ops/op17-batchnorm.json"
    cols = json.loads(path.read_text())["launches"]
    i = cols["name"].index("bn_fw_tr_1C11_kernel_NCHW")
    metric = {name: values[i] for name, values in cols["metrics"].items()}
    duration = metric["gpu__time_duration.sum"] * 1e-9
    issue_tail = metric["sm__issue_active.avg.pct_of_peak_sustained_elapsed"] / 100 * duration * 132 / 64
    dram = metric["dram__cycles_active.avg.pct_of_peak_sustained_elapsed"] / 100 * duration * 3.35e12 / 2.823e12
    assert issue_tail == pytest.approx(295.7e-6, rel=0.01) and dram == pytest.approx(279e-6, rel=0.01)
    k = next(k for k in analyze_files([path])[0].launches if k.launch.name == "bn_fw_tr_1C11_kernel_NCHW")
    item = next(a for a in k.advice if a.mechanism == "grid")
    words = estimate_of(item)
    assert "at its floor (DRAM, 279 us, measured to the calibrated DRAM roof)" in words, words
    assert "in whole blocks per SM" not in words and "blocks spread evenly" in words
    assert item.est_saved_s == pytest.approx(duration - dram, rel=0.01)


# The units a move to Tensor Cores takes work off: the FMA and FP16 pipes, and the issue slots (instructions issued,
# as ncu's breakdowns count them twice: issue active and instructions executed)
TENSOR_MOVED = ("sm__pipe_fma_cycles_active.", "sm__pipe_fmaheavy_cycles_active.", "sm__pipe_fp16_cycles_active.",
                "sm__inst_executed_pipe_fp16.", "sm__issue_active.", "sm__inst_executed.")


@pytest.mark.parametrize(("name", "key", "spec", "tensor"), [
    ("a100-40gb_cublas-sgemm_basic", "0:3", "a100-pcie-40gb", "tensor_tf32"),
    ("a10g_sgemm-blocktiling_roofline", "0:3", "a10g", "tensor_fp16")])
def test_the_tensor_core_what_if_keeps_the_time_the_math_takes_at_the_tensor_roof(name, key, spec, tensor,
                                                                                  shared_report, raw_actions):
    """A GEMM on the CUDA cores moved to Tensor Cores runs its FMA pipe's work at the Tensor roof, not for free: the
    FMA and FP16 pipes and the issue slots keep the CUDA-core peak / the Tensor peak of their time (the spec's
    datasheet figures: FP32 19.5 / TF32 156 TFLOP/s on the A100; on the A10G, whose TF32 runs no faster than FP32,
    35 / FP16 70) from the raw counters, and the saving is at most measured time minus the changed floor recomputed
    from every unit (the tail: the SM unit busiest after the change, in whole blocks per SM). The A100's basic
    set counts no FLOPs: the what-if alone sizes it (10.2 ms: the L1 LSU data pipe's 6.44 ms, 6.52 ms in whole
    blocks per SM, is the floor once the FMA pipe's 16.3 ms is down to 2 ms; the tail had stayed on the FMA pipe and
    claimed 80 us more), and nothing is left to re-profile for; the A10G's warptiling SGEMM keeps
    its own smaller estimate (its FP32 work at its roof x 1/2)."""
    import yaml

    from tests.conftest import REPO

    peaks = yaml.safe_load((REPO / "device_specs" / f"{spec}.yaml").read_text())["peaks"]
    kept = peaks["fp32"]["value"] / peaks[tensor]["value"]
    analysis = analyze_files([shared_report(name)])[0]
    i, k = next((i, k) for i, k in enumerate(analysis.launches) if k.launch.key == key)
    raw = raw_actions(name)[i]
    item = next(a for a in k.advice if a.topic == "tensor_cores")
    assert item.work_share == pytest.approx(1.0 - kept) and item.change is not None
    assert dict(item.change.scales) == pytest.approx({"FMA": kept, "issue": kept} | (
        {"FP16": kept} if "FP16" in dict(item.change.scales) else {}))
    before = unit_times_from_raw(raw)
    units = {u: t * (kept if u.startswith(TENSOR_MOVED) else 1.0) for u, t in before.items()}
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    busiest = max((u for u in units if u.split("__")[0] in ("sm", "smsp", "l1tex", "idc")), key=units.__getitem__)
    tail = units[busiest] * math.ceil(blocks / sms) / (blocks / sms)
    duration = raw["gpu__time_duration.sum"] * 1e-9
    most = duration - max(*units.values(), tail, LAUNCH_FLOOR_S)
    assert item.est_saved_s is not None and item.est_saved_s <= most * (1 + 1e-6)
    if k.flops["fp32"].value is None:  # no FLOPs counted: the what-if is the estimate
        assert item.est_saved_s == pytest.approx(most, rel=1e-6) and item.size_with == ""
        assert item.est_saved_s == pytest.approx(10.23e-3, rel=0.005)


def test_the_tensor_core_what_if_floors_at_the_math_on_the_tensor_roof_where_nothing_else_is_slower(
        shared_report, raw_actions):
    """The A100 cuBLAS SGEMM's time model without its memory units (as if they cost nothing): the Tensor Core
    what-if floors at the FMA pipe's time in whole blocks per SM at the TF32 roof (16.3 ms x 24 / 23.7 x 19.5 /
    156, from the raw counters), not at the launch floor (Tensor math taken as free)."""
    from msgspec.structs import replace

    analysis = analyze_files([shared_report("a100-40gb_cublas-sgemm_basic")])[0]
    i, k = next((i, k) for i, k in enumerate(analysis.launches) if k.launch.key == "0:3")
    raw = raw_actions("a100-40gb_cublas-sgemm_basic")[i]
    assert k.time_model is not None
    compute = [t for t in k.time_model.terms if t.side != "memory" and t.key not in ("LSU", "MIO")]
    item = next(a for a in k.advice if a.topic == "tensor_cores")
    cap = reconcile.model_cap(item, replace(k, time_model=replace(k.time_model, terms=tuple(compute))))
    duration = raw["gpu__time_duration.sum"] * 1e-9
    fma = raw["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"] / 100 * duration
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    floor = fma * math.ceil(blocks / sms) / (blocks / sms) * 19.5 / 156
    assert cap is not None and cap.seconds == pytest.approx(duration - floor, rel=1e-6)


def test_a_loads_coalescing_what_if_keeps_the_writes_and_the_loads_that_miss(analysed, shared_report, raw_actions):
    """RTX 3060 Laptop reduceNeighboredLess: ncu's global-load access rule names excess sectors of its loads alone.
    DRAM keeps the bytes written (the stores are as they were) and the useful loads that miss in L2, recomputed
    from the raw counters: here all of its DRAM bytes (the hit rate alone kept 59%), so the item saves nothing."""
    name = "rtx3060-laptop_reductions_full"
    i, k = next((i, k) for i, k in enumerate(analysed(name, shared_report).launches)
                if k.launch.name == "reduceNeighboredLess")
    raw = raw_actions(name)[i]
    (item,) = [a for a in k.advice if a.excess_ops == ("ld",)]
    dram, kept = compulsory_from_raw(raw, item.excess_sectors, loads_only=True)
    assert dict(item.change.kept_bytes)["dram"] == pytest.approx(kept, rel=1e-6)
    assert dict(item.change.scales)["DRAM"] == pytest.approx(kept / dram, rel=1e-6) == pytest.approx(1.0)
    assert item.est_saved_s is None and item.bound_by is EstimateBound.FLOOR_UNCHANGED


def test_keeping_local_data_in_registers_keeps_the_global_stores_at_dram_and_l2(analysed, shared_report, raw_actions):
    """RTX 3080 gemm: 194.6 M local sectors (loads and stores) against 77.3 M store sectors, 4.1 M of them global.
    The stores' part of the excess is the local stores only: the global stores stay (the item kept 74.6 MB at DRAM,
    as if the excess had taken every store), and the bytes DRAM keeps cross L2 too (L2 went x 0)."""
    name = "rtx3080_sgemm-vs-cublas_full"
    raw = raw_actions(name)[0]
    k = analysed(name, shared_report).launches[0]
    (item,) = [a for a in k.advice if a.topic == "local_memory"]
    sectors = {f"{s}_{op}": raw[f"l1tex__t_sectors_pipe_lsu_mem_{'global' if s == 'g' else 'local'}_op_{op}.sum"]
               for s in ("g", "l") for op in ("ld", "st")}
    global_stores = sectors["g_st"] * 32
    written = raw["dram__bytes_write.sum"]
    kept = dict(item.change.kept_bytes)["dram"]
    assert kept >= min(global_stores, written) * (1 - 1e-9) and kept > 100e6
    l2 = reconcile.level_bytes(k, "l2")
    assert dict(item.change.scales)["L2"] >= kept / l2 * (1 - 1e-9) > 0
