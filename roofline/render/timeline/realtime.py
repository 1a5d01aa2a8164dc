"""`roofline summary --nsys` as a table or JSON (``kind: realtime``): the analysed kernels ranked by recoverable
real time, the share of the application they cover, the kernels either tool lacks, and how ncu's and nsys's times
differ."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofline.compare.realtime import RealKernel, RealTimeView
from roofline.core.kernel_names import KernelName, kernel_name
from roofline.core.units import counted, pct, ratio, seconds
from roofline.documents.realtime import realtime_json
from roofline.render.names import bound_word
from roofline.render.report.json import dumps
from roofline.render.terminal import add_rows, escape, plain_table, record
from roofline.render.timeline.work import time_gap_lines

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

UNMATCHED_SHOWN = 10
COLUMNS = ("#", "kernel", "n", "real", "share", "recov.", "roof", "bound", "ncu/nsys")
LEGEND = ("n, real: launches and total time in nsys; share: of the application's kernel time; recov.: recoverable "
          "real time; roof, bound: ncu's percent of roof and verdict; ncu/nsys: ncu's time per launch over nsys's "
          "median launch (above 1: ncu slower)")


def render_table(view: RealTimeView, top: int = 0, width: int = 80) -> str:
    return record(lambda console: _print(console, view, top), width)


def headline(view: RealTimeView) -> str:
    recoverable = seconds(view.recoverable_real_s) if view.recoverable_real_s is not None else "unknown"
    return (f"analysed: {len(view.kernels)} kernels, {pct(view.analysed_share * 100)} of the application's kernel "
            f"time ({seconds(view.timeline.kernel_s)} in nsys); recoverable in real time: {recoverable}")


def cells(rank: int, k: RealKernel) -> list[str]:
    return [str(rank), k.ncu.name, str(k.nsys.count), seconds(k.nsys.total_s), pct(k.app_share * 100),
            seconds(k.recoverable_real_s), pct(k.ncu.pct_of_roof), bound_word(k.ncu.bound),
            ratio(k.ncu_over_nsys)]


def _shown_name(view: RealTimeView, k: RealKernel) -> KernelName:
    """The kernel's short name, with the template arguments that tell its instance apart when grouped by kernel."""
    if view.timeline.group_by == "function":
        return KernelName(k.nsys.function)
    return kernel_name(k.nsys.function, k.nsys.demangled)


def _print(console: Console, view: RealTimeView, top: int) -> None:
    console.print(f"[bold]Whole application in real time[/bold]: {escape(view.timeline.path)} (nsys) with "
                  f"{counted(len(view.reports), 'ncu report')}", highlight=False)
    console.print(escape(headline(view)), highlight=False)
    shown = view.kernels[:top] if top > 0 else view.kernels
    table = plain_table("ranked by recoverable real time", COLUMNS, caption=LEGEND, name_column=1)
    console.print(add_rows(table, [[_shown_name(view, k) if j == 1 else c for j, c in enumerate(cells(i, k))]
                                   for i, k in enumerate(shown, 1)], console.width))
    renamed = [f"{k.ncu.name} = {k.nsys.name} ({k.matched_by})" for k in view.kernels if k.matched_by != "name"]
    if renamed:
        console.print("matched across the tools by name with the numbers masked: " + escape("; ".join(renamed)),
                      highlight=False)
    if view.unmatched_nsys:
        names = ", ".join(f"{k.name} ({pct(share * 100)})" for k, share in
                          zip(view.unmatched_nsys[:UNMATCHED_SHOWN], view.unmatched_nsys_shares, strict=False))
        more = len(view.unmatched_nsys) - UNMATCHED_SHOWN
        console.print(escape(f"not analysed (in nsys, not in the ncu reports): {names}" +
                             (f" and {more} more" if more > 0 else "")), highlight=False)
    if view.unmatched_ncu:
        console.print(escape("in the ncu reports, not in the nsys profile: " + ", ".join(view.unmatched_ncu)),
                      highlight=False)
    for note in view.notes:
        console.print(f"[dim]{escape(note)}[/dim]", highlight=False)
    for line in time_gap_lines(view.time_gaps):
        console.print(escape(line), highlight=False)


def render_json(view: RealTimeView) -> str:
    return dumps(realtime_json(view))
