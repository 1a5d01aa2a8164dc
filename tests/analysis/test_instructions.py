"""The instruction roofline of a launch against values computed here from the raw metric values (NVIDIA's
``ncu_report``, the ``raw_actions`` fixture, no roofline code):

* warp GIPS            = smsp__inst_executed.sum / duration / 1e9
* thread GIPS / 32     = smsp__thread_inst_executed.sum (else smsp__thread_inst_executed_per_inst_executed.ratio x
                         smsp__inst_executed.sum) / 32 / duration / 1e9
* transactions         (Ding & Williams, irf_metrics) L1 = l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum
                              + l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum;
                       L2 = lts__t_sectors_srcunit_tex_op_{read,write}.sum
                              + 2 x (lts__t_sectors_srcunit_tex_op_atom.sum (else _atom_dot_alu + _atom_dot_cas)
                                     + lts__t_sectors_srcunit_tex_op_red.sum);
                       DRAM = dram__sectors_{read,write}.sum; null where a report lacks one of them
* intensity            = warp instructions / transactions, and thread instructions / 32 / transactions, per level
* peak warp GIPS       = SMs x schedulers per SM x IPC per scheduler x sm__cycles_elapsed.avg.per_second / 1e9,
                         cross-checked with ncu's own sm__inst_executed.avg.per_cycle_elapsed / pct_of_peak
* DRAM transaction roof = dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second / 32 / 1e9
* global walls          = l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum
                          / l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum, against 1, 1/4 and 1/32
* shared walls          = (smsp__sass_inst_executed_op_shared_ld.sum + smsp__inst_executed_op_ldsm.sum)
                          / l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum (stores: _shared_st / _op_st),
                          against 1 and 1/32
* width walls           per operation, from every PC's warp instructions (inst_executed) x its SASS text: bytes
                          per thread w by the opcode's modifiers (.128 16, .64 8, .U16/.S16 2, .U8/.S8 1, else 4;
                          LDSM .x1/.x2/.x4 4/8/16); global unit stride = instructions / sum(max(1, 32 w / 32)),
                          shared no conflict = instructions / sum(max(1, 32 w / 128)) (4-byte words: 1/4 and 1)
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from roofline.analysis.instructions import instruction_roofline
from roofline.analysis.roofline import analyze_report
from roofline.core.model import LEVELS
from tests.conftest import REPO, SHARED_REPORTS

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
    moved = {"l1": l1_transactions(raw), "l2": l2_transactions(raw),
             "dram": raw["dram__sectors_read.sum"] + raw["dram__sectors_write.sum"]}
    clock = raw["sm__cycles_elapsed.avg.per_second"] if raw.has("sm__cycles_elapsed.avg.per_second") \
        else raw["gpc__cycles_elapsed.avg.per_second"]
    issue = (attribute(raw, "multiprocessor_count") * attribute(raw, "num_schedulers_per_multiprocessor")
             * attribute(raw, "max_ipc_per_scheduler"))
    dram_roof = (raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"] / 32 / 1e9
                 if raw.has("dram__bytes.sum.peak_sustained") else None)
    return {"warp_gips": warps / seconds / 1e9, "thread_gips_per_32": threads / 32 / seconds / 1e9,
            "peak_warp_gips": issue * clock / 1e9, "transactions": moved,
            "intensity": {level: warps / n if n else None for level, n in moved.items()},
            "thread_intensity": {level: threads / 32 / n if n else None for level, n in moved.items()},
            "dram_roof": dram_roof}


def l1_transactions(raw) -> float | None:
    """Global and local load and store sectors + shared load and store wavefronts; None where one is missing."""
    names = [*L1_SECTORS, *(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{o}.sum" for o in ("ld", "st"))]
    return sum(raw[n] for n in names) if all(raw.has(n) for n in names) else None


def l2_transactions(raw) -> float | None:
    """SM-requested L2 sectors read and written, atomics and reductions counted both ways."""
    tex = "lts__t_sectors_srcunit_tex_op_"
    atom = (raw[f"{tex}atom.sum"] if raw.has(f"{tex}atom.sum")
            else raw[f"{tex}atom_dot_alu.sum"] + raw[f"{tex}atom_dot_cas.sum"])
    return raw[f"{tex}read.sum"] + raw[f"{tex}write.sum"] + 2 * (atom + raw[f"{tex}red.sum"])


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
            if want["transactions"][level] is None:
                assert r.transactions[level].value is None, f"{where} {level}"
                assert "missing metrics: " in r.transactions[level].reason, f"{where} {level}"
                assert r.intensity[level].value is None and r.thread_intensity[level].value is None
                continue
            assert r.transactions[level].value == want["transactions"][level], f"{where} {level}"
            for key in ("intensity", "thread_intensity"):
                got = getattr(r, key)[level]
                if want[key][level] is None:
                    assert got.value is None and "unbounded" in got.reason
                else:
                    assert got.value == pytest.approx(want[key][level], rel=REL), f"{where} {key} {level}"
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
        assert all(r.transactions[level].value is not None for level in ("l2", "dram")), where
        if r.transactions["l1"].value is None:  # ncu 2020.3 full sets lack the shared store wavefronts
            assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum" in r.transactions["l1"].reason, where
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
        assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" in r.transactions["l1"].reason
        assert "lts__t_sectors_srcunit_tex_op_read.sum" in r.transactions["l2"].reason
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
        assert "lts__t_sectors_srcunit_tex_op_write.sum" in r.transactions["l2"].reason
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


# --- The walls: global sectors and shared wavefronts per warp instruction ----------------------------------------
GLOBAL_WALLS = {"stride_0": 1.0, "unit_stride": 0.25, "scattered": 1 / 32}
SHARED_WALLS = {"no_conflict": 1.0, "conflict_32_way": 1 / 32}
WIDE = ("unit_stride", "no_conflict")  # the walls that follow the access width


def expected_walls(raw) -> dict:
    """Per space and operation: (instructions, transactions) from the raw values, None where the report lacks one."""
    def count(*names):
        return sum(raw[n] for n in names) if all(raw.has(n) for n in names) else None

    out = {}
    for op in ("ld", "st"):
        shared = ("smsp__sass_inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_ldsm.sum") if op == "ld" \
            else ("smsp__sass_inst_executed_op_shared_st.sum",)
        out[("global", op)] = (count(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"),
                               count(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"))
        out[("shared", op)] = (count(*shared), count(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"))
    return out


@pytest.mark.parametrize("name", RECOMPUTED + ("rtx3080_sgemm-vs-cublas_full", "a100-80gb_cutlass-gemm_full"))
def test_every_wall_position_matches_the_raw_counters(positions, raw_actions, name):
    placed = 0
    for raw, (_, r) in zip(raw_actions(name), positions(name), strict=True):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        for (space, op), (inst, moved) in expected_walls(raw).items():
            walls = r.global_memory if space == "global" else r.shared_memory
            got = walls.intensity[op]
            reference = GLOBAL_WALLS if space == "global" else SHARED_WALLS
            assert walls.walls.keys() == reference.keys()
            assert {k: w for k, w in walls.walls.items() if k not in WIDE} == \
                {k: w for k, w in reference.items() if k not in WIDE}
            if inst and moved:
                assert got.value == pytest.approx(inst / moved, rel=REL), f"{where} {space} {op}"
                placed += 1
            else:
                assert got.value is None and got.reason, f"{where} {space} {op}"
    assert placed


@pytest.mark.parametrize("name", FULL_SETS)
def test_global_requests_count_the_warp_instructions(raw_actions, name):
    """The walls divide by L1 requests: one per warp-level global instruction, LDGSTS included (its sectors are in
    the same ld counter); the SASS instruction counts agree on every full-set launch that holds them (ncu 2022.4 on)."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    for raw in raw_actions(name):
        for op in ("ld", "st"):
            sass = f"smsp__sass_inst_executed_op_global_{op}.sum"
            if not raw.has(sass):
                continue
            ldgsts = raw["sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum"] if op == "ld" and raw.has(
                "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum") else 0
            assert raw[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"] == raw[sass] + ldgsts, f"{name} {op}"


def by_name(positions, report: str) -> dict:
    return {k.launch.name: r for k, r in positions(report)}


def test_an_uncoalesced_transpose_store_sits_on_the_scattered_wall(positions):
    """naiveGmem reads rows (4 sectors per warp load) and writes columns (32 sectors per warp store); copyGmem and
    the shared-memory transposes move both on the unit-stride wall."""
    kernels = by_name(positions, "rtx4090_smem-transpose_full")
    naive = kernels["naiveGmem"].global_memory
    assert naive.intensity["ld"].value == 1 / 4 == naive.walls["unit_stride"]
    assert naive.intensity["st"].value == 1 / 32 == naive.walls["scattered"]
    for name in ("copyGmem", "transposeSmem", "transposeSmemPad"):
        assert {op: v.value for op, v in kernels[name].global_memory.intensity.items()} == {"ld": 0.25, "st": 0.25}


def test_an_uncoalesced_reduction_loads_off_the_unit_stride_wall(positions, raw_actions):
    """reduceNeighboredLess, which ncu's UncoalescedGlobalAccess rule flags, loads 7.5 sectors per warp instruction:
    below the unit-stride wall, towards the scattered one; reduceShared, not flagged, loads on the wall."""
    flagged = {raw.name for raw in raw_actions("rtx3060-laptop_reductions_full") for rule in raw.rules
               if rule.get("rule_identifier") == "UncoalescedGlobalAccess" and "excessive sectors" in str(rule)}
    assert "reduceNeighboredLess" in flagged and "reduceShared" not in flagged
    kernels = by_name(positions, "rtx3060-laptop_reductions_full")
    less = kernels["reduceNeighboredLess"].global_memory.intensity["ld"].value
    assert GLOBAL_WALLS["scattered"] < less < GLOBAL_WALLS["unit_stride"]
    assert 1 / less == pytest.approx(7.47, abs=0.01)
    assert kernels["reduceShared"].global_memory.intensity["ld"].value == GLOBAL_WALLS["unit_stride"]


def conflict_ways(raw, kind: str) -> float:
    """The average n-way bank conflict ncu's SharedMemoryConflicts rule states for shared loads or stores."""
    for rule in raw.rules:
        found = re.search(rf"shared {kind}s .*?causes on average a ([0-9.]+) - way bank conflict", str(rule))
        if rule.get("rule_identifier") == "SharedMemoryConflicts" and found:
            return float(found.group(1))
    raise AssertionError(f"no SharedMemoryConflicts rule for shared {kind}s")


def test_a_bank_conflicted_gemm_sits_off_the_no_conflict_wall_by_ncus_factor(positions, raw_actions):
    """The RTX 3080 hand-written sgemm: ncu states 5.1-way conflicts on shared loads and 2.4-way on stores; the
    kernel sits that factor below the no-conflict wall. cuBLAS, without conflicts, sits on it within 2x."""
    raw = next(a for a in raw_actions("rtx3080_sgemm-vs-cublas_full") if a.name == "gemm")
    kernels = by_name(positions, "rtx3080_sgemm-vs-cublas_full")
    shared = kernels["gemm"].shared_memory
    for op, kind in (("ld", "load"), ("st", "store")):
        assert round(1 / shared.intensity[op].value, 1) == conflict_ways(raw, kind)
    assert conflict_ways(raw, "load") == 5.1
    assert all(v.value > 1 / 2 for v in kernels["ampere_sgemm_128x64_nn"].shared_memory.intensity.values())


def test_a_32_bank_stride_transpose_conflicts_and_its_padded_twin_does_not(positions):
    """transposeSmem reads a 32-wide tile by columns (16 wavefronts per warp load on average), transposeSmemPad the
    padded tile (about 1)."""
    kernels = by_name(positions, "rtx4090_smem-transpose_full")
    assert 1 / kernels["transposeSmem"].shared_memory.intensity["ld"].value == pytest.approx(16.13, abs=0.01)
    padded = kernels["transposeSmemPad"].shared_memory
    assert all(1 / v.value == pytest.approx(1.0, abs=0.05) for v in padded.intensity.values())  # the no-conflict wall
    assert kernels["naiveGmem"].shared_memory.intensity["ld"].reason == "no shared ld instructions"


@pytest.mark.parametrize("name", ["a100-40gb_tree-search_full_ncu2020.3", "v100_miniweather-openacc_full"])
def test_full_sets_before_ncu_2022_4_have_global_walls_but_no_shared_ones(positions, name):
    for _, r in positions(name):
        assert all(v.value is not None for v in r.global_memory.intensity.values())
        for op, v in r.shared_memory.intensity.items():
            assert v.value is None and f"smsp__sass_inst_executed_op_shared_{op}.sum" in v.reason
            assert "--section MemoryWorkloadAnalysis_Tables (ncu 2022.4 or later)" in v.reason


def test_a_basic_set_has_no_wall_position(positions):
    for _, r in positions("a10g_sgemm-progression_basic"):
        for walls in (r.global_memory, r.shared_memory):
            assert all(v.value is None and "--section MemoryWorkloadAnalysis_Tables" in v.reason
                       for v in walls.intensity.values())


# --- The integer roofline ------------------------------------------------------------------------------------
# examples/h200/intops.full.ncu-rep (--set full plus the integer counters): hash_rounds runs 64 rounds of a mixing
# hash per thread over 2^26 threads (two integer multiplies per round), gather_strided one strided load each.
INTOPS = REPO / "examples" / "h200" / "intops.full.ncu-rep"
INTOPS_THREADS, INTOPS_ROUNDS = 2**26, 64
ALU = "sm__inst_executed_pipe_alu"
EXAMPLE_FULL_SETS = sorted(str(p.relative_to(REPO)) for folder in ("h100", "h200")
                           for p in (REPO / "examples" / folder).glob("*.full.ncu-rep"))


@pytest.fixture(scope="module")
def intops():
    """``[(LaunchAnalysis, InstructionRoofline, raw action)]`` of the H200 intops report."""
    import roofline
    from tests.conftest import raw_actions_at

    report = roofline.load(INTOPS)
    launches = analyze_report(report).launches
    return [(k, instruction_roofline(k, report.device), raw)
            for k, raw in zip(launches, raw_actions_at(INTOPS), strict=True)]


def expected_integer(raw, moved: dict) -> dict:
    """The integer roofline of one launch from its raw values: thread integer instructions over the duration, the
    ALU pipe's peak per cycle from its count over ncu's percent of peak and the SM active cycles."""
    seconds = raw["gpu__time_duration.sum"] * 1e-9
    count = raw["smsp__sass_thread_inst_executed_op_integer_pred_on.sum"]
    per_cycle = raw[f"{ALU}.sum"] / (raw[f"{ALU}.sum.pct_of_peak_sustained_active"] / 100
                                     * raw["sm__cycles_active.avg"])
    peak = 32 * per_cycle * raw["sm__cycles_elapsed.avg.per_second"] / 1e9
    giops = count / seconds / 1e9
    return {"giops": giops, "peak": peak, "pct": 100 * giops / peak, "per_cycle": per_cycle,
            "intensity": {level: count / b for level, b in moved.items()}}


H200_FULL_SETS = [name for name in EXAMPLE_FULL_SETS if "/h200/" in name]


@pytest.mark.parametrize("name", H200_FULL_SETS)
def test_the_integer_roofline_matches_the_raw_counters(name):
    """The three H200 full sets hold the integer counters (intops, the tiled SGEMM, the CuPy triad)."""
    import roofline
    from tests.conftest import raw_actions_at

    report = roofline.load(REPO / name)
    launches = analyze_report(report).launches
    for k, raw in zip(launches, raw_actions_at(REPO / name), strict=True):
        r = instruction_roofline(k, report.device)
        dram = raw["dram__bytes.sum.per_second"] * raw["gpu__time_duration.sum"] * 1e-9  # the rest as test_roofline
        assert k.bytes["dram"].value == pytest.approx(dram, rel=REL)
        want = expected_integer(raw, {level: k.bytes[level].value for level in LEVELS})
        i = r.integer
        assert i.giops.value == pytest.approx(want["giops"], rel=REL)
        assert i.peak_giops.value == pytest.approx(want["peak"], rel=REL)
        assert i.pct_of_peak.value == pytest.approx(want["pct"], rel=REL)
        for level in LEVELS:
            assert i.intensity[level].value == pytest.approx(want["intensity"][level], rel=REL)
        assert "sm__inst_executed_pipe_alu.sum.pct_of_peak_sustained_active" in i.peak_giops.via


def test_the_alu_peak_is_the_datasheets_64_integer_lanes_per_sm(intops):
    """Hopper: 64 INT32 lanes per SM, 2 warp instructions per SM and cycle; ncu's percent gives it to 1e-6."""
    for _, r, raw in intops:
        per_cycle = expected_integer(raw, {})["per_cycle"] / raw["device__attribute_multiprocessor_count"]
        assert per_cycle == pytest.approx(2.0, rel=1e-6)
        per_sm = r.integer.peak_giops.value * 1e9 / raw["device__attribute_multiprocessor_count"]
        assert per_sm / raw["sm__cycles_elapsed.avg.per_second"] == pytest.approx(64.0, rel=1e-6)


def test_hash_rounds_is_integer_bound_with_its_multiplies_on_the_fma_pipe(intops):
    """Every integer instruction of hash_rounds issues to the ALU pipe or, the multiplies, to FMA-heavy (32 threads
    each, no divergence): at least the 2 x 64 x 2^26 multiplies are on FMA-heavy, so the integer rate stands above
    the ALU pipe's peak (131%) while the ALU pipe itself is at 98% of it."""
    (k, r, raw), (_, gather, _) = intops
    count = raw["smsp__sass_thread_inst_executed_op_integer_pred_on.sum"]
    assert count == 32 * (raw[f"{ALU}.sum"] + raw["sm__inst_executed_pipe_fmaheavy.sum"])
    assert 32 * raw["sm__inst_executed_pipe_fmaheavy.sum"] >= 2 * INTOPS_ROUNDS * INTOPS_THREADS
    assert r.integer.pct_of_peak.value == pytest.approx(130.6, abs=0.1)
    assert raw[f"{ALU}.sum.pct_of_peak_sustained_active"] == pytest.approx(98.3, abs=0.1)
    assert gather.integer.pct_of_peak.value == pytest.approx(8.6, abs=0.1)
    assert k.bytes["dram"].value is not None and r.integer.intensity["dram"].value > 100  # 4 bytes a thread


# The integer opcodes of the CUDA Binary Utilities' instruction set reference ("Integer Instructions"), written out
# here apart from roofline.ncu.metrics.INTEGER_OPCODES
INTEGER_OPCODES = {"BMSK", "BREV", "FLO", "IABS", "IADD", "IADD3", "IADD32I", "IDP", "IDP4A", "IMAD", "IMNMX", "IMUL",
                   "IMUL32I", "ISCADD", "ISCADD32I", "ISETP", "LEA", "LOP", "LOP3", "LOP32I", "POPC", "SHF", "SHL",
                   "SHR", "VABSDIFF", "VABSDIFF4", "VIADD", "VIADDMNMX", "VIMNMX", "VIMNMX3"}


@functools.cache
def per_opcode(path) -> tuple[dict[str, float], ...]:
    """Thread instructions (predicate on) per opcode of every launch, read with ncu_report directly."""
    ncu_report = pytest.importorskip("ncu_report")
    ctx = ncu_report.load_report(str(path))
    out: list[dict[str, float]] = []
    for r in range(ctx.num_ranges()):
        for a in range(ctx.range_by_idx(r).num_actions()):
            metric = ctx.range_by_idx(r).action_by_idx(a).metric_by_name("sass__thread_inst_executed_true_per_opcode")
            if metric is None:
                out.append({})
                continue
            ids = metric.correlation_ids()
            out.append({ids.as_string(i): metric.as_double(i) for i in range(metric.num_instances())})
    return tuple(out)


@pytest.mark.parametrize("name", ("examples/h200/intops.full.ncu-rep", "examples/h200/sgemm-lineinfo.full.ncu-rep"))
def test_the_integer_opcodes_add_up_to_ncus_own_integer_count(name):
    """Where a report holds both, the per-opcode sum over the integer opcodes is ncu's op_integer_pred_on count."""
    from tests.conftest import raw_actions_at

    for raw, opcodes in zip(raw_actions_at(REPO / name), per_opcode(REPO / name), strict=True):
        count = sum(v for op, v in opcodes.items() if op in INTEGER_OPCODES)
        assert count == raw["smsp__sass_thread_inst_executed_op_integer_pred_on.sum"], raw.name


@pytest.mark.parametrize("name", FULL_SETS)
def test_every_full_set_launch_has_an_integer_roofline_from_its_opcode_counts(positions, raw_actions, name):
    """The shared full sets count no integer instructions directly; their per-opcode counts give them, over the
    duration, against 64 integer lanes per SM x SMs x the SM clock (CC 7.0-9.0, the CUDA Programming Guide)."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    for raw, opcodes, (k, r) in zip(raw_actions(name), per_opcode(SHARED_REPORTS / f"{name}.ncu-rep"), positions(name),
                                    strict=True):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        i = r.integer
        if not raw.has("gpu__time_duration.sum"):  # flash_fwd_kernel on the H800, not measured
            assert i.giops.value is None and i.giops.reason, where
            continue
        assert opcodes, where  # every launch ncu measured holds the per-opcode counts
        count = sum(v for op, v in opcodes.items() if op in INTEGER_OPCODES)
        seconds = raw["gpu__time_duration.sum"] * 1e-9
        assert i.giops.value == pytest.approx(count / seconds / 1e9, rel=REL), where
        assert "sass__thread_inst_executed_true_per_opcode" in i.giops.via
        clock = raw["sm__cycles_elapsed.avg.per_second"] if raw.has("sm__cycles_elapsed.avg.per_second") \
            else raw["gpc__cycles_elapsed.avg.per_second"]  # the RTX 4090 full set holds the GPC clock only
        peak = 64 * attribute(raw, "multiprocessor_count") * clock / 1e9
        assert i.peak_giops.value == pytest.approx(peak, rel=REL), where
        assert "device_specs/architecture/integer.yaml" in i.peak_giops.via
        for level in LEVELS:
            moved = k.bytes[level].value
            if moved:
                assert i.intensity[level].value == pytest.approx(count / moved, rel=REL), f"{where} {level}"


def test_a_basic_set_names_the_set_that_counts_integer_instructions(positions):
    for _, r in positions("a10g_sgemm-progression_basic"):
        assert r.integer.giops.value is None and "--set full (SourceCounters section)" in r.integer.giops.reason


def test_the_intops_kernels_are_hash_rounds_then_gather_strided(intops):
    assert [k.launch.name for k, _, _ in intops] == ["hash_rounds", "gather_strided"]


def test_every_intops_launch_gets_an_instruction_and_integer_position(intops):
    for _, r, _ in intops:
        assert r.warp_gips.value and r.peak_warp_gips.value and r.warp_gips.value < r.peak_warp_gips.value
        assert all(r.intensity[level].value for level in LEVELS)
        assert r.integer.giops.value and r.integer.peak_giops.value


# --- The project's own full sets (examples/h100, examples/h200: ncu 2025.3) --------------------------------------


@pytest.mark.parametrize("name", EXAMPLE_FULL_SETS)
def test_every_launch_of_the_example_full_sets_matches_the_raw_counters(name):
    """Every launch of the shipped --set full reports gets a position, each figure equal to the one computed here
    from ncu_report's values (these run without ../shared)."""
    import roofline
    from tests.conftest import raw_actions_at

    report = roofline.load(REPO / name)
    launches = analyze_report(report).launches
    raws = raw_actions_at(REPO / name)
    assert len(raws) == len(launches) > 0
    for k, raw in zip(launches, raws, strict=True):
        r = instruction_roofline(k, report.device)
        want = expected(raw)
        for key in ("warp_gips", "thread_gips_per_32", "peak_warp_gips"):
            assert getattr(r, key).value == pytest.approx(want[key], rel=REL), f"{name} {key}"
        for level in LEVELS:
            assert r.transactions[level].value == want["transactions"][level]
            assert r.intensity[level].value == pytest.approx(want["intensity"][level], rel=REL)
        assert r.warp_gips.value <= r.peak_warp_gips.value


@pytest.mark.parametrize("name", FULL_SETS)
def test_transactions_follow_the_published_definition_on_every_full_set_launch(positions, raw_actions, name):
    """L1 counts shared load and store wavefronts only (not every shared wavefront) and L2 the sectors the SMs
    requested (not the copies between L2 partitions): each level equals the definition recomputed from the raw
    counters, both numerators over it, or is null naming a metric the report lacks."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    for raw, (_, r) in zip(raw_actions(name), positions(name), strict=True):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        if r.warp_gips.value is None:
            continue  # a launch ncu could not measure
        want = {"l1": l1_transactions(raw), "l2": l2_transactions(raw),
                "dram": raw["dram__sectors_read.sum"] + raw["dram__sectors_write.sum"]}
        for level, n in want.items():
            got = r.transactions[level]
            if n is None:
                assert got.value is None and "missing metrics: " in got.reason, where
                continue
            assert got.value == pytest.approx(n, rel=REL), f"{where} {level}"
            if n:
                assert r.intensity[level].value == pytest.approx(raw["smsp__inst_executed.sum"] / n, rel=REL)
                assert r.thread_intensity[level].value == pytest.approx(r.intensity[level].value
                                                                        * r.thread_gips_per_32.value
                                                                        / r.warp_gips.value, rel=1e-9)


def test_the_l1_level_leaves_out_shared_wavefronts_that_are_not_loads_or_stores(positions, raw_actions):
    """The A100 tree search (ncu 2020.3) lacks the shared store wavefronts: L1 is null naming them, never the
    count of every shared wavefront in their place; its L2 leaves out the 13.0 G fabric sectors of lts__t_sectors."""
    ((_, r),) = positions("a100-40gb_tree-search_full_ncu2020.3")
    (raw,) = raw_actions("a100-40gb_tree-search_full_ncu2020.3")
    assert r.transactions["l1"].value is None
    assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum" in r.transactions["l1"].reason
    assert r.transactions["l2"].value == l2_transactions(raw)
    assert r.transactions["l2"].value < 0.6 * raw["lts__t_sectors.sum"]  # 14.8 G of 26.6 G
    assert "srcunit_tex_op_atom_dot_alu.sum" in r.transactions["l2"].via


# --- Walls at the access width: an independent count over every PC's SASS ---------------------------------------
# Run in a fresh interpreter: once ncu_report's disassembler has run in a process, a child forked from it (as
# roofline's reader forks) hangs (tests/ncu/test_tensor_sass.py).
WIDTH_SCRIPT = r"""
import json, re, sys
import ncu_report

access = re.compile(r"^\s*(?:@!?U?P\w+\s+)?(LDGSTS|LDG|STG|LDSM|STSM|LDS|STS|LD|ST)((?:\.\w+)*)\s")
wide = {"128": 16, "64": 8, "256": 32, "U16": 2, "S16": 2, "U8": 1, "S8": 1}
kinds = {"LDG": "global ld", "LDGSTS": "global ld", "LD": "global ld", "STG": "global st", "ST": "global st",
         "LDS": "shared ld", "LDSM": "shared ld", "STS": "shared st", "STSM": "shared st"}
rng, out = ncu_report.load_report(sys.argv[1]).range_by_idx(0), []
for a in range(min(rng.num_actions(), int(sys.argv[2]))):
    action, counts = rng.action_by_idx(a), {}
    per_pc = action.metric_by_name("inst_executed")
    ids = per_pc.correlation_ids()
    for i in range(per_pc.num_instances()):
        found = access.match(action.sass_by_pc(ids.as_uint64(i)) or "") if per_pc.as_double(i) > 0 else None
        if found:
            mods = found[2].split(".")[1:]
            if found[1] in ("LDSM", "STSM"):
                width = 4 * int(mods[-1]) if mods and mods[-1] in ("1", "2", "4") else 4
            else:
                width = next((wide[x] for x in mods if x in wide), 4)
            key = kinds[found[1]] + " " + str(width)
            counts[key] = counts.get(key, 0.0) + per_pc.as_double(i)
    out.append(counts)
print(json.dumps(out))
"""
WIDTH_REPORTS = ("a40_julia-fp16x2_full", "h100-pcie_rmsnorm-float4_full-roofline", "a100-80gb_cutlass-gemm_full",
                 "rtx4090_smem-transpose_full", "v100_miniweather-openacc_full")
WIDTH_LAUNCHES = 6  # the first launches of each report: the disassembler takes a fraction of a second a launch
TRANSACTION_BYTES = {"global": 32, "shared": 128}


@functools.cache
def sass_widths(name: str) -> tuple[dict[tuple[str, str], dict[int, float]], ...]:
    """Per launch: (space, op) -> bytes per thread -> warp instructions, from every PC's count and SASS text."""
    import subprocess
    import sys

    from tests.conftest import find_shared_report

    path = find_shared_report(name)
    pytest.importorskip("ncu_report")
    done = subprocess.run([sys.executable, "-c", WIDTH_SCRIPT, str(path), str(WIDTH_LAUNCHES)], capture_output=True,
                          text=True, check=True, timeout=600)
    out = []
    for counts in json.loads(done.stdout):
        launch: dict[tuple[str, str], dict[int, float]] = {}
        for key, n in counts.items():
            space, op, width = key.split(" ")
            launch.setdefault((space, op), {})[int(width)] = n
        out.append(launch)
    return tuple(out)


def expected_wall(widths: dict[int, float], space: str) -> float:
    """Warp instructions per transaction of the width's coalesced pattern, written out per instruction."""
    least = sum(n * max(1, 32 * w / TRANSACTION_BYTES[space]) for w, n in widths.items())
    return sum(widths.values()) / least


@pytest.mark.parametrize("name", WIDTH_REPORTS)
def test_access_widths_and_their_walls_match_a_count_over_every_pcs_sass(positions, name):
    counted = sass_widths(name)
    if not any(counted):
        pytest.skip(f"ncu_report disassembles no instruction of {name} (sass_by_pc gives no text)")
    checked = 0
    for launch, (_, r) in zip(counted, positions(name), strict=False):
        for space in ("global", "shared"):
            walls = r.global_memory if space == "global" else r.shared_memory
            ran = {op: widths for (s, op), widths in launch.items() if s == space}
            assert walls.width_source == ("sass" if ran else "assumed"), f"{name} {space}"
            assert walls.width_bytes.keys() == ran.keys()
            for op, widths in ran.items():
                mean = sum(w * n for w, n in widths.items()) / sum(widths.values())
                assert walls.width_bytes[op] == pytest.approx(mean, rel=REL), f"{name} {space} {op}"
                assert walls.width_walls[op] == pytest.approx(expected_wall(widths, space), rel=REL)
                checked += 1
    assert checked


def test_julias_128_bit_loads_sit_on_their_own_unit_stride_wall_not_left_of_it(positions):
    """The A40 Julia set's frame kernel loads 16 bytes a thread (LDG.E.128): about 1/16 instruction per sector, left
    of the 4-byte words' 1/4 but on the 16-byte wall; its 4-byte stores sit on 1/4."""
    for _, r in positions("a40_julia-fp16x2_full"):
        g = r.global_memory
        if g.width_bytes.get("ld", 0) > 12 and g.intensity["ld"].value:
            assert g.intensity["ld"].value < GLOBAL_WALLS["unit_stride"] / 2
            assert g.intensity["ld"].value == pytest.approx(g.width_walls["ld"], rel=0.05)
            assert g.width_walls["st"] == GLOBAL_WALLS["unit_stride"]
            return
    pytest.fail("no launch of 16-byte loads")


def test_walls_follow_the_widths_of_a_hand_made_mix():
    """Written out: 100 x 16-byte and 300 x 4-byte loads need 100 x 16 + 300 x 4 = 2800 sectors at unit stride
    (1/7 instruction per sector) and 100 x 4 + 300 x 1 = 700 wavefronts without conflicts (4/7); 1-byte stores 1
    sector each; without SASS counts the 4-byte walls stay, with the reason."""
    from roofline.analysis.instructions import _memory_walls
    from roofline.ncu.metrics import Measured

    accesses = {op: (Measured(400.0, via="i"), Measured(2800.0, via="s")) for op in ("ld", "st")}
    found = _memory_walls(accesses, GLOBAL_WALLS, "global", {"ld": {16: 100.0, 4: 300.0}, "st": {1: 50.0}})
    assert found.width_walls == pytest.approx({"ld": 1 / 7, "st": 1.0})
    assert found.width_bytes == pytest.approx({"ld": 7.0, "st": 1.0})
    assert found.walls["unit_stride"] == pytest.approx(450 / 2850) and found.width_source == "sass"
    shared = _memory_walls(accesses, SHARED_WALLS, "shared", {"ld": {16: 100.0, 4: 300.0}, "st": {}})
    assert shared.width_walls == pytest.approx({"ld": 4 / 7}) and shared.walls["conflict_32_way"] == 1 / 32
    unknown = _memory_walls(accesses, GLOBAL_WALLS, "global", None)
    assert unknown.walls == GLOBAL_WALLS and unknown.width_source == "assumed" and unknown.width_bytes == {}
    assert "SourceCounters" in unknown.width_note


def test_miniweathers_double_loads_and_stores_get_the_8_byte_walls(positions):
    """ncu_report cannot disassemble the V100 report, but its per-opcode counts name LDG.E.64 and STG.E.64 only:
    8 bytes a thread, 1/8 instruction per sector at unit stride."""
    for _, r in positions("v100_miniweather-openacc_full"):
        g = r.global_memory
        assert g.width_source == "sass" and set(g.width_bytes.values()) <= {8.0}
        assert set(g.width_walls.values()) <= {1 / 8} and g.walls["unit_stride"] == 1 / 8
