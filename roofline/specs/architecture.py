"""Ceilings per compute capability, not per GPU model (device_specs/architecture/*.yaml), each number cited."""

from __future__ import annotations

import functools
from typing import NamedTuple

ARCHITECTURE_FOLDER = "architecture"
INTEGER_FILE = "integer.yaml"
LIMITS_FILE = "limits.yaml"


class Lanes(NamedTuple):
    """Thread instructions one SM completes per clock of ``clock``, with the source of the number."""

    per_sm: float
    source: str
    clock: str


@functools.cache
def integer_lanes(compute_capability: str | None) -> Lanes | None:
    """The integer roofline's lanes per SM for a compute capability ("8.6"); None where the file lists none."""
    from roofline.specs import safe_yaml
    from roofline.specs.catalog import builtin_folder

    if not compute_capability:
        return None
    data = safe_yaml.load_yaml(builtin_folder() / ARCHITECTURE_FOLDER / INTEGER_FILE)
    if not isinstance(data, dict):
        return None
    entry = (data.get("lanes_per_sm") or {}).get(compute_capability)
    if not isinstance(entry, dict) or not isinstance(entry.get("value"), int | float):
        return None
    return Lanes(float(entry["value"]), str(entry.get("source", "")), str(data.get("clock", "SM clock")))


@functools.cache
def shared_memory_optin(compute_capability: str | None) -> int | None:
    """The most shared memory a block may ask for on a compute capability ("8.6"), in bytes (its opt-in limit);
    None where the file lists none."""
    from roofline.specs import safe_yaml
    from roofline.specs.catalog import builtin_folder

    data = safe_yaml.load_yaml(builtin_folder() / ARCHITECTURE_FOLDER / LIMITS_FILE) if compute_capability else None
    if not isinstance(data, dict):
        return None
    value = ((data.get("shared_memory_per_block_optin_bytes") or {}).get(compute_capability) or {}).get("value")
    return value if isinstance(value, int) else None
