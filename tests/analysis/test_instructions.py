"""The instruction roofline of a launch against values computed here from the raw metric values (NVIDIA's
``ncu_report``, the ``raw_actions`` fixture, no roofline code):

* warp GIPS            = smsp__inst_executed.sum / duration / 1e9
* thread GIPS / 32     = smsp__thread_inst_executed.sum (else smsp__thread_inst_executed_per_inst_executed.ratio x
                         smsp__inst_executed.sum) / 32 / duration / 1e9
* transactions         L1 = l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum
                              + l1tex__data_pipe_lsu_wavefronts_mem_shared.sum;
                       L2 = lts__t_sectors.sum; DRAM = dram__sectors_{read,write}.sum
* intensity            = warp instructions / transactions, per level
* peak warp GIPS       = SMs x schedulers per SM x IPC per scheduler x sm__cycles_elapsed.avg.per_second / 1e9,
                         cross-checked with ncu's own sm__inst_executed.avg.per_cycle_elapsed / pct_of_peak
* DRAM transaction roof = dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second / 32 / 1e9
"""

from __future__ import annotations

import json

import pytest

from roofline.analysis.instructions import instruction_roofline
from roofline.analysis.roofline import analyze_report
from roofline.core.model import LEVELS
from tests.conftest import SHARED_REPORTS

# One full-set report per ncu version: 2020.3, 2022.2, 2022.4, 2023.1, 2024.1, 2024.2, 2025.1
RECOMPUTED = ("a100-40gb_tree-search_full_ncu2020.3", "v100_miniweather-openacc_full", "a40_julia-fp16x2_full",
              "rtx4090_smem-transpose_full", "rtx3060-laptop_reductions_full", "t4_matrix-add-2d_full",
              "h100-pcie_rmsnorm-float4_full-roofline")
REL = 1e-9
L1_SECTORS = [f"l1tex__t_sectors_pipe_lsu_mem_{s}_op_{o}.sum" for s in ("global", "local") for o in ("ld", "st")]


def full_set_reports() -> list[str]:
    """The shared reports taken with --set full (index.json's guess), [] without the shared folder."""
    index = SHARED_REPORTS / "index.json"
    if not index.is_file():
        return []
    files = json.loads(index.read_text())["files"]
    return [f["file"].removesuffix(".ncu-rep") for f in files if f["set_guess"] in ("full", "full+roofline")]


@pytest.fixture(scope="module")
def positions(roofline_report):
    """``positions(name) -> [(LaunchAnalysis, InstructionRoofline)]`` of every launch, once per report."""
    cache: dict[str, list] = {}

    def get(name):
        if name not in cache:
            report = roofline_report(name)
            cache[name] = [(k, instruction_roofline(k, report.device)) for k in analyze_report(report).launches]
        return cache[name]

    return get


def attribute(raw, name: str) -> float:
    return raw[f"device__attribute_{name}"]


def expected(raw) -> dict:
    """Every instruction-roofline figure of one launch, from its raw values."""
    seconds = raw["gpu__time_duration.sum"] * 1e-9
    warps = raw["smsp__inst_executed.sum"]
    threads = (raw["smsp__thread_inst_executed.sum"] if raw.has("smsp__thread_inst_executed.sum")
               else raw["smsp__thread_inst_executed_per_inst_executed.ratio"] * warps)
    moved = {"l1": sum(raw[n] for n in L1_SECTORS) + raw["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"],
             "l2": raw["lts__t_sectors.sum"], "dram": raw["dram__sectors_read.sum"] + raw["dram__sectors_write.sum"]}
    clock = raw["sm__cycles_elapsed.avg.per_second"] if raw.has("sm__cycles_elapsed.avg.per_second") \
        else raw["gpc__cycles_elapsed.avg.per_second"]
    issue = (attribute(raw, "multiprocessor_count") * attribute(raw, "num_schedulers_per_multiprocessor")
             * attribute(raw, "max_ipc_per_scheduler"))
    dram_roof = (raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"] / 32 / 1e9
                 if raw.has("dram__bytes.sum.peak_sustained") else None)
    return {"warp_gips": warps / seconds / 1e9, "thread_gips_per_32": threads / 32 / seconds / 1e9,
            "peak_warp_gips": issue * clock / 1e9, "transactions": moved,
            "intensity": {level: warps / n if n else None for level, n in moved.items()}, "dram_roof": dram_roof}


@pytest.mark.parametrize("name", RECOMPUTED)
def test_every_figure_matches_the_raw_counters(positions, raw_actions, name):
    raws = raw_actions(name)
    found = positions(name)
    assert len(raws) == len(found)
    for raw, (_, r) in zip(raws, found, strict=True):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        want = expected(raw)
        for key in ("warp_gips", "thread_gips_per_32", "peak_warp_gips"):
            assert getattr(r, key).value == pytest.approx(want[key], rel=REL), f"{where} {key}"
        for level in LEVELS:
            assert r.transactions[level].value == want["transactions"][level], f"{where} {level}"
            if want["intensity"][level] is None:
                assert r.intensity[level].value is None and "unbounded" in r.intensity[level].reason
            else:
                assert r.intensity[level].value == pytest.approx(want["intensity"][level], rel=REL), where
        assert r.thread_gips_per_32.value <= r.warp_gips.value * (1 + REL), where  # inactive threads only lower it
        if want["dram_roof"] is not None:
            assert r.ceilings == "kernel-clock"
            assert r.peak_gtxn_per_s["dram"].value == pytest.approx(want["dram_roof"], rel=REL), where


FULL_SETS = full_set_reports() or ["no full-set report"]


@pytest.mark.parametrize("name", FULL_SETS)
def test_the_issue_peak_is_the_one_ncu_measures_against(raw_actions, name):
    """ncu's own sm__inst_executed percent of peak implies the same warp instructions per SM and cycle as the
    device attributes (schedulers x IPC per scheduler) where the launch issued enough to tell."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    checked = 0
    for raw in raw_actions(name):
        pct_name = "sm__inst_executed.avg.pct_of_peak_sustained_elapsed"
        if not raw.has(pct_name) or raw[pct_name] < 1:  # NaN (a launch ncu could not measure) or too few to tell
            continue
        pct = raw[pct_name]
        per_sm = raw["sm__inst_executed.avg.per_cycle_elapsed"] / (pct / 100)
        assert per_sm == pytest.approx(attribute(raw, "num_schedulers_per_multiprocessor")
                                       * attribute(raw, "max_ipc_per_scheduler"), rel=1e-6)
        checked += 1
    assert checked


def test_ncu_2020_3_derives_thread_instructions_from_the_warp_state_ratio(positions):
    """The 2020.3 tree search: 17.5 of 32 threads active per warp instruction, so thread GIPS / 32 is 55% of
    warp GIPS; the RTX 4090 report holds the thread count itself."""
    ((_, r),) = positions("a100-40gb_tree-search_full_ncu2020.3")
    assert r.thread_gips_per_32.via.startswith("(smsp__thread_inst_executed_per_inst_executed.ratio x ")
    assert r.thread_gips_per_32.value / r.warp_gips.value == pytest.approx(0.5458, abs=1e-4)
    _, transpose = positions("rtx4090_smem-transpose_full")[0]
    assert transpose.thread_gips_per_32.via.startswith("(smsp__thread_inst_executed.sum)")


@pytest.mark.parametrize("name", FULL_SETS)
def test_every_full_set_launch_gets_a_position_and_a_peak(positions, name):
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    placed = 0
    for k, r in positions(name):
        where = f"{name} {k.launch.key}"
        if r.warp_gips.value is None:  # only a launch ncu could not measure (flash_fwd_kernel on the H800)
            assert "ncu stored NaN for smsp__inst_executed.sum" in r.warp_gips.reason, where
            assert r.peak_warp_gips.value is not None or "ncu stored NaN" in r.peak_warp_gips.reason, where
            continue
        placed += 1
        assert r.warp_gips.value > 0 and r.peak_warp_gips.value is not None, where
        assert r.thread_gips_per_32.value is not None, where
        assert r.warp_gips.value <= r.peak_warp_gips.value, where
        assert all(r.transactions[level].value is not None for level in LEVELS), where
        assert any(r.intensity[level].value is not None for level in LEVELS), where
    assert placed


def test_a_basic_set_is_null_with_the_section_that_collects_each_counter(positions, raw_actions):
    """The default set holds no instruction or transaction counts; the issue peak comes from the device
    attributes and the GPC clock, the only clock a basic set holds."""
    name = "a10g_sgemm-progression_basic"
    for raw, (_, r) in zip(raw_actions(name), positions(name), strict=True):
        assert r.warp_gips.value is None and r.thread_gips_per_32.value is None
        assert "smsp__inst_executed.sum" in r.warp_gips.reason and "--section InstructionStats" in r.warp_gips.reason
        assert "--section WarpStateStats" in r.thread_gips_per_32.reason
        for level in LEVELS:
            assert r.transactions[level].value is None and r.intensity[level].value is None
            assert "--section MemoryWorkloadAnalysis_Tables" in r.transactions[level].reason
        assert "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum" in r.transactions["l1"].reason
        assert "dram__sectors_read.sum" in r.transactions["dram"].reason
        assert r.peak_warp_gips.value == pytest.approx(80 * 4 * raw["gpc__cycles_elapsed.avg.per_second"] / 1e9,
                                                       rel=REL)
        assert "gpc__cycles_elapsed.avg.per_second" in r.peak_warp_gips.via


def test_a_metrics_only_report_without_clocks_has_no_issue_peak(positions):
    for _, r in positions("gh200_silu_metrics"):
        assert r.peak_warp_gips.value is None and "sm__cycles_elapsed.avg.per_second" in r.peak_warp_gips.reason


def test_sections_picked_by_hand_leave_out_only_what_they_lack(positions):
    """torch nn.Linear on the RTX 4090 (LoadMetrics/StoreMetrics, no memory tables): L1 lacks the local and shared
    counters, L2 its sectors; DRAM and the warp rate are measured."""
    for _, r in positions("rtx4090_torch-linear-sgemm_custom"):
        assert r.warp_gips.value is not None and r.intensity["dram"].value is not None
        assert r.transactions["l1"].value is None and r.transactions["l2"].value is None
        assert "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum" in r.transactions["l1"].reason
        assert "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" not in r.transactions["l1"].reason


def test_a_model_without_device_attributes_names_them_for_the_issue_peak():
    """The synthetic H100 example holds the SM count but no scheduler attributes: no peak, never an assumed one."""
    import roofline
    from tests.conftest import REPO

    report = roofline.load(REPO / "examples" / "h100-sxm_synthetic.roofline.json")
    for k in analyze_report(report).launches:
        peak = instruction_roofline(k, report.device).peak_warp_gips
        assert peak.value is None
        assert peak.reason == ("missing metrics: device__attribute_num_schedulers_per_multiprocessor, "
                               "device__attribute_max_ipc_per_scheduler")
