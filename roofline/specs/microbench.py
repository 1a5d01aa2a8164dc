"""GPU microbenchmarks behind ``roofline calibrate``: achievable DRAM and L2 bandwidth, FP32/FP64 FMA rate and
Tensor Core GEMM rate per data type, each launch timed on its own.

Runs on a GPU node as a child process (``python -m roofline.specs.microbench OUT.json``), so that ``roofline calibrate``
can run it once as is (the GPU's default clocks, CUDA events) and once under ncu (ncu's clock control, each
launch inside an NVTX range named after its benchmark). The bandwidth and FMA kernels are CUDA C compiled by
CuPy (NVRTC); the GEMMs are cuBLAS through PyTorch (CuPy for FP16/FP64 where PyTorch is missing). A benchmark
whose library is missing is written with the reason instead of samples. Nothing here is imported by the
analysis: CuPy and PyTorch load only in this child.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any

NVTX_PREFIX = "roofline_"  # the NVTX range of benchmark NAME is roofline_NAME
WARMUPS = 2
CHAINS = 8  # independent FMA chains per thread: enough ILP to hide the FMA latency at full occupancy
BLOCK = 256

KERNELS = r"""
template <typename T>
__device__ void fma_chains(T* out, T a, T b, int iters) {
    T x[8];
    #pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = (T)(threadIdx.x + c);
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int c = 0; c < 8; ++c) x[c] = fma(x[c], a, b);
    }
    T s = 0;
    #pragma unroll
    for (int c = 0; c < 8; ++c) s += x[c];
    if (s == (T)-1) out[blockIdx.x] = s;  // never true for these inputs; keeps the chains alive
}
extern "C" __global__ void roofline_fma_fp32(float* out, float a, float b, int iters) { fma_chains(out, a, b, iters); }
extern "C" __global__ void roofline_fma_fp64(double* out, double a, double b, int iters) {
    fma_chains(out, a, b, iters);
}

// Reads the same buffer `passes` times through L2 only (ld.global.cg skips L1).
extern "C" __global__ void roofline_l2_read(const float4* __restrict__ buf, long long n, int passes, float* out) {
    float acc = 0.0f;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (int p = 0; p < passes; ++p) {
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            float4 v = __ldcg(buf + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    if (acc == -1.0f) out[blockIdx.x] = acc;
}

// STREAM copy: every byte read once from DRAM and written once.
extern "C" __global__ void roofline_dram_copy(const float4* __restrict__ src, float4* __restrict__ dst, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}
"""


@dataclass
class Benchmark:
    """One microbenchmark: what it measures, the work of one launch (FLOPs or bytes) and its launch times."""

    name: str  # the ceiling it measures: dram, l2, fp32, fp64, tensor_fp16, ...
    unit: str  # "FLOP" or "byte"
    work: float | None = None
    method: str = ""
    seconds: list[float] = field(default_factory=list)
    missing: str | None = None  # why it was not measured


def _import(name: str) -> ModuleType | None:
    """A module, or None when it is not installed or sees no CUDA GPU."""
    try:
        module = __import__(name)
    except ImportError:
        return None
    if name == "torch" and not module.cuda.is_available():
        return None
    if name == "cupy":
        try:
            module.cuda.runtime.getDeviceCount()
        except Exception:
            return None
    return module


class Timer:
    """Launch-by-launch timing with CUDA events, each launch inside the benchmark's NVTX range."""

    def __init__(self, torch: ModuleType | None, cupy: ModuleType | None, reps: int) -> None:
        self.torch, self.cupy, self.reps = torch, cupy, reps

    def time(self, name: str, run: Callable[[], object]) -> list[float]:
        """``WARMUPS`` untimed launches, then ``reps`` timed ones; seconds per launch."""
        for _ in range(WARMUPS):
            run()
        self._sync()
        seconds = []
        for _ in range(self.reps):
            start, stop = self._events()
            with self._range(NVTX_PREFIX + name):
                start.record()
                run()
                stop.record()
                stop.synchronize()
            seconds.append(self._elapsed_ms(start, stop) / 1e3)
        return seconds

    def _sync(self) -> None:
        if self.torch is not None:
            self.torch.cuda.synchronize()
        if self.cupy is not None:
            self.cupy.cuda.Device().synchronize()

    def _events(self) -> tuple[Any, Any]:
        if self.torch is not None:
            return self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
        assert self.cupy is not None
        return self.cupy.cuda.Event(), self.cupy.cuda.Event()

    def _elapsed_ms(self, start: Any, stop: Any) -> float:
        if self.torch is not None:
            return float(start.elapsed_time(stop))
        assert self.cupy is not None
        return float(self.cupy.cuda.get_elapsed_time(start, stop))

    def _range(self, name: str) -> Any:
        if self.torch is not None:
            return self.torch.cuda.nvtx.range(name)
        assert self.cupy is not None
        return _CupyRange(self.cupy, name)


class _CupyRange:
    """An NVTX push/pop range through CuPy, for when PyTorch is missing."""

    def __init__(self, cupy: ModuleType, name: str) -> None:
        self.cupy, self.name = cupy, name

    def __enter__(self) -> None:
        self.cupy.cuda.nvtx.RangePush(self.name)

    def __exit__(self, *exc: object) -> None:
        self.cupy.cuda.nvtx.RangePop()


def _device(cupy: ModuleType | None, torch: ModuleType | None) -> dict[str, Any]:
    """Name, SM count, L2 size, memory size and the threads an SM holds, from whichever library is there."""
    if cupy is not None:
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        return {"name": props["name"].decode(), "sm_count": props["multiProcessorCount"],
                "l2_bytes": props["l2CacheSize"], "memory_bytes": props["totalGlobalMem"],
                "threads_per_sm": props["maxThreadsPerMultiProcessor"]}
    assert torch is not None
    p = torch.cuda.get_device_properties(0)
    return {"name": p.name, "sm_count": p.multi_processor_count, "l2_bytes": p.L2_cache_size,
            "memory_bytes": p.total_memory, "threads_per_sm": p.max_threads_per_multi_processor}


def cuda_core_benchmarks(cupy: ModuleType | None, device: dict[str, Any], timer: Timer) -> list[Benchmark]:
    """DRAM copy, L2 read and FP32/FP64 FMA chains, compiled with CuPy; missing with the reason without it."""
    names = [("dram", "byte"), ("l2", "byte"), ("fp32", "FLOP"), ("fp64", "FLOP")]
    if cupy is None:
        why = "needs CuPy with a CUDA GPU (pip install cupy-cuda12x or cupy-cuda13x, matching the CUDA driver)"
        return [Benchmark(name, unit, missing=why) for name, unit in names]
    module = cupy.RawModule(code=KERNELS)
    blocks = device["sm_count"] * max(1, device["threads_per_sm"] // BLOCK)
    sink = cupy.zeros(blocks, dtype=cupy.float64)
    return [_dram(cupy, module, device, blocks, timer), _l2(cupy, module, device, blocks, sink, timer),
            *(_fma(cupy, module, precision, blocks, sink, timer) for precision in ("fp32", "fp64"))]


def _dram(cupy: ModuleType, module: Any, device: dict[str, Any], blocks: int, timer: Timer) -> Benchmark:
    """Copy a buffer far larger than L2 (1 GiB, or an eighth of the memory on small GPUs)."""
    size = min(1 << 30, device["memory_bytes"] // 8) // 16 * 16
    src = cupy.ones(size // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    kernel = module.get_function("roofline_dram_copy")
    n = cupy.int64(size // 16)
    seconds = timer.time("dram", lambda: kernel((blocks,), (BLOCK,), (src, dst, n)))
    return Benchmark("dram", "byte", 2.0 * size, f"STREAM copy of {size / 2**20:.0f} MiB (read + write)", seconds)


def _l2(cupy: ModuleType, module: Any, device: dict[str, Any], blocks: int, sink: Any, timer: Timer) -> Benchmark:
    """Read a buffer of a quarter of L2 many times through L2 only."""
    size = device["l2_bytes"] // 4 // 16 * 16
    passes = 64
    buf = cupy.ones(size // 4, dtype=cupy.float32)
    kernel = module.get_function("roofline_l2_read")
    args = (buf, cupy.int64(size // 16), cupy.int32(passes), sink)
    seconds = timer.time("l2", lambda: kernel((blocks,), (BLOCK,), args))
    return Benchmark("l2", "byte", float(size) * passes,
                     f"{passes} reads of {size / 2**20:.1f} MiB (a quarter of L2) with ld.global.cg", seconds)


FMA_ITERS = {"fp32": 8192, "fp64": 2048}


def _fma(cupy: ModuleType, module: Any, precision: str, blocks: int, sink: Any, timer: Timer) -> Benchmark:
    """``CHAINS`` independent FMA chains per thread, a full GPU of threads."""
    iters = FMA_ITERS[precision]
    kernel = module.get_function(f"roofline_fma_{precision}")
    scalar = cupy.float32 if precision == "fp32" else cupy.float64
    out = sink if precision == "fp64" else sink.view(cupy.float32)
    args = (out, scalar(0.999), scalar(0.001), cupy.int32(iters))
    seconds = timer.time(precision, lambda: kernel((blocks,), (BLOCK,), args))
    flops = 2.0 * CHAINS * iters * blocks * BLOCK
    return Benchmark(precision, "FLOP", flops, f"{CHAINS} FMA chains x {iters} per thread, "
                     f"{blocks} blocks of {BLOCK}", seconds)


GEMM_SIZE = {"tensor_fp64": 4096}  # FP64 runs far slower on most GPUs; the others use 8192
# No INT8: torch._int_mm reaches a few percent of the INT8 Tensor rate on an H100, no ceiling to measure with.
GEMMS = ("tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8", "tensor_fp64")


def tensor_benchmarks(torch: ModuleType | None, cupy: ModuleType | None, timer: Timer) -> list[Benchmark]:
    """cuBLAS GEMMs of 2*M*N*K FLOPs per data type (square, random normal data)."""
    return [_gemm(name, torch, cupy, timer) for name in GEMMS]


def _gemm(name: str, torch: ModuleType | None, cupy: ModuleType | None, timer: Timer) -> Benchmark:
    """One data type's GEMM, or the reason it cannot run here."""
    size = GEMM_SIZE.get(name, 8192)
    unit = "FLOP"
    run = _torch_gemm(torch, name, size) if torch is not None else _cupy_gemm(cupy, name, size)
    if isinstance(run, str):
        return Benchmark(name, unit, missing=run)
    seconds = timer.time(name, run)
    library = "PyTorch" if torch is not None else "CuPy"
    return Benchmark(name, unit, 2.0 * size**3, f"{library} (cuBLAS) {size}^3 GEMM, random normal data", seconds)


def _torch_gemm(torch: ModuleType, name: str, size: int) -> Callable[[], object] | str:
    """The GEMM as a PyTorch call; a reason string where this PyTorch or GPU cannot run it."""
    torch.backends.cuda.matmul.allow_tf32 = name == "tensor_tf32"
    if name == "tensor_fp8":
        return _torch_fp8(torch, size)
    dtype = {"tensor_fp16": torch.float16, "tensor_bf16": torch.bfloat16, "tensor_tf32": torch.float32,
             "tensor_fp64": torch.float64}[name]
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    return lambda: torch.matmul(a, b)


def _torch_fp8(torch: ModuleType, size: int) -> Callable[[], object] | str:
    """FP8 (E4M3 inputs, BF16 output) through ``torch._scaled_mm``: compute capability 8.9 or later."""
    if torch.cuda.get_device_capability() < (8, 9) or not hasattr(torch, "_scaled_mm"):
        return "FP8 GEMMs need compute capability 8.9 or later and torch._scaled_mm"
    a = torch.randn(size, size, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(size, size, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
    one = torch.ones((), device="cuda")
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def _cupy_gemm(cupy: ModuleType | None, name: str, size: int) -> Callable[[], object] | str:
    """FP16 and FP64 GEMMs through CuPy where PyTorch is missing; the other types need PyTorch."""
    dtype = {"tensor_fp16": "float16", "tensor_fp64": "float64"}.get(name)
    if cupy is None or dtype is None:
        return "needs PyTorch with CUDA (pip install torch)" + ("" if cupy is None else "; CuPy has no such GEMM")
    a = cupy.random.standard_normal((size, size)).astype(dtype)
    b = cupy.random.standard_normal((size, size)).astype(dtype)
    return lambda: cupy.matmul(a, b)


def run_all(reps: int) -> dict[str, Any]:
    """Every benchmark on GPU 0; the device it ran on and one entry per benchmark."""
    torch, cupy = _import("torch"), _import("cupy")
    if torch is None and cupy is None:
        raise SystemExit("roofline calibrate needs CuPy or PyTorch with a CUDA GPU: pip install cupy-cuda12x "
                         "(or cupy-cuda13x) and/or torch")
    device = _device(cupy, torch)
    timer = Timer(torch, cupy, reps)
    benchmarks = cuda_core_benchmarks(cupy, device, timer) + tensor_benchmarks(torch, cupy, timer)
    return {"device": device, "software": _software(torch, cupy), "benchmarks": [asdict(b) for b in benchmarks]}


def _software(torch: ModuleType | None, cupy: ModuleType | None) -> str:
    """The libraries the benchmarks ran with and the CUDA driver, for the calibration file."""
    parts = [f"PyTorch {torch.__version__}"] if torch is not None else []
    if cupy is not None:
        driver = cupy.cuda.runtime.driverGetVersion()
        parts += [f"CuPy {cupy.__version__}", f"CUDA driver API {driver // 1000}.{driver % 1000 // 10}"]
    return ", ".join(parts)


def main(argv: list[str]) -> None:
    """``python -m roofline.specs.microbench OUT.json [--reps N]``: run every benchmark and write the results."""
    parser = argparse.ArgumentParser(prog="python -m roofline.specs.microbench", description=__doc__.splitlines()[0])
    parser.add_argument("output", help="JSON file to write")
    parser.add_argument("--reps", type=int, default=10, help="timed launches per benchmark (default 10)")
    args = parser.parse_args(argv)
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(run_all(args.reps), out, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
