"""The Tensor Cores of each GPU family, by compute capability (and device name where one compute capability holds
GPUs with and without them): the MMA instruction families and the floating-point input types, each row cited. The
Tensor Core diagnosis (``analysis.diagnostics.tensor_cores``) and the spec check (``specs.catalog.spec_remarks``)
read it."""

from __future__ import annotations

import functools

from msgspec import Struct


class TensorArch(Struct, frozen=True):
    """Tensor Core facts of one GPU family: MMA instruction families and floating-point input types."""

    name: str
    families: tuple[str, ...]
    float_types: tuple[str, ...]
    hfma2_on_tensor_pipe: bool = False  # packed FP16 FMA (HFMA2) also issues on the tensor pipe


# The per-architecture table: (compute capability, device-name substring or "", facts); the first match wins.
TENSOR_ARCHITECTURES: tuple[tuple[str, str, TensorArch], ...] = (
    # TU116/TU117 (GeForce GTX 16 series) ship without Tensor Cores (NVIDIA GeForce GTX 1660/1650 product
    # specifications list no Tensor Cores); the GTX 1660 SUPER report here shows the tensor pipe idle.
    ("7.5", "GeForce GTX 16", TensorArch("Turing TU11x (GeForce GTX 16)", (), ())),
    # The Turing GeForce MX parts (MX450, MX550) are TU117, the GTX 1650's chip: no Tensor Cores either (NVIDIA
    # GeForce MX450 and MX550 specifications list none; ncu --query-metrics --chip tu117: shared pipe (fp16)).
    ("7.5", "GeForce MX", TensorArch("Turing TU117 (GeForce MX)", (), ())),
    # Volta: FP16 HMMA only (NVIDIA Tesla V100 whitepaper); ncu query-metrics for gv100 lists op_hmma only
    # (shared/docs/ncu-roofline-metrics.md 4.1) and the V100 report carries no op_imma/op_dmma metric.
    ("7.0", "", TensorArch("Volta", ("hmma",), ("fp16",))),
    # Xavier adds INT8 Tensor Core modes (NVIDIA Jetson AGX Xavier technical brief).
    ("7.2", "", TensorArch("Volta (Xavier)", ("hmma", "imma"), ("fp16",))),
    # Turing: FP16 HMMA and INT8/INT4/INT1 IMMA (NVIDIA Turing whitepaper; ncu 2025.3 tensor roofline TU10x
    # block, metrics doc 4.3); the T4 report carries op_hmma and op_imma.
    ("7.5", "", TensorArch("Turing", ("hmma", "imma"), ("fp16",))),
    # GA100 adds TF32, BF16 and FP64 DMMA (NVIDIA A100 whitepaper); ncu query-metrics for ga100 has op_dmma and
    # op_hmma_type_hfma2, i.e. HFMA2 on the tensor pipe (metrics doc 4.1); the A100 reports carry op_dmma.
    ("8.0", "", TensorArch("Ampere GA100", ("hmma", "imma", "dmma"), ("fp16", "bf16", "tf32", "fp64"), True)),
    # GA10x: no FP64 Tensor Cores (NVIDIA Ampere GA102 whitepaper); A40/RTX 30 reports carry op_hmma/op_imma only.
    ("8.6", "", TensorArch("Ampere GA10x", ("hmma", "imma"), ("fp16", "bf16", "tf32"))),
    ("8.7", "", TensorArch("Ampere GA10b", ("hmma", "imma"), ("fp16", "bf16", "tf32"))),
    # Ada adds FP8 (NVIDIA Ada Lovelace whitepaper; ncu 2025.3 AD10x block has src_fp8, metrics doc 4.3).
    ("8.9", "", TensorArch("Ada", ("hmma", "imma"), ("fp16", "bf16", "tf32", "fp8"))),
    # Hopper: warpgroup MMA (GMMA/wgmma) besides HMMA/IMMA/DMMA, FP8 (NVIDIA H100 whitepaper); the H100, GH200
    # and H800 reports carry op_gmma; ga100/gh100 list op_hmma_type_hfma2 (metrics doc 4.1).
    ("9.0", "", TensorArch("Hopper", ("hmma", "imma", "dmma", "gmma"), ("fp16", "bf16", "tf32", "fp8", "fp64"), True)),
    # Blackwell: tcgen05 MMA, subpipe_* metrics, FP4/FP6 (NVIDIA Blackwell architecture brief; ncu 2025.3
    # GB100/GB20x blocks, metrics doc 4.1 and 4.3). FP64 Tensor Core support of GB20x is not verified here.
    ("10.0", "", TensorArch("Blackwell GB100", ("hmma", "imma", "dmma"),
                            ("fp16", "bf16", "tf32", "fp8", "fp6", "fp4", "fp64"))),
    ("10.3", "", TensorArch("Blackwell GB110", ("hmma", "imma", "dmma"),
                            ("fp16", "bf16", "tf32", "fp8", "fp6", "fp4", "fp64"))),
    ("12.0", "", TensorArch("Blackwell GB20x", ("hmma", "imma"), ("fp16", "bf16", "tf32", "fp8", "fp6", "fp4"))),
    ("12.1", "", TensorArch("Blackwell GB20b", ("hmma", "imma"), ("fp16", "bf16", "tf32", "fp8", "fp6", "fp4"))),
)


def tensor_architecture(compute_capability: str | None, name: str) -> TensorArch | None:
    """The Tensor Core table's entry for a GPU (its compute capability, "8.0", and its device name), or None for
    a compute capability the table does not list (or none known)."""
    return next((arch for cc, part, arch in TENSOR_ARCHITECTURES if cc == compute_capability and part in name), None)


def _cc(compute_capability: str) -> tuple[int, ...]:
    return tuple(int(part) for part in compute_capability.split("."))


@functools.cache
def tensor_types_from() -> dict[str, tuple[int, ...]]:
    """Each floating-point Tensor Core type ("tf32") and the first compute capability from which every GPU of the
    table with Tensor Cores takes it, that one and every later one (BF16 and TF32 from 8.0, FP8 from 8.9: the PTX
    ISA's mma and wgmma target notes); a type some later GPU family lacks (FP64: not on GA10x, GB20x) has none."""
    rows = sorted(((_cc(cc), arch.float_types) for cc, _, arch in TENSOR_ARCHITECTURES if arch.families),
                  key=lambda row: row[0])
    found: dict[str, tuple[int, ...]] = {}
    for dtype in dict.fromkeys(t for _, types in rows for t in types):
        since = [cc for i, (cc, _) in enumerate(rows) if all(dtype in types for _, types in rows[i:])]
        if since:
            found[dtype] = since[0]
    return found
