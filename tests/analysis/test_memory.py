"""The memory picture (ncu's Memory Workload Analysis) of every launch of the shared full-set reports against the
raw metric values read with NVIDIA's ``ncu_report`` (the ``raw_actions`` fixture, no roofline code):

* hit rates      L1 = l1tex__t_sector_hit_rate.pct, L2 = lts__t_sector_hit_rate.pct
* kernel -> L1   32 x l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st,atom,red}.sum + _local_op_{ld,st}.sum
* shared         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum (wavefronts)
* L2 <-> L1      l1tex__m_xbar2l1tex_read_bytes.sum, l1tex__m_l1tex2xbar_write_bytes.sum
* DRAM <-> L2    dram__bytes_read.sum, dram__bytes_write.sum
"""

from __future__ import annotations

import pytest

from roofline.analysis.memory import memory_picture
from roofline.analysis.results import MemoryNote, MemoryNoteKind
from tests.analysis.test_instructions import FULL_SETS

L1_ALL = [f"l1tex__t_sectors_pipe_lsu_mem_global_op_{o}.sum" for o in ("ld", "st", "atom", "red")] + [
    f"l1tex__t_sectors_pipe_lsu_mem_local_op_{o}.sum" for o in ("ld", "st")]
SHARED = [f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{o}.sum" for o in ("ld", "st")]
EDGES = {"l2_to_l1_bytes": "l1tex__m_xbar2l1tex_read_bytes.sum",
         "l1_to_l2_bytes": "l1tex__m_l1tex2xbar_write_bytes.sum", "dram_to_l2_bytes": "dram__bytes_read.sum",
         "l2_to_dram_bytes": "dram__bytes_write.sum"}


def expected(raw) -> dict[str, float | None]:
    """Each edge of the chart from the raw values; None where the report lacks a metric of it (or stored NaN)."""
    out = {edge: raw[name] if raw.has(name) else None for edge, name in EDGES.items()}
    out["kernel_l1_bytes"] = 32 * sum(raw[n] for n in L1_ALL) if all(raw.has(n) for n in L1_ALL) else None
    out["kernel_shared_wavefronts"] = sum(raw[n] for n in SHARED) if all(raw.has(n) for n in SHARED) else None
    return out


@pytest.mark.parametrize("name", FULL_SETS)
def test_hit_rates_and_traffic_equal_the_reports_values(roofline_report, raw_actions, name):
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    report = roofline_report(name)
    for raw, launch in zip(raw_actions(name), report.launches, strict=True):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        p = memory_picture(launch)
        for level, metric in (("l1", "l1tex__t_sector_hit_rate.pct"), ("l2", "lts__t_sector_hit_rate.pct")):
            if raw.has(metric):
                assert p.hit_rate_pct[level].value == raw[metric], where
                assert p.hit_rate_pct[level].via == metric
            else:
                assert p.hit_rate_pct[level].value is None and p.hit_rate_pct[level].reason, where
        for edge, want in expected(raw).items():
            got = p.traffic[edge]
            if want is None:
                assert got.value is None and got.reason, f"{where} {edge}"
            else:
                assert got.value == pytest.approx(want, rel=1e-12), f"{where} {edge}"


def test_every_full_set_launch_ncu_measured_has_its_hit_rates(roofline_report, raw_actions):
    """Hit rates are in every full set of the shared reports: never null on a launch ncu measured."""
    if FULL_SETS == ["no full-set report"]:
        pytest.skip("../shared/ncu-reps not found")
    for name in FULL_SETS:
        for raw, launch in zip(raw_actions(name), roofline_report(name).launches, strict=True):
            if raw.has("gpu__time_duration.sum"):
                rates = memory_picture(launch).hit_rate_pct
                assert all(v.value is not None for v in rates.values()), f"{name} {raw.action_index}"


def test_a_basic_set_names_the_sections_that_draw_the_chart(roofline_report):
    (launch, *_) = roofline_report("a10g_sgemm-progression_basic").launches
    p = memory_picture(launch)
    assert p.hit_rate_pct["l1"].value is None and "MemoryWorkloadAnalysis" in p.hit_rate_pct["l1"].reason
    assert all(v.value is None for v in p.traffic.values() if "dram" not in v.via)


SOL = {"sm": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
       "memory": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
       "dram": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
       "l1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
       "l2": "lts__throughput.avg.pct_of_peak_sustained_elapsed"}
BASIC_SETS = ("a100-40gb_cublas-sgemm_basic", "a10g_sgemm-progression_basic", "rtx2080ti_kernels_basic",
              "rtx5060ti_transpose_basic", "v100_miniweather-openacc_full")


@pytest.mark.parametrize("name", BASIC_SETS)
def test_speed_of_light_percentages_are_ncus_details_page(roofline_report, raw_actions, name):
    """Basic sets included: SM, memory, DRAM, L1/TEX and L2 throughput in percent of peak, the values of ncu's
    Speed of Light table."""
    for raw, launch in zip(raw_actions(name), roofline_report(name).launches, strict=True):
        sol = memory_picture(launch).sol_pct
        for unit, metric in SOL.items():
            if raw.has(metric):
                assert sol[unit].value == raw[metric] and sol[unit].via == metric
            else:
                assert sol[unit].value is None and "SpeedOfLight" in sol[unit].reason
        assert sol["dram"].value is not None and sol["l1"].value is not None and sol["l2"].value is not None


def test_the_picture_says_which_speed_of_light_units_are_over_active_cycles(roofline_report):
    """ncu's L1/TEX Speed of Light is l1tex__throughput's percent over the unit's active cycles, the others' over
    the elapsed ones (SOL's metric names above): the picture carries that as data, so a renderer need not read a
    metric's name to say "of active cycles"."""
    launch = roofline_report("rtx2070super_alife-143launches_basic").launches[0]
    assert memory_picture(launch).sol_over_active == tuple(
        unit for unit, metric in SOL.items() if metric.endswith(".pct_of_peak_sustained_active")) == ("l1",)


# --- Each edge in percent of its path's peak, the L2 hit rate per operation ------------------------------------
PCT = ".sum.pct_of_peak_sustained_elapsed"
OP_HIT = {"read": "lts__t_sector_op_read_hit_rate.pct", "write": "lts__t_sector_op_write_hit_rate.pct"}


def expected_pct(raw) -> dict[str, float]:
    """Edge percents computed from counts, peaks and clocks alone (never ncu's percent metric): DRAM bytes per second
    over dram__bytes.sum.peak_sustained x DRAM clock; shared load + store wavefronts over 1 per SM and L1 cycle; L1
    -> L2 bytes over 32 B per SM and L1 cycle. Only the edges whose inputs the launch holds."""
    out = {}
    peak, clock = "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"
    for edge, name in (("dram_to_l2_bytes", "dram__bytes_read"), ("l2_to_dram_bytes", "dram__bytes_write")):
        if all(raw.has(n) for n in (f"{name}.sum.per_second", peak, clock)) and raw[peak] * raw[clock] > 0:
            out[edge] = 100 * raw[f"{name}.sum.per_second"] / (raw[peak] * raw[clock])
    sms, cycles = "device__attribute_multiprocessor_count", "l1tex__cycles_elapsed.avg"
    if raw.has(sms) and raw.has(cycles) and raw[cycles] > 0:
        per_cycle = raw[sms] * raw[cycles]
        if all(raw.has(n) for n in SHARED):
            out["kernel_shared_wavefronts"] = 100 * sum(raw[n] for n in SHARED) / per_cycle
        if raw.has(EDGES["l1_to_l2_bytes"]):
            out["l1_to_l2_bytes"] = 100 * raw[EDGES["l1_to_l2_bytes"]] / (32 * per_cycle)
    return out


@pytest.mark.parametrize("name", FULL_SETS)
def test_each_edges_percent_of_peak_is_its_count_over_the_paths_peak(roofline_report, raw_actions, name):
    """DRAM in both directions on every full set; shared memory and L1 -> L2 where the report holds the L1 cycles
    (ncu 2024.1 and later); the kernel's L1 edge is null with its reason."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    checked = 0
    for raw, launch in zip(raw_actions(name), roofline_report(name).launches, strict=True):
        p = memory_picture(launch)
        kernel_l1 = p.traffic_pct["kernel_l1_bytes"]
        assert kernel_l1.value is None and "sol_pct.l1" in kernel_l1.reason
        for edge, want in expected_pct(raw).items():
            got = p.traffic_pct[edge].value
            assert got == pytest.approx(want, rel=1e-6, abs=1e-9), f"{name} {raw.action_index} {edge}"
            checked += 1
    if raw_actions(name)[0].has("dram__bytes.sum.peak_sustained"):
        assert checked >= 2


def test_every_edge_but_the_kernels_l1_has_a_percent_on_a_2024_full_set(roofline_report):
    (launch, _) = roofline_report("a100-80gb_cutlass-gemm_full").launches
    pcts = memory_picture(launch).traffic_pct
    assert [edge for edge, v in pcts.items() if v.value is None] == ["kernel_l1_bytes"]
    assert pcts["l2_to_l1_bytes"].via == "l1tex__m_xbar2l1tex_read_bytes" + PCT


@pytest.mark.parametrize("name", FULL_SETS)
def test_l2_hit_rates_of_loads_and_stores_are_ncus(roofline_report, raw_actions, name):
    """The values ncu stores; null, naming the set and ncu version that collect them, where the report has none."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    for raw, launch in zip(raw_actions(name), roofline_report(name).launches, strict=True):
        by_op = memory_picture(launch).l2_hit_rate_pct_by_op
        for op, metric in OP_HIT.items():
            if raw.has(metric):
                assert by_op[op].value == raw[metric] and by_op[op].via == metric
            else:
                assert by_op[op].value is None and "2024.1" in by_op[op].reason


def test_stores_explain_an_a100_l2_hit_rate_above_its_loads(roofline_report):
    """A100 CUTLASS GEMM: 84.2% overall, loads 74.4%, stores 100.1% (above 100%: ncu's ratio is not clamped)."""
    (launch, _) = roofline_report("a100-80gb_cutlass-gemm_full").launches
    p = memory_picture(launch)
    assert p.l2_hit_rate_pct_by_op["read"].value == pytest.approx(74.3827, abs=1e-4)
    assert p.l2_hit_rate_pct_by_op["write"].value == pytest.approx(100.0859, abs=1e-4)
    assert p.notes == (MemoryNote(MemoryNoteKind.L2_ABOVE_FULL, split=True),)  # the stores' rate is above 100%


def test_no_note_where_every_l2_hit_rate_is_at_most_100(roofline_report):
    """T4 (ncu 2024.2): 50.3% overall, loads 25.3%, stores 99.99%."""
    (launch,) = roofline_report("t4_matrix-add-2d_full").launches
    assert memory_picture(launch).notes == ()


def test_an_l2_hit_rate_above_100_is_explained_and_names_the_split(roofline_report):
    """A40 Julia (ncu 2022.4): 100.1% with no per-operation rates in the report."""
    launches = roofline_report("a40_julia-fp16x2_full").launches
    above = [memory_picture(la) for la in launches if (la.value("lts__t_sector_hit_rate.pct") or 0) > 100]
    assert above
    for p in above:
        assert p.notes == (MemoryNote(MemoryNoteKind.L2_ABOVE_FULL, split=False),)
