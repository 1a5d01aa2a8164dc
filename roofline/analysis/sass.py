"""SASS def-use within a function (pure): which registers an instruction reads and writes, and the nearest
instruction before a waiting one that writes a register it reads, its producer; and a branch's or call's targets as
offsets in its function, as the hot spots name instructions.

SASS text as ncu_report gives it: an optional guard predicate, the opcode with its modifiers, then the operands,
the destination first ("@!P1 LDG.E.CONSTANT R18, desc[UR8][R8.64]"). Stores, branches and barriers write no
register: all their operands are read. A ``.64`` or ``.128`` register operand, or a ``.64``/``.128`` opcode
modifier on the destination, spans 2 or 4 consecutive registers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

_REGISTER = re.compile(r"(?<![A-Za-z0-9_])(R\d+|P[0-6])(?:\.(64|128))?")
_WIDTHS = {"64": 2, "128": 4}
# Opcodes (before their first '.') that write no general or predicate register
NO_DESTINATION = frozenset({"ST", "STG", "STS", "STL", "STSM", "RED", "REDG", "BRA", "BRX", "JMP", "JMX", "CALL", "RET",
                            "EXIT", "BAR", "BSYNC", "BSSY", "WARPSYNC", "NOP", "MEMBAR", "ERRBAR", "CCTL", "DEPBAR",
                            "YIELD", "BPT", "KILL", "SYNCS", "UTMASTG", "UBLKCP", "STTM"})
# Opcodes (before their first '.') whose hexadecimal operands are code addresses: branches, calls (a kernel's own
# subroutines follow its body) and the convergence points they set ("BRA 0x7f0e068e7aa0", "BSSY B0, 0x7f..."); any
# other opcode's operands are immediates
BRANCHES = frozenset({"BRA", "BRX", "JMP", "JMX", "CALL", "CAL", "JCAL", "BSSY", "SSY", "PBK", "PCNT"})
_ADDRESS = re.compile(r"(?<![\w.+-])0x([0-9a-fA-F]+)\b")  # an unsigned hexadecimal operand
# Variable-latency producers (the scoreboard stalls wait on them): memory, texture, special functions, shuffles
VARIABLE_LATENCY = ("LD", "ATOM", "TEX", "TLD", "TXQ", "SULD", "SUATOM", "MUFU", "SHFL", "S2R", "MATCH", "REDUX",
                    "LDSM", "LDGSTS", "I2F", "F2I", "F2F", "I2I", "POPC", "FLO", "BREV", "DMUL", "DFMA", "DADD")


def opcode(sass: str) -> str:
    """The opcode with its modifiers, the guard left out: "@!P0 LDG.E R2, [R4.64]" -> "LDG.E"."""
    return next((word for word in sass.split() if not word.startswith("@")), "")


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


def registers(text: str, width: int = 1) -> tuple[str, ...]:
    """The registers an operand list names, wide ones expanded ("R8.64" -> R8, R9); RZ and PT are none."""
    found: list[str] = []
    for name, wide in _REGISTER.findall(text):
        span = _WIDTHS.get(wide, width) if name.startswith("R") else 1
        found += [f"R{int(name[1:]) + i}" for i in range(span)] if name.startswith("R") else [name]
    return tuple(found)


def reads_writes(sass: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(registers read, registers written) of one instruction."""
    words = sass.strip().rstrip(";").split(None, 1)
    guard = words[0] if words and words[0].startswith("@") else ""
    rest = sass.strip().rstrip(";")[len(guard):].strip().split(None, 1)
    if not rest:
        return registers(guard), ()
    op, operands = rest[0], rest[1] if len(rest) > 1 else ""
    parts = [p.strip() for p in operands.split(",")]
    if op.split(".")[0] in NO_DESTINATION or not parts or not parts[0]:
        return registers(guard + " " + operands), ()
    width = max((_WIDTHS[m] for m in op.split(".")[1:] if m in _WIDTHS), default=1)
    dest = parts[0] if not parts[0].startswith("[") else ""
    return registers(" ".join([guard, *parts[1:]] if dest else [guard, *parts])), registers(dest, width)


def producer(waiting: str, before: Callable[[], Iterator[tuple[int, str]]],
             variable_latency: bool) -> tuple[int, tuple[str, ...]] | None:
    """The producer of a waiting instruction (its text ``waiting``): from the instructions before it, nearest first
    (``before`` yields (address, text)), the nearest that writes a register it reads; where ``variable_latency``
    (a scoreboard stall), the nearest variable-latency one among those writers when there is one. (address,
    awaited registers it writes), or None."""
    read = set(reads_writes(waiting)[0])
    nearest: tuple[int, tuple[str, ...]] | None = None
    for at, text in before():
        if not read:
            break
        written = [r for r in reads_writes(text)[1] if r in read]
        if not written:
            continue
        found = (at, tuple(written))
        if not variable_latency or opcode(text).split(".")[0].startswith(VARIABLE_LATENCY):
            return found
        nearest = nearest or found
        read -= set(written)  # an earlier write of the same register is overwritten by this one
    return nearest
