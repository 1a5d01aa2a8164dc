"""`roofline query STORE SQL`: one SQL statement over a store that `roofline collect` wrote, answered by DuckDB
(embedded) as a table, CSV or JSON.

The CSV is the query's rows alone, its header the query's columns: no line before it, so any CSV reader takes it.
The other CSVs roofline writes carry the generator mark as their fixed first columns; a query's columns are the
user's, so its CSV carries none, and ``-o FILE`` writes a new file only (roofline could not tell its own CSV from
another program's, and replaces no file it cannot tell is its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.failures import handles_errors

FORMATS = ("table", "csv", "json")


@handles_errors
def query(
    store: Annotated[Path, typer.Argument(help="The store folder `roofline collect` wrote.")],
    sql: Annotated[str, typer.Argument(help="One SQL statement over the views launches, advice, reports and errors "
                                       "(DuckDB's dialect).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="Output format: table, csv or json.")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file (default: standard "
                                                "output).")] = None,
) -> None:
    """Query a store with SQL (DuckDB): the views launches (one row per launch), advice (one per advice item),
    reports and errors (the files collect could not analyse)."""
    from roofline.cli.output import to_stdout, write_output
    from roofline.errors import UsageError
    from roofline.store.query import query as run
    from roofline.store.text import formatted

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: not a query format", f"choose one of {', '.join(FORMATS)}")
    text = formatted(run(store, sql), fmt)  # type: ignore[arg-type]
    if output is None:
        to_stdout(text)
    elif fmt == "csv" and str(output) != "-":
        _pure_csv(output, text)
    else:
        write_output(output, text)


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
