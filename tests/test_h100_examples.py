"""The project's own H100 reports (examples/h100, profiled with `roofline analyze` on an H100 80GB HBM3, ncu
2025.3.1, --set roofline and --set full) against the work each kernel does by construction.

GEMMs are M = N = K = 4096 (2*M*N*K FLOPs, on the precision's path: FFMA for FP32 with TF32 off, DMMA for FP64,
the Tensor Cores for BF16/FP16/FP8); the triads a = b + s*c run over 2^26 FP32 elements (one FFMA, 2 FLOPs, and
12 bytes each) or 2^26 FP16 elements in pairs (one HFMA2 per pair: 2 FLOPs and 6 bytes each). Tolerances,
from these reports (docs/accuracy.md): FLOPs within 0.1% (cuBLAS's FP32 kernel adds its epilogue's FFMAs,
0.024% of 2MNK); DRAM bytes from the bytes moved less the L2 capacity (stores still dirty in L2 when the kernel
ends are written back after it) up to 1% above them. These files are in the repository, so these tests run
without ../shared.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import roofline
from roofline.analysis.results import LaunchAnalysis
from roofline.core.model import Report
from roofline.pipeline import AnalysisOptions, analyze_loaded

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "h100"
GEMM_FLOPS = 2.0 * 4096**3
TRIAD_N = 2**26
TRIAD_FLOPS, TRIAD_BYTES = 2.0 * TRIAD_N, 12.0 * TRIAD_N
FLOP_TOLERANCE = 1e-3
DRAM_EXCESS = 0.01

# file -> (precision whose FLOPs are known, Tensor Core type or None, FLOPs, bytes moved or None, expected bound)
CASES = {
    "torch-bf16.roofline.ncu-rep": ("tensor", "bf16", GEMM_FLOPS, None, "compute"),
    "torch-bf16.full.ncu-rep": ("tensor", "bf16", GEMM_FLOPS, None, "compute"),
    "torch-fp16.roofline.ncu-rep": ("tensor", "fp16", GEMM_FLOPS, None, "compute"),
    "torch-fp8.roofline.ncu-rep": ("tensor", "fp8", GEMM_FLOPS, None, "compute"),
    "sgemm-cuda.roofline.ncu-rep": ("fp32", None, GEMM_FLOPS, None, "memory"),
    "triad-cupy.roofline.ncu-rep": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "memory"),
    "triad-cupy.full.ncu-rep": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "memory"),
    # FP16 pairs: one HFMA2 (a real one, HFMA2.MMA R11, R4, R3, R6) per two elements, 6 bytes per element
    "triad-half2.roofline.ncu-rep": ("fp16", None, TRIAD_FLOPS, 6.0 * TRIAD_N, "memory"),
    "triad-half2.full.ncu-rep": ("fp16", None, TRIAD_FLOPS, 6.0 * TRIAD_N, "memory"),
    # report models of the reports too large to ship (examples/README.md)
    "torch-fp32.roofline.json": ("fp32", None, GEMM_FLOPS, None, "compute"),
    "torch-fp64.roofline.json": ("tensor", "fp64", GEMM_FLOPS, None, "compute"),
    "torch-fp64.full.json": ("tensor", "fp64", GEMM_FLOPS, None, "compute"),
    "torch-fp16.full.json": ("tensor", "fp16", GEMM_FLOPS, None, "compute"),
    "torch-fp8.full.json": ("tensor", "fp8", GEMM_FLOPS, None, "compute"),
    "sgemm-cuda.full.json": ("fp32", None, GEMM_FLOPS, None, "memory"),
    "triad-torch.roofline.json": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "memory"),
    "triad-torch.full.json": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "memory"),
}


@functools.cache
def analysed(name: str) -> tuple[Report, LaunchAnalysis]:
    report = roofline.load(EXAMPLES / name)
    return report, analyze_loaded(report, AnalysisOptions(diagnostics=False)).launches[0]


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[str, Report, LaunchAnalysis]:
    return (request.param, *analysed(request.param))


def test_every_example_is_one_launch_on_the_h100(case: tuple[str, Report, LaunchAnalysis]) -> None:
    _, report, _ = case
    assert report.device.name == "NVIDIA H100 80GB HBM3" and report.device.sm_count == 132
    assert len(report.launches) == 1


def test_flops_match_the_work_by_construction(case: tuple[str, Report, LaunchAnalysis]) -> None:
    name, _, k = case
    precision, dtype, expected, _, _ = CASES[name]
    assert k.flops[precision].value == pytest.approx(expected, rel=FLOP_TOLERANCE)
    if dtype is not None:
        assert k.tensor_flops_by_type[dtype] == pytest.approx(expected, rel=FLOP_TOLERANCE)
        assert k.ceilings["measured-clock"].tensor_dtype == dtype


def test_real_hfma2_arithmetic_is_kept_with_the_full_set() -> None:
    """The half2 triad's HFMA2 instructions multiply real registers: none is a register move, so both sets
    count the same FP16 FLOPs, 2 per element."""
    full, partial = analysed("triad-half2.full.ncu-rep")[1], analysed("triad-half2.roofline.ncu-rep")[1]
    assert full.flops["fp16"].value == pytest.approx(TRIAD_FLOPS, rel=1e-12)
    assert partial.flops["fp16"].value == pytest.approx(TRIAD_FLOPS, rel=1e-12)


@pytest.mark.parametrize("name", ["sgemm-cuda.full.json", "triad-cupy.full.ncu-rep", "triad-torch.full.json"])
def test_fp32_kernels_count_no_fp16_with_the_full_set(name: str) -> None:
    """Their only HFMA2 instructions are register moves (zero products), which the SourceCounters let the
    reader leave out; the roofline-set SGEMM report still counts them, with a note."""
    assert analysed(name)[1].flops["fp16"].value == 0
    if name.startswith("sgemm"):
        partial = analysed("sgemm-cuda.roofline.ncu-rep")[1]
        assert partial.flops["fp16"].value and any("--set full" in note for note in partial.notes)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[3] is not None))
def test_dram_bytes_match_the_bytes_moved(name: str) -> None:
    """Only the triads: a GEMM's DRAM traffic depends on its tiling, no count by construction."""
    report, k = analysed(name)
    moved = CASES[name][3]
    l2 = report.device.l2_cache_bytes
    assert moved is not None and l2 == 50 * 2**20
    dram = k.bytes["dram"].value
    assert dram is not None and moved - l2 <= dram <= moved * (1 + DRAM_EXCESS)


def ncu_side(title: str, message: str) -> str:
    """The side ncu's SOLBottleneck rule points at: its title, or for "High Throughput" (over 80% of some unit)
    the workload-analysis section it sends the reader to."""
    if title == "High Throughput":
        return "memory" if "MemoryWorkloadAnalysis" in message else "compute"
    return {"High Compute Throughput": "compute", "High Memory Throughput": "memory"}[title]


def test_the_bound_agrees_with_the_kernel_and_with_ncu(case: tuple[str, Report, LaunchAnalysis]) -> None:
    """GEMMs on Tensor Cores are compute-bound; the triads and the shared-memory-starved tiled SGEMM are
    memory-bound (the L1/shared data pipe); ncu's own SpeedOfLight rule points at the same side."""
    name, report, k = case
    assert k.verdict.bound == CASES[name][4]
    rules = [r for r in report.launches[0].rules if r.rule == "SOLBottleneck"]
    assert len(rules) == 1 and ncu_side(rules[0].title, rules[0].message) == CASES[name][4]
