"""Read-only mappings that pickle: the report model and the results keep their mappings read-only
(``types.MappingProxyType``), which pickle refuses. Importing this module (the model does) teaches pickle to send one
as a plain dict and rebuild it read-only, so a result travels to a worker, a Dask task or a cache file and back."""

from __future__ import annotations

import copyreg
from collections.abc import Callable
from types import MappingProxyType
from typing import Any


def picklable_mappings() -> None:
    """Let pickle send read-only mappings as dicts that arrive read-only again (done on import; safe to repeat)."""
    copyreg.pickle(MappingProxyType, _reduce_mapping)


def _reduce_mapping(mapping: MappingProxyType[Any, Any]) -> tuple[Callable[[dict[Any, Any]], Any], tuple[Any, ...]]:
    return read_only, (dict(mapping),)


def read_only(data: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """A read-only view of ``data`` (how a pickled ``MappingProxyType`` is rebuilt)."""
    return MappingProxyType(data)


def plain(value: Any) -> Any:
    """A value msgspec does not encode (its ``enc_hook``) as the plain one it holds: a read-only mapping as a dict, a
    numpy scalar as its Python number; TypeError for anything else."""
    if type(value) is MappingProxyType:
        return dict(value)
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


picklable_mappings()
