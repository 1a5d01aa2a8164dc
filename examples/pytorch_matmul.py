"""Square matrix multiply in FP32 (TF32 off, so CUDA-core FFMA) and BF16 (Tensor Cores) with PyTorch.

Both precisions run the same M=N=K product, so on a roofline the BF16 GEMM should sit near the Tensor
roof and the FP32 one near the FP32 roof. Each precision runs inside an NVTX range named after it.

    python examples/pytorch_matmul.py --size 4096 --dtype both --repeat 3
    roofline analyze --nvtx-include bf16/ -c 1 -o reports/matmul-bf16 examples/pytorch_matmul.py --dtype bf16
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line: matrix size (M=N=K), precision(s) and number of timed repeats."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    parser.add_argument("--dtype", choices=[*DTYPES, "both"], default="both", help="precision (default both)")
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


def time_matmul(torch: ModuleType, size: int, dtype_name: str, repeat: int) -> float:
    """Run one warm-up and ``repeat`` timed products; return the achieved TFLOP/s (2*M*N*K per product)."""
    dtype = getattr(torch, DTYPES[dtype_name])
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    with torch.cuda.nvtx.range(dtype_name):
        torch.matmul(a, b)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            torch.matmul(a, b)
        stop.record()
        torch.cuda.synchronize()
    seconds = start.elapsed_time(stop) / 1e3 / repeat
    return 2.0 * size**3 / seconds / 1e12


def main(argv: list[str]) -> None:
    """Multiply in each requested precision and print the achieved rate (lower under ncu: it replays)."""
    args = parse_args(argv)
    torch = load_torch()
    for name in DTYPES if args.dtype == "both" else [args.dtype]:
        rate = time_matmul(torch, args.size, name, args.repeat)
        print(f"{name}: {args.size}^3 matmul, {rate:.1f} TFLOP/s on {torch.cuda.get_device_name()}")


if __name__ == "__main__":
    main(sys.argv[1:])
