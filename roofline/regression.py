"""The regression gate of ``roofline diff``: judge every kernel BASE and NEW share against thresholds on the
time per launch and on percent of roof. Pure functions over a ``pairing.Comparison``; no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import RooflineError
from roofline.pairing import Comparison, KernelPair, why_no_roof
from roofline.results import Value


@dataclass(frozen=True)
class Thresholds:
    """Regression limits: time per launch slower by more than ``slower_pct`` percent, or percent of roof
    lower by more than ``roof_drop_pct`` percentage points. None = not gated."""

    slower_pct: float | None = None
    roof_drop_pct: float | None = None


@dataclass(frozen=True)
class Verdict:
    """One kernel's change from BASE to NEW and why it counts as a regression (empty ``reasons``: it does not)."""

    pair: KernelPair
    slowdown_pct: Value  # 100 x (time per launch NEW / BASE - 1); negative = faster
    roof_drop_pct: Value  # percent of roof BASE - NEW, in percentage points
    reasons: tuple[str, ...]
    unchecked: tuple[str, ...]

    @property
    def regressed(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True)
class DiffResult:
    """The gate's outcome over every kernel BASE and NEW share."""

    comparison: Comparison
    thresholds: Thresholds
    verdicts: tuple[Verdict, ...]

    @property
    def regressions(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.regressed)

    @property
    def exit_code(self) -> int:
        """0 = no regression beyond the thresholds, 1 = at least one."""
        return 1 if self.regressions else 0


def judge(comparison: Comparison, thresholds: Thresholds) -> DiffResult:
    """Judge every BASE/NEW pair against the thresholds; RooflineError when nothing can be judged."""
    if len(comparison.reports) != 2:
        raise RooflineError("diff needs exactly two reports", "pass BASE and NEW")
    if not comparison.pairs:
        base, new = comparison.reports
        raise RooflineError(f"{base.path} and {new.path}: no kernel in common ({comparison.matching} matching)",
                            "pair kernels with --match order|regex:PATTERN or --map BASE=NEW")
    verdicts = tuple(_verdict(p, thresholds) for p in comparison.pairs)
    gates = (("--fail-if-slower", thresholds.slower_pct, [v.slowdown_pct for v in verdicts], "a duration"),
             ("--fail-if-roof-drop", thresholds.roof_drop_pct, [v.roof_drop_pct for v in verdicts],
              "a percent of roof"))
    for option, limit, changes, what in gates:
        if limit is not None and all(c.value is None for c in changes):
            raise RooflineError(f"{comparison.reports[0].path} vs {comparison.reports[1].path}: {option} cannot be "
                                f"checked, no shared kernel has {what} in both",
                                f"re-profile with --set roofline or --set full, or drop {option}")
    return DiffResult(comparison, thresholds, verdicts)


def _verdict(pair: KernelPair, limits: Thresholds) -> Verdict:
    speedup = pair.speedup[1]
    slow = Value(100.0 * (1.0 / speedup.value - 1.0)) if speedup.value else Value(None, speedup.reason)
    base, new = pair.side(0), pair.side(1)
    before, after = base.roof.pct_of_roof, new.roof.pct_of_roof
    drop = (Value(before - after) if before is not None and after is not None
            else Value(None, why_no_roof(base if before is None else new)))
    reasons: list[str] = []
    unchecked: list[str] = []
    for limit, change, text in ((limits.slower_pct, slow, "slower"), (limits.roof_drop_pct, drop, "roof drop")):
        if limit is None:
            continue
        if change.value is None:
            unchecked.append(f"{text} not checked: {change.reason}")
        elif change.value > limit:
            unit = "%" if text == "slower" else " points of roof"
            reasons.append(f"{text} {change.value:.1f}{unit} > {limit:g}{unit}")
    return Verdict(pair, slow, drop, tuple(reasons), tuple(unchecked))
