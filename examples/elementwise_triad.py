"""STREAM-like triad ``a = b + s * c`` on FP32 vectors: 2 FLOPs per 12 bytes, so clearly memory-bound.

Uses CuPy (a kernel named ``triad``) when it is installed, else PyTorch (an elementwise kernel).

    python examples/elementwise_triad.py --elements 67108864 --repeat 5
    roofline analyze -k regex:triad -c 1 examples/elementwise_triad.py --backend cupy
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

BYTES_PER_ELEMENT = 3 * 4  # read b and c, write a (float32)
PIP_NAMES = {"cupy": "cupy-cuda12x", "torch": "torch"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line: vector length, repeats and backend."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 26,
                        help="vector length (default 2^26: 256 MiB per vector, far larger than any L2)")
    parser.add_argument("--repeat", type=int, default=5, help="timed triads (default 5)")
    parser.add_argument("--backend", choices=["auto", "cupy", "torch"], default="auto",
                        help="array library (default: CuPy if installed, else PyTorch)")
    return parser.parse_args(argv)


def cupy_triad(n: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """The triad as a CuPy ElementwiseKernel named ``triad``; returns (run once, synchronize)."""
    import cupy

    kernel = cupy.ElementwiseKernel("float32 b, float32 c, float32 s", "float32 a", "a = b + s * c", "triad")
    b, c = cupy.random.rand(n, dtype=cupy.float32), cupy.random.rand(n, dtype=cupy.float32)
    a = cupy.empty_like(b)
    return (lambda: kernel(b, c, cupy.float32(3.0), a)), cupy.cuda.Device().synchronize


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
    run, sync = pick_backend(args.backend)(args.elements)
    run()
    sync()
    start = time.perf_counter()
    for _ in range(args.repeat):
        run()
    sync()
    seconds = (time.perf_counter() - start) / args.repeat
    print(f"triad: {args.elements} elements, {BYTES_PER_ELEMENT * args.elements / seconds / 1e9:.0f} GB/s")


if __name__ == "__main__":
    main(sys.argv[1:])
