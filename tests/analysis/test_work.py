"""roofline.analysis.work: the work per launch of a kernel, compared across reports before its time.

Expected values are computed here from the numbers the launches are built with."""

from __future__ import annotations

import msgspec
import pytest

from roofline.analysis.results import BusyUnit, RoofPosition, Verdict
from roofline.analysis.roofline import analyze_report
from roofline.analysis.work import (
    Work,
    WorkNote,
    WorkNoteKind,
    compare_work,
    fp16_moves_counted,
    governing,
    launch_work,
)
from roofline.core.thresholds import WORK_TOLERANCE
from roofline.render.compare.prose import work_summary
from tests.synthetic import OLD_GPU, launch, model


def work(fp32: float | None = 1e6, fp64: float | None = 0.0, dram: float | None = 1e5, threads: float | None = 256.0,
         instructions: float | None = None) -> Work:
    return Work(flops={"fp64": fp64, "fp32": fp32, "fp16": None, "tensor": None},
                bytes={"dram": dram, "l2": None, "l1": None}, threads=threads, instructions=instructions)


def test_work_per_launch_is_the_mean_over_the_launches_with_threads_from_grid_and_block():
    launches = [launch(i, "k", 1e-3, ffma, 1e5 * (i + 1), OLD_GPU) for i, ffma in enumerate((1e6, 3e6))]
    launches = [msgspec.structs.replace(k, grid=(16, 16, 1), block=(32, 8, 1),
                                    metrics={**k.metrics, "smsp__inst_executed.sum": 1000.0 * (i + 1)})
                for i, k in enumerate(launches)]
    w = launch_work(analyze_report(model("a.json", launches)).launches)
    assert w.flops["fp32"] == pytest.approx((2e6 + 6e6) / 2)  # FFMA = 2 FLOPs
    assert w.bytes["dram"] == pytest.approx(1.5e5)
    assert w.threads == 16 * 16 * 32 * 8
    assert w.instructions == pytest.approx(1500.0)
    assert w.flops["fp16"] is None  # not measured in these launches: unknown, not 0


def test_flops_decide_and_the_tolerance_is_the_larger_over_the_smaller():
    assert WORK_TOLERANCE == 0.05
    within = compare_work(work(fp32=1e6), work(fp32=1.0499e6))
    assert within.basis == "flops" and not within.different and work_summary(within) == "same work (FLOPs within 5%)"
    beyond = compare_work(work(fp32=1.0501e6), work(fp32=1e6))  # 1.0501 / 1 > 1.05 whichever side is larger
    assert beyond.different and work_summary(beyond) == "different work: FP32 FLOPs 0.952x"
    assert not compare_work(work(fp32=1e6), work(fp32=1.08e6), tolerance=0.1).different


def test_bytes_instructions_and_threads_of_a_flop_kernel_are_shown_but_do_not_decide():
    """Traffic and instructions change with the GPU and the implementation for the same work, and a library picks
    other tiles (threads) on another GPU: a regression gate must see those as slower, not as other work."""
    check = compare_work(work(dram=1e5, threads=256, instructions=1e4), work(dram=3e5, threads=1024, instructions=2e4))
    assert not check.different and check.basis == "flops"
    shown = {m.key: (m.ratio, m.differs, m.decides) for m in check.measures}
    assert shown["bytes.dram"] == (pytest.approx(3.0), True, False)
    assert shown["threads"] == (pytest.approx(4.0), True, False)
    assert shown["instructions"] == (pytest.approx(2.0), True, False)
    assert {m.key for m in check.measures if m.differs and not m.decides} == {"bytes.dram", "threads", "instructions"}


def test_without_flops_the_threads_launched_decide():
    no_flops = {"fp32": 0.0, "fp64": 0.0}
    same = compare_work(work(**no_flops, threads=256), work(**no_flops, threads=260))
    assert same.basis == "threads" and not same.different
    assert work_summary(same) == "same work (threads launched within 5%)"
    scan = compare_work(work(**no_flops, threads=128), work(**no_flops, threads=128 * 1247))
    assert scan.different and work_summary(scan) == "different work: threads 1247x"
    assert scan.unit == "DRAM bytes/s"  # the throughput of a kernel without FLOPs: the bytes it moves per second


def test_a_precision_zero_on_one_side_differs_and_unmeasured_counts_are_not_compared():
    appears = compare_work(work(fp64=0.0), work(fp64=1e3))
    fp64 = next(m for m in appears.measures if m.key == "flops.fp64")
    assert appears.different and fp64.ratio is None and fp64.differs
    assert work_summary(appears) == "different work: FP64 FLOPs 0 -> 1 k"
    basic = compare_work(work(fp32=None, fp64=None, dram=None), work(fp32=None, fp64=None, dram=None, threads=1024))
    assert basic.basis == "threads" and basic.different  # basic-set reports: no FLOP counters, threads decide
    unknown = compare_work(work(fp32=None, fp64=None, threads=None), work(fp32=None, fp64=None, threads=None))
    assert unknown.basis == "" and not unknown.different
    assert work_summary(unknown).startswith("work not compared: no FLOP counts on both sides")


def test_threads_stand_for_the_work_only_of_the_same_kernel():
    """cuBLAS on two architectures (--match family) tiles the same matrix multiply differently: without FLOP
    counters its threads launched say nothing about the work."""
    ampere, hopper = work(fp32=None, fp64=None, threads=2048), work(fp32=None, fp64=None, threads=4096)
    assert compare_work(ampere, hopper).different
    across = compare_work(ampere, hopper, same_kernel=False)
    assert across.basis == "" and not across.different
    threads = next(m for m in across.measures if m.key == "threads")
    assert threads.ratio == pytest.approx(2.0) and not threads.decides  # still shown


@pytest.mark.parametrize("other, unit, ratio", [
    (work(fp32=3e6), "FLOP/s", 3.0),
    (work(fp32=0.0, fp64=0.0, dram=2e5), "DRAM bytes/s", 2.0),
])
def test_the_throughput_unit_and_the_work_ratio_in_it(other, unit, ratio):
    base = work() if unit == "FLOP/s" else work(fp32=0.0, fp64=0.0)
    check = compare_work(base, other)
    assert check.unit == unit and check.work_ratio == pytest.approx(ratio)
    threads = compare_work(work(fp32=0.0, fp64=0.0, dram=None, threads=100), work(fp32=0.0, fp64=0.0, dram=None,
                                                                                    threads=400))
    assert threads.unit == "threads/s" and threads.work_ratio == pytest.approx(4.0)


def test_the_governing_resource_decides_and_flops_that_differ_while_its_bytes_match_do_not():
    """The SiLU case of issue 33: both sides DRAM-bound, DRAM bytes 514 vs 524 MB, FP32 FLOPs 4.2x apart (the other
    build computes more per element): the same work on the resource that bounds both, so a speedup of times."""
    base, other = work(fp32=1.0e8, dram=514e6), work(fp32=4.2e8, dram=524e6)
    check = compare_work(base, other, governs=("bytes.dram", "bytes.dram"))
    assert check.basis == "bytes.dram" and not check.different and check.governs_both
    assert work_summary(check) == "same work (DRAM bytes within 5%, the resource that bounds both)"
    fp32 = next(m for m in check.measures if m.key == "flops.fp32")
    assert fp32.ratio == pytest.approx(4.2) and fp32.differs and not fp32.decides  # shown, not decisive
    # the same FLOPs, twice the DRAM bytes (lost reuse, uncoalesced accesses): the same work done worse, which a
    # regression gate must see as slower, not set aside as other work
    worse = compare_work(base, work(fp32=1.0e8, dram=1028e6), governs=("bytes.dram", "bytes.dram"))
    assert worse.basis == "flops" and not worse.different
    # both the FLOPs and the governing bytes differ (another problem size): the governing bytes' throughput
    bigger = compare_work(base, work(fp32=4.2e8, dram=1028e6), governs=("bytes.dram", "bytes.dram"))
    assert bigger.different and bigger.unit == "DRAM bytes/s" and bigger.work_ratio == pytest.approx(2.0)
    assert work_summary(bigger) == "different work: FP32 FLOPs 4.2x, DRAM bytes 2x (the resource that bounds both)"
    apart = compare_work(base, other, governs=("bytes.dram", "flops.fp32"))  # bounded by different resources
    assert apart.basis == "flops" and apart.different and apart.unit == "FLOP/s"


@pytest.mark.parametrize("bound, metric, utilization, expected", [
    ("memory", "dram__cycles_active", {}, "bytes.dram"),
    ("memory", "lts__t_sectors", {}, "bytes.l2"),
    ("memory", "l1tex__data_pipe_lsu_wavefronts", {}, "bytes.l1"),
    ("compute", "sm__pipe_fp64_cycles_active", {"fp64": 85.0}, "flops.fp64"),
    # the RTX 4070 Ti fill_vector: FP64 pipe 67.5% busy, FP64 FLOPs at 8.4% of the roof: not FLOP-bound
    ("compute", "sm__pipe_fp64_cycles_active", {"fp64": 8.4}, "instructions"),
    ("compute", "sm__pipe_fma_cycles_active", {"fp32": 70.0, "fp16": 1.0}, "flops.fp32"),
    ("compute", "sm__pipe_fma_cycles_active", {"fp32": 1.0, "fp16": 70.0}, "flops.fp16"),
    ("compute", "sm__pipe_tensor_cycles_active", {"tensor": 80.0}, "flops.tensor"),
    ("compute", "sm__pipe_fma_cycles_active", {"fp32": 46.0}, "flops.fp32"),  # over half the pipe's 90%: FLOPs
    ("compute", "sm__pipe_shared_cycles_active", {"tensor": 90.5, "fp16": 0.0}, "flops.tensor"),  # H100 BF16 GEMM
    # FP64 work on an A100 or H100: their shared pipe carries FP64 and tensor instructions, its FP64 FLOPs decide
    ("compute", "sm__pipe_shared_cycles_active", {"tensor": 0.0, "fp64": 94.9}, "flops.fp64"),
    ("compute", "sm__pipe_alu_cycles_active", {}, "instructions"),
    ("compute", "sm__issue_active", {}, "instructions"),
    ("balanced", "dram__cycles_active", {}, "bytes.dram"),
    ("latency", "sm__issue_active", {}, "latency"),
    ("small_grid", "dram__cycles_active", {}, "launch"),
    ("memory", "dram", {}, "bytes.dram"),  # a roofline-only verdict names its roof
    ("compute", "fp32", {}, "flops.fp32"),
])
def test_the_governing_resource_is_read_from_the_verdicts_busiest_unit(bound, metric, utilization, expected):
    side = "memory" if bound == "memory" else "compute"
    verdict = Verdict(bound, "throughput", busiest=BusyUnit("unit", 90.0, side, metric))
    roof = RoofPosition("kernel-clock", 50.0, None, utilization)
    assert governing(verdict, roof) == expected
    assert governing(Verdict(None, None, reason="no throughputs"), roof) is None


def test_fp16_flops_are_compared_under_one_definition_of_the_hfma2_register_moves():
    """One side's report (--set full) left 4e6 FLOPs of zero-product HFMA2 moves out of its FP16 FLOPs, the other's
    (--set roofline) could not: both are compared with the moves counted, and the pair says so."""
    counted = msgspec.structs.replace(work(), flops={**work().flops, "fp16": 4e6})
    left_out = msgspec.structs.replace(work(), flops={**work().flops, "fp16": 0.0}, fp16_moves=4e6)
    check = compare_work(counted, left_out)
    fp16 = next(m for m in check.measures if m.key == "flops.fp16")
    assert (fp16.base, fp16.other, fp16.ratio, fp16.differs) == (4e6, 4e6, 1.0, False) and not check.different
    assert check.notes == (WorkNote(WorkNoteKind.FP16_MOVES_COUNTED, "flops.fp16", side="A"),)
    both = compare_work(left_out, left_out)  # the same definition on both sides: compared as they are
    assert not both.notes and next(m for m in both.measures if m.key == "flops.fp16").base == 0.0
    assert check.flops == (pytest.approx(1e6 + 4e6), pytest.approx(1e6 + 4e6))  # all FLOPs, as compared


def test_fp16_moves_counted_gives_any_number_of_works_one_definition():
    """Three reports' work (`timeline --work` pools them): two left 4e6 and 2e6 FLOPs of moves out, one could not
    count them: the moves are added back on the two; works that share a definition are left as they are (None)."""
    blind = msgspec.structs.replace(work(), flops={**work().flops, "fp16": 5e6})
    full = [msgspec.structs.replace(work(), flops={**work().flops, "fp16": f}, fp16_moves=m)
            for f, m in ((1e6, 4e6), (0.0, 2e6))]
    counted = fp16_moves_counted([full[0], blind, full[1]])
    assert counted is not None
    assert [w.flops["fp16"] for w in counted] == [5e6, 5e6, 2e6] and all(w.fp16_moves is None for w in counted)
    assert fp16_moves_counted(full) is None and fp16_moves_counted([blind, blind]) is None
    assert fp16_moves_counted([work(), full[0]]) is None  # no FP16 FLOPs on one: nothing to put on one definition


def test_the_check_carries_all_flops_of_each_side_none_without_any():
    assert compare_work(work(fp32=1e6, fp64=2e5), work(fp32=3e6, fp64=None)).flops == (1.2e6, 3e6)
    assert compare_work(work(fp32=None, fp64=None), work()).flops == (None, 1e6)


def test_bytes_of_different_metric_definitions_are_not_compared():
    lts = msgspec.structs.replace(work(), bytes={"dram": 1e5, "l2": 4e5, "l1": None},
                                  definitions={"l2": "lts__t_bytes: all L2 requests"})
    xbar = msgspec.structs.replace(work(), bytes={"dram": 1e5, "l2": 1e5, "l1": None},
                                   definitions={"l2": "lts2xbar: L2 to crossbar bytes"})
    check = compare_work(lts, xbar, governs=("bytes.l2", "bytes.l2"))
    l2 = next(m for m in check.measures if m.key == "bytes.l2")
    assert l2.ratio is None and not l2.decides and l2.apart == ("lts__t_bytes", "lts2xbar")
    assert check.basis == "flops"  # the governing level cannot decide: the FLOPs do
    assert check.notes == (WorkNote(WorkNoteKind.NOT_COMPARED, "bytes.l2", apart=("lts__t_bytes", "lts2xbar")),)
