"""Branch and call targets in SASS as offsets in their function (``analysis.sass.with_offsets``), as the hot spots show
them; the def-use rules of the same module on hand-written SASS (registers read and written, latency classes, the
producer a stall is pinned on); on the real reports in ``tests/analysis/test_hotspots_producers.py``."""

from __future__ import annotations

import re

import pytest

from roofline.analysis.hotspots import hotspots, top_rows
from roofline.analysis.sass import (
    LONG_SCOREBOARD,
    SHORT_SCOREBOARD,
    Found,
    latency_class,
    producer,
    reads_writes,
    with_offsets,
)
from tests.ncu.test_pc_sampling import _path, _report

START = 0x7F0E068E2E00  # a function's start address, as ncu_report gives it


@pytest.mark.parametrize(("sass", "shown"), [
    ("BRA `(.L_x_0) 0x7f0e068e7aa0", "BRA `(.L_x_0) +0x4ca0"),
    ("@!P2  BRA 0x7f0e068e3000", "@!P2  BRA +0x200"),
    ("@P2   BRA.U 0x7f0e068e2e10", "@P2   BRA.U +0x10"),
    ("BSSY B0, 0x7f0e068e2f80", "BSSY B0, +0x180"),
    ("BRX R2 0x7f0e068e3000", "BRX R2 +0x200"),
    ("@P1   CALL.REL.NOINC 0x7f0e068e4be0", "@P1   CALL.REL.NOINC +0x1de0"),  # a subroutine after the kernel's body
])
def test_a_branch_or_call_target_becomes_an_offset_in_its_function(sass: str, shown: str) -> None:
    assert with_offsets(sass, START) == shown


def test_a_target_from_the_next_function_on_stays_an_address() -> None:
    assert with_offsets("CALL.ABS.NOINC 0x7f0e06900000", START, 0x7F0E06900000) == "CALL.ABS.NOINC 0x7f0e06900000"
    assert with_offsets("CALL.ABS.NOINC 0x7f0e068fffff", START, 0x7F0E06900000) == "CALL.ABS.NOINC +0x1d1ff"


@pytest.mark.parametrize("sass", [
    "MOV R33, 0x3e055027",  # an immediate, whatever its value
    "IADD3 R36, R19, -0x3f2aaaab, RZ",
    "ISETP.GT.U32.AND P0, PT, R19, 0x7f0e068e7aa0, PT",  # a value that happens to look like an address
    "BRA 0x7f0e068e0000",  # before the function's start: not one of its instructions
    "BRX R2 -0x7f0e068e2e10",  # a signed operand: a displacement, not an address
    "CALL.ABS.NOINC 0x0",
    "JMP R4",
    "EXIT",
])
def test_immediates_and_addresses_outside_the_function_stay_as_they_are(sass: str) -> None:
    assert with_offsets(sass, START) == sass


def test_without_the_function_start_the_text_stays_as_it_is() -> None:
    assert with_offsets("BRA 0x7f0e068e7aa0", None) == "BRA 0x7f0e068e7aa0"


def test_real_report_branch_rows_name_their_target_as_the_rows_name_instructions() -> None:
    """The RTX 3080 SGEMM report's hot branches: each row shows its target as an offset, equal to the target read
    from the raw SASS minus the function's start; no absolute address is left in any row."""
    report = _report(_path("rtx3080_sgemm-vs-cublas_full"))
    branches = 0
    for launch in report.launches:
        h = hotspots(launch)
        if h is None:
            continue
        raw = {pc.pc_offset: pc for pc, _ in h.pcs}
        for row in top_rows(h, n=len(h.pcs)):
            assert not re.search(r"0x[0-9a-f]{9,}", row.sass or "")
            offset = int(row.where.rsplit("+0x", 1)[1], 16) if "+0x" in row.where else None
            pc = raw.get(offset) if offset is not None else None
            if pc is None or not pc.sass or " BRA" not in f" {pc.sass}" or pc.function_pc is None:
                continue
            target = int(re.findall(r"0x([0-9a-f]+)", pc.sass)[-1], 16)
            assert (row.sass or "").endswith(f"+0x{target - pc.function_pc:x}")
            branches += 1
    assert branches > 0


# The def-use rules (``reads_writes``, ``registers``, ``latency_class``, ``producer``) on hand-written SASS


@pytest.mark.parametrize(("sass", "read", "written"), [
    # uniform registers are inputs and outputs like the others
    ("IMAD R0, R3, UR5, R0", ("R3", "UR5", "R0"), ("R0",)),
    ("S2UR UR5, SR_CTAID.X", (), ("UR5",)),
    ("ULDC UR4, c[0x0][0x0]", (), ("UR4",)),
    ("ULDC.64 UR4, c[0x0][0x118]", (), ("UR4", "UR5")),
    ("ULDC.U8 UR5, c[0x0][UR5+0x240]", ("UR5",), ("UR5",)),
    ("UISETP.EQ.AND UP2, UPT, URZ, UR44, UPT", ("UR44",), ("UP2",)),
    ("@!UP3 UIADD3 UR13, UR13, 0x1, URZ", ("UP3", "UR13"), ("UR13",)),
    ("R2UR UR8, R2", ("R2",), ("UR8",)),
    ("LDG.E R4, desc[UR8][R2.64]", ("UR8", "UR9", "R2", "R3"), ("R4",)),
    # carry predicates: written by the low half's add, read by the high half's
    ("IADD3 R4, P0, R2, R6, RZ", ("R2", "R6"), ("R4", "P0")),
    ("IADD3 R4, P0, P1, R2, R6, R8", ("R2", "R6", "R8"), ("R4", "P0", "P1")),
    ("IADD3.X R5, R3, R7, RZ, P0, !PT", ("R3", "R7", "P0"), ("R5",)),
    ("LEA R2, P0, R4, c[0x0][0x168], 0x2", ("R4",), ("R2", "P0")),
    ("LEA.HI.X R3, R4, c[0x0][0x16c], R5, 0x2, P0", ("R4", "R5", "P0"), ("R3",)),
    ("ISETP.GE.AND.EX P0, PT, R3, R5, PT, P0", ("R3", "R5", "P0"), ("P0",)),
    # 64-bit pairs and wider
    ("IMAD.WIDE.U32 R4, R7, c[0x0][0x0], R4", ("R7", "R4", "R5"), ("R4", "R5")),
    ("IMAD.WIDE R2, R5, 0x4, R8", ("R5", "R8", "R9"), ("R2", "R3")),
    ("LDG.E.64 R4, [R2.64]", ("R2", "R3"), ("R4", "R5")),
    ("@!P1 LDG.E.128 R4, desc[UR8][R8.64]", ("P1", "UR8", "UR9", "R8", "R9"), ("R4", "R5", "R6", "R7")),
    ("STG.E.128 [R2.64], R8", ("R2", "R3", "R8", "R9", "R10", "R11"), ()),
    ("STS.64 [R118.X8+0x160], R50", ("R118", "R50", "R51"), ()),
    ("LDS.128 R88, [R76]", ("R76",), ("R88", "R89", "R90", "R91")),
    ("UIADD3.64 UR34, UR34, 0x40, URZ", ("UR34", "UR35"), ("UR34", "UR35")),
    ("CS2R R20, SRZ", (), ("R20", "R21")),
    ("DMUL R10, R6, c[0x2][0x0]", ("R6", "R7"), ("R10", "R11")),
    ("DSETP.GEU.AND P5, PT, |R14|, c[0x2][0x8], PT", ("R14", "R15"), ("P5",)),
    ("F2F.F64.F32 R6, R9", ("R9",), ("R6", "R7")),
    ("F2F.F32.F64 R4, R10", ("R10", "R11"), ("R4",)),
    ("I2F.F64.S64 R4, R2", ("R2", "R3"), ("R4", "R5")),
    ("F2I.FTZ.U32.TRUNC.NTZ R5, R4", ("R4",), ("R5",)),
    ("LDSM.16.M88.4 R100, [R2]", ("R2",), ("R100", "R101", "R102", "R103")),
    ("STSM.16.MT88.4 [R152+UR32], R108", ("R152", "UR32", "R108", "R109", "R110", "R111"), ()),
    ("HMMA.16816.F32 R4, R8, R12, R4", ("R8", "R9", "R10", "R11", "R12", "R13", "R4", "R5", "R6", "R7"),
     ("R4", "R5", "R6", "R7")),
    ("HMMA.1688.F16 R2, R8, R12, RZ", ("R8", "R9", "R12"), ("R2", "R3")),
    ("IMMA.16832.S8.S8.SAT R68, R160.ROW, R150.COL, R68",
     ("R160", "R161", "R162", "R163", "R150", "R151", "R68", "R69", "R70", "R71"), ("R68", "R69", "R70", "R71")),
    # a predicate written before the register (SHFL, ATOMG), votes, the predicate register as a whole
    ("SHFL.BFLY PT, R46, R46, 0x10, 0x1f", ("R46",), ("R46",)),
    ("@!P0 ATOMG.E.ADD PT, R3, [R6], R3", ("P0", "R6", "R3"), ("R3",)),
    ("VOTE.ANY R12, PT, !P0", ("P0",), ("R12",)),
    ("VOTE.ALL P0, P0", ("P0",), ("P0",)),
    ("P2R R77, PR, RZ, 0x78", ("P3", "P4", "P5", "P6"), ("R77",)),
    ("@P0 R2P PR, R77.B1, 0x78", ("P0", "R77"), ("P3", "P4", "P5", "P6")),
    ("PLOP3.LUT P0, PT, P0, PT, PT, 0x8, 0x0", ("P0",), ("P0",)),
    ("FCHK P0, R27, R17", ("R27", "R17"), ("P0",)),
    ("SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR7], R4", ("UR7", "R4"), ("P2",)),
    # nothing written
    ("@!P0 BRA 0x7f0e068e3000", ("P0",), ()),
    ("BRA !P2, 0x7faae57b2770", ("P2",), ()),
    ("LDGSTS.E.BYPASS.LTC128B.128 [R168+0xc80][R132.64], P3", ("R168", "R132", "R133", "P3"), ()),
    ("BAR.SYNC.DEFER_BLOCKING 0x0", (), ()),
])
def test_registers_read_and_written(sass: str, read: tuple[str, ...], written: tuple[str, ...]) -> None:
    assert reads_writes(sass) == (read, written)


@pytest.mark.parametrize(("sass", "kind"), [
    ("LDG.E.CONSTANT R18, desc[UR8][R8.64]", LONG_SCOREBOARD), ("LDL.128 R8, [R21]", LONG_SCOREBOARD),
    ("STL [R24+0x4], R5", LONG_SCOREBOARD), ("LD.E R7, [R8.64]", LONG_SCOREBOARD),
    ("SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR7], R4", LONG_SCOREBOARD),
    ("LDS R17, [UR4]", SHORT_SCOREBOARD), ("MUFU.RCP R0, R17", SHORT_SCOREBOARD),
    ("S2R R6, SR_TID.X", SHORT_SCOREBOARD), ("S2UR UR5, SR_CgaCtaId", SHORT_SCOREBOARD),
    ("LDC.64 R8, c[0x0][0x210]", SHORT_SCOREBOARD), ("FCHK P0, R4, R17", SHORT_SCOREBOARD),
    ("@!P0 SHFL.IDX PT, R37, R66, 0x1, 0x1f", SHORT_SCOREBOARD),
    ("ISETP.GE.AND P0, PT, R2, RZ, PT", None), ("ULDC UR4, c[0x0][0x0]", None), ("CS2R R20, SRZ", None),
    ("IMAD.WIDE.U32 R4, R7, c[0x0][0x0], R4", None), ("PLOP3.LUT P0, PT, P0, PT, PT, 0x8, 0x0", None),
])
def test_latency_class_by_opcode(sass: str, kind: str | None) -> None:
    assert latency_class(sass) == kind


def _walk(*lines: str):
    """A function's instructions before a waiting one, nearest last as written: addresses 0x0, 0x10, ..."""
    listed = list(enumerate(lines))
    return lambda: ((16 * i, text) for i, text in reversed(listed))


def test_a_uniform_register_names_its_uniform_producer() -> None:
    """IMAD R0, R3, UR5, R0 waits (short scoreboard) on the S2UR of UR5, not the S2R of R3 further back."""
    before = _walk("S2R R3, SR_TID.X", "S2UR UR5, SR_CTAID.X", "MOV R0, RZ")
    assert producer("IMAD R0, R3, UR5, R0", before, SHORT_SCOREBOARD) == Found(0x10, ("UR5",))
    assert producer("IADD3 R2, R2, UR4, RZ", _walk("MOV R2, RZ", "ULDC UR4, c[0x0][0x0]"), "wait") == \
        Found(0x10, ("UR4",))


def test_a_carry_predicate_names_the_add_that_wrote_it() -> None:
    before = _walk("ISETP.GE.AND P0, PT, R9, RZ, PT", "IADD3 R2, P0, R4, R6, RZ")
    assert producer("IADD3.X R3, R5, R7, RZ, P0, !PT", before, "wait") == Found(0x10, ("P0",))
    assert producer("LEA.HI.X R3, R4, c[0x0][0x16c], R5, 0x2, P0", before, "wait") == Found(0x10, ("P0",))


def test_the_high_half_of_a_pair_names_its_own_writer() -> None:
    """IMAD.WIDE.U32 R4, R7, c, R4 reads R4:R5: the MOV of R5 is nearer than the S2R of R7."""
    before = _walk("S2R R7, SR_CTAID.X", "MOV R4, RZ", "MOV R5, RZ")
    assert producer("IMAD.WIDE.U32 R4, R7, c[0x0][0x0], R4", before, "wait") == Found(0x20, ("R5",))
    loads = _walk("LDG.E.128 R8, [R2.64]", "IADD3 R4, R4, 0x1, RZ")
    assert producer("FFMA R7, R22, R7, R11", loads, LONG_SCOREBOARD) == Found(0x0, ("R11",))


def test_a_scoreboard_stall_is_never_pinned_on_a_fixed_latency_writer() -> None:
    """@P0 BRA waits (short scoreboard) though its P0 comes from an ISETP: the wait is on the LDS still in flight,
    not on the ISETP; a load whose result was read in between is no candidate."""
    before = _walk("LDS R8, [R2]", "LDS R9, [R2+0x4]", "FADD R10, R9, R9", "ISETP.GE.AND P0, PT, R4, RZ, PT")
    found = producer("@P0 BRA 0x7f0e068e3000", before, SHORT_SCOREBOARD)
    assert found == Found(0x0, (), True, ((0x0, ()),))
    assert producer("@P0 BRA 0x7f0e068e3000", before, "wait") == Found(0x30, ("P0",))


def test_in_flight_candidates_that_hold_the_waiting_registers_come_first() -> None:
    """IADD3 R21 after STL.128 [R21] (long scoreboard): the store still reads R21, so it is named before the
    nearer load; none is named past an unconditional branch."""
    before = _walk("LDG.E R30, [R40.64]", "BRA 0x7f0e068e3000", "STL.128 [R21], R4", "LDL R9, [R1]")
    found = producer("IADD3 R21, R21, 0x10, RZ", before, LONG_SCOREBOARD)
    assert found == Found(0x20, ("R21",), True, ((0x20, ("R21",)), (0x30, ())))


def test_a_fixed_latency_stall_is_not_pinned_on_a_load() -> None:
    before = _walk("IMAD R66, R1, 0x4, RZ", "LDL R66, [R1+0x40]")
    assert producer("SHFL.IDX PT, R37, R66, 0x1, 0x1f", before, "wait") is None
    assert producer("SHFL.IDX PT, R37, R66, 0x1, 0x1f", before, LONG_SCOREBOARD) == Found(0x10, ("R66",))


def test_a_writer_of_the_other_class_is_the_last_resort() -> None:
    before = _walk("MUFU.RCP R9, R2")
    assert producer("FMUL R8, R4, R9", before, LONG_SCOREBOARD) == Found(0x0, ("R9",))


def test_matrix_fragments_of_a_warp_and_a_warpgroup() -> None:
    """DMMA.884: 4 doubles of D and C, 1 of A and of B per thread (8 x 8 x 64 bits / 32 threads); HGMMA 64x128 FP32:
    64 accumulators per thread of the warpgroup (64 x 128 / 128 threads), A and B described by 4 uniform registers."""
    assert reads_writes("DMMA.884 R4, R8, R10, R4") == (("R8", "R9", "R10", "R11", "R4", "R5", "R6", "R7"),
                                                       ("R4", "R5", "R6", "R7"))
    read, written = reads_writes("HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16].tnspA, R24, !UP1")
    accumulators = tuple(f"R{24 + i}" for i in range(64))
    assert written == accumulators and read == ("UR16", "UR17", "UR18", "UR19", *accumulators, "UP1")
