"""Display names shared by the advice, the renderers and the commands: precisions, memory levels, report letters,
and how many kernels a plot names."""

from __future__ import annotations

from roofline.core.resources import Resource

NAMES = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor": "Tensor", "dram": "DRAM", "l2": "L2", "l1": "L1"}
LEGEND_KERNELS = 8  # kernels named in a roofline plot's legend, longest first (the rest drawn as "other")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # spelled out: the string module compiles a pattern at import (1.4 ms)


def letter(i: int) -> str:
    """Column letter of report i in comparisons (A, B, ..., then A2, B2, ... past Z)."""
    return _LETTERS[i % 26] + (str(i // 26 + 1) if i >= 26 else "")


def measure_label(key: str) -> str:
    """E.g. "FP32 FLOPs", "DRAM bytes", "threads", "instructions", "FLOPs"."""
    r = Resource.of(key)
    return f"{NAMES[r.name]} {'FLOPs' if r.kind == 'flops' else r.kind}" if r.name else key.replace("flops", "FLOPs")


def basis_label(basis: str) -> str:
    """A work check's basis named: "FLOPs", "threads launched", "DRAM bytes", "FP32 FLOPs"."""
    return {"flops": "FLOPs", "threads": "threads launched"}.get(basis, measure_label(basis))
