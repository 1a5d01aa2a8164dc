"""Errors and warnings on the terminal: a RooflineError as roofline's one line and its exit status, the reports'
integrity warnings, the files a command went on past."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

import typer

from roofline.render.names import visible

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.compare.ranking import AppSummary
    from roofline.errors import RooflineError

F = TypeVar("F", bound=Callable[..., object])


def handles_errors(func: F) -> F:
    """Decorate a command so a RooflineError prints ``roofline: error: ...`` and exits with its code (``say``)."""

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> object:
        from roofline.errors import RooflineError

        try:
            return func(*args, **kwargs)
        except RooflineError as err:
            raise typer.Exit(say(err, sys.argv[1:])) from None

    return cast(F, wrapper)  # functools.wraps keeps the signature at run time, not in its type


def say(err: RooflineError, args: Sequence[str]) -> int:
    """Print an error as roofline's one line on stderr and return its exit status. Under ``summary --mpi`` (command
    line ``args``) a usage error is left to rank 0, as every rank parses the same command line: the other ranks
    print nothing and end with 0, or mpiexec would stop the job, rank 0 too, before its line. Other errors may
    differ between nodes (mpi4py missing on one): every rank prints those."""
    from roofline.cli.ranks import other_mpi_rank
    from roofline.errors import NoReportAnalysed, UsageError

    if isinstance(err, UsageError) and "--mpi" in args and other_mpi_rank(os.environ):
        return 0
    if isinstance(err, NoReportAnalysed):  # every file bad: one line each
        for each in err.errors:
            typer.echo(f"roofline: error: {visible(str(each))}", err=True)
        return err.exit_code
    typer.echo(f"roofline: error: {visible(str(err))}", err=True)
    return err.exit_code


def warn(results: Sequence[ReportAnalysis | AppSummary]) -> None:
    """The integrity warnings of each result's report (analyses, summaries) on stderr, one line each (the outputs
    carry them too); a report given twice (a self-diff) warns once."""
    seen: set[str] = set()
    for result in results:
        if result.report.path not in seen:
            seen.add(result.report.path)
            warn_report(result.report.path, result.report.warnings)


def warn_report(path: str, warnings: Sequence[str]) -> None:
    """The integrity warnings of the report at ``path`` on stderr, one line each."""
    for warning in warnings:
        typer.echo(f"roofline: warning: {visible(f'{path}: {warning}')}", err=True)


def fail_for(errors: Sequence[RooflineError]) -> None:
    """After the good reports were written: one line per bad one, and the exit status of the worst."""
    for err in errors:
        typer.echo(f"roofline: error: {visible(str(err))}", err=True)
    if errors:
        raise typer.Exit(max(err.exit_code for err in errors))
