"""The ``roofline`` command line: a thin shell that parses options, calls the library, renders, exits.

Each command lives in its own module under ``roofline.commands``. A run imports only the module of the
command it invokes (all of them for ``--help``), which keeps start-up short; ``roofline.cli.app`` is the
full application, built on first access, for tests and embedding. Every error, a usage error from the
option parser included, is one line ``roofline: error: WHAT: HINT`` on stderr with exit status 2 (3 when ncu
or the application fails).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import typer
    from typer import _click as click

    from roofline.errors import RooflineError

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
                      pretty_exceptions_enable=False, cls=_group_class())
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


def _group_class() -> type:
    """typer's command group, with the parser's usage errors in roofline's one-line form."""
    from typer.core import TyperGroup

    class OneVoiceGroup(TyperGroup):
        def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
                 complete_var: str | None = None, standalone_mode: bool = True, windows_expand_args: bool = True,
                 **extra: Any) -> Any:
            """Run without click's standalone handling, so usage errors come here and print as one line."""
            from typer import _click as click
            from typer.exceptions import Abort

            try:
                result = super().main(args, prog_name, complete_var, standalone_mode=False,
                                      windows_expand_args=windows_expand_args, **extra)
                code = result if isinstance(result, int) and not isinstance(result, bool) else 0  # typer.Exit(n)
            except click.exceptions.NoArgsIsHelpError:
                code = 2  # the help was printed
            except click.ClickException as err:
                words = sys.argv[1:] if args is None else list(args)
                command = next((w for w in words if w in self.commands), None)
                print(f"roofline: error: {usage_error(err, command)}", file=sys.stderr)
                code = err.exit_code
            except Abort:
                print("roofline: error: aborted", file=sys.stderr)
                code = 1
            if standalone_mode:
                sys.exit(code)
            return code

    return OneVoiceGroup


def usage_error(err: click.ClickException, command: str | None = None) -> RooflineError:
    """A parser error as one line: what is wrong, then where the options are listed (``command``: the command
    on the line, for errors that come without their context)."""
    from typer import _click as click

    from roofline.errors import RooflineError

    ctx = getattr(err, "ctx", None)
    path = ctx.command_path if ctx is not None else " ".join(filter(None, ("roofline", command)))
    hint = f"run '{path} --help' for the options"
    if isinstance(err, click.exceptions.NoSuchOption):
        close = " or ".join(sorted(err.possibilities or ()))
        return RooflineError(f"no such option {err.option_name}" + (f" (did you mean {close}?)" if close else ""), hint)
    if isinstance(err, click.exceptions.MissingParameter) and err.param is not None:
        what = err.param.param_type_name
        return RooflineError(f"missing {what} {_param_name(err.param, ctx)}", hint)
    if isinstance(err, click.exceptions.BadOptionUsage) and "requires an argument" in err.message:
        return RooflineError(f"option {err.option_name} needs a value", hint)
    if isinstance(err, click.exceptions.BadParameter) and err.param is not None:
        return RooflineError(f"invalid value for {_param_name(err.param, ctx)}: {err.message.rstrip('.')}", hint)
    text = " ".join(err.format_message().split())
    unknown = re.fullmatch(r"No such command '(.*)'\.(?: Did you mean (.*)\?)?", text)
    if unknown:
        close = f" (did you mean {unknown[2].replace(', ', ' or ')}?)" if unknown[2] else ""
        return RooflineError(f"no such command '{unknown[1]}'{close}", hint)
    text = text.rstrip(".")
    return RooflineError(text[:1].lower() + text[1:], hint)


def _param_name(param: click.Parameter, ctx: click.Context | None) -> str:
    """An option by its longest name (--format), an argument by its name in capitals (FILES...)."""
    if param.param_type_name == "option":
        return max(param.opts, key=len)
    return getattr(param, "metavar", None) or (param.name or "").upper() + ("..." if param.nargs == -1 else "")


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
        app(prog_name="roofline")  # the same name in messages for the console script and python -m
    except RooflineError as err:
        print(f"roofline: error: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
