"""CLI start-up: `roofline --help` works and importing the CLI loads none of the heavy modules.

ncu_report (native reader), matplotlib, numpy and scipy are imported only by the commands that need them,
so `roofline --help` and argument errors stay fast. (Start-up time itself is measured by
benchmarks/bench_report.py, not asserted here, since test machines vary in load.)
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from roofline import __version__
from roofline.cli.app import app
from roofline.errors import RooflineError, UsageError
from roofline.render.names import TERMINAL_ERRORS, terminal_fallback
from tests import installed

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "examples" / "h100-sxm_synthetic.roofline.json")
runner = CliRunner()
HEAVY = ("ncu_report", "matplotlib", "numpy", "scipy")


def python(*args: str) -> subprocess.CompletedProcess:
    env = installed.child_env()
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)


def test_help_lists_the_report_command():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "report" in result.stdout and "ncu" in result.stdout
    report_help = CliRunner().invoke(app, ["report", "--help"])
    assert report_help.exit_code == 0
    for option in ("--kernel", "--format", "--output", "--ceilings", "--specs"):
        assert option in report_help.stdout


def test_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"roofline {__version__}"


def test_installed_version_is_the_package_version():
    """pyproject.toml takes the version from roofline.__version__ (dynamic), so pip and --version agree."""
    from importlib.metadata import version

    assert version("roofline") == __version__


def test_the_command_line_prints_the_installed_version():
    """`roofline --version` as a user runs it (answered before typer loads) prints the package metadata's version."""
    from importlib.metadata import version

    proc = python("-m", "roofline", "--version")
    assert proc.returncode == 0 and proc.stdout == f"roofline {version('roofline')}\n", proc.stderr


def test_the_version_is_written_once():
    """pyproject.toml names no version of its own: it takes roofline.core.version.__version__ (dynamic), which
    roofline.__version__ is."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and newer
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "roofline.core.version.__version__"}


def test_python_m_roofline_help():
    proc = python("-m", "roofline", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "report" in proc.stdout and proc.stderr == ""


def test_console_script_help():
    script = shutil.which("roofline", path=str(Path(sys.executable).parent)) or shutil.which("roofline")
    if script is None:
        pytest.skip("the roofline console script is not installed in this environment")
    proc = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "report" in proc.stdout


def test_importtime_shows_no_heavy_module():
    proc = python("-X", "importtime", "-c", "import roofline.cli.app")
    assert proc.returncode == 0, proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert "roofline.cli.app" in imported
    heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
    assert heavy == [], f"import roofline.cli.app loads {heavy}"


def test_help_run_loads_no_heavy_module():
    code = ("from roofline.cli.app import run\nimport sys\nrun(['--help'])\n"
            f"print('HEAVY', sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))")
    proc = python("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^HEAVY \[\]$", proc.stdout, re.M), proc.stdout[-500:]


def test_a_usage_error_of_a_report_command_loads_no_heavy_module():
    code = ("from roofline.cli.app import run\nimport sys\n"
            f"run(['report', '--formatt', 'json', {EXAMPLE!r}])\n"
            f"print('HEAVY', sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))")
    proc = python("-c", code)
    assert "no such option --formatt" in proc.stderr
    assert re.search(r"^HEAVY \[\]$", proc.stdout, re.M), proc.stdout[-500:]


def test_a_run_imports_only_the_command_it_invokes():
    out = subprocess.run([sys.executable, "-c", "import sys\n"
                          "import roofline.cli.app as c\n"
                          "c.run(['specs', 'list'])\n"
                          "print('LOADED', sorted(m for m in sys.modules if m.startswith('roofline.cli.commands.')))"],
                         capture_output=True, text=True, check=True).stdout
    loaded = out.split("LOADED", 1)[1]
    assert "roofline.cli.commands.specs" in loaded
    assert "roofline.cli.commands.analyze" not in loaded and "roofline.cli.commands.compare" not in loaded


@pytest.mark.parametrize("command, option, value, choices", [
    (["report", EXAMPLE], "--format", "yaml", "'table', 'json', 'markdown', 'html', 'csv'"),
    (["report", EXAMPLE], "--ceilings", "guess", "'kernel-clock', 'datasheet', 'measured-clock'"),
    (["plot", EXAMPLE], "--ceilings", "guess", "'kernel-clock', 'datasheet', 'measured-clock'"),
    (["compare", EXAMPLE, EXAMPLE], "--format", "xml", "'table', 'json'"),
    (["diff", EXAMPLE, EXAMPLE], "--format", "html", "'table', 'json', 'markdown'"),
    (["summary", EXAMPLE], "--format", "markdown", "'table', 'json'"),
    (["summary", EXAMPLE], "--by", "stream", "'kernel', 'function', 'nvtx'"),
    (["specs", "show", "h100-sxm5"], "--format", "toml", "'table', 'json', 'yaml'"),
    (["analyze", "--dry-run"], "--format", "xlsx", "'table', 'json', 'markdown', 'html', 'csv'"),
    (["analyze", "--dry-run"], "--set", "tiny", "'roofline', 'detailed', 'full'"),
    (["wrap", "--dry-run"], "--clock-control", "fast", "'base', 'none'"),
])
def test_choices_are_validated_before_any_work(command, option, value, choices):
    """Every choice is a Literal type that typer checks: exit 2 naming the value and the accepted ones."""
    profiling = command[0] in ("analyze", "wrap")  # options before APP; the app is never run
    args = [*command, option, value, "app.py"] if profiling else [*command, option, value]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.replace("│", " ").split())
    assert f"'{value}' is not one of {choices}" in text


# --- Usage errors in the tool's own voice (issue 15) -----------------------------------------------------------------
@pytest.mark.parametrize("args, line", [
    (["report", "--formatt", "json", EXAMPLE], "no such option --formatt (did you mean --format?): run 'roofline "
                                               "report --help' for the options"),
    (["report"], "missing argument FILES...: run 'roofline report --help' for the options"),
    (["report", EXAMPLE, "--format"], "option --format needs a value: run 'roofline report --help' for the options"),
    (["diff", EXAMPLE, EXAMPLE, "--fail-if-slower", "abc"],
     "invalid value for --fail-if-slower: 'abc' is not a number: run 'roofline diff --help' for the options"),
    (["report", EXAMPLE, "--spread-threshold", "wide"],
     "invalid value for --spread-threshold: 'wide' is not a number: run 'roofline report --help' for the options"),
    (["reprot", EXAMPLE], "no such command 'reprot' (did you mean 'report' or 'project' or 'plot'?): run 'roofline "
                          "--help' for the options"),
    (["specs", "show"], "missing argument ID: run 'roofline specs show --help' for the options"),
])
def test_usage_errors_are_one_line_and_exit_2(args, line):
    """Typer's five-line boxes became the tool's one line: what is wrong, then where the options are."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"roofline: error: {line}\n"


def test_the_one_report_named_is_read_ahead_before_the_command_line_is_parsed(tmp_path, monkeypatch):
    """The value of -o/--output is the file written, not a second report: an output left by an earlier run must not
    stop the read of the report from starting before the command line is parsed."""
    from roofline.cli import app as cli
    from roofline.ncu import child

    out = tmp_path / "out.json"
    assert cli.run(["report", EXAMPLE, "--format", "json", "-o", str(out)]) == 0
    calls: list[str] = []
    building = cli.build_app
    monkeypatch.setattr(child, "read_ahead", lambda path, sass: calls.append(f"read {Path(path).name} {sass}") or False)
    monkeypatch.setattr(child, "decide_ahead", lambda sass: calls.append(f"sass {sass}"))
    monkeypatch.setattr(cli, "build_app", lambda *a: calls.append("parse") or building(*a))
    for flag in ("-o", "--output"):
        calls.clear()
        assert cli.run(["report", EXAMPLE, "--format", "json", flag, str(out)]) == 0
        assert calls[:3] == [f"read {Path(EXAMPLE).name} None", "sass True", "parse"]
    calls.clear()
    assert cli.run(["summary", EXAMPLE, "--format", "json", "-o", str(out)]) == 0
    assert calls[:3] == [f"read {Path(EXAMPLE).name} None", "sass False", "parse"]
    calls.clear()
    assert cli.run(["timeline", EXAMPLE, "--format", "json", "-o", str(out)]) != 0  # not a report-reading command
    assert calls[:2] == [f"read {Path(EXAMPLE).name} None", "sass None"]


def test_usage_error_through_the_console_entry_point():
    proc = python("-m", "roofline", "report", "--formatt", "json", EXAMPLE)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("roofline: error: no such option --formatt (did you mean --format?): run 'roofline report "
                           "--help' for the options\n")


@pytest.mark.parametrize("error, args, rank, printed", [
    (UsageError("--top 0: must be at least 1", "e.g. --top 10"), ["summary", "a.ncu-rep", "--mpi"], "2", False),
    (UsageError("--top 0: must be at least 1", "e.g. --top 10"), ["summary", "a.ncu-rep", "--mpi"], "0", True),
    (UsageError("--top 0: must be at least 1", "e.g. --top 10"), ["summary", "a.ncu-rep"], "2", True),
    (RooflineError("--mpi needs mpi4py (no module)", "pip install 'roofline[mpi]'"), ["summary", "--mpi"], "2", True),
])
def test_under_mpi_rank_0_alone_prints_a_usage_error(error: RooflineError, args: list[str], rank: str, printed: bool,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Every rank of ``summary --mpi`` parses the same command line, so one line says what is wrong with it; an
    error that may depend on the node (mpi4py missing there) is printed by every rank that meets it."""
    from roofline.cli.failures import say

    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", rank)
    assert say(error, args) == (2 if printed else 0)  # a silent rank ends well: rank 0 fails the job
    assert capsys.readouterr().err == (f"roofline: error: {error}\n" if printed else "")


def test_ctrl_c_before_the_command_runs_ends_quietly_with_status_130(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C during start-up (typer's import, the read started ahead) gives no traceback and typer's own status."""
    from roofline.cli import app as cli

    def interrupted(args: object, one_shot: bool = False) -> None:
        raise KeyboardInterrupt

    def leave(code: object) -> None:
        raise SystemExit(code)  # as os._exit would end the process with it

    monkeypatch.setattr(cli, "run", interrupted)
    monkeypatch.setattr(cli.fast_start, "leave", leave)
    monkeypatch.setattr(cli.fast_start, "pause_collector", lambda: None)  # the test process keeps its collector
    with pytest.raises(SystemExit) as ended:
        cli.main()
    assert ended.value.code == 130 and capsys.readouterr().err == ""


def test_ctrl_c_while_the_console_script_loads_its_modules_ends_quietly_with_status_130() -> None:
    """Ctrl-C in the first tenths of a second, before ``main`` runs: the console script's entry module sets the
    quiet handler first thing (a run with another program name keeps Python's), and importing ``roofline`` alone
    sets none, even as the console script."""
    code = ("import os, signal, sys, time; sys.argv[0] = {name!r}; import {module}; "
            "os.kill(os.getpid(), signal.SIGINT); time.sleep(5)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def interrupted(name: str, module: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code.format(name=name, module=module)], capture_output=True,
                              text=True, timeout=60, env=env)

    quiet = interrupted("/usr/bin/roofline", "roofline.cli.app")
    assert (quiet.returncode, quiet.stderr) == (130, "")
    assert "KeyboardInterrupt" in interrupted("python", "roofline.cli.app").stderr  # another program's handling
    assert "KeyboardInterrupt" in interrupted("/usr/bin/roofline", "roofline").stderr  # the library: no side effect


# --- Numbers on the command line (issue 37) -----------------------------------------------------------------------
def _float_options() -> list[tuple[str, str, object]]:
    """(command path, option, its type) of every option whose value is a fraction, over every command."""
    import typer
    from typer._click.types import FloatParamType

    from roofline.cli.options import Number

    found: list[tuple[str, str, object]] = []
    group: Any = typer.main.get_command(app)
    commands = [(name, cmd) for name, cmd in group.commands.items()]
    commands += [(f"specs {n}", c) for n, c in group.commands["specs"].commands.items()]
    for name, command in commands:
        for param in command.params:
            if isinstance(param.type, (FloatParamType, Number)):
                found.append((name, max(param.opts, key=len), param.type))
    return found


def test_every_fractional_option_is_checked_by_the_one_number_type():
    from roofline.cli.options import Number

    options = _float_options()
    assert {o for _, o, _ in options} >= {"--fail-if-slower", "--min-share", "--fail-if-total-slower",
                                          "--fail-if-roof-drop", "--alpha", "--work-tolerance", "--timeout",
                                          "--spread-threshold"}
    assert [(c, o) for c, o, t in options if not isinstance(t, Number)] == []


@pytest.mark.parametrize("command, option", sorted({(c, o) for c, o, _ in _float_options()}))
@pytest.mark.parametrize("value", ["nan", "-nan", "NaN", "inf", "-inf", "1e999"])
def test_a_value_that_is_not_a_finite_number_is_a_usage_error(command, option, value, tmp_path):
    """nan passes ``x >= 0`` and would switch the regression gate off; inf overflows the reader's deadline."""
    files = {"diff": [EXAMPLE, EXAMPLE], "compare": [EXAMPLE, EXAMPLE]}.get(command, [EXAMPLE])
    args = [command, *files, option, value] if command != "analyze" else [command, option, value, "--dry-run", "a"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == (f"roofline: error: invalid value for {option}: {value!r} is not a finite number: "
                             f"run 'roofline {command} --help' for the options\n")


@pytest.mark.parametrize("args, message", [
    (["diff", EXAMPLE, EXAMPLE, "--fail-if-slower", "-1"], "invalid value for --fail-if-slower: -1 is not at least 0"),
    (["diff", EXAMPLE, EXAMPLE, "--min-share", "101"], "invalid value for --min-share: 101 is above 100"),
    (["report", EXAMPLE, "--timeout", "0"], "invalid value for --timeout: 0 is not above 0"),
    (["report", EXAMPLE, "--timeout", "1e10"], "invalid value for --timeout: 1e+10 is above 1e+06"),
    (["report", EXAMPLE, "--spread-threshold", "-5"], "invalid value for --spread-threshold: -5 is not at least 0"),
])
def test_a_number_outside_its_range_is_a_usage_error(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"roofline: error: {message}: run 'roofline {args[0]} --help'")


def test_the_regression_gate_cannot_be_switched_off_with_nan(tmp_path):
    """A kernel 48x slower fails the gate; nan thresholds are refused instead of letting it pass (exit 0)."""
    doc = json.loads(Path(EXAMPLE).read_text())
    slow = json.loads(Path(EXAMPLE).read_text())
    for launch in slow["launches"]:
        launch["metrics"]["gpu__time_duration.sum"] *= 48
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(doc))
    new.write_text(json.dumps(slow))
    gate = ["diff", str(base), str(new), "--gate-different-work", "-f", "json"]
    assert runner.invoke(app, gate).exit_code == 1
    for flag in ("--fail-if-slower", "--fail-if-total-slower"):
        assert runner.invoke(app, [*gate, flag, "nan"]).exit_code == 2


# --- Edges of the file system and the environment (issue 37) -----------------------------------------------------
def roofline_proc(*args: str, env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.CompletedProcess:
    """``python -m roofline`` in a subprocess: stdout and stderr captured unless ``stdout`` is given."""
    environ = installed.child_env(**(env or {}))
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "roofline", *args], stderr=subprocess.PIPE, text=True,
                          env=environ, timeout=120, **kwargs)


def test_standard_output_on_a_full_device_or_closed_is_one_line():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        proc = roofline_proc("report", EXAMPLE, "-f", "json", stdout=full)
    assert proc.returncode == 2 and proc.stderr == ("roofline: error: standard output: cannot write (No space left "
                                                    "on device): write to a file with -o\n")
    proc = roofline_proc("report", EXAMPLE, "-f", "json", stdout=None, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2 and proc.stderr == ("roofline: error: standard output is closed: write to a file "
                                                    "with -o\n")


def test_a_working_folder_that_was_removed_is_one_line(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = Path(sys.executable).parent / "roofline"  # python -m itself needs the working folder (sys.path[0])
    if not script.exists():
        pytest.skip("the console script is not installed beside this interpreter")
    proc = subprocess.run([str(script), "report", os.path.relpath(EXAMPLE, gone)], capture_output=True, text=True,
                          cwd=gone, preexec_fn=lambda: os.rmdir(gone), timeout=120)
    assert proc.returncode == 2 and proc.stderr == ("roofline: error: the working folder no longer exists: change to "
                                                    "an existing folder and run again\n")


def test_a_bad_matplotlib_backend_in_the_environment_does_not_stop_a_plot(tmp_path):
    proc = roofline_proc("report", EXAMPLE, "-f", "json", "--plot", str(tmp_path / "p.png"),
                         env={"MPLBACKEND": "bogus"})
    assert proc.returncode == 0 and proc.stderr == f"wrote {tmp_path / 'p.png'}\n"


def test_a_report_at_a_path_that_is_not_utf8_is_read(tmp_path, shared_report):
    """ncu_report takes UTF-8 paths only: the file was diagnosed as corrupt, needing a newer ncu-report."""
    path = os.path.join(os.fsencode(tmp_path), b"bad\xff.ncu-rep")
    with open(path, "wb") as fh:
        fh.write(shared_report("rtx2080ti_kernels_basic").read_bytes())
    proc = roofline_proc("report", os.fsdecode(path), "-f", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["reports"][0]["path"].endswith("bad\ufffd.ncu-rep") and len(doc["reports"][0]["kernels"]) == 2


def test_without_diagnostics_the_reader_leaves_out_the_sass_only():
    from roofline.ncu.extract import SASS_NOT_READ
    from roofline.ncu.reader import load_report
    from tests.ncu.test_pc_sampling import SGEMM_LINEINFO

    full, bare = load_report(SGEMM_LINEINFO), load_report(SGEMM_LINEINFO, sass=False)
    with_text, without = full.launches[0].pc_sampling, bare.launches[0].pc_sampling
    assert with_text is not None and without is not None
    assert all(pc.sass for pc in with_text.pcs) and not any(pc.sass for pc in without.pcs)
    assert without.sass_missing == SASS_NOT_READ
    assert [(pc.pc_offset, pc.samples, pc.file, pc.line) for pc in without.pcs] == [
        (pc.pc_offset, pc.samples, pc.file, pc.line) for pc in with_text.pcs]


# --- Terminal conventions (issue 46) ------------------------------------------------------------------------------
def _help_run(**env: str) -> subprocess.CompletedProcess[str]:
    """``report --help`` in a child with a terminal forced (FORCE_COLOR) and ``env`` added."""
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "FORCE_COLOR": "1", **env}
    full.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    return subprocess.run([sys.executable, "-m", "roofline", "report", "--help"], capture_output=True, text=True,
                          timeout=120, env=full)


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_color_and_a_dumb_terminal_get_help_without_colour_bold_or_dim(env: dict[str, str]) -> None:
    assert "\x1b[" in _help_run(TERM="xterm-256color").stdout  # styled where the terminal takes it
    plain = _help_run(**env)
    assert plain.returncode == 0 and "\x1b[" not in plain.stdout and "Usage: roofline report" in plain.stdout


def test_an_ascii_terminal_gets_ascii_fallbacks_for_every_symbol() -> None:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONIOENCODING": "ascii"}
    help_text = subprocess.run([sys.executable, "-m", "roofline", "report", "--help"], capture_output=True,
                               text=True, timeout=120, env={**full, "FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert help_text.returncode == 0 and "?" not in help_text.stdout.replace("[?]", "")
    assert "+- Arguments -" in help_text.stdout  # rich's box lines, in ASCII
    codecs.register_error(TERMINAL_ERRORS, terminal_fallback)
    assert "x/÷ … → µs ≤".encode("ascii", TERMINAL_ERRORS) == b"x// ... -> us <="
    assert "名前".encode("ascii", TERMINAL_ERRORS) == b"??"


def test_main_runs_the_command_line_then_leaves_with_its_status(monkeypatch):
    """``main`` runs the command line and ends the process with its status (``fast_start.leave``)."""
    from roofline.cli import app as cli
    from roofline.cli import fast_start

    calls: list[list[str]] = []
    monkeypatch.setattr(sys, "argv", ["roofline", "specs", "list"])
    monkeypatch.setattr(cli, "run", lambda args, one_shot: calls.append([*args, f"one_shot={one_shot}"]) or 0)
    monkeypatch.setattr(fast_start, "leave", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    paused: list[None] = []
    monkeypatch.setattr(fast_start, "pause_collector", lambda: paused.append(None))
    with pytest.raises(SystemExit) as ended:
        cli.main()
    assert ended.value.code == 0 and calls == [["specs", "list", "one_shot=True"]]  # the process ends after it
    assert paused == [None]


# --- Help text through the markup of the help ------------------------------------------------------------------------
def _help_texts() -> list[tuple[str, str]]:
    """(command path, text) of every command's docstring and every option's help, over every command."""
    import typer

    group: Any = typer.main.get_command(app)
    commands = [(name, cmd) for name, cmd in group.commands.items() if name != "specs"]
    commands += [(f"specs {n}", c) for n, c in group.commands["specs"].commands.items()]
    return [(name, text) for name, command in commands
            for text in (command.help or "", *(getattr(p, "help", None) or "" for p in command.params))]


def test_no_help_text_holds_a_bracket_the_markup_would_drop():
    """The help is drawn by rich, which takes "[word]" for a style and drops it ("pip install 'roofline[mpi]'"
    read "pip install 'roofline'"): a literal bracket is written "\\\\[" in the source."""
    dropped = [(name, m.group()) for name, text in _help_texts()
               for m in re.finditer(r"(?<!\\)\[[a-z][a-z0-9_ .=-]*\]", text)]
    assert dropped == []


def test_summary_help_names_the_mpi_extra():
    result = CliRunner().invoke(app, ["summary", "--help"])
    flat = "".join(line.strip("│ ") for line in result.output.splitlines())  # the help's box, its lines joined
    assert "pipinstall'roofline[mpi]'" in flat.replace(" ", "")


def test_no_command_help_has_a_paragraph_whose_line_breaks_would_show():
    """Typer keeps the line breaks of a help text's paragraphs after the first: `report --help` broke "the bad ones
    are" from "named at the end" mid-sentence. Every command's help is one paragraph."""
    import inspect

    import typer.main

    from roofline.cli.app import build_app

    def commands(c, name: str = "roofline"):
        if hasattr(c, "list_commands"):  # a group (typer's own click)
            ctx = c.context_class(c)
            for sub_name in c.list_commands(ctx):
                yield from commands(c.get_command(ctx, sub_name), f"{name} {sub_name}")
        else:
            yield name, c

    found = list(commands(typer.main.get_command(build_app())))
    assert len(found) > 15
    for name, c in found:
        assert "\n\n" not in inspect.cleandoc(c.help or ""), name
