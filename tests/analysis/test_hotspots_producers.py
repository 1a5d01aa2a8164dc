"""Hot spots name their instructions (function and offset), list tied stall reasons as ties, flag shares that rest
on few samples, and pin dependency stalls on the instruction that produced the awaited register (the SASS def-use
chain within the function), checked on the shipped SGEMM (examples/h200/sgemm-lineinfo.full.ncu-rep) and on
small hand-written cases."""

from __future__ import annotations

import re

import pytest
from msgspec.structs import replace

from roofline.analysis import sass
from roofline.analysis.hotspots import hotspots, tied_stalls, top_rows
from roofline.core.model import KernelLaunch, PcCounters, PcSampling
from roofline.core.thresholds import THIN_SAMPLES
from roofline.render.report.prose import producer_text, stall_text
from tests.conftest import REPO, SHARED_REPORTS

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
    assert sass.reads_writes("@!P1 LDG.E.128 R4, desc[UR8][R8.64]") == (("P1", "UR8", "UR9", "R8", "R9"),
                                                                      ("R4", "R5", "R6", "R7"))
    assert sass.reads_writes("STG.E desc[UR4][R2.64], R5") == (("UR4", "UR5", "R2", "R3", "R5"), ())
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


# On the real full-set reports in ../shared/ncu-reps, against an independent walk of their SASS written here: its own
# operand table (which leading operands an opcode writes, how many registers each spans) and latency classes

_LONG = {"LDG", "LDL", "LD", "STG", "STL", "ST", "ATOMG", "RED", "LDGSTS", "SYNCS"}  # L1TEX: long scoreboard
_SHORT = {"LDS", "STS", "LDSM", "STSM", "LDC", "MUFU", "S2R", "S2UR", "SHFL", "FCHK", "I2F", "F2I", "F2F", "FRND",
          "DMUL", "DSETP", "R2UR", "HMMA", "IMMA", "BREV", "FLO"}  # MIO: short scoreboard
_WRITES_NOTHING = {"ST", "STG", "STL", "STS", "STSM", "STAS", "RED", "BRA", "CALL", "RET", "EXIT", "BAR", "BSYNC",
                   "BSSY", "WARPSYNC", "NOP", "MEMBAR", "ERRBAR", "DEPBAR", "LDGSTS", "LDGDEPBAR", "NANOSLEEP", "FENCE",
                   "UTMALDG", "UTMASTG", "YIELD"}
_TWO_PREDICATES = {"ISETP", "FSETP", "DSETP", "UISETP", "PLOP3", "FCHK"}
# registers per operand (destination, A, B, C) of the matrix instructions these reports hold (PTX ISA fragments)
_MMA = {("HMMA", "16816", "F16"): (2, 4, 2, 2), ("HMMA", "16816", "F32"): (4, 4, 2, 4),
        ("HMMA", "1688", "F16"): (2, 2, 1, 2), ("HMMA", "1688", "F32"): (4, 2, 1, 4),
        ("IMMA", "16832", "S8"): (4, 4, 2, 4), ("IMMA", "8816", "S8"): (2, 1, 1, 2)}


def _class(text: str) -> str | None:
    op = text.split()[1] if text.startswith("@") else text.split()[0]
    base = op.split(".")[0]
    return "long_scoreboard" if base in _LONG else "short_scoreboard" if base in _SHORT else None


def _names(operand: str, count: int, mask: int = 0x7F) -> list[str]:
    """The registers of one operand: ``count`` from a bare register, each address register by its own suffix."""
    out: list[str] = []
    for token in re.finditer(r"(g?desc)?\[([^\]]*)\]|(?<![\w.])(U?R|U?P)(\d+)(\.64|\.128)?|(?<!\w)PR\b", operand):
        if token.group(2) is not None:  # a memory reference: 1 register each, 2 for a .64 or a descriptor
            for r in re.finditer(r"(?<![\w.])(U?R)(\d+)(\.64)?", token.group(2)):
                n = 2 if r.group(3) or token.group(1) == "desc" else 4 if token.group(1) else 1
                out += [f"{r.group(1)}{int(r.group(2)) + i}" for i in range(n)]
        elif token.group(0) == "PR":
            out += [f"P{i}" for i in range(7) if mask & (1 << i)]
        elif token.group(3).endswith("P"):
            out += [f"{token.group(3)}{token.group(4)}"] if int(token.group(4)) < 7 else []
        else:
            n = {".64": 2, ".128": 4}.get(token.group(5) or "", count)
            out += [f"{token.group(3)}{int(token.group(4)) + i}" for i in range(n)]
    return out


def _def_use(text: str) -> tuple[set[str], set[str]]:
    """(read, written) registers of one instruction, by this test's own table."""
    guard, _, rest = text.partition(" ") if text.startswith("@") else ("", "", text)
    op, _, tail = rest.strip().partition(" ")
    ops = [o.strip() for o in tail.split(",") if o.strip()]
    base, mods = op.split(".")[0], op.split(".")[1:]
    is_pred = [bool(re.fullmatch(r"U?P[0-6T]", o)) for o in ops]
    if base in _WRITES_NOTHING:
        nd = 0
    elif base in ("VOTE", "VOTEU"):
        nd = len(ops) - 1
    elif base == "R2P":
        nd = 1
    elif base in _TWO_PREDICATES:
        nd = sum(1 for p in is_pred[:2] if p) if is_pred[:1] == [True] else 0
        nd = 2 if is_pred[:2] == [True, True] else nd
    else:
        nd = 1 if is_pred[:1] == [True] else 0
        if nd < len(ops) and re.fullmatch(r"U?R(\d+|Z)", ops[nd]):
            nd += 1
            while nd < len(ops) and is_pred[nd]:
                nd += 1
    widths = [1] * len(ops)
    bare = [bool(re.fullmatch(r"[-|~]*U?R(\d+|Z)(\.[\w]+)*\|?", o)) for o in ops]
    for i in range(len(ops)):
        if "64" in mods or "128" in mods:
            widths[i] = 4 if "128" in mods else 2
        if base in ("LDSM", "STSM") and mods[-1] in "24":
            widths[i] = int(mods[-1])
    if "WIDE" in mods:
        widths[0] = 2
        if nd + 2 < len(ops):
            widths[nd + 2] = 2
    if base == "CS2R" and "32" not in mods:
        widths[0] = 2
    if base in ("DMUL", "DFMA", "DADD", "DSETP"):
        widths = [2] * len(ops)
    if base in ("F2F", "I2F", "F2I"):
        types = [m for m in mods if m in ("F16", "F32", "F64", "S32", "U32", "S64", "U64", "U16")]
        if base == "F2F":
            dst, src = types[0], types[1]
        elif base == "I2F":
            dst = next((t for t in types if t.startswith("F")), "F32")
            src = next((t for t in types if t[0] in "SU"), "S32")
        else:
            dst = next((t for t in types if t[0] in "SU"), "S32")
            src = next((t for t in types if t.startswith("F")), "F32")
        widths[0], widths[1:] = (2 if "64" in dst else 1), [2 if "64" in src else 1] * (len(ops) - 1)
    if base in ("HMMA", "IMMA"):
        key = (base, mods[0], mods[1] if base == "IMMA" or len(mods) > 1 else "F16")
        widths[:4] = list(_MMA[key])
    if base == "HGMMA":
        n = int(mods[0].split("x")[1])
        widths[0] = widths[-1 if bare[-1] else -2] = n // 2  # 64 x n fp32 accumulators over 128 threads
    mask = int(ops[-1], 16) if base in ("P2R", "R2P") else 0x7F
    read = set(_names(guard, 1))
    written: set[str] = set()
    for i, o in enumerate(ops):
        (written if i < nd else read).update(_names(o, widths[i] if bare[i] else 1, mask))
    return read, written


def _expected(launch_text: dict[int, str], pc: int, start: int, stall: str):
    """The nearest last writer of a register the instruction at ``pc`` reads, of the stall's class (fixed latency
    for "wait"), walking back to the function's start while the text is known; or, for a scoreboard stall, the
    set of all variable-latency last writers of other classes (then the code names in-flight ones or one of them)."""
    read = _def_use(launch_text[pc])[0]
    others = []
    at = pc - 16
    while read and at >= start and launch_text.get(at):
        hit = _def_use(launch_text[at])[1] & read
        if hit:
            read -= hit
            kind = _class(launch_text[at])
            if kind == (stall if stall != "wait" else None):
                return ("writer", at, hit)
            if stall != "wait" and kind is not None:
                others.append(at)
        at -= 16
    return ("none", None, others)


def _launches_with_producers(name: str):
    from roofline.analysis.hotspots import hotspots
    from tests.conftest import load_shared_report

    for launch in load_shared_report(name).launches:
        h = hotspots(launch)
        if h is None or launch.pc_sampling is None:
            continue
        text = {**{at: v[0] for at, v in launch.pc_sampling.preceding.items()},
                **{pc.pc: pc.sass or "" for pc in h.all_pcs if pc.pc is not None}}
        yield h, text


FULL = sorted(p.name.removesuffix(".ncu-rep") for p in SHARED_REPORTS.glob("*_full*.ncu-rep")) \
    if SHARED_REPORTS.is_dir() else ["(shared folder missing)"]


@pytest.mark.parametrize("name", FULL)
def test_producers_agree_with_an_independent_walk(name: str) -> None:
    """Every dependency-stalled instruction: where the independent walk finds a last writer of the stall's class,
    the producer is it, with the same registers; where it finds none, the producer is an in-flight candidate of
    the stall's class before the waiting instruction, or a variable-latency writer of the other class, or none;
    a wait stall is pinned on a fixed-latency writer only."""
    checked = 0
    for h, text in _launches_with_producers(name):
        for pc in h.all_pcs:
            waits = {r: pc.stalls.get(r, 0) for r in ("long_scoreboard", "short_scoreboard", "wait")}
            if not any(waits.values()) or pc.pc is None or pc.function_pc is None or not pc.sass:
                continue
            stall = max(waits, key=lambda r: waits[r])
            kind, at, regs = _expected(text, pc.pc, pc.function_pc, stall)
            got = h.producers.get(pc.pc)
            checked += 1
            if kind == "writer":
                assert got is not None and (got.kind, got.pc, set(got.registers)) == ("writer", at, regs), \
                    (pc.sass, got)
            elif got is None:
                continue
            elif got.kind == "in_flight":
                assert stall != "wait" and all(_class(c.sass) == stall and c.pc < pc.pc for c in got.candidates)
                assert got.candidates[0] == replace(got, candidates=())
            else:
                assert stall != "wait" and got.pc in regs, (pc.sass, got)
    if not checked:
        pytest.skip(f"{name} holds no dependency stall on an instruction with SASS text")


def _waiting(h, offset: int, function: int = 0):
    return next(pc for pc in h.all_pcs if pc.pc_offset == offset and pc.function_pc == h.functions[function])


def _report_hotspots(name: str, launch: int):
    return list(_launches_with_producers(name))[launch][0]


def test_real_uniform_registers_name_their_uniform_writer() -> None:
    """H100 RMSNorm: ULEA UR4, UR5, UR4 (short scoreboard) waits on S2UR UR5 at +0x2e0 (was unpinned); RTX 3080
    SGEMM: UISETP ... UR4, UR5 (wait) on the ULDC UR5 just before it."""
    h = _report_hotspots("h100-pcie_rmsnorm-float4_full-roofline", 0)
    p = h.producers[_waiting(h, 0x320).pc]
    assert (p.pc_offset, p.sass, p.registers, p.kind) == (0x2E0, "S2UR UR5, SR_CgaCtaId", ("UR5",), "writer")
    h = _report_hotspots("rtx3080_sgemm-vs-cublas_full", 0)
    p = h.producers[_waiting(h, 0x19A0).pc]
    assert (p.pc_offset, p.sass, p.registers) == (0x1990, "ULDC UR5, c[0x0][0x180]", ("UR5",))


def test_real_carry_predicates_name_the_low_half() -> None:
    """A40 Julia: LEA.HI.X ... P0 waits on the LEA R2, P0 at +0xc0 (was the IMAD.WIDE two before); A100 CUTLASS:
    IADD3.X ... P1 on IADD3 R2, P1 at +0x270 (was an ISETP)."""
    h = _report_hotspots("a40_julia-fp16x2_full", 0)
    p = h.producers[_waiting(h, 0xD0).pc]
    assert (p.pc_offset, p.registers) == (0xC0, ("P0",)) and p.sass.startswith("LEA R2, P0,")
    h = _report_hotspots("a100-80gb_cutlass-gemm_full", 1)
    p = h.producers[_waiting(h, 0x290).pc]
    assert (p.pc_offset, p.sass, p.registers) == (0x270, "IADD3 R2, P1, R40, UR8, RZ", ("P1",))


def test_real_register_pairs_name_the_high_half_writer() -> None:
    """A40 Julia: IMAD.WIDE.U32 R4, R7, c, R4 (wait) reads R5 from the MOV at +0x90 (was the S2R of R7, a load);
    RTX 3080: FFMA ... R11 (387,049 long-scoreboard samples) waits on the 4th register of LDL.128 R8."""
    h = _report_hotspots("a40_julia-fp16x2_full", 0)
    p = h.producers[_waiting(h, 0xB0).pc]
    assert (p.pc_offset, p.sass, p.registers) == (0x90, "MOV R5, RZ", ("R5",))
    h = _report_hotspots("rtx3080_sgemm-vs-cublas_full", 0)
    p = h.producers[_waiting(h, 0xDD0).pc]
    assert (p.pc_offset, p.sass, p.registers, p.stall) == (0xD80, "LDL.128 R8, [R21]", ("R11",), "long_scoreboard")


def test_real_branch_scoreboard_waits_name_loads_in_flight() -> None:
    """RTX 3080 SGEMM: @!P2 BRA at +0x1690 (2,383 long-scoreboard samples) was pinned on the ISETP of P2; the
    local stores STL.128 still in flight are named. H100 RMSNorm: @!P0 BRA at +0x930 (long scoreboard) was
    pinned on the FCHK (a short-scoreboard writer); the global load in flight is named."""
    h = _report_hotspots("rtx3080_sgemm-vs-cublas_full", 0)
    p = h.producers[_waiting(h, 0x1690).pc]
    assert p.kind == "in_flight" and [c.pc_offset for c in p.candidates] == [0x1650, 0x1640, 0x1630]
    assert all(c.sass.startswith("STL.128") and c.kind == "in_flight" for c in p.candidates)
    h = _report_hotspots("h100-pcie_rmsnorm-float4_full-roofline", 0)
    p = h.producers[_waiting(h, 0x930).pc]
    assert (p.kind, p.pc_offset, sass.opcode(p.sass)) == ("in_flight", 0x8A0, "LDG.E")


def test_an_in_flight_wait_names_its_candidates_with_their_lines():
    """@P0 BRA waits (short scoreboard) on P0 from an ISETP: the producer is the LDS still in flight (kind
    "in_flight"), its source line read from the instructions before the waiting one; the LDS consumed by the FADD
    is no candidate; a row whose top stall it is carries that producer."""
    f = 0x1000
    before = {f + 0x00: ("LDS R8, [R2]", "k.cu", 10), f + 0x10: ("LDS R9, [R2+0x4]", "k.cu", 11),
              f + 0x20: ("FADD R10, R9, R9", "k.cu", 12), f + 0x30: ("ISETP.GE.AND P0, PT, R4, RZ, PT", "k.cu", 13)}
    pcs = [PcCounters(0x40, 50, {"short_scoreboard": 50}, sass="@P0 BRA 0x2000", pc=f + 0x40, function_pc=f,
                      file="k.cu", line=14)]
    launch = KernelLaunch(range_index=0, action_index=0, name="k", metrics={},
                          pc_sampling=PcSampling(50, tuple(pcs), functions=(f,), preceding=before))
    h = hotspots(launch)
    p = h.producers[f + 0x40]
    assert (p.kind, p.pc_offset, p.sass, p.registers, p.stall, p.source) == \
        ("in_flight", 0x0, "LDS R8, [R2]", (), "short_scoreboard", "k.cu:10")
    assert [c.pc_offset for c in p.candidates] == [0x0] and p.candidates[0].kind == "in_flight"
    assert top_rows(h)[0].producer == p
