"""Where in the code a launch's warps were (pure): its instructions by warp samples, and the source lines they
aggregate to, from the per-PC counters of the SourceCounters section (``core.model.PcSampling``).

A sample is one warp caught at one instruction at a fixed interval, so an instruction's share of the samples is its
share of the warps' time; its stall reasons say what those warps waited on. The lines say which source the time is
spent in where the binary was compiled with line information (-lineinfo). ``responsible`` names the lines (or
instructions) that hold most of one stall reason's samples or of one memory counter, for the advice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from msgspec.structs import replace

from roofline.analysis import sass as sass_text
from roofline.analysis.diagnostics.stalls import NOT_STALLED
from roofline.analysis.results import HotLine, HotRow, Hotspots, LineShift, Producer, ProducerKind
from roofline.core.files import base_name
from roofline.core.model import KernelLaunch, PcCounters, PcSampling
from roofline.core.thresholds import HOT_MIN_SHIFT_PTS, HOT_NAMED_MOST, HOT_NAMED_SHARE, THIN_SAMPLES
from roofline.core.units import runs
from roofline.ncu import metrics as m

SHOWN = 5  # rows of hot spots the terminal, Markdown and HTML show per kernel
CONTEXT = 2  # source lines shown either side of a hot line (the model keeps ``ncu.extract.SOURCE_CONTEXT``)
# The advice topics a hot spot can locate (``analysis.ncu_rules``): the per-PC counter that measures each cause
WHERE_COUNTED = {"coalescing": (m.PC_GLOBAL_EXCESS, "excessive L2 sectors of global accesses"),
                 "shared_access": (m.PC_SHARED_EXCESS, "excessive shared-memory wavefronts"),
                 "divergence": ((m.PC_DIVERGENT,), "divergent branch targets")}


def hotspots(launch: KernelLaunch) -> Hotspots | None:
    """The launch's sampled instructions and source lines, most samples first; None without per-PC samples."""
    sampling = launch.pc_sampling
    if sampling is None:
        return None
    total = sampling.total_samples
    sampled = sorted((pc for pc in sampling.pcs if pc.samples > 0), key=lambda pc: -pc.samples)
    unplaced = any(pc.file is None for pc in sampling.pcs)
    h = Hotspots(total, tuple((pc, pc.samples / total if total else 0.0) for pc in sampled),
                 _lines(sampling.pcs, total),
                 m.HINT_LINEINFO if unplaced else "", sampling.sass_missing, sampling.source_text,
                 sampling.pcs, sampling.functions, launch.name, producers(sampling))
    labels = {pc.function_pc: function_label(h, pc) for pc in sampling.pcs if pc.function_pc is not None}
    ties = {(pc.function_pc, pc.pc_offset): tied_stalls(pc.stalls) for pc in sampling.pcs}
    return replace(h, function_labels=labels, top_stalls=ties)


def producers(sampling: PcSampling) -> dict[int, Producer]:
    """For each instruction whose warps waited on a dependency (``metrics.DEPENDENCY_STALLS``), the instruction of
    its function that produced the register it waits on (``analysis.sass.producer``), keyed by its PC; for a
    scoreboard stall whose registers name no variable-latency writer, the instructions that may still be in flight
    (``Producer.kind`` "in_flight", the nearest first, all of them in ``candidates``)."""
    known = {pc.pc: (pc.sass or "", pc.file, pc.line) for pc in sampling.pcs if pc.pc is not None}
    text = {**sampling.preceding, **known}
    found: dict[int, Producer] = {}
    for pc in sampling.pcs:
        waits = {r: pc.stalls.get(r, 0) for r in m.DEPENDENCY_STALLS if pc.stalls.get(r, 0) > 0}
        if not waits or pc.pc is None or pc.function_pc is None or not pc.sass:
            continue
        stall = max(waits, key=lambda r: waits[r])
        hit = sass_text.producer(pc.sass, _before(text, pc.pc, pc.function_pc), stall)
        if hit is None:
            continue
        if not hit.in_flight:
            found[pc.pc] = _producer(text, hit.at, hit.registers, stall, pc.function_pc)
            continue
        candidates = tuple(_producer(text, at, regs, stall, pc.function_pc, "in_flight") for at, regs in hit.candidates)
        found[pc.pc] = replace(candidates[0], candidates=candidates)
    return found


def _producer(text: Mapping[int, tuple[str, str | None, int | None]], at: int, registers: tuple[str, ...], stall: str,
              function_pc: int, kind: ProducerKind = "writer") -> Producer:
    """The instruction at ``at`` as a producer of a waiting instruction of the function at ``function_pc``."""
    source, file, line = text[at]
    return Producer(at, at - function_pc, source, registers, stall, file, line, kind)


def _before(text: Mapping[int, tuple[str, str | None, int | None]], pc: int,
            start: int) -> Callable[[], Iterator[tuple[int, str]]]:
    """The instructions before ``pc`` in its function (from ``start``), nearest first, while their text is known."""
    def walk() -> Iterator[tuple[int, str]]:
        for at in range(pc - m.SASS_INSTRUCTION_BYTES, start - 1, -m.SASS_INSTRUCTION_BYTES):
            if at not in text or not text[at][0]:
                return
            yield at, text[at][0]
    return walk


def function_label(h: Hotspots, pc: PcCounters) -> str:
    """The function an instruction belongs to: the kernel's name where the launch ran one function, else its
    place among the launch's functions and its start address ("function 2 of 3 at 0x7f3b377a0000")."""
    if len(h.functions) <= 1 or pc.function_pc is None:
        return h.kernel_name
    index = h.functions.index(pc.function_pc) + 1 if pc.function_pc in h.functions else 0
    return f"function {index} of {len(h.functions)} at 0x{pc.function_pc:x}"


def instruction_where(h: Hotspots, pc: PcCounters) -> str:
    """An instruction as the reports name it: its offset, with its function where the launch ran several."""
    offset = f"+0x{pc.pc_offset:x}"
    return f"{function_label(h, pc)} {offset}" if len(h.functions) > 1 and pc.function_pc is not None else offset


def _lines(pcs: Sequence[PcCounters], total: int) -> tuple[HotLine, ...]:
    """The instructions grouped by source line, lines with the most samples first (those without samples last)."""
    by_line: dict[tuple[str, int], list[PcCounters]] = {}
    for pc in pcs:
        if pc.file is not None and pc.line is not None:
            by_line.setdefault((pc.file, pc.line), []).append(pc)
    lines = []
    for (file, line), members in by_line.items():
        stalls: dict[str, int] = {}
        for pc in members:
            for reason, n in pc.stalls.items():
                stalls[reason] = stalls.get(reason, 0) + n
        samples = sum(pc.samples for pc in members)
        lines.append(HotLine(file, line, samples, samples / total if total else 0.0, stalls, _top_stall(stalls),
                             tuple(sorted(members, key=lambda pc: -pc.samples)), tied_stalls(stalls)))
    return tuple(sorted(lines, key=lambda h: (-h.samples, h.file, h.line)))


def responsible(h: Hotspots, count: Callable[[PcCounters], float], what: str) -> str:
    """Which lines hold most of a count over the launch's instructions (a stall reason's samples, a memory
    counter), as "smemTranspose.cu lines 65, 67 hold 72% of the long_scoreboard samples"; instructions where the
    binary has no line information, or where the count falls only on instructions without one; "" where nothing
    counts."""
    total = sum(count(pc) for pc in h.all_pcs)
    if not total > 0:
        return ""
    groups = [(line.file, line.line, sum(count(pc) for pc in line.pcs)) for line in h.lines]
    named = _most(groups, total)
    if named:
        files = {file for file, _, _ in named}
        share = sum(n for _, _, n in named) / total
        numbers = _ranges(sorted(line for _, line, _ in named))
        where = (f"{base_name(next(iter(files)))} line{'s' if len(named) > 1 else ''} {numbers}" if len(files) == 1
                 else ", ".join(f"{base_name(file)}:{line}" for file, line, _ in named))
    else:
        instructions = [(pc.sass or "", pc.pc_offset, count(pc)) for pc in h.all_pcs]
        named = _most(instructions, total)
        share = sum(n for _, _, n in named) / total
        where = ", ".join(f"+0x{offset:x}" + (f" ({_opcode(sass)})" if sass else "") for sass, offset, _ in named)
        where = f"the instruction{'s' if len(named) > 1 else ''} at {where}"
    thin = f" (rests on {total:,.0f} samples)" if what.endswith("samples") and total < THIN_SAMPLES else ""
    return f"{where} hold{'s' if len(named) == 1 else ''} {share:.0%} of the {what}{thin}"


def _opcode(sass: str) -> str:
    """An instruction's opcode, its guard predicate left out: "@!P0 BRA 0x7f50" -> "BRA"."""
    return next((word for word in sass.split() if not word.startswith("@")), sass)


def _ranges(numbers: Sequence[int]) -> str:
    """Sorted line numbers with runs of consecutive ones joined: "88-91, 95"."""
    return ", ".join(f"{first}-{last}" if last > first else str(first) for first, last in runs(numbers))


def _most(groups: Sequence[tuple[str, int, float]], total: float) -> list[tuple[str, int, float]]:
    """The groups with the largest counts, until they hold ``HOT_NAMED_SHARE`` of ``total`` or ``HOT_NAMED_MOST`` are
    named."""
    named: list[tuple[str, int, float]] = []
    for group in sorted(groups, key=lambda g: -g[2]):
        if group[2] <= 0 or len(named) == HOT_NAMED_MOST or sum(n for _, _, n in named) >= HOT_NAMED_SHARE * total:
            break
        named.append(group)
    return named


def top_rows(h: Hotspots, n: int = SHOWN) -> tuple[HotRow, ...]:
    """The ``n`` source lines with the most samples, or instructions where the binary has no line information."""
    if h.lines:
        return tuple(HotRow(f"{base_name(line.file)}:{line.line}", line.share, line.samples, line.top_stall,
                            _shown_sass(h, line.pcs[0]), line.file, line.line, line.tied_stalls,
                            _producer_of(h, line.pcs), "") for line in h.lines[:n] if line.samples > 0)
    return tuple(HotRow(instruction_where(h, pc), share, pc.samples, _top_stall(pc.stalls), _shown_sass(h, pc),
                        tied_stalls=tied_stalls(pc.stalls), producer=_producer_of(h, (pc,)),
                        function=function_label(h, pc) if len(h.functions) > 1 else "")
                 for pc, share in h.pcs[:n])


def _shown_sass(h: Hotspots, pc: PcCounters) -> str | None:
    """An instruction's SASS as a hot-spot row shows it: its branch and call targets in its function (before the
    launch's next function) as offsets, as the rows name instructions (``analysis.sass.with_offsets``)."""
    after = [start for start in h.functions if pc.function_pc is not None and start > pc.function_pc]
    return None if pc.sass is None else sass_text.with_offsets(pc.sass, pc.function_pc, min(after, default=None))


def _producer_of(h: Hotspots, pcs: Sequence[PcCounters]) -> Producer | None:
    """Where the top stall of ``pcs`` (an instruction, or a line's) is a dependency: the producer that the
    instruction with the most samples of that stall waits on; None otherwise."""
    stalls: dict[str, int] = {}
    for pc in pcs:
        for reason, n in pc.stalls.items():
            stalls[reason] = stalls.get(reason, 0) + n
    top = _top_stall(stalls)
    if top not in m.DEPENDENCY_STALLS:
        return None
    waiting = max(pcs, key=lambda pc: pc.stalls.get(top or "", 0))
    found = h.producers.get(waiting.pc) if waiting.pc is not None else None
    return found if found is not None and found.stall == top else None


def _top_stall(stalls: Mapping[str, int]) -> str | None:
    """The stall reason with the most samples, a warp issuing (``NOT_STALLED``) left out; of tied ones the first
    by name (``tied_stalls`` lists them all)."""
    tied = tied_stalls(stalls)
    return tied[0] if tied else None


def tied_stalls(stalls: Mapping[str, int]) -> tuple[str, ...]:
    """The stall reasons that share the most samples (a warp issuing left out), by name; () where none waited."""
    waits = {r: n for r, n in stalls.items() if r not in NOT_STALLED and n > 0}
    if not waits:
        return ()
    most = max(waits.values())
    return tuple(sorted(r for r, n in waits.items() if n == most))


def context(h: Hotspots, row: HotRow, around: int = CONTEXT) -> tuple[tuple[int, str], ...]:
    """The report's source text of a hot line and ``around`` lines either side, as (number, text); none where the
    report holds no source for it (ncu's --import-source)."""
    text = h.source_text.get(row.file or "", {})
    if row.line is None or row.line not in text:
        return ()
    return tuple((n, text[n]) for n in range(row.line - around, row.line + around + 1) if n in text)


def locate(h: Hotspots | None, topic: str) -> str:
    """Where an advice item's cause sits in the code (``responsible``): a stall reason's samples for "stall:<reason>",
    the per-PC memory or branch counter of a memory-pattern topic; "" where the launch has no such counts."""
    if h is None or not h.total_samples:
        return ""
    if topic.startswith("stall:"):
        reason = topic.removeprefix("stall:")
        return responsible(h, lambda pc: pc.stalls.get(reason, 0), f"{reason} samples")
    counted = WHERE_COUNTED.get(topic.split(":")[0])
    if counted is None:
        return ""
    names, what = counted
    return responsible(h, lambda pc: sum(pc.memory.get(name, 0.0) for name in names), what)


def without_lines(launches: Sequence[KernelLaunch]) -> list[str]:
    """The kernels (function names, once each) whose warp samples fall on instructions without a source line."""
    names = [launch.name for launch in launches if not launch.invalid and (s := launch.pc_sampling) is not None
             and s.total_samples
             and not any(pc.file is not None and pc.line is not None for pc in s.pcs)]
    return list(dict.fromkeys(names))


def line_samples(launches: Sequence[KernelLaunch]) -> dict[str, int]:
    """A kernel's warp samples per source line ("file.cu:88", the file without its folders) over its launches; empty
    where they hold no samples on a line (no SourceCounters, or no line information)."""
    pooled: dict[str, int] = {}
    for launch in launches:
        for pc in launch.pc_sampling.pcs if launch.pc_sampling is not None else ():
            if pc.samples and pc.file is not None:
                where = f"{base_name(pc.file)}:{pc.line}"
                pooled[where] = pooled.get(where, 0) + pc.samples
    return pooled


def _shift(where: str, base_share: float, new_share: float) -> LineShift:
    return LineShift(where, base_share, new_share, 100.0 * (new_share - base_share))


def line_shifts(base: Mapping[str, int], new: Mapping[str, int], n: int = SHOWN) -> tuple[LineShift, ...] | None:
    """The ``n`` lines whose share of a kernel's warp samples changed most between two reports (shares of each
    side's samples on lines), largest change first, those that moved by ``HOT_MIN_SHIFT_PTS`` or more; None unless both
    sides have samples on lines."""
    base_total, new_total = sum(base.values()), sum(new.values())
    if not base_total or not new_total:
        return None
    shifts = [_shift(where, base.get(where, 0) / base_total, new.get(where, 0) / new_total)
              for where in dict.fromkeys([*base, *new])]
    moved = [shift for shift in shifts if abs(shift.change_pts) >= HOT_MIN_SHIFT_PTS]
    return tuple(sorted(moved, key=lambda s: -abs(s.change_pts))[:n])
