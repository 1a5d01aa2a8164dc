"""Every ncu metric name the tool reads, and every formula that turns them into time, FLOPs, bytes and peaks.

Reports hold the roofline inputs in one of three forms, and each counter is read from the first form
present (see ``counter``):

1. a plain count ``X.sum`` (reports taken with ``--metrics``);
2. a rate per elapsed cycle ``X.sum.per_cycle_elapsed`` (the stock roofline sections), times the unit's
   clock ``unit__cycles_elapsed.avg.per_second`` times the duration;
3. a rate per second ``X.sum.per_second``, times the duration.

Peaks are ``X.sum.peak_sustained`` (units per cycle) times the unit's measured clock, as ncu's roofline
charts compute them. Every function here is pure: it reads a ``KernelLaunch`` and returns a ``Measured``.

Writing a formula (here, in ``analysis.roofline`` or ``analysis.verdict``): write it for one launch, as plain Python
over ``launch.value(name)``. The analysis also runs it once for a whole cohort of launches (``core.cohorts``), where
``launch.value(name)`` is a numpy array, one element per launch, so:
- ``if`` on whether a metric is there (``value is None``), or there and not zero (``nonzero(x)``), or on the sign of
  counts, peaks and clocks (``shared(x == 0)``, ``shared(x > 0)``): the launches of a cohort hold the same metrics,
  and the metrics ``sign_tested`` selects with the same signs, so such a branch goes one way for all of them (a
  branch on the sign of another metric: add it to ``_SIGN_NAMES``);
- a choice between values by their size (a threshold, the larger of two) is per launch: ``where(cond, a, b)`` (texts,
  enums and None too), ``largest``, ``smallest``, ``argmax_key`` and ``at_key``, never ``if x > y``, ``max`` or
  ``min``: ``side = where(sm_pct >= memory_pct, "compute", "memory")``, not ``"compute" if sm_pct >= memory_pct else
  "memory"``; a choice of which metric to read by size is made before, and the cohort split by it
  (``analysis.roofline.tensor_parts``);
- texts hold no per-launch number: return the number, and let the text be made where a launch is shown (what only a
  shown launch needs, an order of units, a note quoting its clock, goes to ``per_launch(fn, ...)``).
``tests/core/test_cohorts.py`` checks on every shared report that each launch's analysis by cohort equals the same
launch analysed alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from roofline.core.cohorts import argmax_key, largest, nonzero, per_launch, shared, whole
from roofline.core.labels import NAMES
from roofline.core.thresholds import CLOCK_MIN_DURATION_S

if TYPE_CHECKING:  # pragma: no cover
    from roofline.core.model import Device, KernelLaunch

# --- Time and clocks --------------------------------------------------------------------------------
DURATION = "gpu__time_duration.sum"  # ns
SM_CYCLES = "sm__cycles_elapsed.avg"
WARP_INST = "inst_executed"  # warp-level SASS instructions executed, as sm__/smsp__ counters (InstructionStats section)
INSTRUCTIONS = f"smsp__{WARP_INST}.sum"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"  # the clock of compute peaks
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"  # the clock of smsp__* per-cycle rates
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
LTS_CLOCK = "lts__cycles_elapsed.avg.per_second"
L1TEX_CLOCK = "l1tex__cycles_elapsed.avg.per_second"
GPC_CLOCK = "gpc__cycles_elapsed.avg.per_second"  # the SMs' clock domain: within 1% of the SM clock in the
# reports of shared/ncu-reps (8% on the T4), and the only clock basic-set reports hold
UNIT_CLOCKS = {"sm": SM_CLOCK, "smsp": SMSP_CLOCK, "dram": DRAM_CLOCK, "lts": LTS_CLOCK, "l1tex": L1TEX_CLOCK}
CLOCK_METRICS = (SM_CLOCK, SMSP_CLOCK, DRAM_CLOCK, LTS_CLOCK, L1TEX_CLOCK, GPC_CLOCK)
# How ncu replayed a launch (profiler attributes, every ncu version of shared/ncu-reps): the passes it ran, and the
# device memory it saved before the first pass and restored before each next one (kernel replay; 0 or absent else)
REPLAYER_PASSES = "profiler__replayer_passes"
REPLAYER_BACKED_UP = "profiler__replayer_bytes_mem_backed_up.sum"
REPLAY_METRICS = (REPLAYER_PASSES, REPLAYER_BACKED_UP)

# --- FLOP counters (thread-level SASS instructions with predicate on) --------------------------------
# (instruction, FLOPs per thread instruction). FMA = 2 FLOPs. Half-precision instructions count as packed
# half2 (2 lanes): HADD2/HMUL2 = 2, HFMA2 = 4, the convention of ncu >= 2025.1, the only one consistent
# with the hfma peak (hfma.peak_sustained x 4 = the datasheet FP16 rate).
FLOP_TERMS: dict[str, tuple[tuple[str, float], ...]] = {
    "fp64": (("dadd", 1.0), ("dmul", 1.0), ("dfma", 2.0)),
    "fp32": (("fadd", 1.0), ("fmul", 1.0), ("ffma", 2.0)),
    "fp16": (("hadd", 2.0), ("hmul", 2.0), ("hfma", 4.0)),
}
FMA_OP = {"fp64": "dfma", "fp32": "ffma", "fp16": "hfma"}


def flop_counter(op: str) -> str:
    """Base name of the thread-instruction counter of one FP instruction (without unit prefix)."""
    return f"sass_thread_inst_executed_op_{op}_pred_on"


# An HFMA2 whose two multiplicands are both the zero register (RZ, -RZ) computes 0 x 0 + c: compilers emit it to
# set or copy a register through the FMA pipe (``HFMA2.MMA R12, -RZ, RZ, 0, 0``), no arithmetic, and ncu counts it
# in hfma. The reader counts the thread executions of such instructions from the per-instruction SASS counts
# (SourceCounters section, ``--set full``) into HFMA_MOVES, a metric of roofline's own (absent without those
# counts); the FP16 FLOPs leave them out.
HFMA_MOVES = "roofline__hfma2_zero_product_thread_inst_executed"
PER_PC_THREAD_INST = "thread_inst_executed_true"  # thread executions (predicate on) per SASS instruction (PC)
PER_OPCODE_THREAD_INST = "sass__thread_inst_executed_true_per_opcode"  # the same summed per opcode ("HFMA2")
HFMA2_OPCODE = "HFMA2"
HINT_HFMA_MOVES = "re-profile with --set full (SourceCounters section) to let roofline exclude them"


# --- Tensor Core counters ---------------------------------------------------------------------------
TENSOR_OPS_PREFIX = "sm__ops_path_tensor_"  # FLOPs (2 per FMA) executed on the tensor path, CC >= 7.5
TENSOR_INST = "inst_executed_pipe_tensor"  # warp instructions issued to the tensor pipe (legacy)
VOLTA_FLOP_PER_TENSOR_INST = 512  # HMMA.884 with FP32 accumulate; exact only on CC 7.0 (NERSC method)
_TENSOR_SRC = re.compile(r"^sm__ops_path_tensor_(?:op_[a-z]+_)?src_(?P<src>[a-z0-9_]+?)(?:_dst_[a-z0-9]+)?"
                         r"(?:_sparsity_(?P<sp>on|off))?$")
FLOAT_TENSOR_TYPES = ("fp64", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4")

# Tensor work counted from the SASS, where a report lacks the ops_path counters (ncu before 2025.1) but holds the
# warp instructions executed per opcode with its modifiers (SourceCounters, --set full). A matrix instruction's
# shape is its first modifier: "16816" = m16n8k16 (PTX ISA, "Matrix shape" of mma: m16n8k{4,8,16,32,64,128,256} and
# m8n8k{4,16,32,128}; the digits after "16" or "8" give n then k), "64x128x16" = m64n128k16 of a warpgroup MMA
# (wgmma, m64nNk{8,16,32,256}). One MMA of shape m x n x k does m x n x k multiply-adds, 2 x m x n x k operations
# (FLOPs or integer ops, the unit of the ops_path counters), and ncu counts a warp-level instruction once per warp:
# an HMMA/IMMA/DMMA/BMMA is one warp's MMA; a warpgroup MMA (HGMMA, IGMMA, QGMMA, BGMMA) is executed by each of the
# warpgroup's 4 warps, so a quarter of its operations per warp instruction (on the H100 report of examples/h100,
# torch-bf16.full: 2,097,152 HGMMA.64x128x16.F32.BF16 x 65,536 = sm__ops_path_tensor_src_bf16_dst_fp32.sum
# exactly, tests/ncu/test_tensor_sass.py). The source type: DMMA FP64; IMMA S8/U8 INT8, S4/U4 INT4; BMMA and BGMMA
# INT1; IGMMA INT8; QGMMA FP8; HMMA and HGMMA name their accumulator then, where it is not FP16, the input type
# (BF16, TF32, E4M3/E5M2 = FP8). Not counted (the whole launch left to the counters): Volta's HMMA.884, whose
# operations per instruction depend on its STEP sequence; sparse MMA (.SP), whose operations ncu counts otherwise;
# Blackwell's UTC*MMA (tcgen05.mma, issued by one thread, its shape in a descriptor, not in the SASS).
# warp instructions executed per opcode with its modifiers ("HMMA.16816.F32", SourceCounters, ncu 2020.3 on)
PER_OPCODE_WARP_INST = "sass__inst_executed_per_opcode_with_modifier_all"
MMA_OPCODES = {"HMMA": 1, "IMMA": 1, "DMMA": 1, "BMMA": 1, "HGMMA": 4, "IGMMA": 4, "QGMMA": 4, "BGMMA": 4}  # -> warps
UNCOUNTED_MMA = re.compile(r"^UTC\w*MMA$|^OMMA$")  # matrix opcodes the SASS count cannot size
_MMA_INPUTS = {"F16": "fp16", "BF16": "bf16", "TF32": "tf32", "E4M3": "fp8", "E5M2": "fp8", "S8": "int8",
               "U8": "int8", "S4": "int4", "U4": "int4", "B1": "int1"}
_MMA_FIXED = {"DMMA": "fp64", "BMMA": "int1", "BGMMA": "int1", "IGMMA": "int8", "QGMMA": "fp8"}
SASS_TENSOR_TYPES = ("fp16", "bf16", "tf32", "fp8", "fp64", "int8", "int4", "int1")
SASS_TENSOR_OPS = "roofline__sass_tensor_ops_{}"  # roofline's own metric: operations of one type, from the SASS
SASS_TENSOR_METRICS = tuple(SASS_TENSOR_OPS.format(t) for t in SASS_TENSOR_TYPES)
SASS_MMA_INST = "roofline__sass_mma_warp_inst_executed"  # roofline's own: matrix instructions of any kind executed
# Where a launch's tensor work comes from (``tensor_work_source``): the ops_path counters, the SASS, Volta's
# 512 FLOP per tensor instruction, or (integer MMA only) the IMMA pipe's busy share; "" where nothing counts it
TENSOR_FROM_COUNTERS, TENSOR_FROM_SASS, TENSOR_FROM_VOLTA, TENSOR_FROM_PIPE = "counters", "sass", "volta_512", "pipe"
HINT_TENSOR_SASS = ("re-profile with --set full (SourceCounters: roofline counts the MMA instructions of the SASS), "
                    "or with --set roofline or --set full of ncu 2025.1 or newer (its Tensor FLOP counters)")


def mma_shape(shape: str) -> tuple[int, int, int] | None:
    """m, n, k of a matrix instruction's shape modifier ("16816" -> (16, 8, 16), "64x128x16" -> (64, 128, 16));
    None for anything else."""
    if shape.count("x") == 2 and shape.replace("x", "").isdigit():
        m, n, k = (int(x) for x in shape.split("x"))
        return m, n, k
    if not shape.isdigit() or len(shape) < 3:
        return None
    return (16, 8, int(shape[3:])) if shape.startswith("16") else (8, 8, int(shape[2:]))


def mma_ops(opcode_with_modifiers: str) -> tuple[str, float] | None:
    """(source type, operations per warp-level instruction) of a counted matrix instruction ("HMMA.16816.F32.BF16"
    -> ("bf16", 4096.0)); None where it is none or cannot be sized (see ``MMA_OPCODES``)."""
    base, *modifiers = opcode_with_modifiers.split(".")
    warps = MMA_OPCODES.get(base)
    shape = mma_shape(modifiers[0]) if modifiers and warps else None
    if warps is None or shape is None or "SP" in modifiers or (base == "HMMA" and modifiers[0] == "884"):
        return None
    if base in _MMA_FIXED:
        dtype = _MMA_FIXED[base]
    elif base == "IMMA":
        dtype = next((_MMA_INPUTS[x] for x in modifiers[1:] if x in _MMA_INPUTS), "int8")
    else:  # HMMA, HGMMA: the accumulator, then the input type where it is not FP16
        dtype = next((_MMA_INPUTS[x] for x in modifiers[2:] if x in _MMA_INPUTS), "fp16")
    m, n, k = shape
    return dtype, 2.0 * m * n * k / warps


# --- Throughputs (SpeedOfLight section, in every --set) -----------------------------------------------
SM_THROUGHPUT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"  # busiest SM unit, percent of its peak
MEMORY_THROUGHPUT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"  # busiest memory unit
# "breakdown:<throughput>" lists, comma separated, the unit metrics (percent of their peak) the throughput is
# the maximum of; the reader reads the units these two list.
BREAKDOWNS = ("breakdown:" + SM_THROUGHPUT, "breakdown:" + MEMORY_THROUGHPUT)
WAVES = "launch__waves_per_multiprocessor"
# Breakdown entries named ..._internal_activity are ncu's aggregates of other units (the SM's instruction
# throughput, the memory system's access throughput), not units of their own.
INTERNAL_ACTIVITY = "_internal_activity"
FP64_PIPE = "sm__pipe_fp64_cycles_active"  # the FP64 pipe's unit in the SM breakdown (prefix of its metric)
ISSUE_SLOTS = "sm__issue_active"  # the issue slots' unit in the SM breakdown (prefix of its metric)
# The Speed of Light table of ncu's details page (SpeedOfLight section, every --set): each unit's throughput in
# percent of its peak, as ncu shows it
SOL_UNITS = {"sm": SM_THROUGHPUT, "memory": MEMORY_THROUGHPUT,
             "dram": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
             "l1": "l1tex__throughput.avg.pct_of_peak_sustained_active",
             "l2": "lts__throughput.avg.pct_of_peak_sustained_elapsed"}

HINT_THROUGHPUT = "re-profile with --section SpeedOfLight (part of every --set, the default one included)"

# --- Warp states and issue (WarpStateStats, SchedulerStats, SourceCounters sections) -------------------
STALL_PREFIX = "smsp__average_warps_issue_stalled_"  # + reason + STALL_SUFFIX: cycles stalled per issued instr.
STALL_SUFFIX = "_per_issue_active.ratio"
STALL_SAMPLES_PREFIX = "smsp__pcsamp_warps_issue_stalled_"  # + reason: PC samples of warps in that state
ISSUE_ACTIVE_PCT = "smsp__issue_active.avg.pct_of_peak_sustained_active"  # issue slots used while active
WARPS_ELIGIBLE = "smsp__warps_eligible.avg.per_cycle_active"  # warps ready to issue, per scheduler and cycle
WARPS_ACTIVE = "smsp__warps_active.avg.per_cycle_active"  # resident warps per scheduler
HINT_STALLS = "re-profile with --section WarpStateStats --section SchedulerStats"

# --- Per-instruction counters (SourceCounters section: one instance per PC) ----------------------------------
PC_SAMPLES = "smsp__pcsamp_sample_count"  # warp samples per PC; its plain value is the launch's total
PC_INST_EXECUTED = "inst_executed"  # warp instructions executed per PC
PC_THREAD_INST_EXECUTED = "thread_inst_executed"  # thread instructions executed per PC
FUNCTION_PCS = "launch__function_pcs"  # the start address of each function the launch ran
# Stall reasons of a warp waiting on a register another instruction produces (ncu's reason names): a variable-
# latency result (long: global/local memory, texture; short: shared memory, special functions) or a fixed one (wait)
DEPENDENCY_STALLS = ("long_scoreboard", "short_scoreboard", "wait")
SASS_INSTRUCTION_BYTES = 16  # every SASS instruction is 16 bytes from Volta (CC 7.0) on
PRODUCER_WINDOW = 256  # instructions read back from a waiting one for the producer of its operands
# Per-PC memory and branch counters, where the report holds them (ncu's names; 2020.3 had the sectors forms)
PC_SHARED_EXCESS = ("derived__memory_l1_wavefronts_shared_excessive", "derived__memory_l1_sectors_shared_excessive")
PC_GLOBAL_EXCESS = ("derived__memory_l2_theoretical_sectors_global_excessive",
                    "derived__memory_l2_sectors_global_excessive")
PC_DIVERGENT = "smsp__branch_targets_threads_divergent"
PC_MEMORY = (*PC_SHARED_EXCESS, *PC_GLOBAL_EXCESS, PC_DIVERGENT)
HINT_PC_SAMPLES = "re-profile with --section SourceCounters (part of --set full)"
HINT_LINEINFO = ("the binary has no line information: compile with -lineinfo (nvcc; PyTorch extensions: "
                 "extra_cuda_cflags=['-lineinfo']; CuPy: options=('-lineinfo',); Numba: @cuda.jit(lineinfo=True); "
                 "Triton emits it unless TRITON_DISABLE_LINE_INFO=1)")

# --- Memory traffic ---------------------------------------------------------------------------------
DRAM_BYTES = "dram__bytes"
DRAM_READ_WRITE = ("dram__bytes_read", "dram__bytes_write")
LTS_T_BYTES = "lts__t_bytes"  # L2 tag-stage requests from every source (NERSC, ncu <= 2022.3)
LTS2XBAR_CYCLES = "lts__lts2xbar_cycles_active"  # L2 -> crossbar, 32 B per active cycle (ncu >= 2025.1)
XBAR2L1TEX_READ = "l1tex__m_xbar2l1tex_read_bytes"  # L2 -> L1 reads only (ncu 2023.x/2024.x sections)
L1TEX_T_BYTES = "l1tex__t_bytes"  # L1 tag-stage requests, LSU + TEX (NERSC, ncu <= 2022.3)
LSU_WRITEBACK = {  # L1 -> register writeback, 128 B per active cycle (ncu >= 2023.1), by compute capability
    "mem_lgds": "l1tex__lsu_writeback_active_mem_lgds",  # CC >= 9.0 (adds distributed shared memory)
    "mem_lg": "l1tex__lsu_writeback_active_mem_lg",  # CC 7.5 - 8.9
    "all": "l1tex__lsu_writeback_active",  # CC <= 7.2
}
LTS_T_SECTORS = "lts__t_sectors"  # L2 tag-stage sectors from every source, loads and stores (all L2 traffic)
L2_SM_SECTORS = "lts__t_sectors_srcunit_tex"  # L2 sectors the SMs' L1 requested: reads, writes, atomics, reductions
L2_ALL_DEFINITION = ("lts__t_sectors_srcunit_tex: all L2 traffic the SMs requested (loads, stores, atomics, "
                     "reductions), 32 B sectors")
L1_SECTORS_ALL = tuple(f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}" for space, ops
                       in (("global", ("ld", "st", "atom", "red")), ("local", ("ld", "st"))) for op in ops)
L1_ALL_DEFINITION = ("l1tex__t_sectors global+local ld/st/atom/red: all L1 traffic (loads, stores, atomics), "
                     "32 B sectors")
BYTES_PER_SECTOR = 32
BYTES_PER_LTS2XBAR_CYCLE = 32
BYTES_PER_LSU_WRITEBACK_CYCLE = 128

# --- Instruction roofline (Ding & Williams, the Instruction Roofline Model) -----------------------------
# Counters without their unit prefix, read as sm__ or smsp__ (``counter``); 32-byte transactions per memory level.
THREAD_INST = "thread_inst_executed"  # thread-level: the active threads of each warp instruction (--metrics only)
THREADS_PER_WARP_INST = "smsp__thread_inst_executed_per_inst_executed.ratio"  # the same per warp instruction
# (WarpStateStats section: "Avg. Active Threads Per Warp")
THREADS_PER_WARP = 32
ACCESS_OPS = ("ld", "st")
L1_SECTOR = "l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}"  # 32-byte sectors at L1 of one space and operation
L1_SECTORS = tuple(L1_SECTOR.format(space=space, op=op) for space in ("global", "local") for op in ACCESS_OPS)
SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared"  # shared-memory wavefronts (loads, stores, atomics)
DRAM_SECTORS = ("dram__sectors_read", "dram__sectors_write")
SCHEDULERS_PER_SM = "num_schedulers_per_multiprocessor"  # device attributes (without device__attribute_)
IPC_PER_SCHEDULER = "max_ipc_per_scheduler"
# The walls of the model: warp-level instructions and 32-byte transactions per kind of access. L1 requests of global
# accesses are one per warp-level instruction on Volta and later (LDGSTS included, as in the sectors). Shared loads
# count LDSM (ldmatrix) too, as their wavefronts do. The shared instruction counts are in the memory tables from
# ncu 2022.4 on (not in the 2020.3 and 2022.2 full sets).
GLOBAL_REQUESTS = {op: f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}" for op in ACCESS_OPS}
GLOBAL_SECTORS = {op: L1_SECTOR.format(space="global", op=op) for op in ACCESS_OPS}
# The bytes of each 32-byte sector a global access used, on average: ncu's MemoryWorkloadAnalysis_Tables give it as
# a percentage (.pct, ncu 2022) or as bytes per sector against their maximum (.ratio / .max_rate, ncu 2023 on).
SECTOR_USE = {op: f"smsp__sass_average_data_bytes_per_sector_mem_global_op_{op}" for op in ACCESS_OPS}
SECTOR_USE_FORMS = ("pct", "ratio", "max_rate")
SHARED_INST = {"ld": ("smsp__sass_inst_executed_op_shared_ld", "smsp__inst_executed_op_ldsm"),
               "st": ("smsp__sass_inst_executed_op_shared_st",)}
SHARED_OP_WAVEFRONTS = {op: f"{SHARED_WAVEFRONTS}_op_{op}" for op in ACCESS_OPS}
# The bytes each thread of a load or store moves, from the opcode's modifiers in the SASS (PER_OPCODE_WARP_INST,
# SourceCounters): "LDG.E.128" 16, ".64" 8, ".U16"/".S16" 2, ".U8"/".S8" 1, ".256" 32 (CC 10.0 on), else one 4-byte
# word. Global: LDG, STG, LDGSTS (in the ld requests) and the generic LD, ST (ncu counts those that reach global
# memory as global requests); shared: LDS, STS, and LDSM/STSM, whose ".x1/.x2/.x4" (the last modifier,
# "LDSM.16.M88.4") moves 4 bytes a thread per 8x8 16-bit matrix. The reader sums the warp instructions of each space,
# operation and width into ACCESS_WIDTH_INST, metrics of its own; the instruction roofline's walls follow the width
# (analysis.instructions).
ACCESS_OPCODES = {"LDG": ("global", "ld"), "LDGSTS": ("global", "ld"), "LD": ("global", "ld"),
                  "STG": ("global", "st"), "ST": ("global", "st"), "LDS": ("shared", "ld"),
                  "LDSM": ("shared", "ld"), "STS": ("shared", "st"), "STSM": ("shared", "st")}
_WIDTH_MODIFIERS = {"256": 32, "128": 16, "64": 8, "U16": 2, "S16": 2, "U8": 1, "S8": 1}
ACCESS_WIDTHS = (1, 2, 4, 8, 16, 32)  # bytes per thread
ACCESS_WIDTH_INST = "roofline__sass_{space}_{op}_{width}b_inst_executed"  # warp instructions of one kind and width
ACCESS_WIDTH_METRICS = tuple(ACCESS_WIDTH_INST.format(space=s, op=op, width=w) for s in ("global", "shared")
                             for op in ACCESS_OPS for w in ACCESS_WIDTHS)


def access_width(opcode_with_modifiers: str) -> tuple[str, str, int] | None:
    """(memory space, operation, bytes per thread) of a global or shared load or store ("LDG.E.128.CONSTANT" ->
    ("global", "ld", 16)); None for any other instruction."""
    base, *modifiers = opcode_with_modifiers.split(".")
    kind = ACCESS_OPCODES.get(base)
    if kind is None:
        return None
    if base in ("LDSM", "STSM"):
        count = modifiers[-1] if modifiers else ""
        return *kind, 4 * int(count) if count in ("1", "2", "4") else 4
    return *kind, next((_WIDTH_MODIFIERS[x] for x in modifiers if x in _WIDTH_MODIFIERS), 4)


# The model's transactions per level (Ding & Williams, the Instruction Roofline scripts' ``irf_metrics``):
# L1 = global and local load and store sectors + shared load and store wavefronts (not every shared wavefront:
#      SHARED_WAVEFRONTS also counts atomics and the rest, which the definition leaves out);
# L2 = the L2 read and write sectors the SMs requested (srcunit_tex), atomics and reductions counted as a read and a
#      write each: read + write + 2 x (atom + red); not lts__t_sectors, which adds the copies between L2 partitions
#      (srcunit_ltcfabric, A100 and Hopper) and other sources;
# DRAM = sectors read + written.
L2_SM_SECTOR = "lts__t_sectors_srcunit_tex_op_{op}"  # L2 sectors the SMs' L1 requested, by operation
L2_SM_READ_WRITE = tuple(L2_SM_SECTOR.format(op=op) for op in ("read", "write"))
L2_SM_ATOM = L2_SM_SECTOR.format(op="atom")  # ncu may store it as its two kinds, ALU and CAS atomics
L2_SM_ATOM_KINDS = tuple(L2_SM_SECTOR.format(op=f"atom_dot_{kind}") for kind in ("alu", "cas"))
L2_SM_RED = L2_SM_SECTOR.format(op="red")
L1_DEFINITION = "global/local ld+st sectors + shared ld+st wavefronts (Ding & Williams)"
L2_DEFINITION = "SM-requested L2 sectors: read + write + 2 x (atom + red) (Ding & Williams)"
DRAM_DEFINITION = "DRAM sectors read + written"
HINT_SHARED_INST = "re-profile with --section MemoryWorkloadAnalysis_Tables (ncu 2022.4 or later) or --set full"
HINT_INSTRUCTIONS = "re-profile with --section InstructionStats or --set full"
HINT_THREAD_INST = "re-profile with --section WarpStateStats --section InstructionStats or --set full"
HINT_TRANSACTIONS = "re-profile with --section MemoryWorkloadAnalysis_Tables or --set full"

# --- The memory picture (Memory Workload Analysis: ncu's memory chart and tables) --------------------------
L1_HIT_RATE = "l1tex__t_sector_hit_rate.pct"  # L1 sector hits / lookups, every operation
L2_HIT_RATE = "lts__t_sector_hit_rate.pct"  # L2 sector hits / lookups, every source
HIT_RATES = {"l1": L1_HIT_RATE, "l2": L2_HIT_RATE}
L2_TO_L1_READ = XBAR2L1TEX_READ  # bytes L1 read from L2 (the chart's L2 -> L1 edge)
L1_TO_L2_WRITE = "l1tex__m_l1tex2xbar_write_bytes"  # bytes L1 wrote to L2 (stores, atomics, reductions)
# edge of the chart -> (counter, definition); each in bytes but the shared one, in wavefronts
MEMORY_EDGES = {
    "kernel_l1_bytes": ("", "32 x global+local sectors of every operation at L1 (the kernel's requests)"),
    "kernel_shared_wavefronts": ("", "shared-memory load + store wavefronts"),
    "l2_to_l1_bytes": (L2_TO_L1_READ, "bytes L1 read from L2"),
    "l1_to_l2_bytes": (L1_TO_L2_WRITE, "bytes L1 wrote to L2"),
    "dram_to_l2_bytes": (DRAM_READ_WRITE[0], "bytes read from device memory"),
    "l2_to_dram_bytes": (DRAM_READ_WRITE[1], "bytes written to device memory"),
}
HINT_MEMORY = ("re-profile with --section MemoryWorkloadAnalysis_Chart --section MemoryWorkloadAnalysis_Tables "
               "or --set full")
# The L2 hit rate per operation, as ncu's L2 table shows it: loads and stores apart. Their mix explains an L2 hit
# rate near or above 100%: stores hit by construction (the L2 takes written sectors without reading them from DRAM;
# the write rate is 99.99-100.13% in every shared report that holds it) and ncu's hits and lookups come from
# separate replay passes, never clamped (ncu's Profiling Guide, "Range and Precision"). The full sets of ncu 2024.1
# and later hold them (T4, A100, H100, GTX 1660 SUPER reports of shared/ncu-reps), those of 2020.3-2023.3 do not.
L2_OP_HIT_RATES = {"read": "lts__t_sector_op_read_hit_rate.pct", "write": "lts__t_sector_op_write_hit_rate.pct"}
HINT_L2_OP_HIT = "re-profile with --set full (MemoryWorkloadAnalysis_Tables) of ncu 2024.1 or later"
# Each edge's throughput in percent of that path's peak over the elapsed cycles, the measure by which ncu's memory
# chart colours its links: the edge counters' own ``.sum.pct_of_peak_sustained_elapsed`` (the "% Peak" of ncu's
# memory tables; full sets), summed where the edge sums counters of one peak (shared loads + stores). For DRAM it is
# bytes / (dram__bytes.sum.peak_sustained x DRAM clock x duration); for shared memory wavefronts / (1 per SM and L1
# cycle); L2 <-> L1: 32 B per SM and L1 cycle each way (64 B for reads on A100, 128 B on H100), all checked on the
# shared reports (tests/analysis/test_memory.py). ncu keeps no percent of peak for the kernel's L1 sectors: that
# unit's load is the Speed of Light's L1/TEX percent (SOL_UNITS["l1"]).
PCT_OF_PEAK_ELAPSED = ".sum.pct_of_peak_sustained_elapsed"
EDGE_PCT = {**{edge: (name + PCT_OF_PEAK_ELAPSED,) for edge, (name, _) in MEMORY_EDGES.items() if name},
            "kernel_shared_wavefronts": tuple(n + PCT_OF_PEAK_ELAPSED for n in SHARED_OP_WAVEFRONTS.values())}
NO_L1_SECTOR_PCT = ("ncu keeps no percent of peak for the kernel's L1 sectors; the L1/TEX unit's load is the Speed "
                    "of Light's L1 percent (sol_pct.l1)")


def hit_rate(launch: KernelLaunch, level: str) -> Measured:
    """ncu's sector hit rate of L1 or L2, in percent."""
    name = HIT_RATES[level]
    value = launch.value(name)
    if value is not None:
        return Measured(value, via=name)
    return _nan_absent(launch, [name], [name], HINT_MEMORY)


def l2_hit_rates_by_op(launch: KernelLaunch) -> dict[str, Measured]:
    """ncu's L2 sector hit rate of loads ("read") and of stores ("write"), in percent (``L2_OP_HIT_RATES``)."""
    out = {}
    for op, name in L2_OP_HIT_RATES.items():
        value = launch.value(name)
        out[op] = Measured(value, via=name) if value is not None else _nan_absent(launch, [name], [name],
                                                                                  HINT_L2_OP_HIT)
    return out


def edge_pcts(launch: KernelLaunch) -> dict[str, Measured]:
    """Each edge of the memory chart in percent of its path's peak (``EDGE_PCT``); the kernel's L1 edge None."""
    out = {"kernel_l1_bytes": Measured(None, via=NO_L1_SECTOR_PCT)}
    for edge, names in EDGE_PCT.items():
        values = [launch.value(name) for name in names]
        absent = [name for name, v in zip(names, values, strict=True) if v is None]
        out[edge] = (_nan_absent(launch, absent, absent, HINT_MEMORY) if absent
                     else Measured(sum(v for v in values if v is not None), via=" + ".join(names)))
    return {edge: out[edge] for edge in MEMORY_EDGES}


def speed_of_light(launch: KernelLaunch) -> dict[str, Measured]:
    """ncu's Speed of Light percentages of one launch (``SOL_UNITS``); None naming the metric where absent."""
    out = {}
    for unit, name in SOL_UNITS.items():
        value = launch.value(name)
        out[unit] = Measured(value, via=name) if value is not None else _nan_absent(launch, [name], [name],
                                                                                    HINT_THROUGHPUT)
    return out


def memory_edges(launch: KernelLaunch) -> dict[str, Measured]:
    """The traffic between kernel, L1, shared memory, L2 and DRAM (``MEMORY_EDGES``), as ncu's memory chart shows
    it; each None naming the metric the report lacks."""
    out = {"kernel_l1_bytes": _with_hint(_scaled_sum(l1_sectors_all(launch), BYTES_PER_SECTOR), HINT_MEMORY),
           "kernel_shared_wavefronts": _sum_of(launch, SHARED_OP_WAVEFRONTS.values(), HINT_MEMORY)}
    for edge, (name, _what) in MEMORY_EDGES.items():
        if name:
            out[edge] = _with_hint(counter(launch, name), HINT_MEMORY)
    return out


# --- Integer roofline -----------------------------------------------------------------------------------
# Thread-level integer instructions with predicate on, read as sm__ or smsp__. No stock section collects them (the
# full sets of ncu 2020.3 to 2025.1 hold the pipe counters only as percent of peak, never as counts).
INTEGER_INST = flop_counter("integer")
# Full sets hold no integer count, but their SourceCounters section counts thread instructions (predicate on) per
# opcode (PER_OPCODE_THREAD_INST). The reader sums the integer opcodes into INTEGER_OPCODE_INST, roofline's own
# metric: the integer instructions of the CUDA Binary Utilities' instruction set reference ("Integer Instructions",
# uniform-datapath U* opcodes excluded). The sum equals ncu's own op_integer_pred_on count exactly on the three
# launches of examples/h200 that hold both (SHF, LOP3, IMAD, IADD3, ISETP, VIADD, LEA counted; MOV, I2F, F2I, LDC,
# S2R, UIADD3 and ULEA not), tests/ncu/test_integer_opcodes.py.
INTEGER_OPCODES = frozenset({"BMSK", "BREV", "FLO", "IABS", "IADD", "IADD3", "IADD32I", "IDP", "IDP4A", "IMAD",
                             "IMNMX", "IMUL", "IMUL32I", "ISCADD", "ISCADD32I", "ISETP", "LEA", "LOP", "LOP3",
                             "LOP32I", "POPC", "SHF", "SHL", "SHR", "VABSDIFF", "VABSDIFF4", "VIADD", "VIADDMNMX",
                             "VIMNMX", "VIMNMX3"})
INTEGER_OPCODE_INST = "roofline__integer_thread_inst_executed_true"
# the reader's own metrics (not ncu's)
OWN_METRICS = (HFMA_MOVES, INTEGER_OPCODE_INST, SASS_MMA_INST, *SASS_TENSOR_METRICS, *ACCESS_WIDTH_METRICS)
# The integer pipe: the ALU pipe issues integer and logic instructions except multiplies (IMAD and IMUL go to the
# FMA pipe, FMA-heavy from CC 8.6). Its peak is its .sum.peak_sustained where the report holds it; else ncu's own
# percent of it: count / (pct_of_peak_sustained_active / 100 x SM active cycles) is the peak per cycle (2 warp
# instructions per SM and cycle in the H200 report of examples/h200, as the datasheet's 64 INT32 lanes per SM say).
INTEGER_PIPE = "sm__inst_executed_pipe_alu"
INTEGER_PIPE_PCT = f"{INTEGER_PIPE}.sum.pct_of_peak_sustained_active"
SM_ACTIVE_CYCLES = "sm__cycles_active.avg"
HINT_INTEGER = f"re-profile with --set full (SourceCounters section) or --metrics smsp__{INTEGER_INST}.sum"
HINT_INTEGER_PEAK = f"re-profile with --set full --metrics {INTEGER_PIPE}.sum"

# --- What to re-collect when something is missing ---------------------------------------------------
HINT_FLOPS = "re-profile with --set roofline or --set full"
HINT_FP16 = "re-profile with --set roofline (hierarchical half-precision chart)"
HINT_TENSOR = "re-profile with ncu 2025.1 or newer and --set roofline or --set full"
HINT_DRAM = "re-profile with --set roofline or --set full"
HINT_CACHE = "re-profile with --set roofline (hierarchical roofline sections)"
HINT_TIME = "re-profile with any --set (gpu__time_duration is in every stock section)"
HINT_NAN = "profile this kernel again (alone with -k, or with --replay-mode application)"
MISSING_METRICS = "missing metrics: "  # a reason of metrics the report lacks: this, their names, "; ", the hint
COLLECT_HINTS = tuple(dict.fromkeys((HINT_FLOPS, HINT_FP16, HINT_TENSOR, HINT_TENSOR_SASS, HINT_DRAM, HINT_CACHE,
                                     HINT_TIME)))


class FlopNoteKind(Enum):
    """What a note on a precision's FLOPs says, as data (the renderers' prose writes the sentence): a counter left
    out (``FlopNote.op``), FP16 FLOPs from HFMA2s alone that may hold register moves (the moves not countable),
    zero-product HFMA2 moves left out (``FlopNote.flops`` of ``FlopNote.moves``), Volta's fixed FLOPs per HMMA."""

    COUNTER_ABSENT = "counter absent"
    HFMA_MOVES_UNCOUNTED = "hfma moves uncounted"
    HFMA_MOVES_LEFT_OUT = "hfma moves left out"
    VOLTA_TENSOR = "volta tensor"


class FlopNote(NamedTuple):
    """A note on how one precision's FLOPs were counted: its kind, the precision ("fp16", "tensor") and the facts
    the note needs (the operation left out; the FLOPs and instructions of the moves left out)."""

    kind: FlopNoteKind
    precision: str
    op: str = ""
    flops: float = 0.0
    moves: float = 0.0


class Measured(NamedTuple):
    """A derived quantity: its value (None when the report cannot support it), how it was obtained
    (``via``, naming the metrics and definition) and, when None, the missing metrics and the fix; ``notes``, what
    its count leaves out or assumes."""

    value: float | None
    via: str = ""
    missing: tuple[str, ...] = ()
    hint: str = ""
    notes: tuple[FlopNote, ...] = ()

    @property
    def reason(self) -> str:
        """One line saying why the value is absent (empty when present)."""
        if self.value is not None:
            return ""
        what = self.via or (MISSING_METRICS + ", ".join(self.missing) if self.missing else "not measured")
        return f"{what}; {self.hint}" if self.hint else what


def _absent(missing: Iterable[str], hint: str, via: str = "") -> Measured:
    """No value: the metrics missing (each once), the option that collects them, or why (``via``)."""
    return _absent_of(tuple(missing), hint, via)


@functools.lru_cache(maxsize=4096)  # every launch of a report lacks the same metrics
def _absent_of(missing: tuple[str, ...], hint: str, via: str) -> Measured:
    return Measured(None, via=via, missing=tuple(dict.fromkeys(missing)), hint=hint)


# Metrics that describe the launch or the device rather than count what it did: a launch holding only these was not
# measured by ncu at all.
ATTRIBUTE_PREFIXES = ("launch__", "device__", "profiler__", "numa__", "nvlink__")
UNMEASURED = ("not measured: ncu collected no counters for it (a launch that failed, e.g. with a launch error, or "
              "one ncu could not replay), so no --set would add them")


def measured_nothing(launch: KernelLaunch) -> bool:
    """Whether ncu recorded no counter for the launch, only its launch and device attributes."""
    return not any("__" in name and not name.startswith(ATTRIBUTE_PREFIXES) for name in launch.metrics)


def _nan_absent(launch: KernelLaunch, names: Iterable[str], missing: Iterable[str], hint: str) -> Measured:
    """Absent value; when ncu stored NaN (it could not measure the launch) say so instead of 'missing'."""
    nan = sorted(set(names) & launch.nan_metrics) if launch.nan_metrics else ()
    if nan:
        return Measured(None, via=f"ncu stored NaN for {nan[0]}: it could not measure this launch", hint=HINT_NAN)
    return _absent(missing, hint)


def duration_s(launch: KernelLaunch) -> Measured:
    """Kernel duration in seconds: gpu__time_duration.sum, else SM elapsed cycles / SM clock."""
    ns = launch.value(DURATION)
    if ns is not None:
        return Measured(ns * 1e-9, via=DURATION)
    cycles, clock = launch.value(SM_CYCLES), launch.value(SM_CLOCK)
    if cycles is not None and nonzero(clock):
        return Measured(cycles / clock, via=f"{SM_CYCLES} / {SM_CLOCK}")
    return _nan_absent(launch, [DURATION], [DURATION], HINT_TIME)


def sm_clock_hz(launch: KernelLaunch) -> Measured:
    """The SM clock the launch ran at: the SM clock, else the GPC clock (basic sets hold only that one),
    else SM elapsed cycles over the duration."""
    for name in (SM_CLOCK, GPC_CLOCK):
        clock = launch.value(name)
        if nonzero(clock):
            return Measured(clock, via=name)
    cycles, ns = launch.value(SM_CYCLES), launch.value(DURATION)
    if nonzero(cycles) and nonzero(ns):
        return Measured(cycles / (ns * 1e-9), via=f"{SM_CYCLES} / {DURATION}")
    return _nan_absent(launch, [SM_CLOCK, GPC_CLOCK], [SM_CLOCK, GPC_CLOCK], HINT_TIME)


def clock_read(launch: KernelLaunch) -> bool:
    """Whether ``sm_clock_hz`` read the launch's clock from a clock metric (not SM cycles over the duration)."""
    return sm_clock_hz(launch).via in (SM_CLOCK, GPC_CLOCK)


def too_short_for_clock(seconds: float | None) -> bool:
    """Whether a launch of ``seconds`` is too short for its SM clock to be judged against base (under
    CLOCK_MIN_DURATION_S: ncu reads it low, the duration counting the launch's start); unknown: not."""
    return seconds is not None and seconds < CLOCK_MIN_DURATION_S


def clock_judged(launch: KernelLaunch) -> bool:
    """Whether one launch's SM clock can be judged against the base clock: read from a clock metric (SM cycles over
    the duration read it low too), over a launch not ``too_short_for_clock``."""
    return clock_read(launch) and not too_short_for_clock(duration_s(launch).value)


COUNT_FORMS = (".sum", ".sum.per_cycle_elapsed", ".sum.per_second")  # the forms ``counter`` reads, in its order


def counter(launch: KernelLaunch, name: str, units: tuple[str, ...] = ("",)) -> Measured:
    """Total count of ``name`` over the launch from a plain count, a per-cycle rate or a per-second rate.

    ``units`` lists unit prefixes to try in front of ``name`` (e.g. ("sm__", "smsp__"): both give the
    same ``.sum``). The per-cycle form needs that unit's clock; both rate forms need the duration.
    """
    forms = _count_forms(name, units)
    if launch.metrics.keys().isdisjoint(forms):  # the common case of a basic set: none of them, found in one look
        return _no_count(launch, forms, units[-1] + name)
    full_names = [u + name for u in units]
    for full in full_names:
        count = launch.value(f"{full}.sum")
        if count is not None:
            return Measured(count, via=f"{full}.sum")
    for full in full_names:
        per_cycle, per_second = launch.value(f"{full}.sum.per_cycle_elapsed"), launch.value(f"{full}.sum.per_second")
        if per_cycle is None and per_second is None:
            continue
        duration = duration_s(launch).value
        clock_name = UNIT_CLOCKS.get(full.split("__", 1)[0])
        clock = launch.value(clock_name) if clock_name else None
        if per_cycle is not None and clock is not None and duration is not None:
            return Measured(whole(per_cycle * clock * duration),
                            via=f"{full}.sum.per_cycle_elapsed x {clock_name} x duration")
        if per_second is not None and duration is not None:
            return Measured(whole(per_second * duration), via=f"{full}.sum.per_second x duration")
    return _no_count(launch, forms, full_names[-1])


def _no_count(launch: KernelLaunch, forms: tuple[str, ...], full: str) -> Measured:
    """No count of ``full`` (``forms``: every metric that could give it): missing, or NaN where ncu stored that."""
    if not launch.nan_metrics:
        return _missing_count(full)
    return _nan_absent(launch, forms, [f"{full}.sum"], "")


@functools.lru_cache(maxsize=1024)
def _count_forms(name: str, units: tuple[str, ...]) -> tuple[str, ...]:
    """Every metric ``counter`` may read a count of ``name`` from: each unit's forms (``COUNT_FORMS``), in order."""
    return tuple(f"{u}{name}{form}" for u in units for form in COUNT_FORMS)


@functools.lru_cache(maxsize=1024)
def _missing_count(full: str) -> Measured:
    """The absent count ``full`` (a launch without NaN metrics holds none of its forms): the same for every launch."""
    return _absent([f"{full}.sum"], "")


def peak(launch: KernelLaunch, name: str, clock_unit: str, units: tuple[str, ...] = ("",)) -> Measured:
    """Peak rate per second of ``name``: ``X.sum.peak_sustained`` x the measured clock of ``clock_unit``."""
    clock_name = UNIT_CLOCKS[clock_unit]
    clock = launch.value(clock_name)
    peak_names = [f"{u}{name}.sum.peak_sustained" for u in units]
    for full in peak_names:
        per_cycle = launch.value(full)
        if per_cycle is not None and clock is not None:
            # a roof of 0 is no measurement (ncu stores 0 for the launches it missed)
            if shared((per_cycle > 0) & (clock > 0)):
                return Measured(per_cycle * clock, via=f"{full} x {clock_name}")
            zero = shared((per_cycle == 0) | (clock == 0))
            return Measured(None, via=f"{full} x {clock_name} is {'0' if zero else 'below 0'}, not a peak",
                            hint=HINT_NAN)
    absent = [n for n in peak_names[:1] if all(launch.value(p) is None for p in peak_names)]
    absent += [clock_name] if clock is None else []
    return _nan_absent(launch, [clock_name, *peak_names], absent, "")


# --- FLOPs ------------------------------------------------------------------------------------------
_SM_UNITS = ("sm__", "smsp__")


def cuda_core_flops(launch: KernelLaunch, precision: str) -> Measured:
    """FLOPs of one precision on the CUDA cores: add + mul + 2 x fma (x2 more for packed half2), the FP16 ones
    without the zero-product HFMA2 register moves (``_hfma_arithmetic``).

    The FMA counter is required; add/mul counters a report lacks (ncu omits hadd/hmul on some chips)
    are left out with a note.
    """
    total = 0.0
    used: list[str] = []
    notes: list[FlopNote] = []
    for op, weight in FLOP_TERMS[precision]:  # the FMA last
        m = counter(launch, flop_counter(op), _SM_UNITS)
        if m.value is None:
            if op == FMA_OP[precision]:
                return _with_hint(m, HINT_FP16 if precision == "fp16" else HINT_FLOPS)
            notes.append(FlopNote(FlopNoteKind.COUNTER_ABSENT, precision, op))
            continue
        count, term, note = _hfma_arithmetic(launch, m.value, weight, total) if op == "hfma" else (m.value, op, None)
        total += weight * count
        used.append(f"{weight:g} x {term}")
        notes += [note] if note is not None else []
    return Measured(total, via=" + ".join(used) + " (thread instructions, predicate on)", notes=tuple(notes))


def fma_instructions(launch: KernelLaunch, precision: str) -> float | None:
    """Thread FMA instructions of one precision that do arithmetic (FP16: without the zero-product HFMA2 register
    moves, as ``cuda_core_flops`` counts them); None without the counter."""
    op = FMA_OP[precision]
    fma = counter(launch, flop_counter(op), _SM_UNITS).value
    if fma is None or op != "hfma":
        return fma
    return _hfma_arithmetic(launch, fma, 0.0, 0.0)[0]


def counts_hfma(held: Iterable[str]) -> bool:
    """Whether a launch's metrics (``held``: their names) include the hfma counter in a form ``counter`` reads: only
    then do the FP16 FLOPs, and so HFMA_MOVES, count."""
    return not {f"{u}{flop_counter('hfma')}{s}" for u in _SM_UNITS for s in COUNT_FORMS}.isdisjoint(held)


def _hfma_arithmetic(launch: KernelLaunch, hfma: float, weight: float, others: float
                     ) -> tuple[float, str, FlopNote | None]:
    """The HFMA2 thread instructions that do arithmetic: ``hfma`` less the zero-product HFMA2s (HFMA_MOVES),
    rounded to whole instructions (``hfma`` is rebuilt from a rate, so it carries rounding error), never below 0;
    with the term's name and a note (None for none). Without the moves' count ``hfma`` is kept, and where it makes
    all the FP16 FLOPs (``others``, the hadd and hmul FLOPs, are 0) the note says that moves may be among them."""
    moves = launch.value(HFMA_MOVES)
    if moves is None:
        uncounted = nonzero(hfma) and not nonzero(others)
        return hfma, "hfma", FlopNote(FlopNoteKind.HFMA_MOVES_UNCOUNTED, "fp16") if uncounted else None
    count = _whole(largest([0.0, hfma - moves]))
    note = per_launch(_moves_note, weight * moves, moves) if nonzero(moves) else None
    return count, "(hfma - zero-product HFMA2)", note


def hfma_move_flops(launch: KernelLaunch) -> Any:
    """The FP16 FLOPs the zero-product HFMA2 register moves would add (HFMA_MOVES x the HFMA2 weight), the FLOPs
    ``cuda_core_flops`` leaves out; None where the report cannot count the moves or holds no hfma counter."""
    moves = launch.value(HFMA_MOVES)
    if moves is None or counter(launch, flop_counter("hfma"), _SM_UNITS).value is None:
        return None
    return dict(FLOP_TERMS["fp16"])["hfma"] * moves


def _moves_note(flops: float, moves: float) -> FlopNote:
    return FlopNote(FlopNoteKind.HFMA_MOVES_LEFT_OUT, "fp16", "hfma", flops, moves)


def _whole(x: Any) -> Any:
    """The nearest whole number, of a number or of a cohort's array."""
    if isinstance(x, float):
        return float(round(x))
    import numpy as np

    return np.rint(x)


def _tensor_names(launch: KernelLaunch) -> Mapping[str, tuple[str, str | None, bool]]:
    """Aggregate tensor-path counters present: base name -> (source type, sparsity, is_float)."""
    return _tensor_names_among(tuple(launch.metrics))


@functools.lru_cache(maxsize=64)
def _tensor_names_among(names: tuple[str, ...]) -> Mapping[str, tuple[str, str | None, bool]]:
    """``_tensor_names`` of a launch holding the metrics ``names``: the launches of a report share them, so they
    are searched once (a read-only mapping: every such launch gets the same)."""
    found = {}
    for metric in names:
        if not metric.startswith(TENSOR_OPS_PREFIX):
            continue
        base = metric.split(".", 1)[0]
        m = _TENSOR_SRC.match(base)
        if m and "_op_" not in base and base not in found:
            src = m.group("src").split("_")[0]
            found[base] = (src, m.group("sp"), src in FLOAT_TENSOR_TYPES)
    return MappingProxyType(found)


def tensor_flops(launch: KernelLaunch, device: Device) -> tuple[Measured, dict[str, float]]:
    """FLOPs on Tensor Cores and the split per source data type.

    From the aggregate ``sm__ops_path_tensor_src_*`` counters (FLOPs, 2 per FMA; integer types left
    out) where the report has them. Otherwise from tensor-pipe instructions: zero instructions is an
    exact zero; on Volta 512 FLOP per instruction; elsewhere FLOPs per instruction vary, so no value.
    """
    names = _tensor_names(launch)
    if names:
        per_type: dict[str, float] = {}
        for base, (src, _sparsity, is_float) in names.items():
            m = counter(launch, base)
            if is_float and m.value is not None:
                per_type[src] = per_type.get(src, 0.0) + m.value
        return Measured(sum(per_type.values()), via="sum of sm__ops_path_tensor_src_* (floating-point types)"), per_type
    sass = _sass_tensor_ops(launch)
    if sass:
        floats = {t: v.value for t, v in sass.items() if t in FLOAT_TENSOR_TYPES and v.value is not None}
        via = "MMA warp instructions of the SASS x 2 x m x n x k (floating-point types; " + ", ".join(
            SASS_TENSOR_OPS.format(t) for t in floats) + ")" if floats else "the SASS runs no floating-point MMA"
        return Measured(sum(floats.values()) if floats else 0.0, via=via), floats
    mma = launch.value(SASS_MMA_INST)
    if mma is not None and shared(mma == 0):
        return Measured(0.0, via=f"no matrix instruction in the SASS ({PER_OPCODE_WARP_INST})"), {}
    inst = counter(launch, TENSOR_INST, _SM_UNITS)
    if inst.value is None:
        nan = [n for n in launch.nan_metrics if "pipe_tensor" in n or n.startswith(TENSOR_OPS_PREFIX)]
        if nan:  # ncu could not measure the launch: no --set helps
            return _nan_absent(launch, nan, (), HINT_TENSOR_SASS), {}
        return _with_hint(Measured(None, via=inst.via, missing=(f"{TENSOR_OPS_PREFIX}src_*.sum", *inst.missing),
                                   hint=inst.hint), HINT_TENSOR_SASS), {}
    if shared(inst.value == 0):
        return Measured(0.0, via=f"{inst.via} = 0 (no tensor instructions)"), {}
    if device.compute_capability == "7.0":
        flops = VOLTA_FLOP_PER_TENSOR_INST * inst.value
        note = FlopNote(FlopNoteKind.VOLTA_TENSOR, "tensor", flops=VOLTA_FLOP_PER_TENSOR_INST)
        return Measured(flops, via=f"512 x {inst.via}", notes=(note,)), {"fp16": flops}
    reason = ("tensor instructions executed, but this report has no sm__ops_path_tensor_* "
              "FLOP counters and no SASS counts of its MMA instructions, and FLOPs per instruction vary with the "
              f"instruction shape on CC {device.compute_capability}")
    return _absent([f"{TENSOR_OPS_PREFIX}src_*.sum"], HINT_TENSOR_SASS, via=reason), {}


# --- Bytes per memory level -------------------------------------------------------------------------
class Traffic(NamedTuple):
    """Bytes moved at one memory level and the matching peak bandwidth, under one metric definition.
    ``one_way`` names the one direction the definition counts ("" when it counts loads and stores), and ``counter``
    the definition's short name where it does ("lts2xbar")."""

    bytes: Measured
    peak_bytes_per_s: Measured
    definition: str
    one_way: str = ""
    counter: str = ""


def dram_traffic(launch: KernelLaunch) -> Traffic:
    """DRAM/HBM bytes: dram__bytes (or read + write), peak dram__bytes.sum.peak_sustained x DRAM clock."""
    peak_m = peak(launch, DRAM_BYTES, "dram")
    moved = counter(launch, DRAM_BYTES)
    if moved.value is None:
        parts = [counter(launch, name) for name in DRAM_READ_WRITE]
        values = [p.value for p in parts if p.value is not None]
        if len(values) == len(parts):
            moved = Measured(sum(values), via=" + ".join(p.via for p in parts))
        else:
            moved = _with_hint(moved, HINT_DRAM)
    return Traffic(moved, _with_hint(peak_m, HINT_DRAM), "dram__bytes: bytes read and written in device memory")


def l2_traffic(launch: KernelLaunch) -> Traffic:
    """L2 bytes counting all the SMs' traffic (loads, stores, atomics, reductions) where the report allows, against
    the L2 peak the report holds; a one-way definition only where the report holds nothing else (it is named)."""
    peak_m = _l2_peak(launch)
    sm = counter(launch, L2_SM_SECTORS)
    if sm.value is not None:
        return Traffic(_scaled(sm, BYTES_PER_SECTOR), peak_m, L2_ALL_DEFINITION)
    t_bytes = counter(launch, LTS_T_BYTES)
    if t_bytes.value is not None:
        return Traffic(t_bytes, peak_m, "lts__t_bytes: all L2 requests, every source (NERSC / ncu 2022.3 definition)")
    xbar_cycles = counter(launch, LTS2XBAR_CYCLES)
    if xbar_cycles.value is not None:
        return Traffic(_scaled(xbar_cycles, BYTES_PER_LTS2XBAR_CYCLE), peak_m,
                       "lts2xbar: L2 to crossbar bytes (ncu 2025 definition)", "L2 -> SM returns (loads), not stores",
                       "lts2xbar")
    reads = counter(launch, XBAR2L1TEX_READ)
    if reads.value is not None:
        return Traffic(reads, peak_m, "xbar2l1tex: L2 to L1 read bytes only (ncu 2023-2024 definition)",
                       "L2 -> L1 reads, not stores", "xbar2l1tex")
    names = (L2_SM_SECTORS, LTS_T_BYTES, LTS2XBAR_CYCLES, XBAR2L1TEX_READ)
    return Traffic(_absent([f"{n}.sum" for n in names], HINT_CACHE), peak_m, "")


def _l2_peak(launch: KernelLaunch) -> Measured:
    """The L2 bandwidth roof the report holds: lts__t_bytes's peak, else 32 B x the L2 -> crossbar cycles' peak,
    else the L2 -> L1 read bytes' peak, each x the L2 clock, as ncu's hierarchical roofline sections take it (the
    last x the L1 clock only where the report has no L2 clock)."""
    for name, scale, units in ((LTS_T_BYTES, 1, ("lts",)), (LTS2XBAR_CYCLES, BYTES_PER_LTS2XBAR_CYCLE, ("lts",)),
                               (XBAR2L1TEX_READ, 1, ("lts", "l1tex"))):
        for unit in units:
            found = peak(launch, name, unit)
            if found.value is not None or found.via:
                return _with_hint(_scaled(found, scale) if scale != 1 else found, HINT_CACHE)
    return _absent([f"{LTS_T_BYTES}.sum.peak_sustained"], HINT_CACHE)


def l2_total_bytes(launch: KernelLaunch) -> Measured:
    """All L2 traffic, loads and stores from every source: lts__t_bytes, else 32 B x lts__t_sectors."""
    t_bytes = counter(launch, LTS_T_BYTES)
    if t_bytes.value is not None:
        return t_bytes
    sectors = counter(launch, LTS_T_SECTORS)
    if sectors.value is not None:
        return Measured(BYTES_PER_SECTOR * sectors.value, via=f"{BYTES_PER_SECTOR} x {sectors.via}")
    return _with_hint(_absent([f"{LTS_T_BYTES}.sum", f"{LTS_T_SECTORS}.sum"], ""), HINT_TRANSACTIONS)


def l1_sectors_all(launch: KernelLaunch) -> Measured:
    """Global and local sectors at L1 of every operation: loads, stores, atomics and reductions."""
    return _sum_of(launch, L1_SECTORS_ALL, HINT_CACHE)


def l1_traffic(launch: KernelLaunch, device: Device) -> Traffic:
    """L1 bytes counting all global and local traffic (loads, stores, atomics, reductions) where the report allows,
    else l1tex__t_bytes, else (one way only, named) 128 B x LSU writeback cycles; against the L1 peak it holds."""
    peak_m = _l1_peak(launch, device)
    sectors = l1_sectors_all(launch)
    if sectors.value is not None:
        return Traffic(_scaled_sum(sectors, BYTES_PER_SECTOR), peak_m, L1_ALL_DEFINITION)
    t_bytes = counter(launch, L1TEX_T_BYTES)
    if t_bytes.value is not None:
        return Traffic(t_bytes, peak_m, "l1tex__t_bytes: L1 requests, LSU and TEX (NERSC / ncu 2022.3 definition)")
    for name in _writeback_order(device):
        cycles = counter(launch, name)
        if cycles.value is not None:
            return Traffic(_scaled(cycles, BYTES_PER_LSU_WRITEBACK_CYCLE), peak_m,
                           "lsu_writeback: L1 to register bytes, global/local (ncu 2023+ definition)",
                           "L1 -> register writebacks (loads), not stores", "lsu_writeback")
    return Traffic(_absent([f"{L1_SECTORS_ALL[0]}.sum", f"{L1TEX_T_BYTES}.sum", f"{_writeback_order(device)[0]}.sum"],
                           HINT_CACHE), peak_m, "")


def _l1_peak(launch: KernelLaunch, device: Device) -> Measured:
    """The L1 bandwidth roof the report holds: l1tex__t_bytes's peak, else 128 B x the LSU writeback cycles' peak."""
    found = peak(launch, L1TEX_T_BYTES, "l1tex")
    if found.value is not None or found.via:
        return _with_hint(found, HINT_CACHE)
    for name in _writeback_order(device):
        found = peak(launch, name, "l1tex")
        if found.value is not None or found.via:
            return _with_hint(_scaled(found, BYTES_PER_LSU_WRITEBACK_CYCLE), HINT_CACHE)
    return _absent([f"{L1TEX_T_BYTES}.sum.peak_sustained"], HINT_CACHE)


def _writeback_order(device: Device) -> tuple[str, ...]:
    """LSU writeback counters in the order ncu's sections use them for this compute capability."""
    cc = device.cc_tuple or (0, 0)
    if cc >= (9, 0):
        keys = ("mem_lgds", "mem_lg", "all")
    elif cc >= (7, 5):
        keys = ("mem_lg", "mem_lgds", "all")
    else:
        keys = ("all", "mem_lg", "mem_lgds")
    return tuple(LSU_WRITEBACK[k] for k in keys)


# --- Compute peaks ----------------------------------------------------------------------------------
def cuda_core_peak(launch: KernelLaunch, precision: str) -> Measured:
    """Peak FLOP/s of one precision: FLOPs per FMA instruction x fma.peak_sustained x SM clock."""
    op = FMA_OP[precision]
    weight = dict(FLOP_TERMS[precision])[op]
    hint = HINT_FP16 if precision == "fp16" else HINT_FLOPS
    return _with_hint(_scaled(peak(launch, flop_counter(op), "sm", _SM_UNITS), weight), hint)


def tensor_peak(launch: KernelLaunch, device: Device, dtype: str) -> Measured:
    """Dense peak tensor FLOP/s for one source type: the largest ``_sparsity_off`` (or sparsity-free)
    ops-path peak of that type x SM clock (``tensor_peak_metric``). Aggregate peaks on Hopper are sparse, hence the
    filter."""
    dense = _dense_tensor_peaks(launch, dtype)
    clock = launch.value(SM_CLOCK)
    if dense and clock is not None:
        best = shared(tensor_peak_metric(launch, dtype))
        return Measured(dense[best] * clock, via=f"{best} x {SM_CLOCK}")
    if device.compute_capability == "7.0":
        inst_peak = peak(launch, TENSOR_INST, "sm", _SM_UNITS)
        if inst_peak.value is not None:
            return _scaled(inst_peak, VOLTA_FLOP_PER_TENSOR_INST)
    absent = [] if dense else [f"{TENSOR_OPS_PREFIX}*src_{dtype}*.sum.peak_sustained"]
    return _absent(absent + ([] if clock is not None else [SM_CLOCK]), HINT_TENSOR)


def tensor_peak_metric(launch: KernelLaunch, dtype: str) -> Any:
    """Per launch, the peak metric ``tensor_peak`` reads for one source type (the largest dense one; None where the
    report holds none): a choice of metric, by which the analysis splits a cohort (``Cohort.split``)."""
    dense = _dense_tensor_peaks(launch, dtype)
    return argmax_key(dense) if dense else None


def _dense_tensor_peaks(launch: KernelLaunch, dtype: str) -> dict[str, Any]:
    """The ops-path peaks (per cycle) of one source type: the ``_sparsity_off`` ones, else the sparsity-free ones."""
    candidates: dict[str, float] = {}
    for metric in launch.metrics:
        if not (metric.startswith(TENSOR_OPS_PREFIX) and metric.endswith(".sum.peak_sustained")):
            continue
        m = _TENSOR_SRC.match(metric.split(".", 1)[0])
        value = launch.value(metric)
        if m and m.group("src").split("_")[0] == dtype and m.group("sp") != "on" and value is not None:
            candidates[metric] = value
    return {k: v for k, v in candidates.items() if "_sparsity_off" in k} or candidates


def _scaled(m: Measured, factor: float) -> Measured:
    if m.value is None:
        return m
    return Measured(m.value * factor, via=f"{factor:g} x {m.via}", notes=m.notes)


def _scaled_sum(m: Measured, factor: float) -> Measured:
    """A sum of counters (``_sum_of``) times a factor, the sum in parentheses where it was measured."""
    return _scaled(m if m.value is None else Measured(m.value, via=f"({m.via})", notes=m.notes), factor)


def _with_hint(m: Measured, hint: str) -> Measured:
    if m.value is not None or m.hint:
        return m
    return Measured(None, via=m.via, missing=m.missing, hint=hint, notes=m.notes)


# --- Instructions and transactions (the Instruction Roofline Model) -----------------------------------
def warp_instructions(launch: KernelLaunch) -> Measured:
    """Warp-level instructions executed: smsp__inst_executed.sum (or the sm__ count or rates)."""
    return _with_hint(counter(launch, WARP_INST, _SM_UNITS), HINT_INSTRUCTIONS)


def thread_instructions(launch: KernelLaunch) -> Measured:
    """Thread-level instructions executed (each warp instruction counts its active threads):
    smsp__thread_inst_executed.sum, else active threads per warp instruction x warp instructions."""
    direct = counter(launch, THREAD_INST, _SM_UNITS)
    if direct.value is not None:
        return direct
    warps, per_warp = warp_instructions(launch), launch.value(THREADS_PER_WARP_INST)
    if warps.value is not None and per_warp is not None:
        return Measured(per_warp * warps.value, via=f"{THREADS_PER_WARP_INST} x {warps.via}")
    absent = [*direct.missing, *([THREADS_PER_WARP_INST] if per_warp is None else []), *warps.missing]
    return _nan_absent(launch, [THREADS_PER_WARP_INST], absent, HINT_THREAD_INST)


def _sum_of(launch: KernelLaunch, names: Iterable[str], hint: str) -> Measured:
    """The sum of several counters, None naming every one the report lacks."""
    parts = [counter(launch, name) for name in names]
    if all(p.value is not None for p in parts):
        return Measured(sum(p.value for p in parts if p.value is not None), via=" + ".join(p.via for p in parts))
    nan = next((p for p in parts if p.value is None and p.via), None)  # ncu stored NaN: say so
    return nan or _absent([name for p in parts for name in p.missing], hint)


def transactions(launch: KernelLaunch) -> dict[str, Measured]:
    """32-byte transactions per memory level by the model's definitions (``L1_DEFINITION``, ``L2_DEFINITION``,
    ``DRAM_DEFINITION``); None naming the metric where the report lacks one, never another count in its place."""
    dram = _sum_of(launch, DRAM_SECTORS, HINT_TRANSACTIONS)
    if dram.value is None and not dram.via:
        moved = dram_traffic(launch).bytes  # dram__bytes, read + written: the same sectors in bytes
        if moved.value is not None:
            dram = Measured(moved.value / BYTES_PER_SECTOR, via=f"({moved.via}) / {BYTES_PER_SECTOR}")
    l1 = _sum_of(launch, (*L1_SECTORS, *SHARED_OP_WAVEFRONTS.values()), HINT_TRANSACTIONS)
    return {"dram": dram, "l2": l2_sm_transactions(launch), "l1": l1}


def l2_sm_transactions(launch: KernelLaunch) -> Measured:
    """The L2 sectors the SMs requested, atomics and reductions both ways: read + write + 2 x (atom + red)."""
    read_write = _sum_of(launch, L2_SM_READ_WRITE, HINT_TRANSACTIONS)
    atom = counter(launch, L2_SM_ATOM)
    if atom.value is None:
        atom = _sum_of(launch, L2_SM_ATOM_KINDS, HINT_TRANSACTIONS)
    red = _with_hint(counter(launch, L2_SM_RED), HINT_TRANSACTIONS)
    parts = (read_write, atom, red)
    if read_write.value is None or atom.value is None or red.value is None:
        nan = next((p for p in parts if p.value is None and p.via), None)
        return nan or _absent([name for p in parts for name in p.missing], HINT_TRANSACTIONS)
    return Measured(read_write.value + 2 * (atom.value + red.value),
                    via=f"{read_write.via} + 2 x ({atom.via} + {red.via})")


def global_accesses(launch: KernelLaunch) -> dict[str, tuple[Measured, Measured]]:
    """Per operation (ld, st): warp-level global instructions (L1 requests) and the 32-byte sectors they moved."""
    return {op: (_with_hint(counter(launch, GLOBAL_REQUESTS[op]), HINT_TRANSACTIONS),
                 _with_hint(counter(launch, GLOBAL_SECTORS[op]), HINT_TRANSACTIONS)) for op in ACCESS_OPS}


def sector_use(launch: KernelLaunch, op: str) -> Measured:
    """The share (0..1) of the bytes of the sectors global ``op`` accesses moved that the threads used."""
    name = SECTOR_USE[op]
    pct, used, most = (launch.value(f"{name}.{form}") for form in SECTOR_USE_FORMS)
    if pct is not None:
        return Measured(pct / 100.0, via=f"{name}.pct / 100")
    if used is not None and nonzero(most):
        return Measured(used / most, via=f"{name}.ratio / {name}.max_rate")
    return _absent([f"{name}.ratio"], HINT_TRANSACTIONS)


def access_sectors(launch: KernelLaunch, space: str, op: str) -> Measured:
    """The 32-byte sectors one kind of access moved at L1: ``space`` "global" or "local", ``op`` "ld" or "st"."""
    return _with_hint(counter(launch, L1_SECTOR.format(space=space, op=op)), HINT_TRANSACTIONS)


def access_widths(launch: KernelLaunch, space: str) -> dict[str, dict[int, float]] | None:
    """Per operation (ld, st), warp instructions of ``space`` ("global", "shared") per bytes a thread moves
    (``ACCESS_WIDTH_INST``); None where the report has no per-opcode SASS counts (SourceCounters)."""
    names = _access_width_names(space)
    if launch.metrics.keys().isdisjoint(name for by_width in names.values() for name in by_width.values()):
        return None
    found = {op: {w: launch.value(name) for w, name in by_width.items()} for op, by_width in names.items()}
    if all(n is None for widths in found.values() for n in widths.values()):
        return None
    return {op: {w: n for w, n in widths.items() if n} for op, widths in found.items()}


@functools.lru_cache(maxsize=8)
def _access_width_names(space: str) -> dict[str, dict[int, str]]:
    """Per operation and width, the name of ``space``'s count of warp instructions (``ACCESS_WIDTH_INST``)."""
    return {op: {w: ACCESS_WIDTH_INST.format(space=space, op=op, width=w) for w in ACCESS_WIDTHS} for op in ACCESS_OPS}


def shared_accesses(launch: KernelLaunch) -> dict[str, tuple[Measured, Measured]]:
    """Per operation (ld, st): warp-level shared-memory instructions and the wavefronts they took."""
    return {op: (_sum_of(launch, SHARED_INST[op], HINT_SHARED_INST),
                 _with_hint(counter(launch, SHARED_OP_WAVEFRONTS[op]), HINT_TRANSACTIONS)) for op in ACCESS_OPS}


def peak_warp_instructions_per_s(launch: KernelLaunch, device: Device) -> Measured:
    """Peak warp instructions per second: the report's sm__inst_executed.sum.peak_sustained x SM clock where it
    holds one, else SMs x schedulers per SM x instructions per scheduler and cycle x the measured SM clock."""
    own = peak(launch, WARP_INST, "sm", _SM_UNITS)
    if own.value is not None:
        return own
    clock = sm_clock_hz(launch)
    attributes = {name: device.attributes.get(name) for name in (SCHEDULERS_PER_SM, IPC_PER_SCHEDULER)}
    schedulers, ipc = (v if isinstance(v, int | float) else None for v in attributes.values())
    if device.sm_count and schedulers and ipc and nonzero(clock.value):
        via = (f"{device.sm_count} SMs x {schedulers:g} schedulers x {ipc:g} per cycle "
               f"(device__attribute_{SCHEDULERS_PER_SM}, {IPC_PER_SCHEDULER}) x {clock.via}")
        return Measured(device.sm_count * schedulers * ipc * clock.value, via=via)
    if clock.value is None:
        return clock
    absent = ["multiprocessor_count"] if not device.sm_count else []
    absent += [name for name, v in zip(attributes, (schedulers, ipc), strict=True) if not v]
    return _absent([f"device__attribute_{name}" for name in absent], "")


def integer_instructions(launch: KernelLaunch) -> Measured:
    """Thread-level integer instructions executed with predicate on: smsp__sass_thread_inst_executed_op_integer_pred_on
    (or its sm__ count or rates), else the integer opcodes' per-opcode counts of a full set (``INTEGER_OPCODES``)."""
    direct = counter(launch, INTEGER_INST, _SM_UNITS)
    if direct.value is not None:
        return direct
    by_opcode = launch.value(INTEGER_OPCODE_INST)
    if by_opcode is not None:
        return Measured(by_opcode, via=f"integer opcodes of {PER_OPCODE_THREAD_INST}")
    return _with_hint(Measured(None, missing=(*direct.missing, PER_OPCODE_THREAD_INST)), HINT_INTEGER)


def integer_peak(launch: KernelLaunch) -> Measured:
    """Peak integer thread instructions per second: 32 threads x the ALU pipe's warp-instruction peak x SM clock.
    The peak per cycle is sm__inst_executed_pipe_alu.sum.peak_sustained, else the pipe's count over ncu's percent of
    peak and the SM active cycles (``INTEGER_PIPE``)."""
    own = peak(launch, INTEGER_PIPE, "sm")
    if own.value is not None:
        return _scaled(own, THREADS_PER_WARP)
    count, share = counter(launch, INTEGER_PIPE), launch.value(INTEGER_PIPE_PCT)
    active, clock = launch.value(SM_ACTIVE_CYCLES), launch.value(SM_CLOCK)
    if count.value is None or share is None or active is None or clock is None:
        absent = [name for name, v in ((f"{INTEGER_PIPE}.sum", count.value), (INTEGER_PIPE_PCT, share),
                                       (SM_ACTIVE_CYCLES, active), (SM_CLOCK, clock)) if v is None]
        return _nan_absent(launch, absent, [*own.missing[:1], *absent], HINT_INTEGER_PEAK)
    if not shared((share > 0) & (active > 0)):
        return Measured(None, via=f"the ALU pipe issued nothing ({INTEGER_PIPE_PCT} = 0): its peak cannot be derived "
                                  "from its percent of peak", hint=HINT_INTEGER_PEAK)
    per_cycle = count.value / (share / 100 * active)
    return Measured(THREADS_PER_WARP * per_cycle * clock,
                    via=f"32 x {count.via} / ({INTEGER_PIPE_PCT} / 100 x {SM_ACTIVE_CYCLES}) x {SM_CLOCK}")


# --- Launch configuration (LaunchStats and Occupancy sections) -----------------------------------------
LAUNCH_REGISTERS, LAUNCH_SHARED = "launch__registers_per_thread", "launch__shared_mem_per_block"  # the launch's shape
LAUNCH_BLOCK, LAUNCH_GRID = "launch__block_size", "launch__grid_size"
GRID_DIMS = tuple(f"launch__grid_dim_{axis}" for axis in "xyz")
BLOCK_DIMS = tuple(f"launch__block_dim_{axis}" for axis in "xyz")
CARVEOUT = "launch__shared_mem_config_size"  # the shared-memory carveout the driver chose for this launch
LIMITERS = ("registers", "shared_mem", "warps", "blocks", "barriers")  # ncu's per-resource occupancy limits
LIMIT_METRIC = "launch__occupancy_limit_{}"  # resident blocks per SM each resource allows
OCCUPANCY_THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"  # Occupancy section
OCCUPANCY_ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
LAUNCH_METRICS = (LAUNCH_REGISTERS, LAUNCH_SHARED, LAUNCH_BLOCK, LAUNCH_GRID, *GRID_DIMS, *BLOCK_DIMS, CARVEOUT, WAVES,
                  *(LIMIT_METRIC.format(key) for key in LIMITERS))


LARGEST_LAUNCH = 2.0**64  # above any grid CUDA can launch ((2^31 - 1) x 65535 x 65535 blocks): no size at all


def launch_size(launch: KernelLaunch, of: str) -> int | None:
    """Threads per block (``of`` "block") or blocks per grid ("grid"): ncu's ``launch__block_size`` /
    ``launch__grid_size``, which reports without the per-dimension metrics (older ncu, the basic set) hold too;
    else the product of the dimensions; None where the report has neither."""
    total = launch.value(LAUNCH_BLOCK if of == "block" else LAUNCH_GRID)
    if total is not None and 1 <= total < LARGEST_LAUNCH and float(total).is_integer():
        return int(total)
    dims = launch.block if of == "block" else launch.grid
    return dims[0] * dims[1] * dims[2] if dims else None


def launch_threads(launch: KernelLaunch) -> int | None:
    """Threads launched, grid x block (``launch_size``), None where either is unknown."""
    block, grid = launch_size(launch, "block"), launch_size(launch, "grid")
    return block * grid if block is not None and grid is not None else None

# --- Tensor Core diagnostics --------------------------------------------------------------------------
TENSOR_FAMILIES = ("hmma", "imma", "dmma", "gmma")  # MMA instruction families, as the metric names spell them
PCT_ACTIVE, PCT_ELAPSED = ".avg.pct_of_peak_sustained_active", ".avg.pct_of_peak_sustained_elapsed"


@functools.cache
@functools.lru_cache(maxsize=64)
def tensor_family_bases(family: str) -> tuple[str, ...]:
    """Metric bases (no suffix) of one MMA family's issue rate and pipe activity, in the order to try:
    ``op_*`` (CC 7.0-9.0), ``op_*_v2`` (CC 8.9 in ncu 2025) and ``subpipe_*`` (CC 10.0 and newer)."""
    inst = ("sm__inst_executed_pipe_tensor_op_{f}", "sm__inst_executed_pipe_tensor_op_{f}_v2",
            "sm__inst_executed_pipe_tensor_subpipe_{f}")
    cycles = ("sm__pipe_tensor_op_{f}_cycles_active", "sm__pipe_tensor_op_{f}_cycles_active_v2",
              "sm__pipe_tensor_subpipe_{f}_cycles_active")
    return tuple(b.format(f=family) for b in (*inst, *cycles))


TENSOR_PIPE_BASES = ("sm__pipe_tensor_cycles_active", "sm__pipe_tensor_cycles_active_v2")  # all tensor work
# IMMA (INT8/INT4 MMA) pipe busy cycles, percent of peak while the SMs were active: the IMMA work of a report
# without integer ops_path counters (CC 7.5-8.9 full sets); its dense INT8 roof comes from the spec
IMMA_PIPE_BASES = ("sm__pipe_tensor_op_imma_cycles_active", "sm__pipe_tensor_op_imma_cycles_active_v2",
                   "sm__pipe_tensor_subpipe_imma_cycles_active")


def tensor_ops_by_type(launch: KernelLaunch) -> dict[str, Measured]:
    """Operations on the tensor path per source type, every type the report counts (floating point and integer),
    from the aggregate ``sm__ops_path_tensor_src_*`` counters: FLOPs, or integer ops (2 per multiply-add)."""
    out: dict[str, Measured] = {}
    names = _tensor_names(launch)
    if not names:
        return _sass_tensor_ops(launch)
    for base, (src, _sparsity, _is_float) in names.items():
        found = counter(launch, base)
        if found.value is None:
            continue
        before = out.get(src)
        out[src] = found if before is None else Measured(before.value + found.value,  # type: ignore[operator]
                                                         via=f"{before.via} + {found.via}")
    return out


def _sass_tensor_ops(launch: KernelLaunch) -> dict[str, Measured]:
    """Operations per source type counted from the SASS (``SASS_TENSOR_OPS``), every type the launch ran."""
    out = {}
    for dtype, name in zip(SASS_TENSOR_TYPES, SASS_TENSOR_METRICS, strict=True):
        value = launch.value(name)
        if value is not None:
            out[dtype] = Measured(value, via=f"{dtype.upper()} MMA warp instructions of the SASS x 2 x m x n x k "
                                             f"per instruction ({name})")
    return out


def tensor_work_source(launch: KernelLaunch, device: Device) -> str:
    """Where the launch's tensor work is counted from (``TENSOR_FROM_*``); "" where nothing counts it."""
    if _tensor_names(launch):
        return TENSOR_FROM_COUNTERS
    mma = launch.value(SASS_MMA_INST)
    if _sass_tensor_ops(launch) or (mma is not None and shared(mma == 0)):
        return TENSOR_FROM_SASS
    if device.compute_capability == "7.0" and counter(launch, TENSOR_INST, _SM_UNITS).value is not None:
        return TENSOR_FROM_VOLTA
    return ""


def pipe_active_share(launch: KernelLaunch, bases: tuple[str, ...]) -> Measured:
    """The share (0..1) of the elapsed SM cycles a pipe was busy: its percent of peak while active x active
    cycles / elapsed cycles; None naming the metrics the report lacks."""
    pct_name = next((b + PCT_ACTIVE for b in bases if launch.value(b + PCT_ACTIVE) is not None), None)
    share = launch.value(pct_name) if pct_name is not None else None
    active, elapsed = launch.value(SM_ACTIVE_CYCLES), launch.value(SM_CYCLES)
    if share is None or active is None or not nonzero(elapsed):
        absent = [n for n, v in ((bases[0] + PCT_ACTIVE, share), (SM_ACTIVE_CYCLES, active),
                                 (SM_CYCLES, elapsed)) if v is None]
        return _absent(absent, "re-profile with --set full")
    return Measured(share / 100 * active / elapsed,
                    via=f"{pct_name} / 100 x {SM_ACTIVE_CYCLES} / {SM_CYCLES}")


# --- What the reader keeps ----------------------------------------------------------------------------
# The one list of the metrics the analysis reads: every input of the formulas above, of the verdict
# (roofline.analysis.verdict), the diagnostics (roofline.analysis.diagnostics), the advice and the launch checks
# (roofline.ncu.validation). It is exact names plus three families read by pattern (the aggregate tensor-path
# counters in their counter and peak forms, the warp-stall reasons); the reader adds the units the two
# breakdowns list (``breakdown_units``) and the device attributes (once per report). tests/ncu/test_reader.py checks
# that every shared report analyses the same when every metric it holds is read.
_SUFFIXES = (*COUNT_FORMS, ".sum.peak_sustained")


def _counter_names() -> set[str]:
    bases = {u + flop_counter(op) for terms in FLOP_TERMS.values() for op, _ in terms for u in _SM_UNITS}
    bases |= {u + TENSOR_INST for u in _SM_UNITS}
    bases |= {DRAM_BYTES, *DRAM_READ_WRITE, LTS_T_BYTES, LTS_T_SECTORS, LTS2XBAR_CYCLES, XBAR2L1TEX_READ,
              L1TEX_T_BYTES}
    bases |= set(LSU_WRITEBACK.values())
    bases |= {u + name for name in (WARP_INST, THREAD_INST, INTEGER_INST) for u in _SM_UNITS} | {INTEGER_PIPE}
    bases |= {*L1_SECTORS_ALL, L2_SM_SECTORS, L1_TO_L2_WRITE}
    bases |= {*L1_SECTORS, SHARED_WAVEFRONTS, *DRAM_SECTORS}
    bases |= {*L2_SM_READ_WRITE, L2_SM_ATOM, *L2_SM_ATOM_KINDS, L2_SM_RED}
    bases |= {*GLOBAL_REQUESTS.values(), *SHARED_OP_WAVEFRONTS.values(), *(n for i in SHARED_INST.values() for n in i)}
    return {b + s for b in bases for s in _SUFFIXES}


def _diagnostic_names() -> set[str]:
    bases = [*TENSOR_PIPE_BASES, *IMMA_PIPE_BASES, *(b for f in TENSOR_FAMILIES for b in tensor_family_bases(f))]
    scheduler = {ISSUE_ACTIVE_PCT, WARPS_ELIGIBLE, WARPS_ACTIVE, SM_THROUGHPUT, MEMORY_THROUGHPUT, *BREAKDOWNS}
    return ({OCCUPANCY_THEORETICAL, OCCUPANCY_ACHIEVED, *scheduler, *LAUNCH_METRICS}
            | {b + s for b in bases for s in (PCT_ACTIVE, PCT_ELAPSED)})


# The metrics whose sign (zero: not measured) a formula tests with ``if``: the launches of a cohort share it
# (``core.cohorts.cohorts``). Every count in each form ``counter`` reads, every peak, the clocks, the duration and
# cycles, the integer pipe's percent of peak and roofline's own counts; not the percentages, ratios and samples of
# the diagnostics and the verdict, which the formulas compare per launch (``where``) or do not read.
_SIGN_SUFFIXES = _SUFFIXES
_SIGN_NAMES = frozenset({DURATION, SM_CYCLES, SM_ACTIVE_CYCLES, INTEGER_PIPE_PCT, *CLOCK_METRICS, *OWN_METRICS})


def sign_tested(name: str) -> bool:
    """Whether a formula branches on the sign of metric ``name`` (see ``_SIGN_NAMES``)."""
    return name.endswith(_SIGN_SUFFIXES) or name in _SIGN_NAMES


METRICS_TO_READ = frozenset(_counter_names() | {DURATION, SM_CYCLES, INSTRUCTIONS, *CLOCK_METRICS, HFMA_MOVES,
                                                 *REPLAY_METRICS,
                                                 THREADS_PER_WARP_INST, INTEGER_PIPE_PCT, SM_ACTIVE_CYCLES,
                                                 *HIT_RATES.values(), INTEGER_OPCODE_INST, *SOL_UNITS.values(),
                                                 *ACCESS_WIDTH_METRICS,
                                                 *L2_OP_HIT_RATES.values(),
                                                 *(n for names in EDGE_PCT.values() for n in names)}
                            | {f"{name}.{form}" for name in SECTOR_USE.values() for form in SECTOR_USE_FORMS}
                            | _diagnostic_names())
FAMILY_PREFIXES = (TENSOR_OPS_PREFIX, STALL_PREFIX, STALL_SAMPLES_PREFIX)
_TENSOR_FORMS = frozenset(s.removeprefix(".") for s in _SUFFIXES)
STALL_SAMPLES_SKIPPED = "_not_issued"  # the samples of warps not issued, a sum of the reasons


def in_family(name: str) -> bool:
    """Whether a metric of the three families is read: a tensor-path counter in a counter or peak form, a
    stall reason per issued instruction, or a stall reason's PC samples."""
    if name.startswith(TENSOR_OPS_PREFIX):
        return name.partition(".")[2] in _TENSOR_FORMS
    if name.startswith(STALL_PREFIX):
        return name.endswith(STALL_SUFFIX)
    return name.startswith(STALL_SAMPLES_PREFIX) and not name.endswith(STALL_SAMPLES_SKIPPED)


def to_read(names: Iterable[str]) -> list[str]:
    """The metrics of a launch (``names``: what it holds) the reader keeps, in their order."""
    return [n for n in names if n in METRICS_TO_READ or (n.startswith(FAMILY_PREFIXES) and in_family(n))]


@functools.lru_cache(maxsize=256)
def breakdown_units(listed: str) -> tuple[str, ...]:
    """The unit metrics a ``breakdown:`` value lists (comma separated); every launch of a report lists the same."""
    return tuple(unit for unit in (part.strip() for part in listed.split(",")) if unit)


# --- Units of the throughput breakdowns ----------------------------------------------------------------
# The busy units the advice names a change for (breakdown metric up to its first '.').
PIPE_FP64 = "sm__pipe_fp64_cycles_active"
PIPE_FMA = "sm__pipe_fma_cycles_active"
PIPE_FMA_HEAVY = "sm__pipe_fmaheavy_cycles_active"
PIPE_ALU = "sm__pipe_alu_cycles_active"
PIPE_ALU_HEAVY = "sm__pipe_aluheavy_cycles_active"
PIPE_XU = "sm__inst_executed_pipe_xu"
PIPE_LSU = "sm__inst_executed_pipe_lsu"
ISSUE_ACTIVE = "sm__issue_active"
INST_ISSUED = "sm__inst_executed"
PIPE_TENSOR = "sm__pipe_tensor_cycles_active"
PIPE_SHARED = "sm__pipe_shared_cycles_active"
# The precisions one shared pipe carries on some GPU, as ncu's metric descriptions say (``ncu --query-metrics --chip``):
# FP64, FP16 and tensor on GV100; FP16 and tensor on TU102-TU106 and GV11B; FP16 alone on TU116 and TU117 (no Tensor
# Cores); FP64 and tensor on GA100, GH100 and 10.0; GA10x and AD10x have none. Its name claims none of them alone.
SHARED_PIPE_PRECISIONS = ("tensor", "fp16", "fp64")
# The units the throughput breakdowns list (metric name up to its first '.') and their names: (short, full). Units not
# listed are named by their metric prefix (UNIT_PREFIXES) and the rest of the metric name (``analysis.verdict``).
BREAKDOWN_UNITS: Mapping[str, tuple[str, str]] = {
    PIPE_FP64: ("FP64", "FP64 pipe"), PIPE_FMA: ("FMA", "FMA pipe"),
    PIPE_FMA_HEAVY: ("FMA", "FMA pipe (heavy)"), PIPE_ALU: ("ALU", "ALU pipe"),
    PIPE_ALU_HEAVY: ("ALU", "ALU pipe (heavy)"),
    PIPE_XU: ("XU", "XU pipe (special functions, conversions)"),
    PIPE_LSU: ("LSU", "LSU pipe (load/store instructions)"),
    PIPE_TENSOR: ("tensor", "tensor pipe"),
    "sm__pipe_tensor_op_dmma_cycles_active": ("tensor", "tensor pipe (DMMA)"),
    "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active": ("tensor", "tensor pipe (MMA)"),
    PIPE_SHARED: ("shared pipe", "shared pipe (FP16, FP64 or tensor, by GPU)"),  # SHARED_PIPE_PRECISIONS
    "sm__inst_executed_pipe_fp16": ("FP16", "FP16 pipe"), "sm__pipe_tma_cycles_active": ("TMA", "TMA pipe"),
    ISSUE_ACTIVE: ("issue", "issue slots"), INST_ISSUED: ("issue", "instruction issue"),
    "sm__inst_executed_pipe_adu": ("ADU", "ADU pipe (address divergence)"),
    "sm__inst_executed_pipe_cbu_pred_on_any": ("CBU", "CBU pipe (branches)"),
    "sm__inst_executed_pipe_uniform": ("uniform", "uniform pipe"), "sm__inst_executed_pipe_ipa": ("IPA", "IPA pipe"),
    "sm__inst_executed_pipe_tex": ("TEX", "TEX pipe"), "sm__mio_inst_issued": ("MIO", "MIO instruction issue"),
    "sm__mio2rf_writeback_active": ("MIO", "MIO register writeback"),
    "sm__mio_pq_read_cycles_active": ("MIO", "MIO queue reads"),
    "sm__mio_pq_write_cycles_active": ("MIO", "MIO queue writes"),
    "idc__request_cycles_active": ("IDC", "indexed constant cache"),
    "dram__cycles_active": ("DRAM", "DRAM"), "fbpa__dram_sectors": ("DRAM", "DRAM sectors"),
    "l1tex__data_pipe_lsu_wavefronts": ("L1", "L1 LSU data pipe"),
    "l1tex__data_pipe_tex_wavefronts": ("L1", "L1 TEX data pipe"),
    "l1tex__data_bank_reads": ("L1", "L1 data-bank reads"), "l1tex__data_bank_writes": ("L1", "L1 data-bank writes"),
    "l1tex__lsuin_requests": ("L1", "L1 LSU requests"), "l1tex__f_wavefronts": ("L1", "L1 TEX F stage"),
    "l1tex__lsu_writeback_active": ("L1", "L1 load writeback"),
    "l1tex__tex_writeback_active": ("L1", "L1 texture writeback"),
    "l1tex__m_l1tex2xbar_req_cycles_active": ("L1", "L1 -> L2 requests"),
    "l1tex__m_xbar2l1tex_read_sectors": ("L1", "L2 -> L1 reads"),
    "l1tex__texin_sm2tex_req_cycles_active": ("L1", "L1 texture requests"),
    "lts__t_sectors": ("L2", "L2 sectors"), "lts__t_tag_requests": ("L2", "L2 tag lookups"),
    "lts__d_sectors": ("L2", "L2 data"), "lts__d_sectors_fill_device": ("L2", "L2 fills from DRAM"),
    "lts__d_sectors_fill_sysmem": ("L2", "L2 fills from system memory"),
    "lts__lts2xbar_cycles_active": ("L2", "L2 -> SM crossbar"),
    "lts__xbar2lts_cycles_active": ("L2", "SM -> L2 crossbar"),
    "lts__d_atomic_input_cycles_active": ("L2", "L2 atomics"),
}
UNIT_PREFIXES: Mapping[str, str] = {  # metric prefix -> unit, as ncu's rule names the memory side's bottleneck
    "dram": "DRAM", "fbpa": "DRAM", "fbp": "DRAM", "lts": "L2", "ltc": "L2", "syslts": "system L2", "l1tex": "L1",
    "sm": "SM", "idc": "SM", "gpu": "memory system",
}

def unit_short_name(metric: str) -> str:
    """A breakdown unit's short name ("FP64", "ALU", "issue", "L1", "DRAM"; a roof's key in capitals), from its
    metric (the time model's term keys, the tables' busiest unit)."""
    base = metric.split(".", 1)[0]
    if base in BREAKDOWN_UNITS:
        return BREAKDOWN_UNITS[base][0]
    if metric in NAMES:
        return NAMES[metric]
    return UNIT_PREFIXES.get(base.partition("__")[0], base)


UNIT_LEVELS: Mapping[str, str] = {  # metric prefix -> the memory level a unit belongs to (``analysis.advice``)
    "dram": "dram", "fbpa": "dram", "fbp": "dram", "lts": "l2", "ltc": "l2", "l1tex": "l1"}
