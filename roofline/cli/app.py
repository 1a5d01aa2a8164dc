"""The ``roofline`` command line: a thin shell that parses options, calls the library, renders, exits.

Each command lives in its own module under ``roofline.cli.commands``. A run imports only the module of the
command it invokes, which keeps start-up short; ``roofline.cli.app.app`` is the full application, built on first
access, for tests and embedding. ``roofline``, ``roofline --help`` and ``roofline --version`` alone are answered
without typer (its import and the rich help are most of a start-up); every other command line is parsed by
typer. Each command declares its facts beside its function (``FACTS``, ``roofline.cli.facts``); this module lists
the commands and the one-line summary of each, which the help answered without typer shows, and starts reading the
one report a command line names before the command's module is imported, its facts then saying whether the read
goes on (both switched in ``roofline.cli.fast_start``). Every error, a usage error from the option parser
included, is one line ``roofline: error: WHAT: HINT`` on stderr with exit status 2 (3 when ncu or the application
fails).
"""

from __future__ import annotations

import os
import sys

INTERRUPTED = 130  # the exit status after Ctrl-C (128 + SIGINT), as typer gives it (KeyboardInterrupt -> Exit(130))


def _quiet_while_loading() -> None:
    """Run as the console script (``roofline``), the first thing it does: Ctrl-C while its modules load ends the
    process quietly with INTERRUPTED (``main`` puts Python's handler back). An import by another program leaves
    that program's handling alone."""
    if sys.argv[:1] and os.path.basename(sys.argv[0]) == "roofline":
        import signal

        signal.signal(signal.SIGINT, lambda signum, frame: os._exit(INTERRUPTED))


_quiet_while_loading()

import importlib  # noqa: E402  # after the handler: an interrupt during these imports is quiet too
import re  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import TYPE_CHECKING, Any, NoReturn  # noqa: E402

from roofline.cli import fast_start  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    import typer
    from typer import _click as click

    from roofline.cli.facts import Facts
    from roofline.errors import UsageError

    app: typer.Typer  # built on first access by __getattr__ below

HELP = "Kernel-level roofline analysis of NVIDIA Nsight Compute (ncu) reports."
VERSION_HELP = "Print the version and exit."
# command name -> (module under roofline.cli.commands, attribute, registered as a sub-application, the one-line summary
# that lists it: the first sentence of its help, tests/cli/test_app.py checks they agree). The summaries stay here, not
# beside each function, so that `roofline --help` lists the commands without importing them (and typer); the
# command's other facts are its module's FACTS (``facts``)
COMMANDS: dict[str, tuple[str, str, bool, str]] = {
    "report": ("report", "report", False,
               "Analyse existing Nsight Compute reports: roofline position of every kernel launch."),
    "plot": ("plot", "plot", False, "Draw the hierarchical roofline of existing reports: one panel per report, "
             "kernels at every memory level."),
    "compare": ("compare", "compare", False, "Compare kernels across reports: times, speedups, percent of each "
                "GPU's own roof, expected speedup."),
    "diff": ("diff", "diff", False,
             "Compare NEW with BASE kernel by kernel and fail (exit 1) on a regression beyond the thresholds."),
    "project": ("project", "project", False, "Project each launch onto other GPUs at the clock they hold under "
                "load: each unit at the target's rate, waves and tail; the workload's total."),
    "summary": ("summary", "summary", False,
                "Rank the kernels of whole applications by time to gain (what one change could save), with their "
                "recoverable time."),
    "timeline": ("timeline", "timeline", False,
                 "Rank the kernels of whole applications by total GPU time from Nsight Systems profiles."),
    "grade": ("grade", "grade", False, "Grade each kernel: its floor at the GPU's achievable peaks over its "
              "time, with the measurement's conditions."),
    "specs": ("specs", "app", True, "List, show and check the device spec YAML files (datasheet ceilings)."),
    "analyze": ("analyze", "analyze", False,
                "Profile an application with ncu, then analyse the report it wrote (as `roofline report` does)."),
    "wrap": ("wrap", "wrap", False, "Run one MPI rank: profile it with ncu if chosen (report "
             "NAME.rankR.HOST.ncu-rep), else run the app."),
    "calibrate": ("calibrate", "calibrate", False,
                  "Measure the GPU's achievable DRAM and L2 bandwidth, FP32/FP64 FMA and Tensor Core GEMM rates."),
    "mcp": ("mcp", "mcp", False, "Serve the analyses to coding agents over MCP (stdio): list kernels, analyse one, "
            "compare, project, specs, nsys."),
    "collect": ("collect", "collect", False,
                "Collect many reports' analyses into a Parquet store for SQL queries (roofline query)."),
    "query": ("query", "query", False, "Query a store with SQL (DuckDB): the views launches (one row per launch), "
              "advice (one per advice item), reports and errors (the files collect could not analyse)."),
}

def build_app(only: str | None = None) -> typer.Typer:
    """The typer application with every command, or with just ``only`` (the one being run)."""
    import typer

    app = typer.Typer(name="roofline", help=HELP, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False, cls=_group_class())
    app.callback(invoke_without_command=True)(_root)
    for name, (module, attr, is_group, summary) in COMMANDS.items():
        if only is not None and name != only:
            continue
        mod = importlib.import_module(f"roofline.cli.commands.{module}")
        if is_group:
            app.add_typer(getattr(mod, attr), name=name, short_help=summary)
        else:  # a module may set CONTEXT_SETTINGS and COMMAND_CLASS, e.g. to pass an application's arguments on
            cls = getattr(mod, "COMMAND_CLASS", None)
            output = facts(name).output
            if output is not None:
                from roofline.cli.writing import output_format_class

                cls = output_format_class(cls, output.kind, output.parameter, output.option)
            app.command(name, cls=cls, short_help=summary,
                        context_settings=getattr(mod, "CONTEXT_SETTINGS", None))(getattr(mod, attr))
    return app


def facts(command: str | None) -> Facts:
    """A command's facts (``FACTS`` beside its function, ``roofline.cli.facts``), its module imported; the defaults
    for a command group, or a name that is no command."""
    from roofline.cli.facts import Facts

    if command not in COMMANDS:
        return Facts()
    module = importlib.import_module(f"roofline.cli.commands.{COMMANDS[command][0]}")
    found = getattr(module, "FACTS", Facts())
    assert isinstance(found, Facts), f"{command}: FACTS is a roofline.cli.facts.Facts"
    return found


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
                from roofline.cli.failures import say

                code = say(usage_error(err, command), words)
            except Abort:
                print("roofline: error: aborted", file=sys.stderr)
                code = 1
            if standalone_mode:
                sys.exit(code)
            return code

    return OneVoiceGroup


def usage_error(err: click.ClickException, command: str | None = None) -> UsageError:
    """A parser error as one line: what is wrong, then where the options are listed (``command``: the command
    on the line, for errors that come without their context)."""
    from typer import _click as click

    from roofline.errors import UsageError

    ctx = getattr(err, "ctx", None)
    path = ctx.command_path if ctx is not None else " ".join(filter(None, ("roofline", command)))
    hint = f"run '{path} --help' for the options"
    if isinstance(err, click.exceptions.NoSuchOption):
        close = " or ".join(sorted(err.possibilities or ()))
        return UsageError(f"no such option {err.option_name}" + (f" (did you mean {close}?)" if close else ""), hint)
    if isinstance(err, click.exceptions.MissingParameter) and err.param is not None:
        what = err.param.param_type_name
        return UsageError(f"missing {what} {_param_name(err.param, ctx)}", hint)
    if isinstance(err, click.exceptions.BadOptionUsage) and "requires an argument" in err.message:
        return UsageError(f"option {err.option_name} needs a value", hint)
    if isinstance(err, click.exceptions.BadParameter) and err.param is not None:
        return UsageError(f"invalid value for {_param_name(err.param, ctx)}: {err.message.rstrip('.')}", hint)
    text = " ".join(err.format_message().split())
    unknown = re.fullmatch(r"No such command '(.*)'\.(?: Did you mean (.*)\?)?", text)
    if unknown:
        close = f" (did you mean {unknown[2].replace(', ', ' or ')}?)" if unknown[2] else ""
        return UsageError(f"no such command '{unknown[1]}'{close}", hint)
    text = text.rstrip(".")
    return UsageError(text[:1].lower() + text[1:], hint)


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

    _root.__defaults__ = (typer.Option(False, "--version", help=VERSION_HELP, is_eager=True, callback=show),)


def __getattr__(name: str) -> object:
    """``roofline.cli.app.app``: the full application, built once on first access."""
    if name == "app":
        _version_option()
        globals()["app"] = build_app()
        return globals()["app"]
    raise AttributeError(name)


def main() -> NoReturn:
    """Console-script entry point: ``run`` the command line, then end the process (``fast_start.leave``). Ctrl-C from
    here on raises KeyboardInterrupt again (``_quiet_while_loading`` ended the process quietly while modules
    loaded), and ends quietly with INTERRUPTED before typer runs the command."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        fast_start.pause_collector()  # the process ends with the command: on again where it reads no report (run)
        code = run(sys.argv[1:], one_shot=True)
    except KeyboardInterrupt:  # Ctrl-C before typer runs the command: quiet, with the status typer gives (128 + SIGINT)
        code = INTERRUPTED
    fast_start.leave(code)


def run(args: Sequence[str], one_shot: bool = False) -> int | str | None:
    """Run one command line and return its exit status (as ``sys.exit`` takes it): answer the help and the version
    at once, else start reading the one report file the command line names (``fast_start.start_reading``), kept where
    the command's facts say it reads reports (``settle_reading``), build the app for the command given and run it;
    user errors become one line on stderr and their exit status. ``one_shot``: the process ends after this command
    (the console script, which paused the garbage collector, ``collector-off``): a command that reads no report
    runs with it again."""
    args = list(args)
    if fast_start.answers_at_once(args):
        return _answer_at_once(args)
    command = next((arg for arg in args if not arg.startswith("-")), None)
    os.environ.pop("MPLBACKEND", None)  # plots draw on Agg canvases; a backend named there would only fail matplotlib
    try:
        os.getcwd()
    except FileNotFoundError:  # the working folder was removed: no relative path can be resolved
        print("roofline: error: the working folder no longer exists: change to an existing folder and run again",
              file=sys.stderr)
        return 2
    if command in COMMANDS and "--mpi" not in args:  # whether it reads reports is known once its module is loaded
        fast_start.start_reading(args[args.index(command) + 1:])
    reads = facts(command).reads
    fast_start.settle_reading(reads)
    if one_shot and reads is None:
        fast_start.resume_collector()
    from roofline.errors import RooflineError

    _terminal_streams()
    _version_option()
    app = build_app(command if command in COMMANDS else None)
    try:
        app(args, prog_name="roofline")  # the same name in messages for the console script and python -m
    except SystemExit as done:
        return done.code if isinstance(done.code, (int, str)) or done.code is None else 1
    except RooflineError as err:
        from roofline.cli.failures import say

        return say(err, args)
    finally:
        child = sys.modules.get("roofline.ncu.child")  # only a run that imported the child may have read ahead
        if child is not None:
            child.stop_reading_ahead()  # a read no command took (a usage error)
    return 0


def _terminal_streams() -> None:
    """Standard output and error as the terminal takes them: a character their encoding cannot write (an ASCII
    locale) as its ASCII fallback (``names.ASCII_FALLBACKS``), and with NO_COLOR or TERM=dumb the help without
    colour, bold or dim."""
    import codecs

    from roofline.render.names import TERMINAL_ERRORS, terminal_fallback
    from roofline.render.terminal import plain_terminal

    codecs.register_error(TERMINAL_ERRORS, terminal_fallback)
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
        if stream is not None and not encoding.startswith("utf") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=TERMINAL_ERRORS)
    if plain_terminal(os.environ):
        import typer.rich_utils

        typer.rich_utils.COLOR_SYSTEM = None


def _answer_at_once(args: Sequence[str]) -> int:
    """``roofline --version``, ``roofline --help`` and ``roofline`` alone (the help, exit 2, as typer would), without
    importing typer."""
    if args == ["--version"]:
        from roofline import __version__

        print(f"roofline {__version__}")
        return 0
    print(help_text(), end="")
    return 0 if args else 2


def help_text(width: int | None = None) -> str:
    """The top-level help: usage, options and the commands with their summaries, fitted to ``width`` columns (the
    terminal's by default, at least 60)."""
    import textwrap

    if width is None:
        width = max(60, min(_terminal_columns(), 100))
    pad = max(len(name) for name in (*COMMANDS, "--version")) + 4
    lines = ["Usage: roofline [OPTIONS] COMMAND [ARGS]...", "", HELP, "", "Options:",
             f"  {'--version':<{pad - 2}}{VERSION_HELP}", f"  {'--help':<{pad - 2}}Show this message and exit.", "",
             "Commands:"]
    for name, (*_, summary) in COMMANDS.items():
        lines += textwrap.wrap(summary, width, initial_indent=f"  {name:<{pad - 2}}", subsequent_indent=" " * pad)
    lines += ["", "Run 'roofline COMMAND --help' for the options of a command."]
    return "\n".join(lines) + "\n"


def _terminal_columns() -> int:
    """$COLUMNS, else the terminal's width, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return 80
