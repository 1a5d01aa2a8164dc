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
