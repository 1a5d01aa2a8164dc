"""What the warps of one launch wait on (pure): the warp-state stall breakdown and how well the schedulers issue.

Stall reasons come from ``smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`` (WarpStateStats:
cycles a warp spends in that state per issued instruction), else from the PC-sampling counts
``smsp__pcsamp_warps_issue_stalled_<reason>`` (SourceCounters); each reason's share is its part of the sum.
"selected" (the warp is issuing) is not a stall and is left out. Issue slots: ``smsp__issue_active`` (percent
of active cycles a scheduler issued), ``smsp__warps_eligible`` and ``smsp__warps_active`` per scheduler.
``STALL_REASONS`` says what each reason means and the one change it suggests (NVIDIA Nsight Compute Kernel
Profiling Guide, "Warp Scheduler States"; written here in our words).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from roofline.analysis.results import WarpStalls
from roofline.core.model import KernelLaunch
from roofline.ncu import metrics as m

NOT_STALLED = ("selected",)
RATIO_SOURCE = "cycles per issued instruction"
SAMPLES_SOURCE = "PC samples"
STALL_REASONS: Mapping[str, tuple[str, str]] = {  # reason -> (what the warp waits on, the change it suggests)
    "long_scoreboard": ("L1TEX data (global, local, texture loads)",
                        "keep more loads in flight: more resident warps, or more independent loads per thread, "
                        "and stage reused data in shared memory"),
    "short_scoreboard": ("MIO results (shared memory, special functions, shuffles)",
                         "avoid shared-memory bank conflicts and space dependent special-function results apart"),
    "mio_throttle": ("a full MIO queue (shared memory, special functions)",
                     "issue fewer, wider shared-memory accesses (vector types) and fewer special-function "
                     "instructions"),
    "lg_throttle": ("a full local/global memory queue",
                    "issue fewer, wider global accesses (vector loads) and remove local-memory spills"),
    "tex_throttle": ("a full L1TEX (texture) queue",
                     "issue fewer texture/surface fetches per instruction (the L1TEX pipe is saturated)"),
    "barrier": ("sibling warps at a block barrier",
                "balance the work between barriers, or use smaller blocks so fewer warps wait on each barrier"),
    "membar": ("a memory fence", "use fewer fences, each of the narrowest scope that is correct"),
    "math_pipe_throttle": ("a busy math pipe",
                           "move work to a less loaded pipe or to cheaper instructions (the pipe itself is the limit)"),
    "wait": ("a fixed-latency dependency",
             "put more independent instructions between dependent ones (unrolling, instruction-level parallelism)"),
    "not_selected": ("the scheduler picking another eligible warp",
                     "nothing to fix: the issue slot was used; only fewer instructions shorten the kernel"),
    "no_instruction": ("the instruction fetch (cache miss or branch)",
                       "keep the hot loop small (less unrolling and inlining) and avoid jumps into cold code"),
    "no_instructions": ("the instruction fetch (cache miss or branch)",
                        "keep the hot loop small (less unrolling and inlining) and avoid jumps into cold code"),
    "branch_resolving": ("a branch target", "reduce divergent branches (predication, uniform conditions)"),
    "dispatch_stall": ("the dispatcher", "look for register-bank or pipeline conflicts in the SASS of the hot loop"),
    "drain": ("stores draining after EXIT", "write fewer or wider results (vector stores), or do more work per warp"),
    "imc_miss": ("an immediate-constant cache miss",
                 "keep constants in registers, or index constant memory uniformly across the warp"),
    "sleeping": ("a sleep or yield", "spin less (back-off with fewer nanosleep calls)"),
    "gmma": ("warpgroup matrix-multiply (GMMA) results", "overlap MMA with loads (more pipeline stages)"),
    "misc": ("other causes", "look at the source-level stall sampling (--section SourceCounters)"),
}


def diagnose(launch: KernelLaunch) -> WarpStalls:
    """Stall reasons (largest share first) and the issue-slot figures of one launch."""
    missing: dict[str, str] = {}
    reasons, source = _reasons(launch)
    if not reasons:
        nan = any(name.startswith(m.STALL_PREFIX) for name in launch.nan_metrics)
        missing["reasons"] = missing["source"] = (
            "ncu stored NaN for the warp-state stall metrics: it could not measure this launch" if nan
            else f"no warp-state stall metrics ({m.STALL_PREFIX}*): {m.HINT_STALLS}")
    figures = {"issue_active_pct": m.ISSUE_ACTIVE_PCT, "eligible_per_scheduler": m.WARPS_ELIGIBLE,
               "active_per_scheduler": m.WARPS_ACTIVE}
    values = {key: launch.value(metric) for key, metric in figures.items()}
    for key, metric in figures.items():
        if values[key] is None:
            missing[key] = (f"ncu stored NaN for {metric}" if metric in launch.nan_metrics
                            else f"{metric} missing: {m.HINT_STALLS}")
    return WarpStalls(reasons, source, values["issue_active_pct"], values["eligible_per_scheduler"],
                      values["active_per_scheduler"], missing)


@functools.lru_cache(maxsize=64)
def _stall_names(names: tuple[str, ...]) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(reason, metric) of each stall ratio and of each stall sample count among a launch's metric ``names``: the
    launches of a report share their names, so they are searched once."""
    ratios = tuple((name.removeprefix(m.STALL_PREFIX).removesuffix(m.STALL_SUFFIX), name) for name in names
                   if name.startswith(m.STALL_PREFIX) and name.endswith(m.STALL_SUFFIX))
    samples = tuple((name.removeprefix(m.STALL_SAMPLES_PREFIX), name) for name in names
                    if name.startswith(m.STALL_SAMPLES_PREFIX) and not name.endswith("_not_issued"))
    return ratios, samples


def _reasons(launch: KernelLaunch) -> tuple[tuple[tuple[str, float, float], ...], str]:
    """(reason, value, share) for every stall reason with a positive value, from the ratios, else the samples."""
    ratio_names, sample_names = _stall_names(tuple(launch.metrics))
    ratios = {reason: launch.value(name) for reason, name in ratio_names}
    samples = {reason: launch.value(name) for reason, name in sample_names}
    for values, source in ((ratios, RATIO_SOURCE), (samples, SAMPLES_SOURCE)):
        stalls = {r: v for r, v in values.items() if v and v > 0 and r not in NOT_STALLED}
        total = sum(stalls.values())
        if total > 0:
            ranked = sorted(stalls.items(), key=lambda item: -item[1])
            return tuple((r, v, v / total) for r, v in ranked), source
    return (), ""


def describe(reason: str) -> tuple[str, str]:
    """(what the warp waits on, the change it suggests) for a stall reason, named plainly when unknown."""
    return STALL_REASONS.get(reason, (reason.replace("_", " "), "look at the source-level stall sampling "
                                                                  "(--section SourceCounters)"))
