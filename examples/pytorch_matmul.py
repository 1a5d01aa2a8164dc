"""Square matrix multiply with PyTorch in FP32 (TF32 off: CUDA-core FFMA), FP64, BF16, FP16 and FP8.

Every precision runs the same M=N=K product of 2*M*N*K FLOPs, so on a roofline the FP32 GEMM should sit
near the FP32 roof, FP64 near the FP64 (Tensor) roof and BF16/FP16/FP8 near their Tensor roofs. FP8 uses
``torch._scaled_mm`` (E4M3 inputs, BF16 output; Hopper and later). Each precision runs inside an NVTX range
named after it, so a profile can be limited to it whatever cuBLAS names its kernels.

    python examples/pytorch_matmul.py --size 4096 --dtype all --repeat 3
    roofline analyze --nvtx-include bf16/ -c 1 -o reports/matmul-bf16 examples/pytorch_matmul.py --dtype bf16
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from types import ModuleType

DTYPES = {"fp32": "float32", "fp64": "float64", "bf16": "bfloat16", "fp16": "float16", "fp8": "float8_e4m3fn"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line: matrix size (M=N=K), precision(s) and number of timed repeats."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    parser.add_argument("--dtype", choices=[*DTYPES, "all"], default="all", help="precision (default: all of them)")
    parser.add_argument("--repeat", type=int, default=3, help="timed multiplications per precision (default 3)")
    return parser.parse_args(argv)


def load_torch() -> ModuleType:
    """Import PyTorch lazily and insist on a CUDA GPU, with a clear message otherwise."""
    try:
        import torch
    except ImportError:
        sys.exit("pytorch_matmul.py needs PyTorch with CUDA: pip install torch (see https://pytorch.org)")
    if not torch.cuda.is_available():
        sys.exit("pytorch_matmul.py: PyTorch sees no CUDA GPU (check nvidia-smi and the torch CUDA build)")
    torch.backends.cuda.matmul.allow_tf32 = False  # keep FP32 on CUDA cores: true FP32 FFMA, no Tensor Cores
    torch.backends.cudnn.allow_tf32 = False
    return torch


def product(torch: ModuleType, size: int, dtype_name: str) -> Callable[[], object]:
    """The M=N=K product in one precision, its operands made beforehand (outside the NVTX range)."""
    dtype = getattr(torch, DTYPES[dtype_name])
    if dtype_name != "fp8":
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        return lambda: torch.matmul(a, b)
    if not hasattr(torch, "_scaled_mm"):
        sys.exit("pytorch_matmul.py: this PyTorch has no torch._scaled_mm for FP8 products")
    a8 = torch.randn(size, size, device="cuda").to(dtype)
    b8 = torch.randn(size, size, device="cuda").to(dtype).t()  # column-major, as _scaled_mm requires
    one = torch.ones((), device="cuda")
    return lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def time_matmul(torch: ModuleType, size: int, dtype_name: str, repeat: int) -> float:
    """Run one warm-up and ``repeat`` timed products; return the achieved TFLOP/s (2*M*N*K per product)."""
    run = product(torch, size, dtype_name)
    with torch.cuda.nvtx.range(dtype_name):
        run()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            run()
        stop.record()
        torch.cuda.synchronize()
    seconds = start.elapsed_time(stop) / 1e3 / repeat
    return 2.0 * size**3 / seconds / 1e12


def main(argv: list[str]) -> None:
    """Multiply in each requested precision and print the achieved rate (lower under ncu: it replays)."""
    args = parse_args(argv)
    torch = load_torch()
    for name in DTYPES if args.dtype == "all" else [args.dtype]:
        rate = time_matmul(torch, args.size, name, args.repeat)
        print(f"{name}: {args.size}^3 matmul, {rate:.1f} TFLOP/s on {torch.cuda.get_device_name()}")


if __name__ == "__main__":
    main(sys.argv[1:])
