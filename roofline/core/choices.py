"""Closed sets of choices shared by the library and the command line, as ``Literal`` types: typer validates
them on the command line and mypy checks them in the code. Kept free of imports, so the CLI loads them at
start-up without loading the analysis."""

from __future__ import annotations

from typing import Literal

# What launches are grouped by: the kernel (its demangled name, template arguments included, so two instances of
# one template are two kernels), its function name alone (instances pooled), or the innermost NVTX range.
GroupBy = Literal["kernel", "function", "nvtx"]
KernelGroupBy = Literal["kernel", "function"]  # the timeline's grouping (nsys has no per-launch NVTX range)
Fallback = Literal["none", "nsys"]  # analyze: what follows ncu's refusal of the counters
OUTPUT_OPTION = ("--output", "-o")  # the names of the option naming the file a command writes (never a report to read)
NameBase = Literal["function", "demangled", "mangled"]  # which kernel name a filter reads, as ncu's --kernel-name-base
# The clock a projection assumes for the target GPU: the clock it holds under sustained load (its spec's
# sustained_clock_hz, else the clock its board_power_w allows, else boost), its boost clock or the base clock ncu
# locks while it profiles (--clock-control base, ncu's default), at which ncu's own times on that GPU are measured.
TargetClock = Literal["sustained", "boost", "base"]
