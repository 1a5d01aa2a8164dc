"""The ``roofline`` command line: a thin shell that parses options, calls the library, renders, exits."""

from __future__ import annotations

import sys

import typer

from roofline.commands import report as report_cmd

app = typer.Typer(
    name="roofline",
    help="Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("report")(report_cmd.report)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    """Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports."""
    if version:
        from roofline import __version__

        typer.echo(f"roofline {__version__}")
        raise typer.Exit()


def main() -> None:
    """Console-script entry point: run the app and turn user errors into one line and an exit code."""
    from roofline.errors import RooflineError

    try:
        app()
    except RooflineError as err:
        print(f"roofline: error: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
