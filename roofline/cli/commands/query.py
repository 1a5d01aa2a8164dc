"""`roofline query STORE SQL`: one SQL statement over a store that `roofline collect` wrote, answered by DuckDB
(embedded) as a table, CSV or JSON: the format --format names, else the one the -o file's extension names, as for
every command (a name whose extension belongs to another format is refused). The table's cells are whole in a file;
on the terminal a name is cut in the middle only as far as the terminal's width needs (--wide: whole).

The CSV is the query's rows alone, its header the query's columns: no line before it, so any CSV reader takes it.
The other CSVs roofline writes carry the generator mark as their fixed first columns; a query's columns are the
user's, so its CSV carries none, and ``-o FILE`` writes a new file only (roofline could not tell its own CSV from
another program's, and replaces no file it cannot tell is its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.failures import handles_errors
from roofline.cli.options import WideOpt

FORMATS = ("table", "csv", "json")
SUFFIXES = {"table": ".txt", "csv": ".csv", "json": ".json"}  # each format's extension: -o chooses by it


@handles_errors
def query(
    store: Annotated[Path, typer.Argument(help="The store folder `roofline collect` wrote.")],
    sql: Annotated[str, typer.Argument(help="One SQL statement over the views launches, advice, reports and errors "
                                       "(DuckDB's dialect).")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", show_default=False, help="Output format: table, csv "
                                            "or json (default: the one the output file's extension names, else "
                                            "table).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of the terminal "
                                                "(- for standard output); without --format, its extension chooses "
                                                "the format (.txt table, .csv csv, .json json).")] = None,
    wide: WideOpt = False,
) -> None:
    """Query a store with SQL (DuckDB): the views launches (one row per launch), advice (one per advice item),
    reports and errors (the files collect could not analyse)."""
    from roofline.cli.output import STDOUT, to_stdout, write_output
    from roofline.cli.terminal import terminal_width
    from roofline.store.query import query as run
    from roofline.store.text import formatted

    chosen = query_format(fmt, output)
    to_terminal = output is None or str(output) == STDOUT
    text = formatted(run(store, sql), chosen, terminal_width(wide) if to_terminal else None)  # type: ignore[arg-type]
    if output is None:
        to_stdout(text)
    elif chosen == "csv" and str(output) != STDOUT:
        _pure_csv(output, text)
    else:
        write_output(output, text)


def query_format(fmt: str | None, output: Path | None) -> str:
    """The format to write: ``fmt`` where --format was given, else the one the extension of ``output`` names, else
    table (as ``cli.writing.format_for_output`` settles it for the other commands). UsageError, before any work,
    for a format that is none of the query's, for a file whose extension names another format (a .txt takes any
    text) and, without --format, for a name whose extension names no format (``x.xyz``, or none): the extension
    chooses the format, so one that chooses none is refused naming the known ones."""
    from roofline.errors import UsageError
    from roofline.render.base import extension, known_extensions

    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: not a query format", f"choose one of {', '.join(FORMATS)}")
    if output is None or str(output) == "-":
        return fmt or "table"
    ext = extension(output.name)
    named = next((name for name, suffix in SUFFIXES.items() if suffix == ext), None)
    if fmt is not None and (ext not in known_extensions() or named == fmt or ext == ".txt"):
        return fmt
    if fmt is None and named is not None:
        return named
    listed = ", ".join(f"{suffix} ({name})" for name, suffix in SUFFIXES.items())
    if fmt is None and ext not in known_extensions():
        what = f"a {ext} file" if ext else "a name without an extension"
        raise UsageError(f"--output {output}: {what}, and without --format the extension chooses the format",
                         f"end the name with one of {listed}, or give --format")
    fix = (f"give --format {named}, or end the name with {SUFFIXES[fmt]}" if named is not None and fmt is not None
           else f"end the name with {SUFFIXES[fmt]}" if fmt is not None else f"end the name with one of {listed}")
    what = f"--format {fmt} writes {fmt}" if fmt is not None else f"query writes {', '.join(FORMATS)}"
    raise UsageError(f"--output {output}: a {ext} file, and {what}", fix)


def _pure_csv(output: Path, text: str) -> None:
    """The CSV as it is, with no mark added: into a new file only."""
    import os

    from roofline.cli.output import write_output
    from roofline.errors import RooflineError

    if os.path.lexists(output):
        raise RooflineError(f"{output}: exists; a query's CSV holds the query's columns alone (no generator mark), "
                            "so roofline cannot tell it wrote the file and replaces none",
                            f"remove it first, or write to standard output: roofline query ... -f csv > {output}")
    write_output(output, text.encode("utf-8", "replace"))  # bytes: written as they are, no mark line added
