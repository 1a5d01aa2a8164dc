"""Which library a kernel comes from, read from its names: the one place that classifies kernel names for advice.

A library kernel (cuBLAS, cuDNN, CUTLASS, cuFFT, NCCL, CUB/Thrust, FlashAttention, PyTorch ATen, Triton) is
built by someone else: its registers, shared memory and block size are not the caller's to change, so the
advice for it is what the caller controls (problem shape, math mode, data type, batching, fusion). Also here:
whether a name says matrix multiply or convolution, the only name-based ground for Tensor Core advice.

The architecture-specific instance names of cuBLAS, cuDNN and CUTLASS (``ampere_sgemm_*``, ``sm90_xmma_*``,
``cutlass_80_simt_*``, ``nvjet_*``) are read by ``roofline.core.kernel_families``, the one place for their naming
rules; the patterns here add the other libraries and the names those rules leave out (cuBLAS helper kernels,
cuDNN's older convolutions, CUTLASS templates instantiated in user code). Checked on every kernel name in
shared/ncu-reps (tests/analysis/test_libraries.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from msgspec import Struct

from roofline.core.kernel_families import classify


class Library(Struct, frozen=True):
    """A library a kernel belongs to, what the kernel does, and what its caller can change. What depends on the GPU
    is said by the advice (``analysis.advice``), from the data here: the 16-bit input types this GPU takes
    (``half_inputs``), and whether FP32 data gains from TF32 Tensor Cores there (``tf32_mode``)."""

    name: str
    kind: str  # "gemm", "convolution", "fft", "collective", "primitive", "attention", "elementwise", "generated"
    caller_advice: str
    type_advice: str = ""  # the data-type change, for a call whose math ran on the CUDA cores
    small_advice: str = ""  # the change for a short launch or one of under a wave of blocks
    tf32_mode: str = ""  # how a caller lets FP32 data run on TF32 Tensor Cores ("": the library has no such switch)
    half_inputs: bool = False  # whether the data-type change names 16-bit inputs (the ones this GPU takes)


_BLAS = Library("cuBLAS", "gemm", "choose the problem shape (M, N, K multiples of 8 or 16 let cuBLAS pick Tensor "
                "Core kernels) and batch many small GEMMs into one batched or strided-batched call",
                "the data type", tf32_mode="torch.backends.cuda.matmul.allow_tf32 = True or "
                "cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH)", half_inputs=True)
_DNN = Library("cuDNN", "convolution", "choose the NHWC layout and a larger batch, and let cuDNN benchmark its "
               "algorithms (cudnnFind*, torch.backends.cudnn.benchmark = True)", "the data type", half_inputs=True)
_CUTLASS = Library("CUTLASS", "gemm", "choose the tile shape, a problem shape that is a multiple of the tile, and "
                   "split-K for small M x N", "the data type and math (Tensor Core) operator in the template "
                   "instantiation")
_PRIMITIVE_CALLS = ("give each call more data or batch segments into one call (segmented and batched primitives) "
                    "and make fewer calls")
_FAMILY_LIBRARIES = {"cuBLAS": _BLAS, "cuDNN": _DNN, "CUTLASS": _CUTLASS}  # kernel_families' library names
_LIBRARIES: tuple[tuple[re.Pattern[str], Library], ...] = (
    (re.compile(r"\bnccl", re.IGNORECASE),
     Library("NCCL", "collective", "send fewer, larger messages (bucket small tensors together), overlap the "
             "collective with computation, and check the topology settings (NCCL_ALGO, NCCL_PROTO)")),
    (re.compile(r"flash_(?:fwd|bwd)|\bflash::|\bfmha", re.IGNORECASE),
     Library("FlashAttention", "attention", "choose the head dimension, sequence length and data type "
             "(FP16/BF16) of the call, batch sequences of similar length, and use the library build for this GPU")),
    (re.compile(r"cudnn|implicit_convolve|precomputed_convolve|winograd", re.IGNORECASE), _DNN),
    (re.compile(r"cublas|^(?:maxwell|pascal|volta|turing|ampere)_\w*(?:gemv|trsm)|gemv2[NT]_kernel|gemmSN_"
                r"|gemmk1_kernel|splitKreduce_kernel", re.IGNORECASE), _BLAS),
    (re.compile(r"\bcutlass::(?:Kernel|device_kernel|gemm::kernel|conv::kernel)", re.IGNORECASE), _CUTLASS),
    (re.compile(r"regular_fft|vector_fft|\bcufft|[sd]pRadix\d|[sd]pVector\d", re.IGNORECASE),
     Library("cuFFT", "fft", "use transform sizes with small prime factors (2, 3, 5, 7), batch transforms in one "
             "plan, and real-to-complex transforms for real data")),
    (re.compile(r"\bat::native::|\bat::cuda::|^(?:vectorized_|unrolled_|index_)?elementwise_kernel"
                r"|distribution_elementwise|^reduce_kernel", re.IGNORECASE),
     Library("PyTorch ATen", "elementwise", "fuse the chain of elementwise operations (torch.compile or a fused op)",
             small_advice="give each launch more elements, and capture repeated small launches in a CUDA Graph")),
    (re.compile(r"^triton_", re.IGNORECASE),
     Library("Triton", "generated", "tune the generator, not the kernel: autotuning configurations (BLOCK sizes, "
             "num_warps, num_stages; torch.compile mode='max-autotune') and what it fuses")),
    (re.compile(r"radix_?sort|DeviceRadix\w*Kernel|Onesweep", re.IGNORECASE),
     Library("CUB/Thrust", "primitive", f"{_PRIMITIVE_CALLS}; limit the sort to the key bits in use (begin_bit, "
             "end_bit)")),
    (re.compile(r"\bcub::|\bthrust::|^Device(?:Radix|Reduce|Scan|Segmented|Select|Histogram|Merge|Partition|For)"
                r"\w*Kernel", re.IGNORECASE),
     Library("CUB/Thrust", "primitive", _PRIMITIVE_CALLS)),
)
# A user's lambda (or extended device lambda wrapper) inside a CUB/Thrust template, such as thrust::for_each or
# transform with a lambda: the template only runs the user's code over the range, so the kernel is the user's.
# (PyTorch ATen's elementwise kernels also carry lambdas, but those are ATen's code.)
USER_LAMBDA = re.compile(r"lambda|__nv_[dh]l_wrapper_t|\[\]\(")
_USER_CODE_HOSTS = ("CUB/Thrust",)
# A reduction by name (reduce, reduction, Reduce...): with its DRAM writes a small share of its reads, the other
# ground for reduction advice.
REDUCTION_NAME = re.compile(r"reduc", re.IGNORECASE)
# A matrix multiply or convolution by name: gemm/matmul, MMA instructions, conv (not "convert"). The generated
# Triton templates name their matrix multiplies "mm" (triton_tem_fused_mm_...).
MATMUL_NAME = re.compile(r"gemm|matmul|mat_?mul|(?<![a-z])[whi]?mma(?![a-z])|conv(?!er)|(?<=_)b?mm(?=_|$)",
                         re.IGNORECASE)


def library(names: Iterable[str]) -> Library | None:
    """The library of a kernel from its names (function, demangled): a cuBLAS/cuDNN/CUTLASS instance name
    ``kernel_families`` reads, else the first pattern that matches; None for a kernel of no known library."""
    return _library_of(tuple(n for n in names if n))


@functools.lru_cache(maxsize=4096)
def _library_of(texts: tuple[str, ...]) -> Library | None:
    """``library`` of the non-empty names, remembered: the launches of one kernel share their names."""
    for text in texts:
        found = classify(text)
        if found is not None and found.library in _FAMILY_LIBRARIES:
            return _FAMILY_LIBRARIES[found.library]
    for pattern, lib in _LIBRARIES:
        if any(pattern.search(text) for text in texts):
            if lib.name in _USER_CODE_HOSTS and any(USER_LAMBDA.search(text) for text in texts):
                return None  # the user's lambda run by the template: the user's code
            return lib
    return None


def matmul_name(names: Iterable[str]) -> str:
    """The part of a kernel's name that says matrix multiply or convolution ("" when none does)."""
    return _matmul_name(tuple(names))


@functools.lru_cache(maxsize=4096)
def _matmul_name(names: tuple[str, ...]) -> str:
    """``matmul_name``, remembered per kernel."""
    for text in names:
        hit = MATMUL_NAME.search(text or "")
        if hit:
            return hit.group(0)
    return ""
