"""Closed sets of choices shared by the library and the command line, as ``Literal`` types: typer validates
them on the command line and mypy checks them in the code; and the checks of a library caller's arguments, which no
command line checked (a wrong one is a one-line UsageError naming the argument, not an AttributeError deep in the
analysis). Kept free of imports, so the CLI loads them at start-up without loading the analysis."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:  # pragma: no cover
    from roofline.errors import UsageError

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


def whole_at_least(name: str, value: object, low: int, example: int) -> None:
    """UsageError where a count a library caller gives (``jobs``, ``top``, ``width``) is not a whole number of at
    least ``low`` (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise refused(name, value, f"a whole number of at least {low}", f"give e.g. {name}={example}")


def a_bool(name: str, value: object) -> None:
    """UsageError where a flag a library caller gives is not True or False (``"no"`` would count as True)."""
    if not isinstance(value, bool):
        raise refused(name, value, "True or False", f"give {name}=True or {name}=False")


def path_list(name: str, value: object) -> list[str | os.PathLike[str]]:
    """The paths a library caller gives as a list: one path alone (``str`` or ``os.PathLike``) is a list of one, not
    its characters; UsageError for anything else (None, a number, a list holding one) and for a path holding a NUL
    byte (``without_nul``)."""
    if isinstance(value, (str, os.PathLike)):
        return [a_path(name, value)]
    if isinstance(value, Sequence) and all(isinstance(p, (str, os.PathLike)) for p in value):
        return [a_path(name, p) for p in value]
    raise refused(name, value, "a path or a list of paths", f"give e.g. {name}=['app.ncu-rep'] (str or pathlib.Path)")


def a_path(name: str, value: object, example: str = "app.ncu-rep") -> str | os.PathLike[str]:
    """A path a library caller gives (``str`` or ``os.PathLike``); UsageError for anything else (its hint gives
    ``example``) and for a path holding a NUL byte (``without_nul``)."""
    if isinstance(value, (str, os.PathLike)):
        without_nul(name, value)
        return value
    raise refused(name, value, "a path", f"give e.g. {name}={example!r} (str or pathlib.Path)")


def without_nul(name: str, path: str | os.PathLike[str]) -> None:
    """UsageError (one line, naming the path) where a path holds a NUL byte, which no file system takes (the bare
    ValueError of ``os.stat`` otherwise); ``name``: the argument that gave it (the API's, or an MCP tool's)."""
    if "\0" in os.fsdecode(path):
        raise refused(name, path, "a valid path (it holds a NUL byte)", "check the path")


def text_tuple(name: str, value: object) -> tuple[str, ...]:
    """Strings a library caller gives as a tuple: one string alone is a tuple of one, not its characters;
    UsageError for anything else."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise refused(name, value, "a string or a list of strings", f"give e.g. {name}=['gemm']")


def instance_of(name: str, value: object, kind: type, made_by: str) -> None:
    """UsageError where an argument is not a ``kind`` (``made_by`` says where one comes from)."""
    if not isinstance(value, kind):
        article = "an" if kind.__name__[0] in "AEIOU" else "a"
        raise refused(name, value, f"{article} {kind.__name__}", f"give one made by {made_by}")


def refused(name: str, value: object, wanted: str, hint: str) -> UsageError:
    """The UsageError of a library caller's argument that is not what it must be: ``name=value: not WANTED: HINT``,
    the value's repr cut to 60 characters."""
    from roofline.errors import UsageError

    text = repr(value)
    return UsageError(f"{name}={text if len(text) <= 60 else text[:57] + '...'}: not {wanted}", hint)
