"""The project's own reports (examples/h100 and examples/h200, profiled with `roofline analyze` on an H100 80GB HBM3
and an H200, ncu 2025.3.1, --set roofline and --set full) against the work each kernel does by construction.

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
from roofline.ncu.metrics import FlopNoteKind
from roofline.pipeline import AnalysisOptions, analyze_loaded

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEVICES = {"h100": ("NVIDIA H100 80GB HBM3", 50 * 2**20), "h200": ("NVIDIA H200", 60 * 2**20)}
GEMM_FLOPS = 2.0 * 4096**3
TRIAD_N = 2**26
TRIAD_FLOPS, TRIAD_BYTES = 2.0 * TRIAD_N, 12.0 * TRIAD_N
FLOP_TOLERANCE = 1e-3
DRAM_EXCESS = 0.01

# GPU/file -> (precision whose FLOPs are known, Tensor Core type or None, FLOPs, bytes moved or None, expected bound)
H100_CASES = {
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
H200_CASES = {
    name: H100_CASES[name] for name in (
        "torch-bf16.roofline.ncu-rep", "torch-fp16.roofline.ncu-rep", "torch-fp8.roofline.ncu-rep",
        "sgemm-cuda.roofline.ncu-rep", "triad-half2.roofline.ncu-rep", "torch-fp32.roofline.json",
        "torch-fp64.roofline.json", "triad-torch.roofline.json")
} | {
    # CuPy's triad reaches half of the H200's DRAM peak: ncu's SpeedOfLight rule calls it a latency issue
    "triad-cupy.roofline.ncu-rep": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "latency"),
    "triad-cupy.full.ncu-rep": ("fp32", None, TRIAD_FLOPS, TRIAD_BYTES, "latency"),
    # the tiled SGEMM at N = 2048, built with -lineinfo, its source imported
    "sgemm-lineinfo.full.ncu-rep": ("fp32", None, 2.0 * 2048**3, None, "memory"),
}
CASES = {f"h100/{name}": case for name, case in H100_CASES.items()} | {
    f"h200/{name}": case for name, case in H200_CASES.items()}


@functools.cache
def analysed(name: str) -> tuple[Report, LaunchAnalysis]:
    report = roofline.load(EXAMPLES / name)
    return report, analyze_loaded(report, AnalysisOptions(diagnostics=False)).launches[0]


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[str, Report, LaunchAnalysis]:
    return (request.param, *analysed(request.param))


def test_every_example_is_one_launch_on_its_gpu(case: tuple[str, Report, LaunchAnalysis]) -> None:
    name, report, _ = case
    assert report.device.name == DEVICES[name.split("/")[0]][0] and report.device.sm_count == 132
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
    full, partial = analysed("h100/triad-half2.full.ncu-rep")[1], analysed("h100/triad-half2.roofline.ncu-rep")[1]
    assert full.flops["fp16"].value == pytest.approx(TRIAD_FLOPS, rel=1e-12)
    assert partial.flops["fp16"].value == pytest.approx(TRIAD_FLOPS, rel=1e-12)


@pytest.mark.parametrize("name", ["h100/sgemm-cuda.full.json", "h100/triad-cupy.full.ncu-rep",
                                  "h100/triad-torch.full.json", "h200/triad-cupy.full.ncu-rep",
                                  "h200/sgemm-lineinfo.full.ncu-rep"])
def test_fp32_kernels_count_no_fp16_with_the_full_set(name: str) -> None:
    """Their only HFMA2 instructions are register moves (zero products), which the SourceCounters let the
    reader leave out; the roofline-set SGEMM report still counts them, with a note."""
    assert analysed(name)[1].flops["fp16"].value == 0
    if name.startswith("h100/sgemm"):
        partial = analysed("h100/sgemm-cuda.roofline.ncu-rep")[1]
        assert partial.flops["fp16"].value and any(n.kind is FlopNoteKind.HFMA_MOVES_UNCOUNTED for n in partial.notes)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[3] is not None))
def test_dram_bytes_match_the_bytes_moved(name: str) -> None:
    """Only the triads: a GEMM's DRAM traffic depends on its tiling, no count by construction."""
    report, k = analysed(name)
    moved = CASES[name][3]
    l2 = report.device.l2_cache_bytes
    assert moved is not None and l2 == DEVICES[name.split("/")[0]][1]
    dram = k.bytes["dram"].value
    assert dram is not None and moved - l2 <= dram <= moved * (1 + DRAM_EXCESS)


def ncu_side(title: str, message: str) -> str:
    """The side ncu's SOLBottleneck rule points at: its title, or for "High Throughput" (over 80% of some unit)
    the workload-analysis section it sends the reader to."""
    if title == "High Throughput":
        return "memory" if "MemoryWorkloadAnalysis" in message else "compute"
    return {"High Compute Throughput": "compute", "High Memory Throughput": "memory", "Latency Issue": "latency"}[title]


def test_the_bound_agrees_with_the_kernel_and_with_ncu(case: tuple[str, Report, LaunchAnalysis]) -> None:
    """GEMMs on Tensor Cores are compute-bound; the triads and the shared-memory-starved tiled SGEMM are
    memory-bound (the L1/shared data pipe), or latency-bound where no unit reaches 60% of its peak; ncu's own
    SpeedOfLight rule points at the same side."""
    name, report, k = case
    assert k.verdict.bound == CASES[name][4]
    rules = [r for r in report.launches[0].rules if r.rule == "SOLBottleneck"]
    assert len(rules) == 1 and ncu_side(rules[0].title, rules[0].message) == CASES[name][4]


def test_integer_kernels_count_no_flops_and_agree_with_ncu_on_the_bound() -> None:
    """examples/intops on the H200 (--set full, launch 2 on): the hash is integer-pipe bound, the strided gather
    DRAM-bound (a 33-word stride reads a 32-byte sector for each 4-byte word); neither does floating-point work, and
    its HFMA2 register moves count as none."""
    report = roofline.load(EXAMPLES / "h200" / "intops.full.ncu-rep")
    launches = analyze_loaded(report, AnalysisOptions(diagnostics=False)).launches
    assert [raw.name for raw in report.launches] == ["hash_rounds", "gather_strided"]
    for k, raw, bound in zip(launches, report.launches, ["compute", "memory"], strict=True):
        assert all(not v.value for v in k.flops.values())
        assert k.verdict.bound == bound
        rules = [r for r in raw.rules if r.rule == "SOLBottleneck"]
        assert len(rules) == 1 and ncu_side(rules[0].title, rules[0].message) == bound
    # each 4-byte load misses on its own: DRAM reads at least a 32-byte sector for it (64 bytes on this H200: a
    # sector pair per miss), and 4 bytes are written per element
    gather = launches[1].bytes["dram"].value
    assert gather is not None and 36 * TRIAD_N <= gather <= 68 * TRIAD_N * (1 + DRAM_EXCESS)
