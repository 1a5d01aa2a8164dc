"""The ``roofline`` command line: a thin shell that parses options, calls the library, renders, exits.

Each command lives in its own module under ``roofline.commands``. A run imports only the module of the
command it invokes (all of them for ``--help``), which keeps start-up short; ``roofline.cli.app`` is the
full application, built on first access, for tests and embedding.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import typer

    app: typer.Typer  # built on first access by __getattr__ below

HELP = "Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports."
# command name -> (module under roofline.commands, attribute, registered as a sub-application)
COMMANDS: dict[str, tuple[str, str, bool]] = {
    "report": ("report", "report", False),
    "plot": ("plot", "plot", False),
    "compare": ("compare", "compare", False),
    "diff": ("diff", "diff", False),
    "summary": ("summary", "summary", False),
    "specs": ("specs", "app", True),
    "analyze": ("analyze", "analyze", False),
    "wrap": ("wrap", "wrap", False),
}


def build_app(only: str | None = None) -> typer.Typer:
    """The typer application with every command, or with just ``only`` (the one being run)."""
    import typer

    app = typer.Typer(name="roofline", help=HELP, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False)
    app.callback(invoke_without_command=True)(_root)
    for name, (module, attr, is_group) in COMMANDS.items():
        if only is not None and name != only:
            continue
        mod = importlib.import_module(f"roofline.commands.{module}")
        if is_group:
            app.add_typer(getattr(mod, attr), name=name)
        else:  # a module may set CONTEXT_SETTINGS and COMMAND_CLASS, e.g. to pass an application's arguments on
            app.command(name, cls=getattr(mod, "COMMAND_CLASS", None),
                        context_settings=getattr(mod, "CONTEXT_SETTINGS", None))(getattr(mod, attr))
    return app


def _root(version: bool = False) -> None:
    """Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports."""


def _version_option() -> None:
    """Give ``_root`` its eager ``--version`` option (typer reads it from the default value)."""
    import typer

    def show(value: bool) -> None:
        if value:
            from roofline import __version__

            typer.echo(f"roofline {__version__}")
            raise typer.Exit()

    _root.__defaults__ = (typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                       callback=show),)


def __getattr__(name: str) -> object:
    """``roofline.cli.app``: the full application, built once on first access."""
    if name == "app":
        _version_option()
        globals()["app"] = build_app()
        return globals()["app"]
    raise AttributeError(name)


def main() -> None:
    """Console-script entry point: build the app for the command given and run it; user errors become
    one line and an exit code."""
    from roofline.errors import RooflineError

    _version_option()
    command = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), None)
    app = build_app(command if command in COMMANDS else None)
    try:
        app()
    except RooflineError as err:
        print(f"roofline: error: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
