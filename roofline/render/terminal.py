"""Plain-text tables for the terminal, shared by the report and the comparison tables: a recording rich console
that returns the text, borderless tables, and names cut to a column and escaped for rich markup."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from roofline.units import truncate

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

NAME_WIDTH = 20  # characters of a kernel name in a table column


def record(body: Callable[[Console], object], width: int = 80) -> str:
    """The text ``body`` prints on a console ``width`` columns wide, without colours."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    body(console)
    return console.export_text()


def escape(text: str) -> str:
    """Text from a report (paths, kernel names, reasons) with rich markup brackets escaped: '[all launches]'
    or a templated kernel name must print as written, not be taken as a style tag."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def warning_lines(warnings: Sequence[str]) -> list[str]:
    """A report's integrity warnings as rich lines (records that contradict each other, invalid launches)."""
    return [f"[bold yellow]warning:[/bold yellow] {escape(w)}" for w in warnings]


def short(name: str) -> str:
    """A name cut to the column width, escaped so rich prints brackets in it literally."""
    return escape(truncate(name, NAME_WIDTH))


def plain_table(title: str, columns: Sequence[str], caption: str = "", name_column: int = 0) -> Table:
    """A borderless table: the name column left-aligned and cut at NAME_WIDTH, numbers right-aligned."""
    from rich.table import Table

    t = Table(title=title or None, title_justify="left", box=None, pad_edge=False, padding=(0, 1),
              header_style="bold", caption=caption or None, caption_justify="left")
    for i, col in enumerate(columns):
        t.add_column(col, justify="left" if i == name_column else "right", no_wrap=True,
                     max_width=NAME_WIDTH if i == name_column else 12)
    return t
