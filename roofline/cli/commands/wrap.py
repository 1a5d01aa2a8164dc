"""`roofline wrap`: under ``mpiexec``/``srun``, profile the chosen MPI ranks with ncu and run the rest unchanged.

    mpiexec -n 8 roofline wrap --ranks 0,4 -o reports/ -- python app.py
    roofline report reports/*.ncu-rep

A chosen rank runs ncu as a child process (not ``exec``) so that roofline can read ncu's log and turn a
failure into one line naming the rank and host; it exits with the application's own exit code when the
application failed, 0 on success, and the tool's exit code on an ncu problem. Every other rank ``exec``s
the application: it keeps the rank's PID, signals and exit code exactly as without roofline. No analysis
runs here (the ranks run in parallel); the reports, one per chosen rank, are analysed afterwards.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from roofline.cli import ncu_options as ncu_opts
from roofline.cli.failures import handles_errors
from roofline.cli.ranks import RankSelection, detect_rank, job_size, parse_ranks
from roofline.errors import RooflineError
from roofline.ncu import driver

CONTEXT_SETTINGS = ncu_opts.CONTEXT_SETTINGS  # read by roofline.cli.app, with COMMAND_CLASS
COMMAND_CLASS = ncu_opts.COMMAND_CLASS

RanksOpt = Annotated[str, typer.Option(
    "--ranks", help="Ranks to profile: a list such as 0,4 or 0-3 (ranges inclusive), or all.")]
LocalRankOpt = Annotated[bool, typer.Option(
    "--local-rank", help="Select by node-local rank (e.g. --ranks 0 --local-rank: the first rank on every node).")]


@handles_errors
@ncu_opts.takes_ncu_options
def wrap(
    ctx: typer.Context,
    command: ncu_opts.CommandArg,
    ranks: RanksOpt = "0",
    local_rank: LocalRankOpt = False,
    choices: ncu_opts.NcuChoices = ncu_opts.DEFAULTS,
) -> None:
    """Run one MPI rank: profile it with ncu if chosen (report NAME.rankR.HOST.ncu-rep), else run the app."""
    selection = parse_ranks(ranks)
    ncu_opts.refuse_unknown_option_as_app(ctx, command)
    ncu_opts.refuse_empty_values(choices)
    after_app = ncu_opts.own_options_after_app(ctx, command)  # --dry-run after APP is refused on every rank
    rank, chooser = _ranks(selection, local_rank, choices.dry_run)
    host = socket.gethostname()
    with on_rank(rank, host):  # the application's path may differ between nodes
        app = driver.resolve_app(command)
    if chooser not in selection:
        run_unprofiled(app, choices.dry_run, f"rank {rank} on {host}: not profiled")
        return
    options = ncu_opts.ncu_options(choices)
    template = driver.report_template(choices.output, driver.app_name(command), tag=f".rank{rank}.{host}")
    with on_rank(rank, host):
        if choices.dry_run:
            ncu_opts.print_dry_run(choices.ncu, options, template, app, f"rank {rank} on {host}: profiled")
            return
        ncu_opts.warn_options_after_app(after_app)
        report = driver.profile(ncu_opts.prepare_ncu(choices.ncu, options, template, app))
    typer.echo(f"roofline: rank {rank} on {host}: wrote {report}; analyse with: roofline report "
               f"{os.path.join(os.path.dirname(report), '*.ncu-rep')}", err=True)


def _ranks(selection: RankSelection, local_rank: bool, dry_run: bool) -> tuple[int, int]:
    """This process' rank and the rank that chooses whether it is profiled (its node-local one with
    ``local_rank``). Where the launcher gives the job's size, a global rank selected outside it is refused (a
    node-local one is not: nodes may run different numbers of ranks). Outside an MPI job a dry run shows the first
    selected rank, with a note; a run is refused."""
    try:
        rank, variable = detect_rank(os.environ)
        chooser = detect_rank(os.environ, local=True)[0] if local_rank else rank
    except RooflineError as err:
        if not dry_run:
            raise
        typer.echo(f"roofline: note: {err.message}: showing what rank {selection.first} would run on this host",
                   err=True)
        return selection.first, selection.first
    size = job_size(os.environ, variable)
    if size is not None and not local_rank:
        selection.refuse_outside(*size)
    return rank, chooser


def run_unprofiled(app: list[str], dry_run: bool, label: str = "") -> None:
    """Replace this process with the application (or print its command, ``label`` after it, under --dry-run)."""
    if dry_run:
        typer.echo(ncu_opts.with_label(driver.shell_command(app), label))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(app[0], app)


@contextmanager
def on_rank(rank: int, host: str) -> Iterator[None]:
    """Prefix errors with the rank and host; exit with the application's own code when it failed under ncu."""
    try:
        yield
    except RooflineError as err:
        typer.echo(f"roofline: error: rank {rank} on {host}: {err}", err=True)
        code = err.app_exit_code if isinstance(err, driver.AppFailed) else err.exit_code
        raise typer.Exit(code) from None
