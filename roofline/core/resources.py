"""A resource key: what bounds a kernel, or what decided its work, as a kind and (for FLOPs and bytes) the precision
or memory level: ``Resource("flops", "fp32")``, ``Resource("bytes", "dram")``, ``Resource("instructions")``. The
results and the JSON carry its text, ``"flops.fp32"``: ``Resource.of`` reads that text, ``str`` writes it, and no
other code splits or joins it."""

from __future__ import annotations

from typing import NamedTuple


class Resource(NamedTuple):
    """A resource: ``kind`` "flops", "bytes", "instructions", "threads", "launch", "latency" (``analysis.work``);
    ``name`` the precision of FLOPs or the level of bytes, "" for the kind as a whole (all FLOPs)."""

    kind: str
    name: str = ""

    @classmethod
    def of(cls, key: str | None) -> Resource:
        """The resource a key names (``"bytes.dram"``); None and "" give the empty resource (no kind)."""
        kind, _, name = (key or "").partition(".")
        return cls(kind, name)

    @classmethod
    def roof(cls, key: str, levels: tuple[str, ...]) -> Resource:
        """The resource of a roof: a level of ``levels`` is bytes there, any other a precision's FLOPs."""
        return cls("bytes" if key in levels else "flops", key)

    def __str__(self) -> str:
        return f"{self.kind}.{self.name}" if self.name else self.kind


# the keys the stages compare against, written once from their resource
DRAM_BYTES = str(Resource("bytes", "dram"))
L1_BYTES = str(Resource("bytes", "l1"))
FP64_FLOPS = str(Resource("flops", "fp64"))
TENSOR_FLOPS = str(Resource("flops", "tensor"))
