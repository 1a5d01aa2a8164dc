"""Closed sets of choices shared by the library and the command line, as ``Literal`` types: typer validates
them on the command line and mypy checks them in the code. Kept free of imports, so the CLI loads them at
start-up without loading the analysis."""

from __future__ import annotations

from typing import Any, Literal, get_args

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


def one_of(name: str, value: object, choices: Any) -> None:
    """UsageError (one line) where ``value`` is not one of the ``Literal`` type ``choices``: a library caller's
    value, which no command line checked."""
    allowed = get_args(choices)
    if value not in allowed:
        from roofline.errors import UsageError

        raise UsageError(f"{name}={value!r}: not one of {', '.join(map(repr, allowed))}", "give one of them")


def finite_at_least(name: str, value: float | None, low: float = 0.0) -> None:
    """UsageError where a limit a library caller gives is NaN, infinite or below ``low`` (None: no limit): such a
    limit would switch its gate off without a word."""
    import math

    if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value >= low):
        from roofline.errors import UsageError

        raise UsageError(f"{name}={value!r}: not a finite number of at least {low:g}", "give a finite number, or None "
                         "where the limit may be left out")
