"""Advice for one analysed launch: concrete recommendations, each tied to the measured cause that calls for it
and naming its number; where nothing measured calls for one, none is given.

Inputs are the launch's roofline position, ceilings and flags (``roofline.analysis``) and its diagnostics
(``roofline.diagnostics``). ``advise`` returns the items in a fixed order: measurement problems first, then
the bound's advice, the Tensor Core and precision findings, occupancy and waves, launch overhead. Every
renderer shows the same list (the table and the reports for the kernels of ``kernels_to_advise``, JSON for
every launch).
"""

from __future__ import annotations

from roofline.analysis import rank_by_recoverable_time
from roofline.diagnostics.occupancy import ACHIEVED_GAP_PTS, LIMITER_WORDS, TAIL_IDLE_PCT
from roofline.labels import NAMES
from roofline.model import LEVELS
from roofline.results import Advice, KernelGroup, LaunchAnalysis, ReportAnalysis
from roofline.units import pct, ratio, seconds, si

ADVISED_KERNELS = 8  # kernels whose advice the table and the reports show, most recoverable time first
SHORT_LAUNCH_S = 5e-6  # launches this short are dominated by launch overhead
WEAK_FP64_RATIO = 8.0  # FP32 ceiling over FP64 ceiling from which FP64 is worth questioning


def kernels_to_advise(a: ReportAnalysis) -> list[KernelGroup]:
    """The kernels whose advice is shown (for their longest launch): those with the most recoverable time."""
    return rank_by_recoverable_time(a.groups)[:ADVISED_KERNELS]


def advise(k: LaunchAnalysis) -> tuple[Advice, ...]:
    """Every recommendation for one launch, each with its measured cause."""
    items = [Advice("measurement", "Re-profile before optimizing", f"Re-profile before optimizing: {flag}.", flag,
                    "roofline") for flag in k.flags]
    if k.roof.bound == "memory":
        items.append(_memory(k))
    if k.tensor_cores is not None and k.tensor_cores.advice:
        items.append(Advice("tensor_cores", "Tensor Cores", k.tensor_cores.advice,
                            f"matrix-multiply-like ({k.tensor_cores.matmul_like}), math on the CUDA cores",
                            "tensor_cores"))
    items += _fp64(k)
    if k.roof.bound == "compute" and len(items) == len(k.flags):
        items.append(_compute(k))
    if k.roof.bound in ("latency", None):
        items += _latency(k)
    duration = k.duration_s.value
    if duration is not None and duration < SHORT_LAUNCH_S:
        items.append(Advice("launch_overhead", "Fuse or graph the launches",
                            f"Each launch takes {seconds(duration)}, the order of the launch overhead itself: fuse it "
                            "with neighbouring kernels or capture the sequence in a CUDA Graph.",
                            f"{seconds(duration)} per launch", "roofline"))
    return tuple(items)


def ridge_point(k: LaunchAnalysis) -> tuple[float | None, str | None]:
    """Ridge point of the main precision's ceiling against the limiting memory level's roof, and that precision."""
    c, precision = k.ceilings.get(k.roof.ceilings), k.main_precision
    if c is None or precision is None or k.roof.limiter not in LEVELS:
        return None, precision
    peak, bandwidth = c.flop_per_s[precision], c.bytes_per_s[k.roof.limiter]
    return (peak / bandwidth if peak and bandwidth else None), precision


def _memory(k: LaunchAnalysis) -> Advice:
    limiter = k.roof.limiter or "dram"
    level = NAMES[limiter]
    moved = si(k.bytes[limiter].value, "B")
    cause = f"{level} at {pct(k.roof.pct_of_roof)} of its roof"
    if not k.total_flops:
        return Advice("memory", "Move fewer bytes",
                      f"{level} traffic ({moved}) at {pct(k.roof.pct_of_roof)} of its roof sets the time and the "
                      "kernel does no counted floating-point math: only moving fewer bytes helps (fusion with the "
                      "producer or consumer kernel, narrower data types).", cause, "roofline")
    ridge, precision = ridge_point(k)
    target = f" towards the {NAMES[precision]} ridge point of {ratio(ridge)} FLOP/byte" if ridge and precision else ""
    return Advice("memory", f"Cut {level} traffic",
                  f"Cut {level} traffic: {moved} at {pct(k.roof.pct_of_roof)} of the {level} roof, at "
                  f"{ratio(k.intensity[limiter].value)} FLOP/byte. Raise the intensity{target} by reusing data "
                  "from shared memory or registers (tiling), fusing kernels, or narrower data types.", cause,
                  "roofline")


def _compute(k: LaunchAnalysis) -> Advice:
    ceiling = NAMES[k.roof.limiter or "fp32"]
    share = k.roof.pct_of_roof or 100.0
    return Advice("compute", f"Keep the {ceiling} pipe fed",
                  f"At {pct(k.roof.pct_of_roof)} of the {ceiling} ceiling at most {100 / share:.2g}x is left: keep the "
                  f"{ceiling} pipe fed (instruction mix and stall reasons in --section InstructionStats --section "
                  "WarpStateStats); past the ceiling only fewer or cheaper operations help.",
                  f"{ceiling} at {pct(k.roof.pct_of_roof)} of its ceiling", "roofline")


def _fp64(k: LaunchAnalysis) -> list[Advice]:
    """FP64 work on a GPU whose FP64 ceiling is a small fraction of its FP32 one."""
    c = k.ceilings.get(k.roof.ceilings)
    if c is None or k.main_precision != "fp64":
        return []
    fp32, fp64 = c.flop_per_s["fp32"], c.flop_per_s["fp64"]
    if not fp64 or not fp32 or fp32 / fp64 < WEAK_FP64_RATIO:
        return []
    times = fp32 / fp64
    return [Advice("precision", "Use FP32 where the accuracy allows",
                   f"Most of its FLOPs are FP64 ({si(k.flops['fp64'].value, 'FLOP')}), and this GPU's FP32 ceiling is "
                   f"{times:.0f}x its FP64 one ({si(fp32, 'FLOP/s')} vs {si(fp64, 'FLOP/s')}): "
                   "use FP32 where the accuracy allows.", f"FP32 ceiling {times:.0f}x the FP64 one", "roofline")]


def _latency(k: LaunchAnalysis) -> list[Advice]:
    """Advice for a kernel below every roof, from its occupancy and grid measurements."""
    o = k.occupancy
    items: list[Advice] = []
    if o is None:
        return items
    if o.waves_per_sm is not None and o.tail_idle_pct is not None and o.tail_idle_pct >= TAIL_IDLE_PCT:
        fix = ("launch more, smaller blocks or run independent kernels concurrently (streams)" if o.waves_per_sm < 1
               else "size the grid to a whole number of waves, or use more, smaller blocks")
        items.append(Advice("waves", "Fill the waves",
                            f"{o.waves_per_sm:.3g} waves per SM leave {o.tail_idle_pct:.0f}% of the block slots idle: "
                            f"{fix}.", f"{o.waves_per_sm:.3g} waves per SM, {o.tail_idle_pct:.0f}% of block slots idle",
                            "occupancy"))
    if o.what_if and o.theoretical_pct is not None:
        limiters = " and ".join(LIMITER_WORDS[x] for x in o.limiters)
        items.append(Advice("occupancy", "Raise the theoretical occupancy",
                            f"Theoretical occupancy is {pct(o.theoretical_pct)}, limited by {limiters}: "
                            f"{o.what_if[-1].text}.",
                            f"theoretical occupancy {pct(o.theoretical_pct)}, limited by {limiters}", "occupancy"))
    if o.gap_pts is not None and o.gap_pts > ACHIEVED_GAP_PTS and not (o.waves_per_sm or 1) < 1:
        items.append(Advice("occupancy", "Balance the work",
                            f"Achieved occupancy {pct(o.achieved_pct)} trails the theoretical {pct(o.theoretical_pct)} "
                            f"by {o.gap_pts:.0f} points: balance the work across warps and blocks.",
                            f"achieved occupancy {o.gap_pts:.0f} points below the theoretical", "occupancy"))
    if not items and k.roof.bound == "latency":
        items.append(Advice("latency", "Find why warps stall",
                            f"Nothing measured here explains the {pct(k.roof.pct_of_roof)} of roof: collect "
                            "--section WarpStateStats --section SchedulerStats to see why warps stall.",
                            f"{pct(k.roof.pct_of_roof)} of roof with no occupancy or wave cause", "roofline"))
    return items
