"""The regression gate of ``roofline diff``: judge every kernel BASE and NEW share, and their total, against
thresholds that are on by default, so a CI job that passes no flag still fails on a large regression. Pure
functions over a ``pairing.Comparison``; no I/O (scipy is imported by ``compare.noise`` when a kernel is tested).
The thresholds' defaults live in ``roofline.core.thresholds``.

* **Same set-up.** BASE and NEW must come from the same GPU (name, compute capability, SM count) and the same ncu
  version where both reports name it; otherwise the times are no regression test and ``judge`` refuses (exit 2)
  unless told ``allow_different_gpu``.
* **Not judged.** A kernel of at least ``min_share_pct`` of the time with no launch time on a side, or run by one
  report with every launch invalid, cannot be judged: a regression in it would pass, so the exit is 2 where nothing
  regressed (``not_judged``).
* **A kernel** regresses when its time per launch is slower by more than ``slower_pct`` and it holds
  at least ``min_share_pct`` of BASE's or NEW's time. With several launches on each side, only a change
  the noise cannot explain counts: the one-sided Mann-Whitney U test of "slower by more than the threshold" at
  ``alpha``, i.e. the lower end of the change's interval above the threshold
  (``roofline.compare.noise``). With too few launches the change is untested for noise and gated on its median ratio.
* **Different work** (``roofline.analysis.work``): reported per kernel and left out of the gate, unless
  ``gate_different_work``, which gates the time per unit of work (the throughput's inverse) instead.
* **The total** regresses when the gated kernels' BASE time, each kernel at its NEW speed, is more than
  ``total_slower_pct`` above their BASE time: sum(T_k r_k) / sum(T_k) - 1, T_k = the kernel's total
  time in BASE, r_k its median time ratio. Launch counts that differ between the runs do not move it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from msgspec import Struct

from roofline.analysis.hotspots import line_shifts
from roofline.analysis.results import LineShift, Value
from roofline.analysis.work import WorkCheck
from roofline.compare.noise import Change, change_pct, slower_p_value
from roofline.compare.pairing import Comparison, KernelPair, ReportRef, require_common
from roofline.core.choices import finite_at_least
from roofline.core.model import INCOMPLETE_FILE
from roofline.core.thresholds import MIN_SHARE_PCT, SLOWER_PCT, TOTAL_SLOWER_PCT
from roofline.core.units import pct_apart
from roofline.errors import RooflineError
from roofline.ncu import metrics as m

SHIFTED_KERNELS = 5  # kernels whose moved source lines the renderers list


@dataclass(frozen=True)
class Thresholds:
    """Regression limits: a kernel's time per launch slower by more than ``slower_pct`` percent when it holds at
    least ``min_share_pct`` percent of either report's time; the total slower by more than ``total_slower_pct``;
    percent of roof lower by more than ``roof_drop_pct`` points (None = not gated). ``gate_different_work``
    gates pairs of different work on their time per unit of work instead of leaving them out. ``new_share_pct``:
    the kernels only NEW runs taking more than this percent of NEW's kernel time (None = not gated)."""

    slower_pct: float = SLOWER_PCT
    min_share_pct: float = MIN_SHARE_PCT
    total_slower_pct: float = TOTAL_SLOWER_PCT
    roof_drop_pct: float | None = None
    gate_different_work: bool = False
    new_share_pct: float | None = None

    def __post_init__(self) -> None:
        """Each limit finite and not negative (NaN or infinity would switch its gate off without a word; the
        command line refuses them too)."""
        for name in ("slower_pct", "min_share_pct", "total_slower_pct", "roof_drop_pct", "new_share_pct"):
            finite_at_least(name, getattr(self, name))


class GateCause(Enum):
    """Why the slower gate left a kernel out or could not judge it, as data (the renderers' prose writes it)."""

    DIFFERENT_WORK = "different work"  # not gated: the work differs and --gate-different-work is off
    SMALL_SHARE = "small share"  # not gated: under the share gated alone (it counts in the total)
    NO_WORK_UNIT = "no unit of work"  # not checked: the work differs and there is no unit of work to divide by


class GateNote(Struct, frozen=True):
    """A gate's cause on one kernel: its kind and the work comparison it concerns (different work, no unit of
    work; None where the pair has none), or the kernel's share of the time and the share gated alone."""

    kind: GateCause
    check: WorkCheck | None = None
    share_pct: float = 0.0
    min_share_pct: float = 0.0


class Unjudged(Enum):
    """Why the gate could not judge a kernel of at least the share it gates alone: a regression in it would pass."""

    NO_TIME = "no_time"  # in both reports, with no launch time on a side (not measured)
    EVERY_LAUNCH_INVALID = "every_launch_invalid"  # NEW ran it, and every launch of it there is invalid
    EVERY_BASE_LAUNCH_INVALID = "every_base_launch_invalid"  # BASE ran it, and every launch of it there is invalid


class NotJudged(Struct, frozen=True):
    """A kernel of at least ``--min-share`` of the time the gate could not judge, and why: its share of the time of
    ``share_of`` (the report that timed it; None: neither did, the share is unknown)."""

    kernel: str
    share_pct: float | None
    cause: Unjudged
    share_of: Literal["base", "new"] | None = None


class Unchecked(Struct, frozen=True):
    """A gate that could not judge a kernel ("slower", "roof drop") and why: the missing value's ``reason``, or
    the gate's own cause (``note``)."""

    gate: Literal["slower", "roof drop"]
    reason: str = ""
    note: GateNote | None = None


class Verdict(Struct, frozen=True):
    """One kernel's change from BASE to NEW and why it counts as a regression (empty ``reasons``: it does not).
    ``not_gated`` says why the slower gate left it out (None when it was gated); ``per_work_note`` why the time per
    unit of work is None for different work (no unit of work to divide by)."""

    pair: KernelPair
    slowdown_pct: Value  # 100 x (median time ratio NEW / BASE - 1); negative = faster
    roof_drop_pct: Value  # percent of roof BASE - NEW, in percentage points
    reasons: tuple[str, ...]
    unchecked: tuple[Unchecked, ...]
    share_pct: float | None = None  # the larger of its shares of BASE's and NEW's time
    per_work_pct: Value = Value(None, "same work")  # different work: change of time per unit of work
    p_value: float | None = None  # the test of "slower by more than the threshold", where tested
    not_gated: GateNote | None = None
    per_work_ratio: float | None = None  # different work: time per unit of work NEW / BASE (``per_work_pct``)
    per_work_note: GateNote | None = None

    @property
    def regressed(self) -> bool:
        return bool(self.reasons)

    @property
    def gated(self) -> bool:
        """Whether the slower gate judged this kernel (it has a time change and was not left out)."""
        measured = self.per_work_pct if self.pair.different_work(1) else self.slowdown_pct
        return self.not_gated is None and measured.value is not None

    @property
    def change(self) -> Change | None:
        """NEW / BASE launch times with the noise interval."""
        return self.pair.change[1] if self.pair.change else None

    @property
    def line_shifts(self) -> tuple[LineShift, ...] | None:
        """The source lines whose share of the kernel's warp samples changed most from BASE to NEW; None unless
        both reports sampled the kernel's lines."""
        base, new = self.pair.sides[0], self.pair.sides[1]
        return line_shifts(base.line_samples, new.line_samples) if base is not None and new is not None else None


class TotalChange(Struct, frozen=True):
    """The gated kernels together: their BASE time, the same launches at NEW's speed, and the change."""

    base_s: float
    at_new_speed_s: float
    kernels: int
    change_pct: float  # at_new_speed_s over base_s as a percent change (``change_pct``): negative = faster


class OnlyInNew(Struct, frozen=True):
    """The kernels only NEW runs (not gated: BASE has nothing to gate them against): how many, their time in NEW
    (NEW's kernel time less its paired kernels') and its share of NEW's kernel time."""

    kernels: int
    seconds: float
    share: float


class DiffResult(Struct, frozen=True):
    """The gate's outcome over every kernel BASE and NEW share, and their total. ``verdicts`` in the order every
    output lists them (``in_order``): the regressed kernels first, then the others, each by BASE time, largest
    first."""

    comparison: Comparison
    thresholds: Thresholds
    verdicts: tuple[Verdict, ...]
    total: TotalChange | None = None
    setup_notes: tuple[str, ...] = ()  # what could not be checked about the set-up, or was allowed to differ
    only_in_new: OnlyInNew | None = None  # None where NEW runs no kernel of its own, or has no kernel time
    not_judged: tuple[NotJudged, ...] = ()  # kernels the gate would judge but could not (``not_judged``)

    @property
    def regressions(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.regressed)

    def only_in(self, i: int) -> tuple[str, ...]:
        """The kernels only report ``i`` runs (``Comparison.unmatched``), less those not judged because the other
        report ran them with every launch invalid: such a kernel is listed once, as not judged."""
        return only_in(self.comparison, self.not_judged, i)

    @property
    def shifted(self) -> tuple[Verdict, ...]:
        """The kernels whose lines gained or lost warp samples, regressed ones first (``SHIFTED_KERNELS``)."""
        return tuple(v for v in sorted(self.verdicts, key=lambda v: not v.regressed) if v.line_shifts
                     )[:SHIFTED_KERNELS]

    @property
    def total_regressed(self) -> bool:
        return self.total is not None and self.total.change_pct > self.thresholds.total_slower_pct

    @property
    def only_in_new_regressed(self) -> bool:
        """Whether the kernels only NEW runs take more of NEW's kernel time than ``thresholds.new_share_pct``."""
        limit, extra = self.thresholds.new_share_pct, self.only_in_new
        return limit is not None and extra is not None and 100.0 * extra.share > limit

    @property
    def regressed(self) -> bool:
        """Whether a kernel, the total or NEW's own kernels regressed beyond the thresholds."""
        return bool(self.regressions) or self.total_regressed or self.only_in_new_regressed

    @property
    def exit_code(self) -> int:
        """0 = no regression beyond the thresholds, 1 = at least one kernel, the total or NEW's own kernels, 2 =
        none, but a kernel the gate would judge has no time on a side: a regression in it would pass."""
        return 1 if self.regressed else 2 if self.not_judged else 0


def judge(comparison: Comparison, thresholds: Thresholds = Thresholds(),
          allow_different_gpu: bool = False) -> DiffResult:
    """Judge every BASE/NEW pair and their total against the thresholds; RooflineError when the reports come from
    different set-ups (unless allowed) or nothing can be judged."""
    if len(comparison.reports) != 2:
        raise RooflineError("diff needs exactly two reports", "pass BASE and NEW")
    base, new = comparison.reports
    notes = setup_check(base, new, allow_different_gpu)
    require_common(comparison)
    verdicts = in_order([_verdict(p, thresholds, comparison) for p in comparison.pairs])
    gates = (("--fail-if-slower", thresholds.slower_pct, [v.slowdown_pct for v in verdicts], "a duration",
              f"re-profile with any --set (each measures the duration, {m.DURATION})"),
             ("--fail-if-roof-drop", thresholds.roof_drop_pct, [v.roof_drop_pct for v in verdicts],
              "a percent of roof", "re-profile with --set roofline or --set full, or drop --fail-if-roof-drop"))
    for option, limit, changes, what, fix in gates:
        if limit is not None and all(c.value is None for c in changes):
            raise RooflineError(f"{base.path} vs {new.path}: {option} cannot be checked, no shared kernel has {what} "
                                "in both", fix)
    total = _total(verdicts, thresholds)
    if total is None and not any(v.gated for v in verdicts):
        different = sum(v.pair.different_work(1) for v in verdicts)
        others = ", the others have no launch time" if different < len(verdicts) else ""
        raise RooflineError(f"{base.path} vs {new.path}: nothing to gate, {different} of the {len(verdicts)} shared "
                            f"kernels do different work{others}",
                            f"pass --gate-different-work to gate them per unit of work{COMPARE_INSTEAD}")
    unjudged = not_judged(comparison, verdicts, thresholds)
    return DiffResult(comparison, thresholds, verdicts, total, notes, only_in_new(comparison, unjudged), unjudged)


def in_order(verdicts: Sequence[Verdict]) -> tuple[Verdict, ...]:
    """The verdicts as the table, the Markdown comment and the JSON list them: the regressed kernels first, then
    the others, each in the pairs' order (BASE time, largest first)."""
    return tuple(sorted(verdicts, key=lambda v: not v.regressed))


def not_judged(comparison: Comparison, verdicts: Sequence[Verdict], limits: Thresholds) -> tuple[NotJudged, ...]:
    """The kernels of at least ``min_share_pct`` of the time that the slower gate could not judge: in both reports
    with no launch time on a side (share unknown where neither has one), or run by one report with every launch
    invalid (so only in the other)."""
    found = []
    for v in verdicts:
        if v.slowdown_pct.value is None and (v.share_pct is None or v.share_pct >= limits.min_share_pct):
            timed = [i for i, s in enumerate(v.pair.sides) if s is not None and s.total_s.value is not None]
            found.append(NotJudged(v.pair.label, v.share_pct, Unjudged.NO_TIME, SIDES[timed[0]] if timed else None))
    for gone in comparison.unmeasured:
        total = comparison.reports[gone.other].total_time_s
        share = 100.0 * gone.other_s / total if total else None
        if share is not None and share >= limits.min_share_pct:
            cause = Unjudged.EVERY_LAUNCH_INVALID if gone.report == 1 else Unjudged.EVERY_BASE_LAUNCH_INVALID
            found.append(NotJudged(gone.name, share, cause, SIDES[gone.other]))
    return tuple(found)


SIDES: tuple[Literal["base"], Literal["new"]] = ("base", "new")


# The hints' parts that name the command line or Python: the MCP server drops them (``cli.mcp_server.PHRASES``)
COMPARE_INSTEAD = ", or compare the runs with roofline compare"
IN_PYTHON = " (allow_different_gpu=True in Python)"
GENERATIONS = " (roofline compare is made for GPU generations)"


def setup_check(base: ReportRef, new: ReportRef, allow_different_gpu: bool) -> tuple[str, ...]:
    """RooflineError (one line) when BASE or NEW is a file cut short (its missing launches would pass unjudged), or
    when they come from different GPUs or ncu versions, unless allowed; else the notes on what could not be checked
    (a report that does not name its ncu version) or was allowed to differ."""
    cut = [r.path for r in (base, new) if r.incomplete]
    if cut:
        raise RooflineError(f"{' and '.join(cut)}: {INCOMPLETE_FILE}, so a regression in the launches it lost would "
                            "pass", "copy the file again, or re-profile")
    gpu = [(r.device, r.compute_capability, r.sm_count) for r in (base, new)]
    differ = (["GPUs"] if gpu[0] != gpu[1] else []) + \
             (["ncu versions"] if base.ncu_version and new.ncu_version and base.ncu_version != new.ncu_version else [])
    sides = " and ".join(f"{r.path} ({_gpu(r, base, new)}, {_ncu(r)})" for r in (base, new))
    if differ and not allow_different_gpu:
        raise RooflineError(f"{sides} come from different {' and '.join(differ)}, so their times are no regression "
                            "test", f"diff runs of one GPU and ncu version, or pass --allow-different-gpu{IN_PYTHON} "
                            f"to gate them anyway{GENERATIONS}")
    notes = [f"different {' and '.join(differ)} allowed (--allow-different-gpu): {sides}"] if differ else []
    unknown = [r.path for r in (base, new) if not r.ncu_version]
    if unknown:
        verb = "does not name the ncu version that wrote it" if len(unknown) == 1 else \
            "do not name the ncu version that wrote them"
        notes.append(f"ncu version not checked: {' and '.join(unknown)} {verb} (a report model written without it)")
    return tuple(notes)


def _gpu(r: ReportRef, base: ReportRef, new: ReportRef) -> str:
    """A report's GPU as the set-up check names it: its name, with its compute capability and SM count where those
    differ between two GPUs of one name (another SKU, a MIG slice)."""
    if base.device != new.device:
        return r.device
    extra = ([f"CC {r.compute_capability or 'unknown'}"] if base.compute_capability != new.compute_capability
             else []) + ([f"{r.sm_count or 'unknown'} SMs"] if base.sm_count != new.sm_count else [])
    return ", ".join([r.device, *extra])


def _ncu(r: ReportRef) -> str:
    return f"ncu {r.ncu_version}" if r.ncu_version else "ncu version unknown"


def _verdict(pair: KernelPair, limits: Thresholds, c: Comparison) -> Verdict:
    change = pair.change[1] if pair.change else None
    slow = Value(change.pct) if change else Value(None, pair.speedup[1].reason or "no time")
    base, new = pair.side(0), pair.side(1)
    before, after = base.roof.pct_of_roof, new.roof.pct_of_roof
    drop = (Value(before - after) if before is not None and after is not None
            else Value(None, (base if before is None else new).why_no_roof))
    share = _share(pair, c.reports)
    check = pair.work[1] if pair.work else None
    different = check is not None and check.different
    per_work, per_work_ratio, per_work_note = Value(None, "same work"), None, None
    factor = 1.0  # the time ratio the slower threshold is measured against: 1, or the work ratio
    unit = f"per unit of work ({check.unit.removesuffix('/s')})" if check else ""
    if different and check is not None:
        per_work_ratio = change.ratio / check.work_ratio if change and check.work_ratio else None
        if per_work_ratio is not None:
            per_work = Value(change_pct(per_work_ratio), via=f"time {unit}")
        else:
            per_work_note = GateNote(GateCause.NO_WORK_UNIT, check)
            per_work = Value(None, "no unit of work to divide by")  # the note's line says which work
        factor = check.work_ratio or 1.0
    reasons: list[str] = []
    unchecked: list[Unchecked] = []
    p_value, not_gated = None, None
    gated = per_work if different else slow
    if gated.value is None:
        unchecked.append(Unchecked("slower", gated.reason, per_work_note if different else None))
    elif different and not limits.gate_different_work:
        not_gated = GateNote(GateCause.DIFFERENT_WORK, check)
    elif share is not None and share < limits.min_share_pct:
        not_gated = GateNote(GateCause.SMALL_SHARE, share_pct=share, min_share_pct=limits.min_share_pct)
    elif change is not None:
        p_value, reason = _slower(base.durations_s, new.durations_s, change, factor, gated.value, limits.slower_pct)
        if reason:
            reasons.append(reason + (f" {unit}" if different else ""))
    if limits.roof_drop_pct is not None:
        if drop.value is None:
            unchecked.append(Unchecked("roof drop", drop.reason))
        elif drop.value > limits.roof_drop_pct:
            reasons.append(f"roof drop {_apart(drop.value, limits.roof_drop_pct)} points of roof > "
                           f"{limits.roof_drop_pct:g} points of roof")
    return Verdict(pair, slow, drop, tuple(reasons), tuple(unchecked), share, per_work, p_value, not_gated,
                   per_work_ratio, per_work_note)


def _slower(base_s: Sequence[float], new_s: Sequence[float], change: Change, factor: float, pct: float,
            limit: float) -> tuple[float | None, str]:
    """(p-value, reason it regressed or ""): tested against the noise where the launches allow, else on the
    median ratio."""
    threshold = 1.0 + limit / 100.0
    if change.untested:
        return None, (f"slower {pct_apart(pct, limit)} > {limit:g}% ({change.untested})" if pct > limit else "")
    p = slower_p_value(base_s, new_s, threshold * factor)
    if p >= change.alpha:
        return p, ""
    low = change_pct(change.low / factor) if change.low is not None else pct
    return p, (f"slower {pct_apart(pct, limit)} > {limit:g}%: at least {pct_apart(low, limit)} at "
               f"{100 * (1 - change.alpha):g}% confidence (Mann-Whitney U p = {p:.2g} < {change.alpha:g})")


def _apart(value: float, limit: float) -> str:
    """A figure against its threshold with as many decimals (one to four) as tell them apart (``units.pct_apart``
    without the percent sign): a drop of 0.047 points against 0.01 is 0.05, not 0.0."""
    return pct_apart(value, limit).removesuffix("%")


def _share(pair: KernelPair, reports: Sequence[ReportRef]) -> float | None:
    """The larger of the kernel's shares of BASE's and NEW's total time, in percent."""
    shares = [100.0 * s.total_s.value / r.total_time_s for s, r in zip(pair.sides, reports, strict=True)
              if s is not None and s.total_s.value is not None and r.total_time_s]
    return max(shares) if shares else None


def only_in(comparison: Comparison, unjudged: Sequence[NotJudged], i: int) -> tuple[str, ...]:
    """The kernels only report ``i`` runs, less those ``unjudged`` because the other report ran them with every
    launch invalid (not judged, not only in one report)."""
    apart = {n.kernel for n in unjudged if n.cause is not Unjudged.NO_TIME}
    return tuple(name for name in comparison.unmatched[i] if name not in apart)


def only_in_new(comparison: Comparison, unjudged: Sequence[NotJudged] = ()) -> OnlyInNew | None:
    """NEW's kernels without a BASE kernel (``only_in``): their time, NEW's kernel time less that of its kernels
    paired with BASE's and of those BASE ran with every launch invalid (``unjudged``); None where there are none
    or NEW has no kernel time."""
    names, total = only_in(comparison, unjudged, 1), comparison.reports[1].total_time_s
    if not names or not total:
        return None
    apart = set(comparison.unmatched[1]) - set(names)
    paired = sum(s.total_s.value or 0.0 for p in comparison.pairs if (s := p.sides[1]) is not None)
    invalid = sum(gone.other_s for gone in comparison.unmeasured if gone.other == 1 and gone.name in apart)
    seconds = max(0.0, total - paired - invalid)
    return OnlyInNew(len(names), seconds, seconds / total)


def _total(verdicts: Sequence[Verdict], limits: Thresholds) -> TotalChange | None:
    """The gated kernels (same work, or all with gate_different_work), BASE time and BASE time at NEW's speed."""
    base_s = new_s = 0.0
    kernels = 0
    for v in verdicts:
        change, total = v.change, v.pair.side(0).total_s.value
        gated = v.per_work_pct if v.pair.different_work(1) else v.slowdown_pct
        if change is None or total is None or gated.value is None:
            continue
        if v.pair.different_work(1) and not limits.gate_different_work:
            continue
        base_s += total
        new_s += total * (1.0 + gated.value / 100.0)
        kernels += 1
    return TotalChange(base_s, new_s, kernels, change_pct(new_s / base_s)) if kernels and base_s > 0 else None
