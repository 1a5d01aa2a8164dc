"""Hot spots name their instructions (function and offset), list tied stall reasons as ties, flag shares that rest
on few samples, and pin dependency stalls on the instruction that produced the awaited register (the SASS def-use
chain within the function), checked on the shipped SGEMM (examples/h200/sgemm-lineinfo.full.ncu-rep) and on
small hand-written cases."""

from __future__ import annotations

import pytest

from roofline.analysis import sass
from roofline.analysis.hotspots import hotspots, tied_stalls, top_rows
from roofline.core.model import KernelLaunch, PcCounters, PcSampling
from roofline.core.thresholds import THIN_SAMPLES
from roofline.render.report.prose import producer_text, stall_text
from tests.conftest import REPO

SGEMM = REPO / "examples" / "h200" / "sgemm-lineinfo.full.ncu-rep"


@pytest.fixture(scope="module")
def sgemm():
    from roofline.pipeline import analyze_files

    (a,) = analyze_files([SGEMM])
    return a.launches[0].hotspots


def test_the_store_that_waits_on_a_global_load_names_the_load(sgemm):
    """STS [R3], R18 at +0x2d0 holds 20,755 long-scoreboard samples: R18 comes from the LDG at +0x2a0."""
    store = next(pc for pc, _ in sgemm.pcs if pc.pc_offset == 0x2D0)
    assert store.sass == "STS [R3], R18" and store.stalls["long_scoreboard"] == 20755
    p = sgemm.producers[store.pc]
    assert (p.pc_offset, p.registers, p.stall) == (0x2A0, ("R18",), "long_scoreboard")
    assert sass.opcode(p.sass) == "LDG.E.CONSTANT" and p.pc == store.function_pc + 0x2A0
    row = next(r for r in top_rows(sgemm) if r.where == "sgemm.cu:40")
    assert row.producer == p and producer_text(p) == "<- +0x2a0 LDG.E.CONSTANT R18 at sgemm.cu:40"


def test_a_producer_on_another_source_line_is_found(sgemm):
    """The shared-memory loads of line 45 wait (fixed latency) on the LEA of line 40 that computes their address."""
    load = next(pc for pc, _ in sgemm.pcs if pc.pc_offset == 0x300)
    assert (load.line, load.sass) == (45, "LDS R24, [R4]")
    p = sgemm.producers[load.pc]
    assert (p.pc_offset, sass.opcode(p.sass), p.registers, p.line) == (0x1E0, "LEA", ("R4",), 40)


def test_every_producer_writes_a_register_its_waiting_instruction_reads(sgemm):
    by_pc = {pc.pc: pc for pc in sgemm.all_pcs}
    assert len(sgemm.producers) > 10
    for waiting, p in sgemm.producers.items():
        reads = set(sass.reads_writes(by_pc[waiting].sass)[0])
        assert set(p.registers) <= reads & set(sass.reads_writes(p.sass)[1]), p
        assert p.pc < waiting and p.stall in ("long_scoreboard", "short_scoreboard", "wait")


def test_the_one_function_of_a_launch_is_the_kernel_and_pcs_are_absolute(sgemm):
    assert sgemm.functions == (sgemm.all_pcs[0].function_pc,) and sgemm.kernel_name == "sgemm_tiled"
    assert all(pc.pc == pc.function_pc + pc.pc_offset for pc in sgemm.all_pcs)


def test_sass_operands():
    assert sass.reads_writes("@!P1 LDG.E.128 R4, desc[UR8][R8.64]") == (("P1", "R8", "R9"), ("R4", "R5", "R6", "R7"))
    assert sass.reads_writes("STG.E desc[UR4][R2.64], R5") == (("R2", "R3", "R5"), ())
    assert sass.reads_writes("ISETP.GE.AND P0, PT, R2, RZ, PT") == (("R2",), ("P0",))
    assert sass.reads_writes("FFMA R5, R24, R26, R5") == (("R24", "R26", "R5"), ("R5",))


def _launch(pcs, functions):
    return KernelLaunch(range_index=0, action_index=0, name="k", metrics={},
                        pc_sampling=PcSampling(sum(p.samples for p in pcs), tuple(pcs), functions=functions))


def test_two_functions_with_the_same_offset_are_told_apart_and_ties_are_ties():
    """fill_matrix-like: +0x90 in two functions; 2 long_scoreboard and 2 wait samples are a tie; 4 samples thin."""
    f1, f2 = 0x1000, 0x2000
    pcs = [PcCounters(0x90, 4, {"long_scoreboard": 2, "wait": 2}, sass="FADD R1, R2, R3", pc=f1 + 0x90,
                      function_pc=f1),
           PcCounters(0x90, 3, {"barrier": 3}, sass="BAR.SYNC 0x0", pc=f2 + 0x90, function_pc=f2)]
    h = hotspots(_launch(pcs, (f1, f2)))
    rows = top_rows(h)
    assert [r.where for r in rows] == [f"function 1 of 2 at 0x{f1:x} +0x90", f"function 2 of 2 at 0x{f2:x} +0x90"]
    assert rows[0].tied_stalls == ("long_scoreboard", "wait") and stall_text(rows[0]) == "long_scoreboard = wait"
    assert tied_stalls({"barrier": 3, "selected": 9}) == ("barrier",)
    assert all(r.thin for r in rows) and THIN_SAMPLES > 4


def test_a_stall_location_on_few_samples_says_so():
    from roofline.analysis.hotspots import locate

    pcs = [PcCounters(0x10, 3, {"long_scoreboard": 3}, sass="FADD R1, R2, R3", pc=0x10, function_pc=0)]
    assert locate(hotspots(_launch(pcs, (0,))), "stall:long_scoreboard").endswith("(rests on 3 samples)")
