"""The memory chart (``plot --kind memory``), as ncu's Memory Workload Analysis draws it: per report, the longest
launch of its longest kernels as boxes (kernel, shared memory, L1 with its hit rate, L2 with its hit rate, DRAM)
joined by arrows that carry the traffic between them (``analysis.memory``). What a report does not measure is
written "n/a" on the arrow or box. The data is built first (pure) and drawn after, as ``report.plot`` does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from roofline.analysis.view import ReportSetView
from roofline.core.labels import LEGEND_KERNELS
from roofline.core.units import hit_pct, pct, si
from roofline.render.mpl import PlotFormat, figure, middle, to_bytes
from roofline.render.names import short_group_name
from roofline.render.report.plot import DPI

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

NOTHING = "has L1 and L2 hit rates (Memory Workload Analysis)"
FIX = "re-profile with --set full (MemoryWorkloadAnalysis_Chart and _Tables sections)"
PANEL_WIDTH_IN, PANEL_HEIGHT_IN = 7.2, 2.6
PCT_NOTE = "(x%): the edge's throughput in percent of its path's peak (ncu's % Peak)"
TITLE_CHARS = 84  # a panel's title in 9-point bold across its width: the kernel's name is cut in its middle to fit
REPORT_CHARS = 36  # of which the report's file name at most
# Box positions (axes fraction) and the arrows: (edge, from box, to box, vertical offset of the label)
BOXES = {"kernel": (0.08, 0.5), "shared": (0.36, 0.15), "l1": (0.36, 0.6), "l2": (0.64, 0.6), "dram": (0.92, 0.6)}
BOX_NAMES = {"kernel": "Kernel", "shared": "Shared\nmemory", "l1": "L1", "l2": "L2", "dram": "DRAM"}
ARROWS = (("kernel_l1_bytes", "kernel", "l1", 0.0), ("kernel_shared_wavefronts", "kernel", "shared", 0.0),
          ("l2_to_l1_bytes", "l2", "l1", 0.09), ("l1_to_l2_bytes", "l1", "l2", -0.09),
          ("dram_to_l2_bytes", "dram", "l2", 0.09), ("l2_to_dram_bytes", "l2", "dram", -0.09))


@dataclass(frozen=True)
class MemoryPanel:
    """One launch's chart: hit rates (percent) and the traffic per edge (bytes; shared memory in wavefronts)."""

    title: str
    hit_rate_pct: Mapping[str, float | None]
    traffic: Mapping[str, float | None]
    traffic_pct: Mapping[str, float | None] = field(default_factory=dict)  # edge -> percent of its path's peak
    l2_hit_rate_pct_by_op: Mapping[str, float | None] = field(default_factory=dict)  # "read", "write"


def plot_data(view: ReportSetView, top: int) -> tuple[MemoryPanel, ...]:
    """A panel for the longest launch of each of the ``top`` longest kernels of each report that has hit rates."""
    panels = []
    for v in view.reports:
        a = v.analysis
        for g in a.groups[:top]:
            p = g.longest.memory
            if p is None or all(r.value is None for r in p.hit_rate_pct.values()):
                continue
            panels.append(MemoryPanel(_title(Path(a.report.path).name, short_group_name(g.name, g.functions, g.by),
                                             g.longest.launch.key),
                                      {k: r.value for k, r in p.hit_rate_pct.items()},
                                      {k: r.value for k, r in p.traffic.items()},
                                      {k: r.value for k, r in p.traffic_pct.items()},
                                      {k: r.value for k, r in p.l2_hit_rate_pct_by_op.items()}))
    return tuple(panels)


def _title(report: str, kernel: str, launch: str) -> str:
    """"report: kernel (launch)" in at most ``TITLE_CHARS`` characters, the names cut in their middle."""
    head, tail = f"{middle(report, REPORT_CHARS)}: ", f" ({launch})"
    return head + middle(kernel, TITLE_CHARS - len(head) - len(tail)) + tail


def image(view: ReportSetView, fmt: PlotFormat, top: int = LEGEND_KERNELS) -> bytes | None:
    """``plot --kind memory``: the chart as PNG, SVG or PDF bytes; None where no kernel of any report has hit
    rates."""
    panels = plot_data(view, top or LEGEND_KERNELS)
    return draw(panels, fmt) if panels else None


def draw(panels: Sequence[MemoryPanel], fmt: PlotFormat) -> bytes:
    """The figure as PNG, SVG or PDF bytes."""
    return to_bytes(figure_of(panels), fmt)


def figure_of(panels: Sequence[MemoryPanel]) -> Figure:
    """One panel per launch, one above the other."""
    fig = figure(PANEL_WIDTH_IN, PANEL_HEIGHT_IN * len(panels), dpi=DPI)
    for i, panel in enumerate(panels):
        ax = fig.add_axes((0.01, 1 - (i + 1) / len(panels) + 0.02 / len(panels), 0.98, 0.9 / len(panels)))
        _panel(ax, panel)
    return fig


def _panel(ax: Axes, p: MemoryPanel) -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.set_title(p.title, loc="left", fontsize=9, fontweight="bold")
    if any(v is not None for v in p.traffic_pct.values()):
        ax.text(1.0, 0.0, PCT_NOTE, ha="right", va="bottom", fontsize=7, color="#555555")
    for key, (x, y) in BOXES.items():
        rate = p.hit_rate_pct.get(key, -1.0)
        text = BOX_NAMES[key] + (f"\nhit {hit_pct(rate)}" if rate is not None and rate != -1.0
                                 else "\nhit n/a" if rate is None else "")
        text += _by_op(p) if key == "l2" else ""
        ax.text(x, y, text, ha="center", va="center", fontsize=8.5,
                bbox={"boxstyle": "round,pad=0.5", "facecolor": "#eef3f8", "edgecolor": "#4a6a8a"})
    for edge, start, end, dy in ARROWS:
        (x0, y0), (x1, y1) = BOXES[start], BOXES[end]
        gap = 0.075 if x0 != x1 else 0.0
        sx, ex = (x0 + gap, x1 - gap) if x1 > x0 else (x0 - gap, x1 + gap) if x1 < x0 else (x0, x1)
        if start == "kernel":
            ex = x1 - 0.06
        ax.annotate("", xy=(ex, y1 + dy), xytext=(sx, y0 + dy * (y0 == y1)),
                    arrowprops={"arrowstyle": "->", "color": "#333333", "lw": 1.1})
        value = p.traffic.get(edge)
        label = "n/a" if value is None else si(value, "" if edge.endswith("wavefronts") else "B") + (
            " wavefronts" if edge.endswith("wavefronts") else "")
        share = p.traffic_pct.get(edge)
        label += f" ({pct(share)})" if value is not None and share is not None else ""
        shift = (-0.09, -0.04) if end == "shared" else (0.0, 0.05 if dy >= 0 else -0.05)
        ax.text((sx + ex) / 2 + shift[0], (y0 + y1) / 2 + dy + shift[1], label, ha="center", va="center",
                fontsize=7.5, color="#202020")


def _by_op(p: MemoryPanel) -> str:
    """The L2 hit rates of loads and stores as lines of its box; "" where the report holds neither."""
    words = {"read": "loads", "write": "stores"}
    found = [f"{words[op]} {hit_pct(v)}" for op, v in p.l2_hit_rate_pct_by_op.items() if v is not None]
    return "".join(f"\n{line}" for line in found)
