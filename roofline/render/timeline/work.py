"""`timeline --work` and `analyze --no-counters --work-from`: the kernels placed on the nsys GPU's roofline with an
ncu report's work, as table rows, Markdown and a roofline plot (the JSON: ``documents.timeline``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofline.analysis.borrowed import BorrowedKernel, BorrowedWork, Fp16Moves
from roofline.analysis.time_gap import TimeGap
from roofline.core.kernel_names import KernelName, kernel_name
from roofline.core.model import memory_roof, roof_intensity
from roofline.core.units import counted, dims, pct, ratio, seconds, share_pct, si
from roofline.ncu.metrics import HINT_HFMA_MOVES
from roofline.render.mpl import LabelPlacer, around, log_axes

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLUMNS = ("#", "kernel", "n", "time", "FLOP", "FLOP/s", "FLOP/B", "roof", "% roof", "limiter")
LEGEND = ("n, time: nsys's launches and median launch (this GPU); FLOP, FLOP/B: the report's work per launch and "
          "its DRAM intensity; roof: the datasheet roof (FLOP/s) at that intensity on this GPU; limiter: that roof's "
          "slope or ceiling (a memory level or a precision), not a bound verdict, which needs ncu's own time")
UNMATCHED_SHOWN = 10
LABEL_DISTANCES_PT = (4.0, 9.0, 16.0)  # how far from its point a label may sit, nearest first


def title(w: BorrowedWork) -> str:
    spec = f" (device_specs {w.spec_id})" if w.spec_id else " (no device spec: no roofs)"
    return f"On the roofline of {w.nsys_gpu or 'the nsys GPU'}{spec}: {w.label}"


def headline(w: BorrowedWork) -> str:
    if not w.kernels:
        return "no kernel matched by instance and launch configuration: nothing to place on the roofline"
    return (f"{counted(len(w.kernels), 'kernel')} matched by instance and launch configuration, "
            f"{share_pct(w.matched_share)} of the profile's kernel time")


def shown_name(k: BorrowedKernel) -> KernelName:
    return kernel_name(k.short_name, k.nsys.demangled) if k.name != k.short_name else KernelName(k.short_name)


def cells(i: int, k: BorrowedKernel) -> list[str]:
    return [str(i), k.short_name, str(k.nsys.count), seconds(k.time_s), si(k.total_flops), si(k.flop_per_s),
            _num(k.intensity["dram"]), si(k.attainable_flop_per_s), pct(k.pct_of_roof), k.limiter or "n/a"]


def unmatched_lines(w: BorrowedWork) -> list[str]:
    lines = []
    if w.unmatched_nsys:
        names = ", ".join(f"{c.short_name} {dims(c.grid)}/{dims(c.block)} ({share_pct(s)})"
                          for c, s in zip(w.unmatched_nsys[:UNMATCHED_SHOWN], w.unmatched_nsys_shares, strict=False))
        more = len(w.unmatched_nsys) - UNMATCHED_SHOWN
        lines.append(f"no work in the report for (nsys): {names}" + (f" and {more} more" if more > 0 else ""))
    if w.unmatched_ncu:
        lines.append("in the report, not launched so in nsys: " + "; ".join(w.unmatched_ncu[:UNMATCHED_SHOWN]))
    return lines + notes(w)


def notes(w: BorrowedWork) -> list[str]:
    """The work's notes: the analysis's (L2 sizes apart, no spec), then each kernel's FP16 register moves note."""
    return [*w.notes, *(note for k in w.kernels if (note := moves_note(k)))]


def moves_note(k: BorrowedKernel) -> str:
    """What a kernel's FP16 FLOPs count of the zero-product HFMA2 register moves (``fp16_moves``), and the precision
    it is placed at; "" where they count none."""
    label = f"; they do not set its precision ({k.precision})" if k.precision not in ("fp16", None) else ""
    if k.fp16_moves is Fp16Moves.UNCOUNTED:
        return (f"{k.short_name}: its FP16 FLOPs ({si(k.flops['fp16'])} per launch) come from HFMA2 instructions "
                "alone, and compilers also emit HFMA2 with zero multiplicands as register moves (no arithmetic) that "
                f"ncu counts as HFMA: they are counted, as roofline report counts them{label}; {HINT_HFMA_MOVES}")
    if k.fp16_moves is Fp16Moves.ADDED_BACK:
        return (f"{k.short_name}: {', '.join(k.blind_reports)} cannot separate the zero-product HFMA2 register "
                "moves from FP16 arithmetic and the other reports left them out: the moves "
                f"({si(k.fp16_move_flops)} FP16 FLOPs per launch) are counted in every report before their launches "
                f"are averaged, as roofline compare counts them across sets{label}")
    return ""


CAUSE_WORDS = {
    "managed_memory_migration": "unified-memory pages migrated during its launches in the application (ncu's "
                                "replay finds them on the GPU)",
    "ncu_clocks_locked": "ncu held the SM clock below boost (--clock-control base)",
    "ncu_cache_flush": "its DRAM bytes fit in L2 and ncu flushes the caches before each pass",
    "unexplained": "none of migrations, clocks or cache flushes shows in the profile; check that both ran the same "
                   "build and problem size"}


def time_gap_lines(gaps: tuple[TimeGap, ...]) -> list[str]:
    """Each kernel whose nsys and ncu times are far apart (their ratio ncu/nsys, as ``summary --nsys``'s column),
    the evidence and the likely cause."""
    return [f"{g.short_name}{_config(g)}: {seconds(g.nsys_s)} in nsys, {seconds(g.ncu_s)} in "
            f"ncu (ncu/nsys {ratio(g.ncu_over_nsys)}x, {g.slower} slower){_evidence(g)}; likely: "
            + "; ".join(CAUSE_WORDS[c] for c in g.causes) for g in gaps]


def _config(g: TimeGap) -> str:
    """The launch configuration where the kernels were matched by it."""
    return f" {dims(g.grid)}/{dims(g.block)}" if g.grid is not None and g.block is not None else ""


def _evidence(g: TimeGap) -> str:
    """What the profile and the report show of the causes."""
    words = []
    if g.launches_migrating:
        words.append(f"{g.launches_migrating} of {g.launches} launches under unified-memory migrations, "
                     f"{si(g.migrated_bytes, 'B')} moved, {g.page_faults or 0} GPU page faults")
    if g.ncu_clock_hz and g.boost_clock_hz:
        words.append(f"ncu's SM clock {si(g.ncu_clock_hz, 'Hz')}, boost {si(g.boost_clock_hz, 'Hz')}")
    return f" ({'; '.join(words)})" if words else ""


def markdown_rows(w: BorrowedWork) -> list[list[str]]:
    return [[c if j != 1 else shown_name(k).fit(80) for j, c in enumerate(cells(i, k))]
            for i, k in enumerate(w.kernels, 1)]


def has_points(w: BorrowedWork) -> bool:
    """Whether a kernel has a place on the roofline (FLOP/s and a DRAM intensity): else no panel is drawn."""
    return any(k.intensity["dram"] is not None and k.flop_per_s is not None for k in w.kernels)


def draw_roofline(ax: Axes, w: BorrowedWork) -> None:
    """The points (FLOP/s against DRAM intensity) under this GPU's roofs: the DRAM and L2 bandwidth slopes and the
    compute roof of each precision the kernels run, each drawn once (roofs of equal height share one line). The
    points' labels come after the layout (``label_points``)."""
    points = [(i, k, x, y) for i, k in enumerate(w.kernels, 1)
              if (x := k.intensity["dram"]) is not None and (y := k.flop_per_s) is not None]
    xs = [x for *_, x, _ in points] or [1.0]
    lo, hi = min(xs) / 10, max(xs) * 10
    roofs: dict[float, list[str]] = {}
    for _, k, _, _ in points:
        if k.compute_roof and k.precision:
            label = f"{k.precision} ({k.tensor_dtype})" if k.precision == "tensor" and k.tensor_dtype else k.precision
            if label not in roofs.setdefault(k.compute_roof, []):
                roofs[k.compute_roof].append(label)
    top = max(roofs, default=max((y for *_, y in points), default=1.0) * 2)
    colours = {"dram": "#c0392b", "l2": "#e67e22"}
    slopes = {level: bw for level in ("dram", "l2")
              if w.ceilings is not None and (bw := w.ceilings.bytes_per_s.get(level))}
    for level, bw in slopes.items():  # each slope up to the highest compute roof, where it meets it
        end = min(hi, roof_intensity(max(roofs), bw)) if roofs else hi
        ax.plot([lo, end], [memory_roof(bw, lo), memory_roof(bw, end)], color=colours[level], lw=1.2,
                label=f"{level.upper()} {si(bw, 'B/s')}")
    fastest = max(slopes.values(), default=None)
    for roof, labels in roofs.items():  # each compute roof from where the fastest slope meets it
        start = max(lo, roof_intensity(roof, fastest)) if fastest else lo
        ax.plot([start, hi], [roof, roof], color="#555555", lw=1.0, ls="--")
        ax.annotate(f"{', '.join(labels)}: {si(roof, 'FLOP/s')}", (hi, roof), ha="right", va="bottom", fontsize=7,
                    xytext=(-3, 1), textcoords="offset points")
    for *_, x, y in points:
        ax.scatter([x], [y], s=30, zorder=3)
    log_axes(ax)
    ax.set_xlim(lo, hi)
    ax.set_ylim(top=top * 3)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte, from ncu)")
    ax.set_ylabel("FLOP/s (ncu's FLOPs / nsys's time)")
    spec = f" (device_specs {w.spec_id})" if w.spec_id else " (no device spec: no roofs)"
    ax.set_title(f"On the roofline of {w.nsys_gpu or 'the nsys GPU'}{spec}\n{w.label}", fontsize=8, loc="left")
    if w.ceilings is not None:
        ax.legend(fontsize=7, loc="lower right")


def label_points(fig: Figure, ax: Axes, w: BorrowedWork) -> None:
    """Each point's label, numbered as in the table, where it overlaps no other label, roof label or point
    (``LabelPlacer``; the number alone where the name has no room, nothing where neither has). After
    ``freeze_layout``."""
    placer = LabelPlacer(fig)
    for text in ax.texts:
        placer.block(text)
    placer.block_points(ax)
    for i, k in enumerate(w.kernels, 1):
        x, y = k.intensity["dram"], k.flop_per_s
        if x is None or y is None:
            continue
        spots = around((x, y), LABEL_DISTANCES_PT)
        if placer.place(ax, f"{i} {shown_name(k).fit(24)} ({pct(k.pct_of_roof)})", spots, fontsize=7) is None:
            placer.place(ax, str(i), spots, fontsize=7)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"
