"""STREAM-like triad ``a = b + s * c`` on FP32 vectors: 2 FLOPs per 12 bytes, so clearly memory-bound.

Uses CuPy (a kernel named ``triad``) when it is installed, else PyTorch (an elementwise kernel). With
``--half2`` (CuPy), the same triad on FP16 pairs: one ``__hfma2`` per two elements (kernel ``triad_half2``,
2 FLOPs and 6 bytes per element), a kernel whose FP16 FLOPs are known.

    python examples/elementwise_triad.py --elements 67108864 --repeat 5
    roofline analyze -k regex:triad -c 1 examples/elementwise_triad.py --backend cupy
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

BYTES_PER_ELEMENT = 3 * 4  # read b and c, write a (float32)
HALF2_TRIAD = r"""
#include <cuda_fp16.h>
extern "C" __global__ void triad_half2(const __half2* b, const __half2* c, const __half2* s, __half2* a,
                                       long long pairs) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) a[i] = __hfma2(s[0], c[i], b[i]);
}
"""
PIP_NAMES = {"cupy": "cupy-cuda12x", "torch": "torch"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line: vector length, repeats and backend."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 26,
                        help="vector length (default 2^26: 256 MiB per vector, far larger than any L2)")
    parser.add_argument("--repeat", type=int, default=5, help="timed triads (default 5)")
    parser.add_argument("--backend", choices=["auto", "cupy", "torch"], default="auto",
                        help="array library (default: CuPy if installed, else PyTorch)")
    parser.add_argument("--half2", action="store_true", help="FP16 pairs with __hfma2 (CuPy; 6 bytes per element)")
    return parser.parse_args(argv)


def cupy_triad(n: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """The triad as a CuPy ElementwiseKernel named ``triad``; returns (run once, synchronize)."""
    import cupy

    kernel = cupy.ElementwiseKernel("float32 b, float32 c, float32 s", "float32 a", "a = b + s * c", "triad")
    b, c = cupy.random.rand(n, dtype=cupy.float32), cupy.random.rand(n, dtype=cupy.float32)
    a = cupy.empty_like(b)
    return (lambda: kernel(b, c, cupy.float32(3.0), a)), cupy.cuda.Device().synchronize


def cupy_half2_triad(n: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """The triad on FP16 pairs, one ``__hfma2`` per pair (kernel ``triad_half2``); returns (run, synchronize)."""
    import cupy

    kernel = cupy.RawKernel(HALF2_TRIAD, "triad_half2")
    b = cupy.random.rand(n, dtype=cupy.float32).astype(cupy.float16)
    c = cupy.random.rand(n, dtype=cupy.float32).astype(cupy.float16)
    s, a = cupy.full(2, 3.0, dtype=cupy.float16), cupy.empty_like(b)
    pairs, block = n // 2, 256
    grid = (pairs + block - 1) // block
    return (lambda: kernel((grid,), (block,), (b, c, s, a, cupy.int64(pairs)))), cupy.cuda.Device().synchronize


def torch_triad(n: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """The triad as ``torch.add(b, c, alpha=s, out=a)`` (one elementwise kernel); returns (run, synchronize)."""
    import torch

    if not torch.cuda.is_available():
        sys.exit("elementwise_triad.py: PyTorch sees no CUDA GPU (check nvidia-smi and the torch CUDA build)")
    b, c = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    a = torch.empty_like(b)
    return (lambda: torch.add(b, c, alpha=3.0, out=a)), torch.cuda.synchronize


def pick_backend(name: str) -> Callable[[int], tuple[Callable[[], None], Callable[[], None]]]:
    """The requested backend, or the first importable one for ``auto``; exits with a clear message if none."""
    order = ["cupy", "torch"] if name == "auto" else [name]
    for candidate in order:
        try:
            __import__(candidate)
        except ImportError:
            continue
        return cupy_triad if candidate == "cupy" else torch_triad
    sys.exit(f"elementwise_triad.py needs {' or '.join(order)} with CUDA: "
             f"pip install {' or '.join(PIP_NAMES[c] for c in order)}")


def main(argv: list[str]) -> None:
    """Run one warm-up and ``repeat`` timed triads; print the achieved bandwidth (lower under ncu)."""
    args = parse_args(argv)
    if args.half2 and args.backend != "cupy":
        sys.exit("elementwise_triad.py: --half2 needs --backend cupy")
    run, sync = (cupy_half2_triad if args.half2 else pick_backend(args.backend))(args.elements)
    run()
    sync()
    start = time.perf_counter()
    for _ in range(args.repeat):
        run()
    sync()
    seconds = (time.perf_counter() - start) / args.repeat
    moved = (6 if args.half2 else BYTES_PER_ELEMENT) * args.elements
    print(f"triad: {args.elements} elements, {moved / seconds / 1e9:.0f} GB/s")


if __name__ == "__main__":
    main(sys.argv[1:])
