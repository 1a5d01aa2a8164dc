"""Closed sets of choices shared by the library and the command line, as ``Literal`` types: typer validates
them on the command line and mypy checks them in the code. Kept free of imports, so the CLI loads them at
start-up without loading the analysis."""

from __future__ import annotations

from typing import Literal

CeilingsChoice = Literal["auto", "spec", "report"]  # auto: the datasheet when the GPU is known, else the report's
GroupBy = Literal["kernel", "nvtx"]  # what launches are grouped by: kernel function name, or innermost NVTX range
NameBase = Literal["function", "demangled", "mangled"]  # which kernel name a filter reads, as ncu's --kernel-name-base
