"""`roofline query STORE SQL`: one SQL statement over a store that `roofline collect` wrote, answered by DuckDB
(embedded) as a table, CSV or JSON."""

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
    else:
        write_output(output, text)
