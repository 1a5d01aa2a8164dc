"""`roofline collect REPORTS... -o STORE`: every launch's analysis of many reports kept in a Parquet store
(``roofline.store``), incrementally, here or on a Dask cluster's workers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from roofline.cli.failures import handles_errors
from roofline.cli.options import CeilingsOpt, SpecsOpt, TimeoutOpt, analysis_options

if TYPE_CHECKING:  # pragma: no cover
    from roofline.store.collect import Outcome


@handles_errors
def collect(
    files: Annotated[list[Path] | None, typer.Argument(
        help="Report files (.ncu-rep, .json report models) or folders of them; none: every report the store "
        "holds (a store that is there), analysed again where roofline, the specs or the ceilings changed.")] = None,
    store: Annotated[Path, typer.Option("--output", "-o", metavar="STORE",
                                        help="The store folder (created when new).")] = Path("roofline-store"),
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, metavar="N", help="Read the reports in N local Dask worker processes (each writes its "
        "own Parquet files).")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS", help="Read the reports on the workers of a running Dask scheduler "
        "(tcp://host:8786); they must see the reports and the store at the same paths.")] = None,
    batch: Annotated[int, typer.Option("--batch", min=1, metavar="N",
                                       help="Reports per batch: one commit, one task of a worker.")] = 32,
    ceilings: CeilingsOpt = "kernel-clock",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Collect many reports' analyses into a Parquet store for SQL queries (roofline query). Each launch's
    figures of `report -f json` (work, time, roofs, verdict, time model, diagnostics, advice and their savings)
    become rows; a report already collected is not read again, a changed one replaces its rows, a bad one (corrupt,
    foreign, or cut short: none of its launches kept) is a row of the errors table (named here, exit 2) and never
    stops the others; each batch is committed at once."""
    from roofline.cli.failures import fail_for
    from roofline.errors import RooflineError, UsageError
    from roofline.store.collect import collect as run

    if workers is not None and scheduler is not None:
        raise UsageError("--workers with --scheduler: choose one", "--workers starts a local cluster; --scheduler "
                         "uses a running one")
    options = analysis_options(None, "function", ceilings, specs, timeout)
    outcome = run(files or [], store, options, workers, scheduler, batch)
    typer.echo(summary_line(outcome, store), err=True)
    fail_for([RooflineError(error) for _, error in outcome.errors])  # each line names its file


def summary_line(outcome: Outcome, store: Path) -> str:
    """What a collect did, in one line: analysed, unchanged, failed (those unchanged since they failed said apart,
    so a run again does not hide them), and the reports analysed again because rows of theirs were lost."""
    line = (f"collected {outcome.analysed} report{'s' if outcome.analysed != 1 else ''} into {store} "
            f"({outcome.unchanged} unchanged, {len(outcome.errors)} failed")
    if outcome.still_failed:
        line += f", {outcome.still_failed} of them unchanged since {'it' if outcome.still_failed == 1 else 'they'} " \
                "failed"
    if outcome.repaired:
        line += f"; {outcome.repaired} analysed again: the store had lost rows of theirs"
    if outcome.kept_gone:
        whose = "its file is" if outcome.kept_gone == 1 else "their files are"
        line += f"; {outcome.kept_gone} kept as collected: {whose} gone"
    if outcome.forgotten:
        whose = "a failure whose file is" if outcome.forgotten == 1 else "failures whose files are"
        line += f"; {outcome.forgotten} dropped: {whose} gone"
    return line + ")"
