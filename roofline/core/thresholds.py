"""The thresholds of the analysis and the defaults of comparisons and of the regression gate, in one place: the
verdict rule's, the launch costs, the kernel kinds', Tensor Core use, hot spots, the spread across reports, the work
tolerance, the noise statistics' alpha, and diff's thresholds. (Counts of rows or characters a renderer shows are
layout, kept beside the renderer.)
Kept free of imports, so the command line shows them in its help without loading the analysis, and the prose that
states one (advice, help texts) is built from the constant."""

from __future__ import annotations

# The verdict: thresholds of ncu's SOLBottleneck rule (Nsight Compute 2022.3, sections/SpeedOfLight.py:
# balanced_threshold, latency_bound_threshold, no_bound_threshold, waves_threshold; ``analysis.verdict``).
BALANCED_PTS = 10.0  # SM and memory throughputs closer than this (percentage points): balanced
LATENCY_BELOW_PCT = 60.0  # both throughputs below this percent of peak: latency or small grid
HIGH_THROUGHPUT_PCT = 80.0  # either throughput at or above this: bound by that side
FULL_WAVE = 1.0  # fewer waves per SM than this: a small grid
TAIL_NAMED = 0.05  # a tail adding less than this share to its unit's time is named by that unit (many waves)
# The shortest kernel launch ncu measured (gpu__time_duration) among the reports of the shared ncu reports and
# examples/h100: _kernel_agent on the RTX 2070 SUPER (rtx2070super_alife-143launches_basic.ncu-rep), 1.504 us;
# the next ones, on the RTX 4070 Ti, measure 1.70 to 1.82 us. ncu's launch of an (almost) empty kernel costs that much.
# This is a time on the GPU (gpu__time_duration): the least a launch's own run can take; the projection and the time
# model never estimate a launch below it.
LAUNCH_FLOOR_S = 1.5e-6
# The host's cost of issuing one launch (the CPU side of cudaLaunchKernel, launches back to back with no CUDA Graph):
# NVIDIA technical blog "Getting Started with CUDA Graphs", 2019, measures about 3-4 us per short kernel. A time on
# the CPU, a different fact from LAUNCH_FLOOR_S: it is what a launch costs beside its run, the launch-overhead share
# L / (L + d) of advice and compare; it is no bound on the run itself.
LAUNCH_OVERHEAD_S = 4e-6
SPREAD_THRESHOLD_PCT = 10.0  # report --spread-threshold: a kernel's total time differing more across reports: flagged
WORK_TOLERANCE = 0.05  # --work-tolerance 5: FLOPs (or threads) differing more make a pair "different work"
ALPHA = 0.01  # --alpha: the Mann-Whitney U test's level; intervals are 1 - 2 alpha
MAX_WORK_TOLERANCE_PCT = 1e6  # --work-tolerance below it: no tolerance makes every pair the same work
MAX_ALPHA = 0.5  # --alpha below it: intervals of 1 - 2 alpha
# The regression gate's thresholds have upper bounds, so no value switches the gate off: a percent of roof falls
# by at most 100 points, and a kernel more than 11 times slower (1,000 percent) fails whatever the threshold.
MAX_SLOWER_PCT = 1000.0  # --fail-if-slower, --fail-if-total-slower
MAX_ROOF_DROP_PTS = 100.0  # --fail-if-roof-drop, in percentage points
SLOWER_PCT = 10.0  # --fail-if-slower: a kernel slower by more than this fails
# compare/diff: two reports with no kernel in common whose nearest names are less alike than this (difflib's ratio,
# 0..1; 'ampere_sgemm_128x64_nn' and 'kernelUniqueKeys' 0.21, 'gemm_v1' and 'gemm_v2' 0.86) get no --map suggestion
SIMILAR_NAMES = 0.5
# advice: local loads and stores (register spills, per-thread arrays indexed at run time) taking this share or more
# of a kernel's global and local L1 sectors get an item of their own (RTX 3080 hand-written SGEMM: 97%)
LOCAL_SECTORS_SHARE = 0.25
MIN_SHARE_PCT = 1.0  # --min-share: kernels with less of BASE's and NEW's time are not gated on their own
TOTAL_SLOWER_PCT = 5.0  # --fail-if-total-slower: the gated kernels together slower by more than this fail
RANK_OUTLIER_PCT = 10.0  # timeline: an MPI rank whose GPU busy time is this far from the other ranks' median
TIME_RATIO_FLAG = 2.0  # summary --nsys: ncu's time per launch this many times nsys's median (or 1/this): named
L2_RATIO_FLAG = 1.5  # timeline --work: L2 sizes this many times apart: the DRAM bytes ncu measured may not carry over
# The .ncu-rep reader's time limit (``ncu.reader.read_time_limit``, --timeout's default): ncu_report reads 10-20 MB/s
# here, so this leaves a 5-10x margin on large files.
READ_LIMIT_BASE_S = 30.0
READ_LIMIT_S_PER_MIB = 0.5
# Hot spots: a share of warp samples from fewer samples than this is named with its count ("rests on 12 samples"):
# the standard error of a share p from n samples is sqrt(p (1 - p) / n), 9 percentage points at p = 0.5, n = 30
SHOWN_MIN_SHARE = 0.01  # the terminal leaves out estimated advice items under 1% of the kernel's time
THIN_SAMPLES = 30
# Kernel kinds (``analysis.kernel_kind``):
STREAMING_MAX_INTENSITY = 1.0  # FLOP per DRAM byte up to which a kernel streams (elementwise FP32: 1-2 per 8-12 B)
STREAMING_RIDGE_SHARE = 0.1  # a kernel under this share of a high ridge point also streams: no reuse worth tiling
STREAMING_MAX_REUSE = 1.5  # requested bytes per DRAM byte up to which each byte is used about once: streaming
# ... and below which DRAM moves more than twice what the global loads and stores request: most of its traffic is
# not their data (local memory: spills; texture, surface), not one use per byte (A40 julia_frb: 0.11, local memory
# 95% of the L1 sectors; an H200 strided gather, DRAM fetching whole 64-byte pairs of sectors: 0.53, streaming)
STREAMING_MIN_REUSE = 0.5
REDUCTION_WRITE_SHARE = 1.0 / 16.0  # DRAM bytes written over bytes read below which a kernel reduces its input
# Tensor Cores (``analysis.diagnostics.tensor_cores``). A kernel looks like a matrix multiply by instruction mix and
# reuse together when nearly all of its FLOPs are FMAs AND it reuses what it loads at every level, L1 included: the
# FMA share alone is no sign (a linspace is all FMAs), nor is a high FLOP per DRAM byte (stores still in L2).
TENSOR_ACTIVE_PCT = 1.0  # tensor pipe activity (percent of peak) below which a launch does not count as a user
MATMUL_MIN_FMA_SHARE = 0.95  # FMA FLOPs over all FLOPs from which a kernel's mix looks like a matrix multiply
MATMUL_MIN_INTENSITY = 8.0  # FLOP per byte at DRAM, L2 and L1 from which it reuses like one (streaming: 0.1-2)
TENSOR_NO_GAIN_RATIO = 1.05  # a tensor roof under this many times the CUDA-core roof gains nothing
PIPE_BUSY_PCT = 1.0  # an FP pipe below this percent of its peak shows no precision (no FLOPs counted)
# Work (``analysis.work``):
FLOPS_FILL_SHARE = 0.5  # FLOPs under this share of a busy FP pipe's roof: the pipe is busy with other instructions
# Hot spots (``analysis.hotspots``):
HOT_NAMED_SHARE = 0.5  # ``responsible`` names lines until they hold this share of the samples or counts ...
HOT_NAMED_MOST = 3  # ... or this many lines
HOT_MIN_SHIFT_PTS = 0.1  # a line whose share of the samples moved less (percentage points) did not change
# Ceilings (``analysis.roofline``):
ABOVE_CEILING_TOLERANCE = 1.0  # percent above 100 allowed for rounding before a rate is flagged above its ceiling
UNLOCKED_CLOCK_SHARE = 0.98  # a measured SM clock this close to the GPU's maximum ran unlocked (ncu locks to base)
CLOCK_TOLERANCE = 0.03  # an SM clock within this relative distance of the base clock is locked to it
CLOCK_MIN_DURATION_S = 20e-6  # a shorter launch's SM clock reads low (ncu's cycles over a duration that counts
# its start: 0.61-0.78 GHz at 11-13 us on a V100 locked at 1.29 GHz), so it is not judged against the base clock
ROOF_SHOWN_PCT = 0.05  # percent of roof under this prints "0.0%": a limiter among such roofs is named by a fixed order
SAME_ROOF = 0.01  # a launch's roof within 1% of the one shown is the same: its percent of roof moves by under 1%
# Plots (``analysis.view``):
BANDWIDTH_VIEW_SHARE = 0.5  # more of the time than this in FLOP-less kernels: the bandwidth panel is drawn too
# --- Advice and its what-ifs (``analysis.advice``, ``analysis.reconcile``, ``analysis.time_model``, ncu's rules and
# the occupancy diagnosis) ---
SHORT_LAUNCH_S = 5e-6
WEAK_FP64_RATIO = 8.0  # FP32 ceiling over FP64 ceiling from which FP64 is worth questioning
STALL_SHARE_SECOND = 0.25  # a second stall reason is named when it holds at least this share of stall cycles
ONE_ELIGIBLE_WARP = 1.0  # below one eligible warp per scheduler and cycle, issue slots go unused
NEAR_ROOF_PCT = 80.0  # a library GEMM this close to its busiest unit's peak: only a faster data type helps
TENSOR_SHARE_USED = 0.5  # tensor FLOPs over all FLOPs from which a GEMM's math is on the Tensor Cores already
IDLE_LANES_NAMED = 0.9  # thread instructions / 32 under this share of the warp rate: the idle lanes are named
ACHIEVED_GAP_PTS = 10.0  # ncu's AchievedOccupancy rule: a larger gap to theoretical is worth a look
TAIL_IDLE_PCT = 20.0  # ncu's LaunchStatistics rule reports a tail effect from 20% on
MIN_SPEEDUP_PCT = 1.0  # ncu rules estimating less than this speedup are not worth an item
SAME_FLOOR = 1e-3  # a changed floor within this relative distance of the old one is the same floor
