"""Display names shared by the advice, the renderers and the commands: precisions, memory levels, ceiling sets,
report letters, and how many kernels a plot names."""

from __future__ import annotations

import string

NAMES = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor": "Tensor", "dram": "DRAM", "l2": "L2", "l1": "L1"}
LEGEND_KERNELS = 8  # kernels named in a roofline plot's legend, longest first (the rest drawn as "other")
# The ceiling sets as the outputs call them: the datasheet's (boost clock), the report's peak counters at the
# measured clocks, and the default: the roofs at the clocks the kernel ran at (the report's, else the datasheet's
# scaled to the measured clock).
_SET_NAMES = {"spec": "datasheet", "report": "measured-clock", "clock": "kernel-clock", "measured": "calibrated"}


def set_name(source: str) -> str:
    """A ceiling set's display name: "datasheet" (spec), "measured-clock" (report), "kernel-clock" (clock),
    "calibrated" (measured: roofline calibrate's)."""
    return _SET_NAMES.get(source, source)


def letter(i: int) -> str:
    """Column letter of report i in comparisons (A, B, ..., then A2, B2, ... past Z)."""
    return string.ascii_uppercase[i % 26] + (str(i // 26 + 1) if i >= 26 else "")
