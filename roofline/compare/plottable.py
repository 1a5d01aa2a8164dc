"""Whether a comparison's plot holds a point, or why not: decided here, in the compare stage, so that the plot and
the command's exit status read one answer (the renderer only words the cause)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING

from roofline.analysis.plot_place import Place

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.kernels import KernelStats


class Plottable(Enum):
    """Whether a comparison's plot holds a point (in the plain view: FLOP/s over FLOP per DRAM byte), or why not."""

    PLOTTABLE = "plottable"
    NO_PAIRS = "no_pairs"  # no kernel in common
    NO_PLACE = "no_place"  # no side of a pair has a place (``KernelStats.place``)


def plottable(sides: Sequence[Sequence[KernelStats | None]]) -> Plottable:
    """Whether some side of the paired kernels (each pair's ``sides``) has a place on the plain comparison plot."""
    if not sides:
        return Plottable.NO_PAIRS
    placed = any(s.place is Place.PLACED for pair in sides for s in pair if s is not None)
    return Plottable.PLOTTABLE if placed else Plottable.NO_PLACE
