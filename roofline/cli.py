"""The ``roofline`` command line: a thin shell that parses options, calls the library, renders, exits."""

from __future__ import annotations

import sys

import typer

from roofline.commands import analyze as analyze_cmd
from roofline.commands import compare as compare_cmd
from roofline.commands import diff as diff_cmd
from roofline.commands import plot as plot_cmd
from roofline.commands import report as report_cmd
from roofline.commands import summary as summary_cmd
from roofline.commands import specs as specs_cmd
from roofline.commands import wrap as wrap_cmd

app = typer.Typer(
    name="roofline",
    help="Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("report")(report_cmd.report)
app.command("plot")(plot_cmd.plot)
app.command("compare")(compare_cmd.compare)
app.command("diff")(diff_cmd.diff)
app.command("summary")(summary_cmd.summary)
app.add_typer(specs_cmd.app, name="specs")
app.command("analyze", context_settings=analyze_cmd.CONTEXT_SETTINGS)(analyze_cmd.analyze)
app.command("wrap", context_settings=analyze_cmd.CONTEXT_SETTINGS)(wrap_cmd.wrap)


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
