"""Plain-text tables for the terminal, shared by the report and the comparison tables: a recording rich console
that returns the text, borderless tables, and kernel names fitted to the room the other columns leave."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from roofline.core.kernel_names import PAIR_ARROW, KernelName, fit_apart
from roofline.render.names import visible, visible_name

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

MIN_NAME_WIDTH = 12  # a kernel name column never gets fewer characters, however narrow the terminal
COLUMN_GAP = 2  # padding=(0, 1) without edge padding: two spaces between columns


class Chain(NamedTuple):
    """The names of a pair's kernels where they differ, shown joined by arrows; a narrow column cuts each name,
    never the arrow."""

    names: tuple[KernelName, ...]


Cell = str | KernelName | Chain


def record(body: Callable[[Console], object], width: int = 80) -> str:
    """The text ``body`` prints on a console ``width`` columns wide, without colours, and without the spaces rich
    pads a table's lines with to its width at their ends."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    body(console)
    return "".join(line.rstrip() + "\n" for line in console.export_text().splitlines())


def plain_terminal(environ: Mapping[str, str]) -> bool:
    """Whether the terminal takes plain text, no colour nor bold nor dim: NO_COLOR set (no-color.org) or TERM=dumb."""
    return bool(environ.get("NO_COLOR")) or environ.get("TERM") == "dumb"


def terminal_console(stderr: bool = False) -> Console:
    """A console on standard output (or error) that writes styles only where the terminal takes them
    (``plain_terminal``)."""
    import os

    from rich.console import Console

    return Console(stderr=stderr, color_system=None if plain_terminal(os.environ) else "auto")


def escape(text: str) -> str:
    """Text from a report (paths, kernel names, reasons) as the terminal may show it (``names.visible``: no control
    character, bounded length), with rich markup brackets escaped: '[all launches]' or a templated kernel name must
    print as written, not be taken as a style tag."""
    from rich.markup import escape as rich_escape

    return rich_escape(visible(text))


GLUE = "\ue000"  # a space no wrap breaks at (``hanging``), printed as a space (private use: rare in report text)
_KEPT_SPACE = re.compile(r"(?<=\d) (?=[A-Za-z])|(?<=\S) (?=[-+]?\d[\d,.]*%)")  # "219 ms", "L2 73.44%"


def unbroken(text: str) -> str:
    """``text`` as one piece that ``hanging`` never breaks: a label kept with its value ("L1 17.23% of active
    cycles")."""
    return text.replace(" ", GLUE)


def hanging(text: str, width: int) -> list[str]:
    """``text`` wrapped to ``width`` columns, its continuation lines two spaces further in than its own indentation,
    never between a number and its unit, a word and the percent after it, nor inside an ``unbroken`` piece;
    escaped for rich (print with ``soft_wrap=True``, so that rich wraps nothing again)."""
    import textwrap

    from rich.markup import escape as rich_escape

    body = text.lstrip(" ")
    indent = " " * (len(text) - len(body))
    glued = _KEPT_SPACE.sub(GLUE, visible(body))
    lines = textwrap.wrap(glued, max(width, len(indent) + 20), initial_indent=indent,
                          subsequent_indent=indent + "  ", break_on_hyphens=False, break_long_words=False)
    return [rich_escape(line.replace(GLUE, " ")) for line in lines] or [""]


def print_hanging(console: Console, text: str, style: str = "") -> None:
    """Print ``text`` wrapped to the console's width as ``hanging`` wraps it, each line in ``style`` if given."""
    for line in hanging(text, console.width):
        console.print(f"[{style}]{line}[/{style}]" if style else line, highlight=False, soft_wrap=True)


def warning_lines(warnings: Sequence[str]) -> list[str]:
    """A report's integrity warnings as rich lines (records that contradict each other, invalid launches)."""
    return [f"[bold yellow]warning:[/bold yellow] {escape(w)}" for w in warnings]


def fitted(name: KernelName, width: int) -> str:
    """A kernel name fitted to ``width`` characters and escaped so rich prints brackets in it literally."""
    return escape(visible_name(name).fit(width))


def add_rows(table: Table, rows: Sequence[Sequence[Cell]], width: int, whole: bool = False) -> Table:
    """Add ``rows`` to ``table``; their kernel names get what the other columns leave of ``width`` (the terminal),
    at least MIN_NAME_WIDTH characters each. With ``whole``, no header nor cell is ever broken over lines
    (``keep_whole``)."""
    columns = len(table.columns)
    named = {i for row in rows for i, cell in enumerate(row) if isinstance(cell, (KernelName, Chain))}
    others = sum(max([len(str(table.columns[i].header))] + [len(str(row[i])) for row in rows])
                 for i in range(columns) if i not in named)
    room = (width - others - COLUMN_GAP * (columns - 1)) // max(len(named), 1)
    room = max(room, MIN_NAME_WIDTH, *(len(str(table.columns[i].header)) for i in named))
    shown = [visible_name(cell) for row in rows for cell in row if isinstance(cell, KernelName)]
    texts = iter(escape(text) for text in fit_apart(shown, room))
    for row in rows:
        table.add_row(*(next(texts) if isinstance(cell, KernelName) else chained(cell, room)
                        if isinstance(cell, Chain) else cell for cell in row))
    return keep_whole(table, width) if whole else table


def keep_whole(table: Table, width: int) -> Table:
    """The table with every header and cell on one line: where its columns (the names already cut to their least,
    MIN_NAME_WIDTH) still need more than ``width`` columns, it is drawn that wide, past the terminal's edge, rather
    than break a word or a number (print it with ``crop=False``)."""
    for column in table.columns:
        column.no_wrap = True
    needed = sum(_column_widths(table)) + COLUMN_GAP * (len(table.columns) - 1)
    if needed > width:
        table.width = needed
    return table


def _column_widths(table: Table) -> list[int]:
    """Each column's width on one line: its widest header or cell, in terminal cells (markup left out)."""
    from rich.markup import render

    return [max([render(str(column.header)).cell_len] + [render(str(c)).cell_len for c in column.cells])
            for column in table.columns]


MIN_CHAIN_SHARE = 3  # characters of each name in a chain, however narrow the column ("m…D")


def chained(chain: Chain, width: int) -> str:
    """A chain of names in ``width`` characters: each name fitted to its share (names that would read alike cut
    where they part, ``fit_apart``), the arrows kept, escaped."""
    share = max(MIN_CHAIN_SHARE, (width - len(PAIR_ARROW) * (len(chain.names) - 1)) // len(chain.names))
    return escape(PAIR_ARROW.join(fit_apart([visible_name(n) for n in chain.names], share)))


def plain_table(title: str, columns: Sequence[str], caption: str = "", name_column: int = 0) -> Table:
    """A borderless table: the name column left-aligned (fill it with ``add_rows``), numbers right-aligned."""
    from rich.table import Table

    t = Table(title=title or None, title_justify="left", box=None, pad_edge=False, padding=(0, 1),
              header_style="bold", caption=caption or None, caption_justify="left")
    for i, col in enumerate(columns):  # a number too wide for its column wraps onto a second line, never cut
        named = i == name_column
        t.add_column(col, justify="left" if named else "right", no_wrap=named, overflow="ellipsis" if named else "fold")
    return t
