"""SASS def-use within a function (pure): which registers an instruction reads and writes, and the instruction
before a waiting one that it waits on, its producer; and a branch's or call's targets as offsets in its function, as
the hot spots name instructions.

SASS text as ncu_report gives it: an optional guard predicate, the opcode with its modifiers, then the operands,
the destinations first ("@!P1 LDG.E.CONSTANT R18, desc[UR8][R8.64]"). Registers are the general ones (R0, ...), the
uniform ones (UR0, ...), the predicates (P0-P6) and the uniform predicates (UP0-UP6); RZ, URZ, PT and UPT hold
constants and are none. The destinations are an optional predicate (SHFL, ATOMG), one register, then the predicates
it also writes, such as the carry out of ``IADD3 R4, P0, ...`` or ``LEA R2, P1, ...`` (read back by ``IADD3.X`` and
``LEA.HI.X``); a comparison (``ISETP``, ``FSETP``, ``PLOP3``, ...) writes its first two predicates; stores,
branches and barriers write nothing. A register operand spans consecutive registers where the instruction works on
wider values (``register_span``): a ``.64``/``.128`` operand or opcode modifier, the 64-bit addend and result of
``IMAD.WIDE``, 64-bit floating point, the fragments of a matrix instruction.

Which instructions a scoreboard stall can wait on (``latency_class``) follows Nsight Compute's stall reasons: a long
scoreboard stall waits on an L1TEX operation (global, local, surface or texture memory), a short scoreboard one on an
MIO operation (shared memory, special functions, special registers, shuffles, constants loaded by ``LDC``); every
other instruction has a fixed latency, handled by the stall counts the compiler encodes, never by a scoreboard.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from roofline.ncu.metrics import mma_shape

LONG_SCOREBOARD, SHORT_SCOREBOARD = "long_scoreboard", "short_scoreboard"

# A register operand: general or uniform register, predicate or uniform predicate, or the predicate register as a
# whole (P2R, R2P); with an optional width suffix
_REGISTER = re.compile(r"(?<![A-Za-z0-9_])(U?R\d+|U?P[0-6]|PR)(?:\.(64|128))?(?![A-Za-z0-9_])")
_WIDTHS = {"64": 2, "128": 4}
_PREDICATE = re.compile(r"U?P[0-6T]")  # a predicate operand as a destination: not negated
_REGISTER_OPERAND = re.compile(r"[-|~]*U?R(\d+|Z)(\.\w+)*\|?")  # a register operand, outside any memory reference
_MEMORY = re.compile(r"(g?desc)?\[([^\]]*)\]")  # a memory reference or descriptor: its registers are addresses
# Opcodes (before their first '.') that write no general or predicate register
NO_DESTINATION = frozenset({"ST", "STG", "STS", "STL", "STAS", "STSM", "RED", "REDG", "SUST", "SURED", "BRA", "BRX",
                            "JMP", "JMX", "CALL", "RET", "EXIT", "BAR", "BSYNC", "BSSY", "WARPSYNC", "NOP", "MEMBAR",
                            "ERRBAR", "CCTL", "DEPBAR", "YIELD", "BPT", "KILL", "UTMASTG", "UTMALDG", "UBLKCP", "STTM",
                            "NANOSLEEP", "FENCE", "LDGDEPBAR", "LDGSTS"})
COMPARISONS = frozenset({"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP", "UISETP", "UPSETP", "PLOP3", "UPLOP3", "FCHK"})
# Opcodes (before their first '.') whose hexadecimal operands are code addresses: branches, calls (a kernel's own
# subroutines follow its body) and the convergence points they set ("BRA 0x7f0e068e7aa0", "BSSY B0, 0x7f..."); any
# other opcode's operands are immediates
BRANCHES = frozenset({"BRA", "BRX", "JMP", "JMX", "CALL", "CAL", "JCAL", "BSSY", "SSY", "PBK", "PCNT"})
_ADDRESS = re.compile(r"(?<![\w.+-])0x([0-9a-fA-F]+)\b")  # an unsigned hexadecimal operand
# Variable-latency instructions by the stall their consumers show, by opcode before its first '.' (the opcodes as
# NVIDIA's CUDA Binary Utilities document lists them). Most instructions have a fixed latency that the compiler covers
# with stall counts; memory and shared-resource ones a variable latency that it tracks with dependency barriers
# (scoreboards), which a consumer waits on (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
# Microbenchmarking", arXiv:1804.06826, section 2; the Turing sequel, arXiv:1903.07486). Nsight Compute's Profiling
# Guide splits those waits: a long scoreboard one waits on an L1TEX operation (global, local, generic, surface and
# texture memory, the asynchronous global-to-shared copy, the mbarrier try-wait), a short scoreboard one on an MIO
# operation (shared memory, the indexed constant load, special functions and registers, shuffles, warp-wide
# reductions, the division check, conversions, FP64 where the GPU has few FP64 units, the matrix instructions of
# consumer GPUs). The shared reports agree: consumers whose registers only LDC, I2F, F2I, FCHK, DMUL (RTX 4070 Ti),
# HMMA (A40) or R2UR last wrote show short scoreboard stalls, and of SYNCS (H100) long ones.
LONG_LATENCY = frozenset({"LD", "LDG", "LDL", "ST", "STG", "STL", "ATOM", "ATOMG", "RED", "REDG", "LDGSTS", "TEX",
                          "TLD", "TLD4", "TMML", "TXD", "TXQ", "SULD", "SUST", "SUATOM", "SURED", "SYNCS"})
SHORT_LATENCY = frozenset({"LDS", "STS", "LDSM", "STSM", "ATOMS", "LDC", "MUFU", "S2R", "S2UR", "SHFL", "MATCH",
                           "REDUX", "FCHK", "I2F", "F2I", "F2F", "I2I", "FRND", "POPC", "FLO", "BREV", "DADD", "DMUL",
                           "DFMA", "DSETP", "DMNMX", "R2UR", "HMMA", "IMMA", "DMMA", "BMMA"})
MAX_CANDIDATES = 3  # variable-latency instructions named where a scoreboard stall's registers name no such writer
_UNCONDITIONAL = frozenset({"BRA", "JMP", "BRX", "JMX", "RET", "EXIT"})  # no instruction before them falls through


class Found(NamedTuple):
    """What a waiting instruction waits on (``producer``): the instruction at ``at`` and the registers it holds
    the wait on; ``in_flight`` where the registers read name no variable-latency writer and ``candidates`` are the
    variable-latency instructions that may still be in flight, nearest first (``at`` the first)."""

    at: int
    registers: tuple[str, ...]
    in_flight: bool = False
    candidates: tuple[tuple[int, tuple[str, ...]], ...] = ()


def opcode(sass: str) -> str:
    """The opcode with its modifiers, the guard left out: "@!P0 LDG.E R2, [R4.64]" -> "LDG.E"."""
    return next((word for word in sass.split() if not word.startswith("@")), "")


def latency_class(sass: str) -> str | None:
    """The scoreboard stall an instruction's consumers wait on (``LONG_SCOREBOARD``, ``SHORT_SCOREBOARD``); None for
    a fixed-latency instruction."""
    base = opcode(sass).split(".")[0]
    return LONG_SCOREBOARD if base in LONG_LATENCY else SHORT_SCOREBOARD if base in SHORT_LATENCY else None


def with_offsets(sass: str, function_pc: int | None, next_pc: int | None = None) -> str:
    """A branch's or call's targets in its function as offsets from the function's start, as the hot spots name
    instructions ("BRA 0x7f0e068e7aa0" at function 0x7f0e068e2e00 -> "BRA +0x4ca0"); anything else unchanged (an
    immediate, a signed operand, an address before the function or from ``next_pc``, the next function's start, on,
    or no known start)."""
    if function_pc is None or opcode(sass).split(".")[0] not in BRANCHES:
        return sass

    def offset(match: re.Match[str]) -> str:
        address = int(match.group(1), 16)
        inside = function_pc <= address and (next_pc is None or address < next_pc)
        return f"+0x{address - function_pc:x}" if inside else match.group()

    return _ADDRESS.sub(offset, sass)


def registers(text: str, width: int = 1, mask: int = 0x7F) -> tuple[str, ...]:
    """The registers an operand names, ``width`` consecutive ones from each register outside a memory reference
    ("R8" at width 2 -> R8, R9), a ``.64``/``.128`` suffix anywhere ("[R8.64]" -> R8, R9) and a descriptor's
    64 bits ("desc[UR8]" -> UR8, UR9) expanded; ``PR`` as the predicates of ``mask``; RZ, URZ, PT and UPT are none."""
    found: list[str] = []
    spans = [(m.start(), m.end(), 2 if m.group(1) == "desc" else 4 if m.group(1) else 1)
             for m in _MEMORY.finditer(text)]
    for match in _REGISTER.finditer(text):
        name, wide = match.group(1), match.group(2)
        in_memory = next((n for start, end, n in spans if start <= match.start() < end), None)
        if name == "PR":
            found += [f"P{i}" for i in range(7) if mask >> i & 1]
        elif "P" in name:
            found.append(name)
        else:
            prefix, number = name.rstrip("0123456789"), int(name.lstrip("UR"))
            span = _WIDTHS[wide] if wide else in_memory if in_memory is not None else width
            found += [f"{prefix}{number + i}" for i in range(span)]
    return tuple(found)


def split(sass: str) -> tuple[str, str, list[str]]:
    """An instruction's guard ("" for none), opcode with modifiers and operands."""
    text = sass.strip().rstrip(";").strip()
    guard = text.split(None, 1)[0] if text.startswith("@") else ""
    rest = text[len(guard):].strip().split(None, 1)
    if not rest:
        return guard, "", []
    operands = [part.strip() for part in rest[1].split(",")] if len(rest) > 1 else []
    return guard, rest[0], [part for part in operands if part]


def destinations(op: str, operands: Sequence[str]) -> int:
    """How many of the leading operands an instruction writes (``split``'s operands)."""
    base = op.split(".")[0]
    if base in NO_DESTINATION or not operands:
        return 0
    if base == "R2P":
        return 1  # the predicate register as a whole
    if base in ("VOTE", "VOTEU"):
        return len(operands) - 1  # the vote's source is its last operand
    n = 0
    while n < len(operands) and _PREDICATE.fullmatch(operands[n]) and (base not in COMPARISONS or n < 2):
        n += 1
    if base in COMPARISONS or n == len(operands) or not _REGISTER_OPERAND.fullmatch(operands[n]):
        return n
    n += 1
    while n < len(operands) and _PREDICATE.fullmatch(operands[n]):
        n += 1  # a carry out
    return n


def register_span(op: str, operands: Sequence[str], index: int, written: int) -> int:
    """How many consecutive registers the register operand at ``index`` spans (``written`` operands are
    destinations): 2 or 4 for a ``.64``/``.128`` memory access or 64-bit integer operation, the 64-bit result and
    addend of ``IMAD.WIDE`` and of ``CS2R``, 64-bit floating point and conversions to or from 64-bit types, the
    fragments of ``HMMA``/``IMMA``/``DMMA``/``HGMMA`` (``_fragment``), the matrices of ``LDSM``/``STSM``; else 1."""
    base, modifiers = op.split(".")[0], op.split(".")[1:]
    if base in ("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA"):
        return _fragment(base, modifiers, operands, index)
    if base in ("LDSM", "STSM") and modifiers and modifiers[-1] in ("2", "4"):
        return int(modifiers[-1])
    if base in ("DADD", "DMUL", "DFMA", "DMNMX", "DSETP"):
        return 2
    if base in ("F2F", "F2I", "I2F", "I2I", "FRND"):
        return _conversion(base, modifiers, index < written)
    wide = max((_WIDTHS[m] for m in modifiers if m in _WIDTHS), default=1)
    if "WIDE" in modifiers:
        return 2 if index < written or index == written + 2 else 1
    if base in ("CS2R", "LEPC") and "32" not in modifiers:
        return 2
    return wide


_TYPE_BITS = {"F16": 16, "BF16": 16, "TF32": 32, "F32": 32, "F64": 64, "E4M3": 8, "E5M2": 8, "S8": 8, "U8": 8,
              "S4": 4, "U4": 4, "B1": 1, "S32": 32}


def _conversion(base: str, modifiers: Sequence[str], destination: bool) -> int:
    """The span of a conversion's result or source: 2 where its type is 64-bit. The first type named is the
    result's, the second the source's (F2F, I2I, FRND: one type is both); I2F's integer type is its source's, F2I's
    its result's."""
    types = [m for m in modifiers if re.fullmatch(r"[FSU](8|16|32|64)|BF16", m)]
    if base in ("I2F", "F2I"):
        integer = [t for t in types if t[0] in "SU"]
        floating = [t for t in types if t[0] not in "SU"]
        ours = (integer if destination else floating) if base == "F2I" else (floating if destination else integer)
    else:
        ours = types[:1] if destination or len(types) == 1 else types[1:2]
    return 2 if any(t.endswith("64") for t in ours) else 1


def _fragment(base: str, modifiers: Sequence[str], operands: Sequence[str], index: int) -> int:
    """Registers per thread of a matrix instruction's operand (D, A, B, C in that order; HGMMA: D, A, C with B in
    shared memory): m x k x bits of A over the 32 threads of a warp (128 of a warpgroup for HGMMA), and so on, each
    32-bit register holding 32 bits (the PTX ISA's fragment layouts for mma and wgmma); Volta's HMMA.884 is per
    group of 8 threads."""
    shape = modifiers[0] if modifiers else ""
    types = [m for m in modifiers[1:] if m in _TYPE_BITS]
    sized = mma_shape(shape)
    if base == "HGMMA":
        m, n, k = sized if sized is not None and "x" in shape else (64, 8, 16)
        c_bits = _TYPE_BITS.get(types[0], 32) if types else 32
        ab_bits = _TYPE_BITS.get(types[1], 16) if len(types) > 1 else 16
        last = max((i for i, o in enumerate(operands) if _REGISTER_OPERAND.fullmatch(o)), default=0)
        sizes = {0: m * n * c_bits, last: m * n * c_bits}
        return max(1, sizes.get(index, m * k * ab_bits) // (128 * 32))
    if sized is None or "x" in shape:
        return 1
    m, n, k = sized
    if base in ("HMMA", "BMMA"):
        c_bits = _TYPE_BITS.get(types[0], 16) if types else 16
        ab_bits = _TYPE_BITS.get(types[1], 16) if len(types) > 1 else 1 if base == "BMMA" else 16
    elif base == "IMMA":
        c_bits, ab_bits = 32, _TYPE_BITS.get(types[0], 8) if types else 8
    else:
        c_bits = ab_bits = 64
    if base == "HMMA" and shape == "884":
        return 2 if index in (1, 2) else c_bits // 4
    bits = (m * n * c_bits, m * k * ab_bits, k * n * ab_bits, m * n * c_bits)[index] if index < 4 else 32
    return max(1, bits // (32 * 32))


@functools.lru_cache(maxsize=65536)
def reads_writes(sass: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(registers read, registers written) of one instruction."""
    guard, op, operands = split(sass)
    written = destinations(op, operands)
    mask = int(operands[-1], 16) if op.split(".")[0] in ("P2R", "R2P") and operands[-1].startswith("0x") else 0x7F
    read: list[str] = list(registers(guard))
    wrote: list[str] = []
    for i, operand in enumerate(operands):
        span = register_span(op, operands, i, written) if _REGISTER_OPERAND.fullmatch(operand) else 1
        (wrote if i < written else read).extend(registers(operand, span, mask))
    return tuple(dict.fromkeys(read)), tuple(dict.fromkeys(wrote))


def producer(waiting: str, before: Callable[[], Iterator[tuple[int, str]]], stall: str) -> Found | None:
    """What a waiting instruction (its text ``waiting``) waits on, from the instructions before it, nearest first
    (``before`` yields (address, text)), among the last writers of the registers it reads: for a fixed-latency stall
    ("wait") the nearest fixed-latency one; for a scoreboard stall the nearest variable-latency one of that stall's
    class (``latency_class``). A scoreboard stall is never pinned on a fixed-latency instruction: where no writer of
    its class is found, the wait is on one still in flight and the candidates are named (``in_flight``), else on a
    writer of the other class; None where nothing is found."""
    read, written = reads_writes(waiting)
    scoreboard = stall in (LONG_SCOREBOARD, SHORT_SCOREBOARD)
    unresolved = set(read)
    other: Found | None = None
    for at, text in before():
        hit = tuple(r for r in reads_writes(text)[1] if r in unresolved)
        if not hit:
            continue
        unresolved -= set(hit)  # an earlier write of the same register is overwritten by this one
        kind = latency_class(text)
        if kind == (stall if scoreboard else None):
            return Found(at, hit)
        other = other or (Found(at, hit) if scoreboard and kind is not None else None)
        if not unresolved:
            break
    return (_in_flight(before(), stall, set(written)) or other) if scoreboard else None


def _in_flight(walked: Iterator[tuple[int, str]], stall: str, written: set[str]) -> Found | None:
    """The variable-latency instructions of a scoreboard stall's class before the waiting instruction (``walked``,
    nearest first) whose scoreboard may still be pending: no instruction between them and the waiting one reads what
    they write or overwrites what they read or write; those whose registers the waiting one reads or writes first,
    then nearest first, up to ``MAX_CANDIDATES``; none past an unconditional branch or exit."""
    between_read: set[str] = set()
    between_written: set[str] = set()
    found: list[tuple[int, tuple[str, ...]]] = []
    for at, text in walked:
        guard, op, _ = split(text)
        if op.split(".")[0] in _UNCONDITIONAL and not guard:
            break
        reads, writes = reads_writes(text)
        awaited = set(writes) & (between_read | between_written) if writes else set(reads) & between_written
        if latency_class(text) == stall and not awaited:
            shared = tuple(r for r in (*writes, *reads) if r in written)
            found.append((at, tuple(dict.fromkeys(shared))))
        between_read |= set(reads)
        between_written |= set(writes)
    ranked = sorted(found, key=lambda c: not c[1])[:MAX_CANDIDATES]  # stable: nearest first within each group
    return Found(ranked[0][0], ranked[0][1], True, tuple(ranked)) if ranked else None
