"""`roofline timeline` as a terminal table, Markdown or CSV: per file, its GPUs (busy time, idle share), the
kernels ranked by total GPU time, the NVTX ranges; for several files, the per-rank totals and outliers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from roofline.analysis.borrowed import BorrowedWork
from roofline.analysis.timeline import FILE_NAME, ORDER, RankTotal, TimelineSet
from roofline.core.kernel_names import KernelName, fit_apart, kernel_name
from roofline.core.thresholds import RANK_OUTLIER_PCT
from roofline.core.timeline import DeviceTime, KernelTime, Timeline
from roofline.core.units import counted, seconds, share_pct, si
from roofline.render import TIMELINE_CSV_COLUMNS
from roofline.render.names import csv_text, markdown_text, visible
from roofline.render.terminal import add_rows, escape, plain_table, print_hanging, record
from roofline.render.timeline import streams, work

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

KERNEL_COLUMNS = ("#", "kernel", "launches", "total", "share", "median", "min", "max")
NVTX_SHOWN = 10  # NVTX names listed per file (the longest ranges)
SHARE_NOTE = ("share: of the GPUs' busy time (kernels overlapping on several streams can make the shares sum "
              "past 100%); times are the application's own (nsys: no replay, its clocks and caches)")


def heading(t: Timeline) -> str:
    """The file, where it was exported from, and the NVTX filter."""
    words = [t.path if t.exported_by is None else f"{t.path} (exported to SQLite by {t.exported_by})"]
    if t.nvtx_filter is not None:
        words.append(f"kernels launched inside NVTX ranges {t.nvtx_filter!r}")
    return "; ".join(words)


IDLE_CAUSES_SHOWN = 4  # the largest causes of a GPU's idle time named in the table
API_SHOWN = 8  # CUDA API functions listed (longest total first)
CAUSE_WORDS = {"other_kernels": "kernels the NVTX filter leaves out", "copy": "copying", "memset": "memset",
               "unified_memory": "unified memory", "sync": "host in", "api": "host in", "host": ""}


def device_lines(t: Timeline) -> list[str]:
    return [line for d in t.devices for line in (
        f"GPU {d.device_id} {d.name or '(not listed)'}: {counted(d.launches, 'launch')}, busy "
        f"{seconds(d.busy_s)} of a {seconds(d.span_s)} span from first kernel start to last kernel end "
        f"(idle {share_pct(d.idle_share)})", *idle_lines(d))]


def idle_lines(d: DeviceTime) -> list[str]:
    """The idle time's largest causes with their share of it, in one line."""
    if not d.idle_causes or d.idle_s <= 0:
        return []
    parts = [f"{(CAUSE_WORDS[c.kind] + ' ' + c.detail).strip()} {share_pct(share)}"
             for c, share in zip(d.idle_causes[:IDLE_CAUSES_SHOWN], d.cause_shares, strict=False)]
    return [f"  idle {seconds(d.idle_s)}: " + ", ".join(parts)]


def api_cells(t: Timeline) -> list[list[str]]:
    return [[a.name, str(a.calls), seconds(a.total_s), seconds(a.median_s), seconds(a.max_s)]
            for a in t.api[:API_SHOWN]]


def transfer_cells(t: Timeline) -> list[list[str]]:
    return [[x.direction + (f" ({x.memory})" if x.memory else ""), str(x.count), si(x.bytes, "B"),
             seconds(x.total_s), seconds(x.median_s), si(x.bytes_per_s, "B/s")] for x in t.transfers]


def memory_lines(t: Timeline) -> list[str]:
    return [f"GPU {m.device_id} memory allocated through CUDA: peak {si(m.peak_bytes, 'B')} at "
            f"{seconds(m.peak_at_s)} after the first allocation, {si(m.final_bytes, 'B')} at the end"
            for m in t.memory]


API_COLUMNS = ("CUDA API", "calls", "total", "median", "max")
TRANSFER_COLUMNS = ("memory transfer", "count", "bytes", "total", "median", "rate")


MARKDOWN_NAME_CHARS = 80  # a kernel name in Markdown and HTML: its short name and as much of its template as fits


def name_parts(t: Timeline, k: KernelTime) -> KernelName:
    """What a kernel is shown by: its short name, with the template arguments that tell its instance apart where
    the timeline groups by kernel, and, for an instance whose short name other kernels share, ``#i/n`` (its
    place among them by total time), which no cut of a narrow column removes."""
    if t.group_by != "kernel":
        return KernelName(k.function)
    alike = [other.name for other in t.kernels if other.function == k.function]
    name = kernel_name(k.function, k.demangled)
    return name.with_suffix(f" #{alike.index(k.name) + 1}/{len(alike)}") if len(alike) > 1 else name


def shown_names(t: Timeline, kernels: Sequence[KernelTime], width: int) -> list[str]:
    """The kernels' names fitted to ``width``, instances of one template kept apart (``fit_apart``)."""
    return fit_apart([name_parts(t, k) for k in kernels], width)


def kernel_cells(t: Timeline, top: int, width: int = MARKDOWN_NAME_CHARS) -> list[list[str]]:
    kernels = shown(t, top)
    return [[str(i), name, str(k.count), seconds(k.total_s), share_pct(share), seconds(k.median_s),
             seconds(k.min_s), seconds(k.max_s)]
            for i, (k, name, share) in enumerate(zip(kernels, shown_names(t, kernels, width), t.shares, strict=False),
                                                 1)]


def shown(t: Timeline, top: int) -> tuple[KernelTime, ...]:
    return t.kernels[:top] if top > 0 else t.kernels


OUTLIER_WORDS = {"slow": "busier GPU", "fast": "less busy GPU"}


def rank_label(r: RankTotal) -> str:
    """What a file is called beside the others: "rank R" where its rank is known, else "file N" (its place on the
    command line, from 1)."""
    return f"rank {r.rank}" if r.rank is not None else f"file {r.file + 1}"


def file_labels(doc: TimelineSet) -> list[str]:
    """Each file's ``rank_label``, by its place on the command line ("" for one file)."""
    of = {r.file: rank_label(r) for r in doc.ranks}
    return [of.get(i, "") for i in range(len(doc.timelines))]


def rank_columns(ranks: Sequence[RankTotal]) -> tuple[str, ...]:
    """The ranks table's columns: the first "rank" where the ranks are known, else "#" (the place given)."""
    return ("rank" if ranks and ranks[0].rank is not None else "#", *RANK_COLUMNS[1:])


def rank_cells(ranks: Sequence[RankTotal]) -> list[list[str]]:
    return [[rank_label(r).split()[1], Path(r.path).name, str(r.launches), seconds(r.kernel_s), seconds(r.busy_s),
             f"{r.off_others_pct:+.1f}%", OUTLIER_WORDS[r.outlier] if r.outlier else ""] for r in ranks]


def rank_note(ranks: Sequence[RankTotal]) -> str:
    """The ranks table's legend, with where the ranks come from."""
    source = ranks[0].rank_from if ranks else ORDER
    where = ("rank: the number in each file's name" if source == FILE_NAME else
             "no rank known (no launcher variable in the profiles, no number of its own in each file's name): "
             "files in the order given" if source == ORDER else f"rank: {source} in each profile's environment")
    return f"{where}; {RANK_NOTE}"


STREAMS_TITLE = "Streams: copy time under kernels; the longest idle gaps per GPU (no stream busy)"
RANK_COLUMNS = ("rank", "file", "launches", "kernel time", "busy", "vs others", "")
RANK_NOTE = ("kernel time: the kernels' times summed (overlapping kernels count twice); busy: the time the GPUs ran "
             "any kernel; vs others: busy time against the median of the other ranks' (with two, the other's); "
             f"more than {RANK_OUTLIER_PCT:g}% above or below it, a busier or less busy GPU: where the GPU work lies "
             "between the ranks' synchronisations, the others wait on a busier one (compare the spans: equal spans "
             "with little busy time say the host's work sets the pace)")


def render_table(doc: TimelineSet, top: int = 0, width: int = 80) -> str:
    return record(lambda console: _print(console, doc, top), width)


def _print(console: Console, doc: TimelineSet, top: int) -> None:
    for t in doc.timelines:
        console.print(f"[bold]{escape(heading(t))}[/bold]", highlight=False)
        for line in device_lines(t):  # wrapped lines indented under their own
            print_hanging(console, line)
        more = len(t.kernels) - len(shown(t, top))
        caption = SHARE_NOTE + (f"; {more} more kernels (--top 0 shows all)" if more > 0 else "")
        table = plain_table("", KERNEL_COLUMNS, caption=caption, name_column=1)
        console.print(add_rows(table, [[c if j != 1 else name_parts(t, k) for j, c in enumerate(row)]
                                       for row, k in zip(kernel_cells(t, top), shown(t, top), strict=True)],
                               console.width))
        if t.api:
            console.print(add_rows(plain_table("", API_COLUMNS), [[KernelName(r[0]), *r[1:]] for r in api_cells(t)],
                                   console.width))
        if t.transfers:
            console.print(add_rows(plain_table("", TRANSFER_COLUMNS), [[KernelName(r[0]), *r[1:]]
                                                                      for r in transfer_cells(t)], console.width))
        for line in memory_lines(t):
            print_hanging(console, line)
        if t.nvtx:
            # the title on a line of its own: as a table's title it wraps to the table's width
            console.print(f"NVTX ranges ({min(len(t.nvtx), NVTX_SHOWN)} of {len(t.nvtx)} names, longest first; "
                          "CPU time)", highlight=False)
            nvtx = plain_table("", ("range", "count", "total"))
            console.print(add_rows(nvtx, [[KernelName(r.name), str(r.count), seconds(r.total_s)]
                                          for r in t.nvtx[:NVTX_SHOWN]], console.width))
        console.print()
    if doc.ranks:
        table = plain_table("ranks", rank_columns(doc.ranks), caption=rank_note(doc.ranks), name_column=1)
        console.print(add_rows(table, [[KernelName(c) if j == 1 else c for j, c in enumerate(row)]
                                       for row in rank_cells(doc.ranks)], console.width))
    if doc.streams is not None:
        console.print(f"[bold]{STREAMS_TITLE}[/bold]", highlight=False)
        for line in streams.lines(doc.streams, file_labels(doc)):
            print_hanging(console, line)
    if doc.work is not None:
        _print_work(console, doc.work)
        for line in work.time_gap_lines(doc.time_gaps):
            print_hanging(console, line)


def _print_work(console: Console, w: BorrowedWork) -> None:
    """The kernels on this GPU's roofline with the report's work (``render.timeline.work``)."""
    console.print(f"[bold]{escape(work.title(w))}[/bold]", highlight=False)
    print_hanging(console, work.headline(w))
    if w.kernels:
        table = plain_table("", work.COLUMNS, caption=work.LEGEND, name_column=1)
        console.print(add_rows(table, [[work.shown_name(k) if j == 1 else c for j, c in enumerate(work.cells(i, k))]
                                       for i, k in enumerate(w.kernels, 1)], console.width))
    for line in work.unmatched_lines(w):
        print_hanging(console, line)


class Part(NamedTuple):
    """One piece of the Markdown and HTML documents: a heading (h1, h2), a list item (li), a paragraph (p), a table
    or a blank line; ``text`` as Markdown writes it, ``plain`` as it reads (HTML escapes it); a table's ``columns``
    and its rows' cells (plain), and which of its columns hold names (left-aligned, wrapped where long in HTML)."""

    kind: Literal["h1", "h2", "li", "p", "table", "blank"]
    text: str = ""
    plain: str = ""
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[str]] = ()
    names: tuple[int, ...] = (0,)


BLANK = Part("blank")
MARKDOWN_PREFIXES = {"h1": "# ", "h2": "## ", "li": "- "}


def render_markdown(doc: TimelineSet, top: int = 0) -> str:
    return "".join(f"{line}\n" for part in parts(doc, top) for line in _markdown(part))


def _markdown(part: Part) -> Iterator[str]:
    """A part's Markdown lines."""
    if part.kind == "table":
        yield "| " + " | ".join(part.columns) + " |"
        yield "|" + "|".join("---" for _ in part.columns) + "|"
        for row in part.rows:
            yield "| " + " | ".join(_md(c) for c in row) + " |"
    else:
        yield f"{MARKDOWN_PREFIXES.get(part.kind, '')}{part.text}"


def _p(text: str, suffix: str = "", kind: Literal["h2", "li", "p"] = "p") -> Part:
    """Report text (names, paths, numbers) escaped for Markdown, and ``suffix`` (our own punctuation)."""
    return Part(kind, _md(text) + suffix, visible(text) + suffix)


def _own(text: str) -> Part:
    """A paragraph of our own words (no Markdown escaping)."""
    return Part("p", text, text)


def parts(doc: TimelineSet, top: int) -> Iterator[Part]:
    """The document's headings, lists, tables and notes, in order."""
    yield Part("h1", "GPU timeline (Nsight Systems)", "GPU timeline (Nsight Systems)")
    for t in doc.timelines:
        yield BLANK
        yield _p(heading(t), kind="h2")
        yield BLANK
        yield from (_p(line, kind="li") for line in device_lines(t))
        yield BLANK
        yield Part("table", columns=KERNEL_COLUMNS, rows=kernel_cells(t, top), names=(1,))
        yield BLANK
        yield _own(SHARE_NOTE + ".")
        if t.api:
            yield BLANK
            yield Part("table", columns=API_COLUMNS, rows=api_cells(t))
        if t.transfers:
            yield BLANK
            yield Part("table", columns=TRANSFER_COLUMNS, rows=transfer_cells(t))
        for line in memory_lines(t):
            yield BLANK
            yield _p(line)
        if t.nvtx:
            yield BLANK
            yield Part("table", columns=("NVTX range", "count", "total (CPU)"),
                       rows=[[r.name, str(r.count), seconds(r.total_s)] for r in t.nvtx[:NVTX_SHOWN]])
    if doc.ranks:
        yield BLANK
        yield Part("h2", "Ranks", "Ranks")
        yield BLANK
        yield Part("table", columns=rank_columns(doc.ranks), rows=rank_cells(doc.ranks), names=(1,))
        yield BLANK
        yield _own(rank_note(doc.ranks) + ".")
    if doc.streams is not None:
        yield BLANK
        yield Part("h2", STREAMS_TITLE, STREAMS_TITLE)
        yield BLANK
        yield from (_p(line, kind="li") for line in streams.overlap_lines(doc.streams, file_labels(doc)))
        if doc.streams.gaps:
            yield BLANK
            yield Part("table", columns=streams.GAP_COLUMNS, rows=streams.gap_cells(doc.streams, file_labels(doc)),
                       names=streams.GAP_NAME_COLUMNS)
    if doc.work is not None:
        yield BLANK
        yield _p(work.title(doc.work), kind="h2")
        yield BLANK
        yield _p(work.headline(doc.work))
        if doc.work.kernels:
            yield BLANK
            yield Part("table", columns=work.COLUMNS, rows=work.markdown_rows(doc.work), names=(1,))
            yield BLANK
            yield _p(work.LEGEND, ".")
        for line in work.unmatched_lines(doc.work):
            yield BLANK
            yield _p(line)
        for line in work.time_gap_lines(doc.time_gaps):
            yield BLANK
            yield _p(line)


def _md(text: str) -> str:
    """Report text (names, paths, numbers) as literal Markdown on one line (``names.markdown_text``)."""
    return markdown_text(visible(text))


CSV_COLUMNS = TIMELINE_CSV_COLUMNS  # its header row is one of ``render.CSV_MARKS``, by which roofline knows its file


def render_csv(doc: TimelineSet) -> str:
    """One row per kernel and file, every kernel, times in seconds (full precision); the rank where it is known
    (several files), else empty."""
    ranks = {r.file: r.rank for r in doc.ranks}
    return csv_text(CSV_COLUMNS, ([t.path, "" if ranks.get(i) is None else ranks[i], k.name, k.count,
                                   repr(k.total_s), repr(share), repr(k.median_s), repr(k.min_s), repr(k.max_s),
                                   " ".join(map(str, k.devices)), k.function, k.demangled]
                                  for i, t in enumerate(doc.timelines)
                                  for k, share in zip(t.kernels, t.shares, strict=True)))
