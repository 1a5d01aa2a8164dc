"""Terminal rendering of report analyses with rich: ceilings side by side, one row per launch,
grouped kernels, and the reasons behind every "n/a". Fits an 80-column terminal."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Sequence

from roofline.analysis import KernelSpread, LaunchAnalysis, ReportAnalysis, median_known
from roofline.model import LEVELS, PRECISIONS
from roofline.render.units import pct, ratio, seconds, si, truncate

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

    from roofline.model import Ceilings

NAME_WIDTH = 20
MAX_LAUNCH_ROWS = 30  # larger reports show their longest launches; JSON always has all of them
_LABELS = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor": "Tensor", "dram": "DRAM", "l2": "L2", "l1": "L1"}


def render(analyses: Sequence[ReportAnalysis], width: int = 80,
           spreads: Sequence[KernelSpread] = ()) -> str:
    """All reports as plain text, then the kernels compared across reports when there are several."""
    from rich.console import Console

    console = Console(width=width, record=True, file=_NullFile(), color_system=None)
    for i, a in enumerate(analyses):
        if i:
            console.print()
        _print_report(console, a)
    if spreads:
        console.print()
        _print_spreads(console, analyses, spreads)
    return console.export_text()


def _print_spreads(console: "Console", analyses: Sequence[ReportAnalysis],
                   spreads: Sequence[KernelSpread]) -> None:
    """Kernel total time per report ([1], [2], ...), the spread, and '!' where it passes the threshold."""
    from rich.table import Table

    table = Table(title="Across reports (e.g. MPI ranks)", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    table.add_column("kernel", no_wrap=True, max_width=NAME_WIDTH)
    for i in range(len(analyses)):
        table.add_column(f"[{i + 1}]", justify="right", no_wrap=True)
    table.add_column("spread", justify="right", no_wrap=True)
    for s in spreads:
        cells = [seconds(s.total_s.get(a.report.path)) for a in analyses]
        table.add_row(_short(s.name), *cells, pct(s.spread_pct) + (" !" if s.flagged else ""))
    console.print(table)
    for i, a in enumerate(analyses):
        console.print(f"[{i + 1}] {_esc(a.report.path)}", highlight=False)
    flagged = [s.name for s in spreads if s.flagged]
    if flagged:
        console.print(f"[bold red]![/bold red] differs across reports by more than the threshold, or is missing "
                      f"from some: {', '.join(flagged)}", highlight=False)


def _print_report(console: "Console", a: ReportAnalysis) -> None:
    d = a.device
    console.print(f"[bold]{_esc(a.report.path)}[/bold]", highlight=False)
    if a.report.source == "model":
        console.print(f"[yellow]report model, not an ncu measurement: {_esc(a.report.label or 'no label')}[/yellow]",
                      highlight=False)
    console.print(f"{_esc(d.name)}  CC {d.compute_capability or '?'}  {d.sm_count or '?'} SMs  "
                  f"{len(a.launches)} launch(es)  total {seconds(a.total_time_s)}", highlight=False)
    spec_line = _esc(f"spec {a.spec_id} ({a.spec_match})") if a.spec_id else "no device spec matches this GPU"
    console.print(f"{spec_line}; percent of roof uses the [bold]{_set_name(a.ceilings_used)}[/bold] ceilings",
                  highlight=False)
    console.print(_ceilings_table(a))
    clock = next((k.ceilings["report"].clock_note for k in a.launches), "")
    if clock:
        console.print(f"[dim]measured-clock = the report's peak counters x {_esc(clock)}[/dim]", highlight=False)
    console.print(_launch_table(a))
    hidden = len(a.launches) - MAX_LAUNCH_ROWS
    if hidden > 0:
        console.print(f"[dim]... {hidden} shorter launches not shown (--format json lists all)[/dim]", highlight=False)
    groups = [g for g in a.groups if len(g.launches) > 1]
    if groups:
        console.print(_groups_table(groups))
    for line in _problems(a):
        console.print(line, highlight=False, soft_wrap=False)


def _set_name(source: str) -> str:
    return {"spec": "datasheet", "report": "measured-clock"}.get(source, source)


def _ceilings_table(a: ReportAnalysis) -> "Table":
    """Datasheet vs measured-clock roofs; the measured ones are the median over launches."""
    from rich.table import Table

    table = Table(title="Ceilings", title_justify="left", box=None, pad_edge=False, padding=(0, 1))
    for col in ("roof", "datasheet", "measured-clock", "ratio"):
        table.add_column(col, justify="left" if col == "roof" else "right")
    spec = next((k.ceilings.get("spec") for k in a.launches if "spec" in k.ceilings), None)
    dtype = _tensor_dtype(a)
    for key in (*PRECISIONS, *LEVELS):
        unit = "FLOP/s" if key in PRECISIONS else "B/s"
        same_roof = [k for k in a.launches if key != "tensor" or k.ceilings["report"].tensor_dtype == dtype]
        measured = median_known([_roof(k.ceilings["report"], key) for k in same_roof])
        sheet = _roof(spec, key) if spec else None
        if key == "tensor" and spec and spec.tensor_dtype != dtype:
            sheet = next((_roof(k.ceilings["spec"], key) for k in same_roof if "spec" in k.ceilings), None)
        r = f"{measured / sheet:.2f}" if measured and sheet else ""
        label = _LABELS[key] + (f" ({dtype})" if key == "tensor" else "")
        table.add_row(label, si(sheet, unit), si(measured, unit), r)
    return table


def _roof(c: "Ceilings", key: str) -> float | None:
    return c.flop_per_s.get(key) if key in PRECISIONS else c.bytes_per_s.get(key)


def _tensor_dtype(a: ReportAnalysis) -> str:
    """The Tensor Core type most launches compute in (the tensor roof shown), else the default."""
    used = [k.ceilings["report"].tensor_dtype for k in a.launches if k.flops["tensor"].value]
    if used:
        return max(set(used), key=used.count)
    return next((k.ceilings["report"].tensor_dtype for k in a.launches), None) or "fp16"


def _launch_table(a: ReportAnalysis) -> "Table":
    from rich.table import Table

    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for col, just in (("#", "left"), ("kernel", "left"), ("time", "right"), ("share", "right"),
                      ("FLOP/s", "right"), ("AI", "right"), ("roof", "right"), ("bound", "left"),
                      ("limit", "left")):
        table.add_column(col, justify=just, no_wrap=True, max_width=NAME_WIDTH if col == "kernel" else None)
    table.caption = "AI = FLOP per DRAM byte; roof = percent of the closest roof (limit)"
    table.caption_justify = "left"
    for k in _shown(a.launches):
        table.add_row(k.launch.key, _short(k.launch.name), seconds(k.duration_s.value),
                      pct(None if k.time_share is None else 100 * k.time_share), _total_rate(k),
                      ratio(k.intensity["dram"].value), pct(k.roof.pct_of_roof), k.roof.bound or "n/a",
                      _limit(k))
    return table


def _shown(launches: Sequence[LaunchAnalysis]) -> list[LaunchAnalysis]:
    """Every launch, or the MAX_LAUNCH_ROWS longest ones in report order."""
    if len(launches) <= MAX_LAUNCH_ROWS:
        return list(launches)
    longest = sorted(launches, key=lambda k: -(k.duration_s.value or 0.0))[:MAX_LAUNCH_ROWS]
    keep = {id(k) for k in longest}
    return [k for k in launches if id(k) in keep]


def _short(name: str) -> str:
    """A name cut to the column width, escaped so rich prints brackets in it literally."""
    return _esc(truncate(name, NAME_WIDTH))


def _esc(text: str) -> str:
    """Text from a report (paths, kernel names, reasons) with rich markup brackets escaped: '[all launches]'
    or a templated kernel name must print as written, not be taken as a style tag."""
    from rich.markup import escape

    return escape(text)


def _total_rate(k: LaunchAnalysis) -> str:
    known = [v.value for v in k.flop_per_s.values() if v.value is not None]
    return si(sum(known), "") if known else "n/a"


def _limit(k: LaunchAnalysis) -> str:
    """The roof the launch is closest to; '!' marks a launch above a ceiling."""
    if k.roof.limiter is None:
        return ""
    return _LABELS.get(k.roof.limiter, k.roof.limiter) + ("!" if k.flags else "")


def _groups_table(groups) -> "Table":
    from rich.table import Table

    table = Table(title="Kernels with several launches", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    for col in ("kernel", "count", "total", "share", "median", "min-max", "roof"):
        table.add_column(col, justify="left" if col == "kernel" else "right", no_wrap=True,
                         max_width=NAME_WIDTH if col == "kernel" else None)
    for g in groups:
        table.add_row(_short(g.name), str(len(g.launches)), seconds(g.total_s),
                      pct(None if g.time_share is None else 100 * g.time_share), seconds(g.median_s),
                      f"{seconds(g.min_s)}-{seconds(g.max_s)}", pct(g.median_pct_of_roof))
    return table


def _problems(a: ReportAnalysis) -> list[str]:
    """Distinct reasons for n/a values, with how many launches each affects, then the flags."""
    reasons: dict[str, set[str]] = defaultdict(set)
    for k in a.launches:
        for key, v in (*(("FLOPs " + p, k.flops[p]) for p in PRECISIONS),
                       *(("bytes " + level, k.bytes[level]) for level in LEVELS), ("duration", k.duration_s)):
            if v.value is None:
                reasons[f"{key}: {v.reason}"].add(k.launch.key)
        for source, ceilings in k.ceilings.items():
            for roof, why in ceilings.missing.items():
                reasons[f"roof {_LABELS[roof]} ({_set_name(source)}): {why}"].add(k.launch.key)
    lines = []
    if reasons:
        lines.append("[bold]Why n/a[/bold] (not measured, or no ceiling):")
        lines += [_esc(f"  {text} [{_launch_count(keys, len(a.launches))}]") for text, keys in reasons.items()]
    flagged = [(k.launch.key, flag) for k in a.launches for flag in k.flags]
    if flagged:
        lines.append("[bold red]Above a ceiling (!)[/bold red]:")
        lines += [_esc(f"  {key}: {flag}") for key, flag in flagged]
    notes = sorted({note for k in a.launches for note in k.notes})
    lines += [_esc(f"note: {note}") for note in notes]
    return lines


def _launch_count(keys: set[str], total: int) -> str:
    return "all launches" if len(keys) == total else f"{len(keys)} of {total} launches"


class _NullFile:
    """A write sink so a recording console prints nothing while it renders."""

    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass
