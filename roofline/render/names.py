"""Kernel names in tables: a group's name, names told apart by their launch configuration, ncu's launch notation.
The parts of a name and how it is fitted to a width are ``roofline.core.kernel_names``."""

from __future__ import annotations

from collections.abc import Sequence

from roofline.core.kernel_names import KernelName, kernel_name


def group_name(name: str, functions: Sequence[str]) -> KernelName:
    """A group of launches' name in parts: a kernel group (keyed by its demangled name) as its function and template
    arguments; a function or NVTX group as its key."""
    return kernel_name(functions[0], name) if len(functions) == 1 and name != functions[0] else KernelName(name)


def short_group_name(name: str, functions: Sequence[str]) -> str:
    """A group's name without its scope (function and template arguments): what a plot names a kernel by."""
    parts = group_name(name, functions)
    return KernelName(parts.function, "", parts.arguments).full


def launch_config(grid: tuple[int, ...] | None, block: tuple[int, ...] | None) -> str:
    """ncu's launch notation without trailing 1s, e.g. ``(1056)x(256)``; "" when the report has neither."""
    if grid is None or block is None:
        return ""
    return f"{_dims(grid)}x{_dims(block)}"


def distinguish(names: Sequence[KernelName], configs: Sequence[str]) -> list[KernelName]:
    """Rows that share a name get their launch configuration as a suffix when it tells them apart (launches
    that share the configuration too are told apart by their launch index in the table's # column)."""
    seen: dict[str, set[str]] = {}
    for n, c in zip(names, configs, strict=True):
        seen.setdefault(n.full, set()).add(c)
    return [n.with_suffix(f" {c}") if len(seen[n.full]) > 1 and c else n for n, c in zip(names, configs, strict=True)]


def _dims(dims: tuple[int, ...]) -> str:
    shown = list(dims)
    while len(shown) > 1 and shown[-1] == 1:
        shown.pop()
    return "(" + ", ".join(map(str, shown)) + ")"
