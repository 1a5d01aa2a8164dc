"""Every null of a JSON document has its reason: a key of the ``missing`` of an object that holds it, naming the
null's path below that object or a path above the null (a whole object explained); a roof's ``<level>_bytes_per_s``
or ``<precision>_flop_per_s`` by its level or precision, as ceiling sets name them."""

from __future__ import annotations

import re
from typing import Any


def unexplained_nulls(doc: Any) -> list[str]:
    """The paths of the nulls of ``doc`` no enclosing ``missing`` explains."""
    found: list[str] = []
    _walk(doc, [], [], found)
    return found


def _walk(node: Any, path: list[str | int], holders: list[tuple[int, dict[str, Any]]], found: list[str]) -> None:
    if isinstance(node, dict):
        holders = [*holders, (len(path), node)] if isinstance(node.get("missing"), dict) else holders
        items: list[tuple[str | int, Any]] = [(k, v) for k, v in node.items() if k != "missing"]
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return
    for key, value in items:
        if value is None:
            if not _explained([*path, key], holders):
                found.append(_text([*path, key]))
        else:
            _walk(value, [*path, key], holders, found)


def _explained(path: list[str | int], holders: list[tuple[int, dict[str, Any]]]) -> bool:
    for depth, holder in reversed(holders):
        keys = set(holder["missing"])
        below = path[depth:]
        for end in range(1, len(below) + 1):
            text = _text(below[:end])
            if text in keys or re.sub(r"_(bytes|flop)_per_s$", "", text) in keys:
                return True
    return False


def _text(path: list[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out
