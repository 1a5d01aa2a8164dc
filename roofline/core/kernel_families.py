"""Architecture-neutral names for the kernels of NVIDIA's libraries (cuBLAS, cuBLASLt, cuDNN, CUTLASS).

The libraries name a kernel after the architecture it was built for: the same FP32 matrix multiply runs as
``ampere_sgemm_128x64_nn`` on an A100 and as ``sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_...`` on an H100.
``classify`` reads such a name (a whole name, a prefix a user typed such as ``ampere_sgemm``, or a demangled
name that holds one as a template argument) into a ``LibraryKernel``; ``family`` gives the key that stays the
same across architectures: the operation and the operand type, e.g. ``gemm/f32``. The tile shape and the
layout are left out of the key, because each architecture's heuristics choose other tiles for the same call.

Each rule says where its naming facts come from: kernel names in the reports of ``../shared/ncu-reps``, or
public kernel lists (profiler output quoted in GitHub issues, the CUTLASS profiler documentation). Names
nobody has shown are not guessed: a field the name does not spell is None.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec import Struct

# SM version a legacy cuBLAS/cuDNN kernel-name prefix stands for (the architecture it was tuned for; such a
# kernel may run on later GPUs too: the RTX 4090 report in ../shared/ncu-reps runs ampere_sgemm_128x32_tn).
PREFIX_SM = {"maxwell": 50, "pascal": 60, "volta": 70, "turing": 75, "ampere": 80}
# First SM version of each architecture (CUDA C++ Programming Guide, compute capabilities), newest last.
ARCHITECTURES = ((50, "Maxwell"), (60, "Pascal"), (70, "Volta"), (75, "Turing"), (80, "Ampere"), (89, "Ada"),
                 (90, "Hopper"), (100, "Blackwell"))
# Operand types as the names spell them -> the type in family keys (tf32 math reads FP32 operands).
_TYPES = {"s": "f32", "d": "f64", "h": "f16", "c": "c32", "z": "c64", "i": "i8",
          "fp16": "f16", "bf16": "bf16", "tf32": "f32", "int8": "i8", "f16": "f16", "f32": "f32", "f64": "f64",
          "e4m3": "fp8", "e5m2": "fp8", "s8": "i8", "u8": "i8", "i8": "i8", "s4": "i4", "u4": "i4"}
_TYPE_RE = re.compile(r"(tf32|bf16|f16|f32|f64|e4m3|e5m2|s8|u8|i8|s4|u4)")
_LAYOUT_RE = re.compile(r"_([nt]{2})[nt]?(?=_|$)")
_DESCRIBED_TYPES = {"f32": "FP32", "f64": "FP64", "f16": "FP16", "bf16": "BF16", "c32": "complex FP32",
                    "c64": "complex FP64", "i8": "INT8", "i4": "INT4", "fp8": "FP8"}


class LibraryKernel(Struct, frozen=True):
    """What a library kernel's name says: the library, the SM version it was built for (None when the name
    does not say), the operation, the operand type and the layout (op(A), op(B): ``nn``, ``tn``, ...)."""

    library: str
    sm: int | None
    op: str
    dtype: str | None = None
    layout: str | None = None

    @property
    def key(self) -> str:
        """The architecture-neutral family key: ``gemm/f32``, or just ``gemm`` when the type is unknown."""
        return f"{self.op}/{self.dtype}" if self.dtype else self.op

    @property
    def architecture(self) -> str | None:
        return architecture(self.sm) if self.sm is not None else None

    def counterpart_of(self, other: LibraryKernel) -> bool:
        """Whether this kernel does the work ``other`` names: the same operation and, where both names spell
        one, the same operand type."""
        return self.op == other.op and (self.dtype is None or other.dtype is None or self.dtype == other.dtype)

    def describe(self) -> str:
        """E.g. ``cuBLAS FP32 GEMM kernels for Ampere (sm_80)``."""
        dtype = f"{_DESCRIBED_TYPES.get(self.dtype, self.dtype)} " if self.dtype else ""
        built = f" for {self.architecture} (sm_{self.sm})" if self.sm is not None else ""
        return f"{self.library} {dtype}{self.op.replace('gemm', 'GEMM')} kernels{built}"


def architecture(sm: int) -> str:
    """The architecture of an SM version (80 -> Ampere, 89 -> Ada, 90 -> Hopper)."""
    return next((name for first, name in reversed(ARCHITECTURES) if sm >= first), "pre-Maxwell")


def device_sm(compute_capability: str | None) -> int | None:
    """``"9.0"`` -> 90; None when the report does not give the compute capability."""
    if not compute_capability or "." not in compute_capability:
        return None
    major, minor = compute_capability.split(".", 1)
    return int(major) * 10 + int(minor) if major.isdigit() and minor.isdigit() else None


# --- The naming rules --------------------------------------------------------------------------------------
def _legacy(m: re.Match[str]) -> LibraryKernel:
    """cuBLAS/cuDNN names of Maxwell to Ampere: ``ampere_sgemm_128x64_nn`` (SIMT: the letter is the type),
    ``ampere_bf16_s16816gemm_bf16_...`` (Tensor Cores: the type prefix; the letter is the accumulator),
    ``volta_h884gemm_...``, ``volta_fp16_s884cudnn_fp16_...``."""
    prefix, letter, shape, op = m["type"], m["letter"], m["shape"], m["op"]
    if prefix:
        dtype: str | None = _TYPES[prefix]
    elif not shape or letter in "hi":
        dtype = _TYPES[letter]
    else:
        dtype = None  # an "s884gemm" names the FP32 accumulator, not the operands
    library = "cuDNN" if op == "cudnn" else "cuBLAS"
    return LibraryKernel(library, PREFIX_SM[m["arch"]], "conv" if op == "cudnn" else "gemm", dtype, _layout(m))


def _xmma(m: re.Match[str]) -> LibraryKernel:
    """cuBLAS/cuBLASLt/cuDNN names from Ampere on: ``sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize...``;
    the first type group is the A and B operand types, the second the math, the third C."""
    types = m["types"]
    dtype = _TYPES[t[1]] if types and (t := _TYPE_RE.match(types)) else None
    op = "gemm" if m["op"] == "gemm" else f"conv-{m['op']}"
    return LibraryKernel("cuDNN" if op != "gemm" else "cuBLAS", int(m["sm"]), op, dtype, _layout(m))


def _cutlass(m: re.Match[str]) -> LibraryKernel:
    """CUTLASS library instances: ``cutlass_80_simt_sgemm_64x64_8x5_nn_align1``,
    ``cutlass_tensorop_s1688gemm_f16_256x128_32x3_nn_align8``, ``cutlass3x_sm90_tensorop_s64x128x32gemm_e4m3_...``:
    the element type after ``gemm_`` when given, else a SIMT kernel's letter."""
    explicit = _TYPE_RE.match(m["types"] or "")
    if explicit:
        dtype: str | None = _TYPES[explicit[1]]
    else:
        dtype = _TYPES.get(m["letter"] or "") if m["cls"] == "simt" else None
    sm = m["sm"] or m["sm3"]
    return LibraryKernel("CUTLASS", int(sm) if sm else None, "gemm", dtype, _layout(m))


def _nvjet(m: re.Match[str]) -> LibraryKernel:
    """cuBLAS's newer GEMM kernels (``nvjet_sm90_...``, ``nvjet_sm120_qqtst_mma``); their type letters are not
    documented, so the type is left unknown."""
    return LibraryKernel("cuBLAS", int(m["sm"]) if m["sm"] else None, "gemm")


def _layout(m: re.Match[str]) -> str | None:
    found = _LAYOUT_RE.search(m.string, m.start(), m.end())
    return found[1] if found else None


_START = r"(?<![A-Za-z0-9_])"  # a library name starts an identifier (a demangled name may hold it inside <>)
_IDENT_END = r"[A-Za-z0-9_]*"
Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], LibraryKernel], str]
RULES: tuple[Rule, ...] = (
    (re.compile(_START + r"(?P<arch>maxwell|pascal|volta|turing|ampere)_(?:(?P<type>fp16|bf16|tf32|int8)_)?"
                r"(?P<letter>[sdhczi])(?P<shape>\d*)(?P<op>gemm|cudnn)" + _IDENT_END),
     _legacy,
     "ampere_sgemm_128x64_nn (A100, A10G, RTX 3080) and ampere_sgemm_128x32_tn (RTX 4090) in ../shared/ncu-reps; "
     "volta_sgemm_32x128_tn in https://github.com/official-stockfish/nnue-pytorch/pull/96; volta_cgemm_32x64_tn "
     "and volta_fp16_s884cudnn_fp16_256x128_... in https://github.com/NVIDIA/apex/issues/666; "
     "ampere_bf16_s16816gemm_bf16_256x128_... in https://github.com/karpathy/nanochat/pull/105"),
    (re.compile(_START + r"sm(?P<sm>\d{2,3})_xmma_(?P<op>gemm|fprop|dgrad|wgrad)(?:_implicit_gemm)?"
                r"(?:_(?P<types>[a-z0-9]+))?" + _IDENT_END),
     _xmma,
     "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_... in "
     "https://github.com/NVIDIA/TensorRT-LLM/issues/1541; sm90_xmma_gemm_f32f32_tf32f32_f32_... (TF32 on H100) in "
     "https://github.com/gabrieldemarmiesse/torch-mojo-backend/pull/410; sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma "
     "kernels for FP32 cublasSgemm on A100 and H100 in public nsys kernel summaries"),
    (re.compile(_START + r"cutlass(?:_(?P<sm>\d{2,3}))?(?:3x_sm(?P<sm3>\d{2,3}))?_(?P<cls>simt|tensorop|"
                r"wmma_tensorop|bstensorop)_(?P<letter>[sdhczi]?)[0-9x]*gemm(?:_(?P<types>[a-z0-9]+))?" + _IDENT_END),
     _cutlass,
     "cutlass_80_simt_sgemm_64x64_8x5_nn_align1 and cutlass3x_sm100_simt_sgemm_f32_... in "
     "https://github.com/NVIDIA/CUDALibrarySamples/issues/309; cutlass3x_sm90_tensorop_s64x128x32gemm_e4m3_... in "
     "https://github.com/NVIDIA/cutlass/issues/1139; the naming scheme in the CUTLASS profiler documentation "
     "(https://github.com/NVIDIA/cutlass/blob/main/media/docs/profiler.md)"),
    (re.compile(_START + r"nvjet_(?:sm(?P<sm>\d{2,3})_)?" + _IDENT_END),
     _nvjet,
     "nvjet_sm120_qqtst_mma in https://github.com/sgl-project/sglang/pull/31961"),
)


def classify(name: str) -> LibraryKernel | None:
    """The library kernel a name (or a prefix of one, or a demangled name holding one) spells, else None."""
    for pattern, read, _source in RULES:
        found = pattern.search(name)
        if found:
            return read(found)
    return None


def family(name: str, demangled: str = "") -> str:
    """The architecture-neutral key of a kernel (``gemm/f32`` for ampere_sgemm_128x64_nn and for an H100's
    sm90_xmma_gemm_f32f32_tf32f32_f32_... alike), read from its name, else from its demangled name (a CUTLASS
    ``Kernel2<cutlass_80_simt_sgemm_...>``); a kernel of no known library keeps its own name as its key."""
    found = classify(name) or (classify(demangled) if demangled else None)
    return found.key if found else name
