"""ncu's own rule results as advice items: what each rule is about (its topic, so that it merges with the tool's
own item on the same cause), how it would save time (its mechanism, which bounds its estimate in
``analysis.reconcile``) and, for a rule that removes work, the share of the work its message says it removes.

ncu's estimates are upper bounds under ncu's own assumptions: a GLOBAL estimate is a share of the kernel's time
and becomes time here (before the bound); a LOCAL one is the gain of one unit's efficiency in isolation, kept as
ncu's percent. Rule names, titles and message forms were read from every report in shared/ncu-reps (ncu 2020.3
to 2025.2; tests/analysis/test_ncu_rules.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from enum import Enum
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.diagnostics.occupancy import WARP_SIZE
from roofline.analysis.results import Advice, LaunchAnalysis, Mechanism
from roofline.core.model import RuleResult
from roofline.core.thresholds import FULL_WAVE, MIN_SPEEDUP_PCT
from roofline.ncu import metrics as m
from roofline.ncu.metrics import BYTES_PER_SECTOR

SKIPPED_RULES = ("SOLBottleneck",)  # shown as the verdict itself
ADVICE_KINDS = ("optimization", "warning")
NOT_ADVICE = re.compile(r"metric \S+ could not be found|returned an error")  # the rule's own missing inputs
LOCAL = "ncu local"  # how a LOCAL estimate is shown


class AdviceCause(str, Enum):
    """The causes that own an advice item (``reconcile.cause``): the items of the tool and ncu's rules on one cause
    are one item citing every source. Topics with a part read from the report (a stall reason, an ncu rule of no
    known cause, a measurement problem) are their own cause."""

    ROOF = "roof"  # the verdict's own: the busiest unit's (or roof's) work
    SMALL_GRID = "grid:small"  # under one wave; with blocks under a warp, their idle lanes too
    TAIL = "grid:tail"
    BLOCK_SIZE = "block_size"  # blocks under one warp: their idle lanes (ncu's ThreadDivergence) too
    ISSUE = "issue"
    ISSUE_BOUND = "issue_bound"
    OCCUPANCY_THEORETICAL = "occupancy:theoretical"
    OCCUPANCY_ACHIEVED = "occupancy:achieved"
    COALESCING = "coalescing"  # one access pattern, measured at L1, L2 or DRAM
    LOCAL_MEMORY = "local_memory"  # per-thread data in local memory (register spills, arrays indexed at run time)
    SHARED_ACCESS = "shared_access"
    L2_COMPRESSION = "l2_compression"
    FP_FUSION = "fp_fusion"
    DIVERGENCE = "divergence"
    PRECISION_FP64 = "precision:fp64"
    PRECISION_TENSOR = "precision:tensor"
    TENSOR_CORES = "tensor_cores"
    LAUNCH_OVERHEAD = "launch_overhead"


ROOF = AdviceCause.ROOF.value  # the topic of the verdict's own item
OCCUPANCY = "occupancy:"  # the topics of occupancy changes
SMALL_GRID = AdviceCause.SMALL_GRID.value
SHAPE_TOPICS = ("block_size", "issue", "occupancy:theoretical", "occupancy:achieved")  # a small grid's point too
PEAK_BOUNDS = ("memory", "compute", "balanced")  # verdicts where a unit's peak, not latency, sets the time
ONE_INSTRUCTION = re.compile(r"\bat PC\b")  # a rule result about one instruction (ncu 2020.3's per-PC results)

# When an ncu rule fits the kernel: always; only where the tool's own analysis made an item of the same topic
# ("ours"); only for a compute- or a memory-bound verdict; for any verdict but compute-bound.
Fits = Literal["always", "ours", "compute", "memory", "not_compute"]
# The units (metric prefixes of the SpeedOfLight breakdowns) whose work a work-removing topic cuts: uncoalesced
# accesses the sectors of the level a rule measures them at (ncu's access-pattern rules name it: L1TEX, L2, DRAM;
# UncoalescedGlobalAccess counts L2 sectors) and of the levels below it, which the excess sectors may reach;
# bank conflicts the L1/shared wavefronts; compression DRAM and L2 traffic; fused FP instructions and divergent
# lanes the SM's pipes. ``reconcile`` bounds an item by the busiest unit's gap when the
# busiest unit is none of these: that unit's work, and so its time, stays.
COALESCING = AdviceCause.COALESCING.value  # the topics of one access pattern by the level measured: coalescing:l1
_L2_DOWN, _DRAM = ("lts", "ltc", "dram", "fbpa", "fbp"), ("dram", "fbpa", "fbp")
LOCAL_MEMORY = AdviceCause.LOCAL_MEMORY.value
WORK_UNITS = {"coalescing:l1": ("l1tex", *_L2_DOWN), LOCAL_MEMORY: ("l1tex", *_L2_DOWN), "coalescing:l2": _L2_DOWN,
              "coalescing:dram": _DRAM,
              "shared_access": ("l1tex",), "l2_compression": _L2_DOWN,
              "fp_fusion": ("sm", "smsp"), "divergence": ("sm", "smsp"),
              "imbalance:l1": ("l1tex",), "imbalance:l2": ("lts", "ltc"), "imbalance:dram": _DRAM}
# ncu's WorkloadImbalance over the slices of a memory level (its title: "L2 Slices Workload Imbalance") is about that
# level's units, not occupancy: evened out, the busiest slice's work drops to the average (no share stated).
_SLICE_LEVELS = (("l1", "l1"), ("l2", "l2"), ("dram", "dram"), ("fb", "dram"))


class Topic(Struct, frozen=True):
    """What an ncu rule is about and how acting on it saves time."""

    key: str
    mechanism: Mechanism
    fits: Fits = "always"


_BY_RULE = {
    "AchievedOccupancy": Topic("occupancy:achieved", "latency"),
    "TheoreticalOccupancy": Topic("occupancy:theoretical", "latency"),
    "IssueSlotUtilization": Topic("issue", "latency"),
    "ThreadDivergence": Topic("divergence", "work"),  # idle lanes: converged warps issue fewer instructions
    "WorkloadImbalance": Topic("occupancy:achieved", "latency"),  # one cause with ncu's AchievedOccupancy
    "UncoalescedGlobalAccess": Topic("coalescing:l2", "work", "not_compute"),
    "UncoalescedSharedAccess": Topic("shared_access", "work"),
    "SharedMemoryConflicts": Topic("shared_access", "work"),
    "FPInstructions": Topic("fp_fusion", "work", "compute"),  # pairs of FP instructions fused: compute-bound only
    "MemoryL2Compression": Topic("l2_compression", "work", "memory"),
    "SOLFPRoofline": Topic("precision:fp64", "precision", "ours"),
}
_LAUNCH_TITLES = {"small grid": Topic(SMALL_GRID, "grid"), "tail effect": Topic("grid:tail", "grid"),
                  "block size": Topic("block_size", "latency")}
_PATTERN_LEVELS = (("l1tex", "l1"), ("l2", "l2"), ("dram", "dram"))  # an access-pattern rule's title -> its level
_STALL_RULE = re.compile(r"^CPIStall(\w*)$")
_STALL_FOCUS = re.compile(r"smsp_+average_(?:warps_issue_stalled_)?(\w+?)(?:_per_issue_active\.ratio)?$")


def topic(r: RuleResult, bound: str | None = None, waves: float | None = None) -> Topic:
    """The topic of an ncu rule result: by rule, or by rule and title where one rule covers several causes. On a
    kernel a unit's peak holds back (``bound`` memory, compute or balanced), a latency rule is that verdict's cause
    seen from the warps: its topic is the verdict's own ("roof"), so it is cited there, not listed beside it. On a
    small grid, the rules about the block, the occupancy and idle pipes ("this kernel is very small") are the grid's
    point; ncu's "Small Grid" on a grid of a wave or more (``waves``) is about blocks per SM: the occupancy's."""
    about = _cause_topic(r)
    if about.key == SMALL_GRID and waves is not None and waves >= FULL_WAVE:
        return Topic("occupancy:theoretical", "latency")
    if bound == "small_grid" and about.key in SHAPE_TOPICS:
        return replace(about, key=SMALL_GRID)
    if about.mechanism == "latency" and bound in PEAK_BOUNDS:
        return replace(about, key=ROOF)
    return about


def _cause_topic(r: RuleResult) -> Topic:
    title = r.title.lower()
    if r.rule == "WorkloadImbalance" and "slice" in title:
        level = next((lv for prefix, lv in _SLICE_LEVELS if title.startswith(prefix)), "l2")
        return Topic(f"imbalance:{level}", "work")
    if r.rule in _BY_RULE:
        return _BY_RULE[r.rule]
    stall = _STALL_RULE.match(r.rule)
    if stall:
        return Topic(f"stall:{_stall_reason(r, stall.group(1))}", "latency")
    if r.rule == "Occupancy":
        return Topic("occupancy:theoretical" if "is limited by" in r.message else "occupancy:achieved", "latency")
    if r.rule == "HighPipeUtilization":
        return Topic("issue", "latency") if "under-utilized" in r.message else Topic(ROOF, "roof", "compute")
    if r.rule == "LaunchConfiguration" and title in _LAUNCH_TITLES:
        return _LAUNCH_TITLES[title]
    if r.rule == "MemoryCacheAccessPattern":
        if "shared" in title:
            return _BY_RULE["SharedMemoryConflicts"]
        level = next((lv for prefix, lv in _PATTERN_LEVELS if title.startswith(prefix)), "l2")
        return Topic(f"{COALESCING}:{level}", "work", "not_compute")
    return Topic(f"ncu:{r.rule}:{r.title}", "none")


def _stall_reason(r: RuleResult, suffix: str) -> str:
    """The stall reason of a CPIStall rule, in the names of ``diagnostics.stalls``: from the rule's name
    (CPIStallLongScoreboard), its title ("Long Scoreboard Stalls", "long_scoreboard") or its focus metric."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", suffix) or r.title
    words = re.sub(r"\bstalls?$", "", words.strip(), flags=re.IGNORECASE).strip()
    if words:
        return "_".join(words.lower().replace("_", " ").split())
    for f in r.focus_metrics:
        match = _STALL_FOCUS.match(f.name)
        if match and match.group(1) not in ("issue_active",):
            return match.group(1)
    return "unknown"


# --- The share of the work a rule's change removes -----------------------------------------------------------
def _pct(m: re.Match[str]) -> float:
    return float(m.group(1)) / 100.0


def _needed(m: re.Match[str]) -> float:
    """The part above what is needed, from (needed, done): bytes of a sector used against 32, sectors a warp asks
    for (a thread's bytes x 32 threads / 32 B per sector) against those it moves, or expected against counted
    sectors."""
    return 1.0 - min(1.0, float(m.group(1)) / float(m.group(2)))


def _idle_lanes(m: re.Match[str]) -> float:
    """Lanes of a 32-thread warp left idle by divergence: converged, the same work takes that share fewer
    instructions."""
    return 1.0 - min(1.0, float(m.group(1)) / WARP_SIZE)


def _fused(m: re.Match[str]) -> float:
    """Fusing pairs of non-fused instructions removes half of them."""
    fused, non_fused = float(m.group(1)), float(m.group(2))
    return non_fused / 2.0 / (fused + non_fused) if fused + non_fused else 0.0


def _excess(m: re.Match[str]) -> float:
    """An excess factor x: the share above the needed work is 1 - 1/x (none at 1.0x)."""
    factor = float(m.group(1))
    return max(0.0, 1.0 - 1.0 / factor) if factor > 0 else 0.0


_NUMBER = r"(\d+(?:\.\d+)?)"
_STATED_PCT = re.compile(rf"\({_NUMBER}% of the (?:total|overall)")  # "(33% of the total 49152 sectors)"
_SHARES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], float]], ...] = (
    (_STATED_PCT, _pct),  # uncoalesced sectors or wavefronts
    (re.compile(rf"which represent {_NUMBER}% of the overall"), _pct),  # bank conflicts
    (re.compile(rf"only {_NUMBER} of the {_NUMBER} bytes transmitted per sector are utilized"), _needed),
    (re.compile(rf"accesses {_NUMBER} bytes per thread per memory request;.*?results in {_NUMBER} sectors per "
                "request"), _needed),
    (re.compile(rf"expected {_NUMBER} sectors, got {_NUMBER}"), _needed),
    (re.compile(rf"average of {_NUMBER} threads being active"), _idle_lanes),
    (re.compile(rf"executes {_NUMBER} fused and {_NUMBER} non-fused"), _fused),
    (re.compile(rf"\b{_NUMBER}x\b"), _excess),
)


def work_share(message: str) -> float | None:
    """The share of the work (sectors, wavefronts, instructions) that the rule's change removes, as its message
    states it (0..1), or None where the message names none: "1.0 of 4 sectors per cache line" counts requests, not
    work, and a message about one instruction ("at PC ...") says nothing of a share. A memory-access rule states
    its share of one kind of access only; ``rule_share`` makes it the kernel's."""
    if ONE_INSTRUCTION.search(message):
        return None
    for pattern, share in _SHARES:
        match = pattern.search(message)
        if match:
            return min(1.0, max(0.0, share(match)))
    return None


_INSTRUCTION_SECTORS = re.compile(rf"expected {_NUMBER} sectors, got {_NUMBER}")
_TOTAL_EXCESS = re.compile(r"(\d[\d,]*) excessive sectors")  # UncoalescedGlobalAccess: "a total of N excessive ..."
# The kinds of access whose L1 sectors the report counts: space and operation (``metrics.access_sectors``).
_ACCESSES = {"global load": ("global", "ld"), "global store": ("global", "st"), "local load": ("local", "ld"),
             "local store": ("local", "st")}
_LEVELS_DOWN = {"l1": ("l1", "l2", "dram"), "l2": ("l2", "dram"), "dram": ("dram",)}  # a pattern's level and below


def rule_share(r: RuleResult, analysis: LaunchAnalysis) -> float | None:
    """The share of the kernel's work a rule's change removes. A memory-access rule (topic ``coalescing``) names
    excess sectors of one kind of access (``rule_excess``), which become a share of the kernel's sectors at the
    levels it touches (``excess_share``); any other rule states its share for the whole kernel (0 at "1.0x")."""
    about = _cause_topic(r).key
    if about.startswith(COALESCING + ":"):
        return excess_share(rule_excess(r, analysis), analysis, about)
    return work_share(clean_rule_text(r.message))


def rule_excess(r: RuleResult, analysis: LaunchAnalysis) -> float | None:
    """The sectors beyond need a memory-access rule names (``excess_sectors`` of its message, the kind of access
    read from its title first); None for any other rule."""
    if not _cause_topic(r).key.startswith(COALESCING + ":"):
        return None
    return excess_sectors(clean_rule_text(r.message), analysis, r.title)


def rule_excess_ops(r: RuleResult) -> tuple[str, ...]:
    """The operations ("ld", "st") whose excess sectors a memory-access rule names, from its title first, else its
    message; () for any other rule or where neither names one."""
    if not _cause_topic(r).key.startswith(COALESCING + ":"):
        return ()
    for text in (r.title, clean_rule_text(r.message)):
        ops = {op for words, (_, op) in _ACCESSES.items() if words in text.lower()}
        if ops:
            return tuple(sorted(ops))
    return ()


def excess_sectors(message: str, analysis: LaunchAnalysis, title: str = "") -> float | None:
    """The sectors a memory-access rule says are moved beyond need: a stated total ("a total of N excessive
    sectors"), one instruction's excess ("expected X sectors, got Y at PC ..."), none at a stated "1.0x", or the
    stated share of the sectors of the kind of access its title (else its message) names: global or local loads or
    stores, the sectors they moved at L1, which bound those at L2 and DRAM; None where none of these is known."""
    total = _TOTAL_EXCESS.search(message)
    if total:
        return float(total.group(1).replace(",", ""))
    one = _INSTRUCTION_SECTORS.search(message)
    if one:
        return max(0.0, float(one.group(2)) - float(one.group(1)))
    share = work_share(message)
    if share == 0.0:
        return 0.0  # nothing beyond need, whatever the access
    kind = _access(title) or _access(message)
    if share is None or kind is None:
        return None
    sectors = m.access_sectors(analysis.launch, *kind).value
    return None if sectors is None else share * sectors


def _access(text: str) -> tuple[str, str] | None:
    """The kind of access a rule's title or message names: (space, operation), e.g. ("global", "st")."""
    lower = text.lower()
    return next((kind for words, kind in _ACCESSES.items() if words in lower), None)


def excess_share(excess: float | None, analysis: LaunchAnalysis, topic: str = f"{COALESCING}:l2") -> float | None:
    """``excess`` sectors as a share of the kernel's fewest sectors at the levels the topic touches
    (``fewest_sectors``), at most 1; None where either is unknown."""
    level = "l1" if topic == LOCAL_MEMORY else topic.removeprefix(COALESCING + ":")  # local accesses start at L1
    sectors = fewest_sectors(analysis, _LEVELS_DOWN.get(level, ("l2", "dram")))
    if excess is None or not sectors:
        return None
    return min(1.0, max(0.0, excess / sectors))


def fewest_sectors(analysis: LaunchAnalysis, levels: tuple[str, ...] = ("l2", "dram")) -> float | None:
    """The fewest sectors the launch moved at any of ``levels`` (``fewest_level``)."""
    fewest = fewest_level(analysis, levels)
    return fewest[1] if fewest is not None else None


def fewest_level(analysis: LaunchAnalysis, levels: tuple[str, ...] = ("l2", "dram")) -> tuple[str, float] | None:
    """The level of ``levels`` at which the launch moved the fewest sectors (L1 and DRAM as defined for the roofline,
    L2 all its traffic), of those that moved any, and that count: excess sectors removed from the smallest count are
    the largest share, so a share of it bounds what the change removes at each level; None unless every level is
    measured (a share of one level bounds nothing at another) or none moved a sector."""
    moved = [(level, level_bytes(analysis, level)) for level in levels]
    if any(v is None for _, v in moved):
        return None
    counts = [(level, v / BYTES_PER_SECTOR) for level, v in moved if v]
    return min(counts, key=lambda lc: lc[1]) if counts else None


def level_bytes(analysis: LaunchAnalysis, level: str) -> float | None:
    """The bytes a launch moved at one memory level as the advice counts them: L1 and DRAM as defined for the
    roofline, L2 all of its traffic (loads and stores from every source)."""
    return analysis.l2_total_bytes.value if level == "l2" else analysis.bytes[level].value


# --- Rule results as items ------------------------------------------------------------------------------------
def rule_items(analysis: LaunchAnalysis, own_topics: set[str], tiny_grid: bool) -> list[Advice]:
    """ncu's optimization and warning messages that fit the kernel (``fits``; ``tiny_grid``: under one wave) as
    advice, one per rule and title (the result with the largest estimate); left out: ncu's verdict, messages about
    the rule's own missing inputs, estimates under ``MIN_SPEEDUP_PCT``, and messages naming no number (neither in
    the text nor in a focus metric)."""
    items: dict[tuple[str, str], Advice] = {}
    for r in analysis.launch.rules:
        if r.kind not in ADVICE_KINDS or r.rule in SKIPPED_RULES or NOT_ADVICE.search(r.message):
            continue
        if r.speedup_pct is not None and r.speedup_pct < MIN_SPEEDUP_PCT:
            continue
        about = topic(r, analysis.verdict.bound, analysis.verdict.waves_per_sm)
        if about.key != SMALL_GRID and not fits(_cause_topic(r), analysis.verdict.bound, own_topics, tiny_grid):
            continue
        item = _item(r, about, _cause_topic(r), analysis)
        kept = items.get((r.rule, r.title))
        if item is not None and (kept is None or _larger(item, kept)):
            items[(r.rule, r.title)] = item
    return list(items.values())


def _larger(item: Advice, kept: Advice) -> bool:
    """Whether ``item`` estimates more than ``kept``, else (neither estimated: one instruction each) removes a
    larger share of the work."""
    if (item.est_saved_s or 0.0) != (kept.est_saved_s or 0.0):
        return (item.est_saved_s or 0.0) > (kept.est_saved_s or 0.0)
    return (item.work_share or 0.0) > (kept.work_share or 0.0)


def _item(r: RuleResult, about: Topic, cause_topic: Topic, analysis: LaunchAnalysis) -> Advice | None:
    message, duration = clean_rule_text(r.message), analysis.duration_s.value
    text, cause = message, focus(r)  # the whole message: a cut one lost the numbers and the fix at its end
    if not re.search(r"\d", text):
        if not re.search(r"\d", cause):
            return None  # no measured number behind it: nothing to rank or act on
        text += f" ({cause})"
    saved, how = _estimate(r, duration)
    share = rule_share(r, analysis) if about.mechanism == "work" else None
    excess = rule_excess(r, analysis) if about.mechanism == "work" else None
    return Advice(kind="ncu_rule", title=f"ncu: {r.title or r.rule}",
                  text=text + _share_said(r, share, excess, analysis), cause=cause, source="ncu", est_saved_s=saved,
                  condition=f"ncu's {r.rule} rule ({r.section} section) reported it",
                  estimate=how, topic=about.key, mechanism=about.mechanism, work_share=share, excess_sectors=excess,
                  excess_ops=rule_excess_ops(r) if about.mechanism == "work" else (),
                  also=(source_name(r),), causes=(cause_topic.key,), ncu_local_pct=_local_pct(r, duration))


def _share_said(r: RuleResult, share: float | None, excess: float | None, analysis: LaunchAnalysis) -> str:
    """Where a memory-access rule's message states a percent other than the share of the work its saving rests on
    (``rule_share``: ncu's 33% of the L2 sectors of global accesses, 42% of the kernel's DRAM sectors), the sentence
    that says which sectors the share is of and why; "" otherwise."""
    percent = _STATED_PCT.search(clean_rule_text(r.message))
    stated = _pct(percent) if percent is not None else None
    level = _cause_topic(r).key.removeprefix(COALESCING + ":")
    fewest = fewest_level(analysis, _LEVELS_DOWN.get(level, ("l2", "dram")))
    if share is None or excess is None or stated is None or fewest is None or round(100 * stated) == round(100 * share):
        return ""
    at, sectors = fewest
    crossed = " and ".join(lv.upper() for lv in _LEVELS_DOWN.get(level, ("l2", "dram")))
    return (f" The saving rests on {100 * share:.0f}% of the work, not the {100 * stated:.0f}% stated: the "
            f"{excess:,.0f} excess sectors are {100 * share:.0f}% of the {sectors:,.0f} the kernel moved at "
            f"{at.upper()}, the fewest of the levels they cross ({crossed}), and ncu's {100 * stated:.0f}% is of the "
            "sectors of the accesses it names alone.")


def source_name(r: RuleResult) -> str:
    """How an item names an ncu rule it rests on: "ncu CPIStall: Wait Stalls"."""
    return f"ncu {r.rule}" + (f": {r.title}" if r.title else "")


def fits(about: Topic, bound: str | None, own_topics: set[str], tiny_grid: bool = False) -> bool:
    """Whether an ncu rule applies to a kernel with this verdict and the tool's own item topics: a rule that
    removes compute work does nothing for a memory-bound kernel, and the reverse; under one wave no occupancy
    change helps (the tool's own rule)."""
    if tiny_grid and about.key.startswith(OCCUPANCY):
        return False
    if about.fits == "ours":
        return about.key in own_topics
    if about.fits == "compute":
        return bound in ("compute", "balanced")
    if about.fits == "memory":
        return bound in ("memory", "balanced")
    return about.fits != "not_compute" or bound != "compute"


def _estimate(r: RuleResult, duration: float | None) -> tuple[float | None, str]:
    """A GLOBAL estimate as time (duration x speedup); a LOCAL (or untyped) one kept as ncu's percent."""
    if r.speedup_pct is None or duration is None:
        return None, "not estimated: ncu gives no speedup for this rule"
    if r.speedup_type == "global":
        return duration * r.speedup_pct / 100.0, f"ncu's estimate: {r.speedup_pct:.3g}% of the kernel's time (global)"
    return None, (f"{LOCAL} {r.speedup_pct:.3g}%: ncu's {r.speedup_type or 'untyped'} estimate, the gain in one "
                  "unit's efficiency in isolation, not a share of the kernel's time")


def _local_pct(r: RuleResult, duration: float | None) -> float | None:
    """ncu's LOCAL (or untyped) estimate in percent, the one ``_estimate`` keeps as it is; None otherwise."""
    if r.speedup_pct is None or duration is None or r.speedup_type == "global":
        return None
    return r.speedup_pct


def focus(r: RuleResult) -> str:
    """The measurement an ncu rule points at, e.g. 'smsp_average_tex_throttle = 56.9'; with ncu's test of it where
    that is a comparison of the value with a threshold ('max pipelines utilization = 1.76, ncu's mark < 20')."""
    parts = [f"{f.name} = {f.value:.3g}" + _threshold(f.info) for f in r.focus_metrics if f.value is not None]
    return "; ".join(parts) or f"ncu {r.rule}"


_TEST = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$")  # "1.761 < 20.00"


def _threshold(info: str | None) -> str:
    """ncu's focus-metric test as its threshold (", ncu's mark < 20"); other texts starting with a number in
    parentheses; nothing otherwise."""
    if not info:
        return ""
    test = _TEST.match(info)
    if test:
        return f", ncu's mark {test.group(1)} {float(test.group(2)):g}"
    return f" ({info})" if info[:1].isdigit() else ""


_RULE_MARKUP = ((re.compile(r"@url:([^:@]+):[^@]*@"), r"\1"),  # a link becomes its title
                (re.compile(r"@(?:section|source):[^:@]*:([^@]*)@"), r"\1"))  # a section or source reference too


@functools.lru_cache(maxsize=1024)  # the launches of a report share most messages (the A100 report: 60 of 380)
def clean_rule_text(text: str) -> str:
    """An ncu rule message as plain text: links and section references become their titles."""
    for pattern, repl in _RULE_MARKUP:
        text = pattern.sub(repl, text)
    return " ".join(text.replace("`", "'").split())

