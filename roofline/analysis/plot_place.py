"""Whether a kernel's aggregate has a place on the comparison and summary plots, and why not: decided here, once,
so that the plots, the compare stage (``compare.plottable``) and the command's exit status read one answer (the
renderers only word the cause)."""

from __future__ import annotations

from enum import Enum


class Place(Enum):
    """A kernel's place on a plot, or why it has none."""

    PLACED = "placed"
    NO_INTENSITY = "no_intensity"  # FLOP per DRAM byte unknown
    NO_FLOPS = "no_flops"  # no FLOP/s, or a zero intensity or rate: no place on log axes
    NO_ROOF = "no_roof"  # normalized view: the kernel has no percent of roof
    ZERO_ROOF = "zero_roof"  # normalized view: 0% of roof, no place on log axes


def plain_place(dram_intensity: float | None, flop_per_s: float | None) -> Place:
    """The place at a kernel's FLOP per DRAM byte and all FLOP/s, on log axes."""
    if dram_intensity is None:
        return Place.NO_INTENSITY
    return Place.NO_FLOPS if flop_per_s is None or dram_intensity <= 0 or flop_per_s <= 0 else Place.PLACED


def roof_place(pct_of_roof: float | None) -> Place:
    """The place at a kernel's percent of roof, on log axes (the normalized view)."""
    return Place.NO_ROOF if pct_of_roof is None else Place.ZERO_ROOF if pct_of_roof <= 0 else Place.PLACED
