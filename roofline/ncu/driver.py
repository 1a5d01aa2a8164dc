"""Drive Nsight Compute (ncu) on an application: find it, check its version, build its command line, run it
with live output, and turn the outcome into the written report's path or a one-line error.

ncu's exit code alone is not trusted: ncu 2022.3 exits 0 when no kernel was profiled, and exits 1 with "the
application returned an error code (1)" when it cannot reach the CUDA driver. The driver passes
``--log-file`` so ncu's own messages land in a file kept next to the report, reads that file and the
application's output as they grow, and decides from the messages, the exit code and the report file. Once ncu
exits, the log gets roofline's mark as its first line: the next run of the same report replaces a log so marked
(a failed run's: the retry says again why it failed), and refuses any other file there without --force.

Minimum ncu versions (from the release notes shipped with ncu 2022.3):
2020.2 added ``--log-file``; 2020.3 added ``--import-source`` (left out for an older ncu: ``for_version``); 2021.1
added ``--kernel-name``/``--kernel-name-base`` and the ``regex:`` prefix that ``-k`` uses here (its value comes from
``roofline.core.kernel_filter``); 2021.3 added the hierarchical roofline sections and the ``roofline`` set; 2022.1
added range replay.
"""

from __future__ import annotations

import codecs
import dataclasses
import glob
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import stat
import string
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from roofline.core.files import NOT_A_FOLDER, unwritable_folder
from roofline.core.kernel_families import classify
from roofline.core.kernel_filter import DEFAULT_BASE, KernelFilter
from roofline.core.signals import forward_signals
from roofline.core.units import counted
from roofline.core.version import GENERATED_BY, GENERATOR
from roofline.errors import CountersDenied, Interrupted, NcuError, NoKernelMatched, RooflineError, UsageError

SectionSet = Literal["roofline", "detailed", "full"]
SetChoice = Literal["roofline", "detailed", "full", "none"]  # none: only the --section/--metrics named
ReplayMode = Literal["kernel", "application", "range"]
ClockControl = Literal["base", "none"]
REPORT_SUFFIX = ".ncu-rep"
LOG_SUFFIX = ".ncu.log"
LOG_MARK = f"# {GENERATOR}\n"  # the first line of a log roofline kept (``mark_log``), as on its text files
_LOG_MARK_RE = re.compile(rb"# " + re.escape(GENERATED_BY.encode()) + rb" \S+\r?\n")  # any version's mark
MARK_BYTES = 256  # read of a log to find the mark
INSTALL_PLACES = (  # searched after --ncu, ROOFLINE_NCU and PATH; globs list the newest version first
    "$CUDA_HOME/bin/ncu",
    "/usr/local/cuda/bin/ncu",
    "/opt/nvidia/nsight-compute/*/ncu",
    "/usr/local/cuda-*/bin/ncu",
)
VERSION_TIMEOUT_S = 60
POLL_S = 0.1
PIPE_GRACE_S = 2.0  # how long to wait for the output pipe after ncu exits (a daemonized child may hold it)
TAIL_LINES = 10
_VERSION_RE = re.compile(r"Version (\d+)\.(\d+)\.(\d+)(?:\.(\d+))?")
_MACRO_RE = re.compile(r"%(?:q\{([^}]*)\}|[%hpi])")
_PROFILING_RE = re.compile(r'==PROF== Profiling "(.*)" - \d+:(?:.*- (\d+) pass)?')
_REPORT_RE = re.compile(r"==PROF== Report: (.+)$")
_OPTION_ERRORS = (  # how ncu's own command-line errors start (ncu 2022.3 prints them on stderr, before any log)
    r"the argument (?:\('[^']*'\) )?for option", r"the required argument for option", r"the (?:un)?abbreviated option",
    r"the option '[^']+' is required", r"unrecognised option", r"option is ambiguous", r"too many positional options",
    r"option '[^']+' (?:is ambiguous|cannot be specified more than once|only takes a single argument|is not valid|"
    r"requires at least one argument)", r"The value for option --", r"The minimum value for option --",
    r"Number of \w+ for option --", r"Invalid option --", r"Option --\S+ cannot be used",
    r"The option --\S+ is not compatible", r"Please specify non-zero launch count",
    r"'.*' cannot be used as the output log file")
_OPTION_ERROR = "^(?:" + "|".join(_OPTION_ERRORS) + ")"
_NCU_LINE_RE = re.compile(r"^==[A-Z]+==|" + _OPTION_ERROR)


class AppFailed(NcuError):
    """The profiled application exited non-zero; ``app_exit_code`` is its own exit code."""

    def __init__(self, app_exit_code: int, message: str, hint: str) -> None:
        self.app_exit_code = app_exit_code
        super().__init__(message, hint)


class ProfilingInterrupted(Interrupted, NcuError):
    """ncu was stopped by a signal (Ctrl-C); exits with 128 + the signal number, as shells do."""


# --- Finding ncu ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NcuInstall:
    """An ncu executable, its version, and how it was found (for the user to see which one runs)."""

    path: str
    version: tuple[int, ...]
    found_by: str

    def describe(self) -> str:
        """One phrase for messages: ``ncu 2022.3.0.0 at /usr/bin/ncu (found on PATH)``."""
        return f"ncu {'.'.join(map(str, self.version))} at {self.path} (found {self.found_by})"


NCU_VARIABLE = "ROOFLINE_NCU"  # the environment variable naming the ncu to run


def find_ncu(explicit: str | None = None, env: Mapping[str, str] | None = None,
             places: Sequence[str] | None = None) -> NcuInstall:
    """Locate ncu: ``--ncu PATH``, then $ROOFLINE_NCU, then PATH, then the usual install places."""
    env = os.environ if env is None else env
    places = INSTALL_PLACES if places is None else places
    for path, how, must_work in _candidates(explicit, env, places):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return NcuInstall(path, ncu_version(path), how)
        if must_work:
            raise NcuError(f"{how} {path}: not an executable file", "give the path of the ncu program")
    where = "on PATH" + (" or in " + ", ".join(places) if places else "")
    raise NcuError(f"ncu (Nsight Compute CLI) not found {where}",
                   "install Nsight Compute, then pass --ncu PATH or set ROOFLINE_NCU")


def _candidates(explicit: str | None, env: Mapping[str, str],
                places: Sequence[str]) -> Iterator[tuple[str, str, bool]]:
    """Yield ``(path, how it was found, whether it must work)`` in search order."""
    if explicit:
        yield explicit, "by --ncu", True
        return
    if env.get(NCU_VARIABLE):
        yield env[NCU_VARIABLE], f"by {NCU_VARIABLE}", True
        return
    on_path = shutil.which("ncu", path=env.get("PATH", os.defpath))
    if on_path:
        yield on_path, "on PATH", False
    for pattern in places:
        filled = string.Template(pattern).safe_substitute(env)
        if "$" not in filled:
            for path in sorted(glob.glob(filled), key=_natural_key, reverse=True):
                yield path, f"in {pattern}", False


def _natural_key(text: str) -> list[tuple[int, int | str]]:
    """Sort key that orders ``cuda-12.10`` after ``cuda-12.9``."""
    return [(0, int(tok)) if tok.isdigit() else (1, tok) for tok in re.split(r"(\d+)", text)]


def parse_version(text: str) -> tuple[int, ...] | None:
    """The version in ``ncu --version`` output ("Version 2022.3.0.0 (build ...)"), or None."""
    match = _VERSION_RE.search(text)
    return tuple(int(g) for g in match.groups() if g is not None) if match else None


def ncu_version(path: str) -> tuple[int, ...]:
    """Run ``PATH --version`` and parse it; NcuError when it does not run or prints no version."""
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NcuError(f"{path} --version failed ({err})", "check that this is a working ncu") from None
    version = parse_version(proc.stdout + proc.stderr)
    if version is None:
        raise NcuError(f"{path} --version printed no 'Version YYYY.R.P' line", "check that this is NVIDIA's ncu")
    return version


# --- Options, version checks, command line ------------------------------------------------------------


@dataclass(frozen=True)
class NcuOptions:
    """The profiling choices of ``roofline analyze`` and ``roofline wrap``, in ncu's own terms."""

    section_set: SectionSet | None = "roofline"  # None: only --section/--metrics (roofline calibrate's timing run)
    sections: tuple[str, ...] = ()
    metrics: str | None = None
    kernel: KernelFilter = KernelFilter()  # ncu's -k and --kernel-name-base (roofline.core.kernel_filter)
    launch_skip: int | None = None
    launch_count: int | None = None
    nvtx_include: tuple[str, ...] = ()
    replay_mode: ReplayMode | None = None
    clock_control: ClockControl | None = None
    extra: tuple[str, ...] = ()
    force: bool = False
    import_source: bool = True  # False: an ncu without --import-source (``for_version``)


def requirements(options: NcuOptions) -> Iterator[tuple[tuple[int, int], str]]:
    """Yield ``((year, release), what)`` for each ncu feature these options use (dates in the module doc)."""
    yield (2020, 2), "--log-file"
    if options.kernel.terms or options.kernel.base != DEFAULT_BASE:
        yield (2021, 1), "-k with --kernel-name-base and regex:"
    if options.section_set == "roofline":
        yield (2021, 3), "--set roofline"
    for section in options.sections:
        if section.startswith("SpeedOfLight_Hierarchical"):
            yield (2021, 3), f"--section {section}"
    if options.replay_mode == "range":
        yield (2022, 1), "--replay-mode range"


# The hierarchical roofline charts: the FP16 and Tensor FLOPs and the L1/L2 roofs of the kernel's own clock. ncu's
# `full` set holds them from 2025.1 (its 2022.3 to 2024.x `full`, and every `detailed`, do not: docs ncu sets);
# the sections exist from 2021.3 on.
HIERARCHICAL_CHARTS = tuple(f"SpeedOfLight_Hierarchical{kind}RooflineChart"
                            for kind in ("Single", "Double", "Half", "Tensor"))
HIERARCHICAL_SINCE, FULL_HOLDS_THEM_SINCE = (2021, 3), (2025, 1)


def with_roofline_charts(options: NcuOptions, version: tuple[int, ...]) -> NcuOptions:
    """``--set full`` or ``detailed`` with the hierarchical roofline charts the set lacks in this ncu, so that the
    richer set measures what ``--set roofline`` does; unchanged for another set, or an ncu without the charts."""
    lacks = options.section_set == "detailed" or (options.section_set == "full"
                                                  and version[:2] < FULL_HOLDS_THEM_SINCE)
    if not lacks or version[:2] < HIERARCHICAL_SINCE:
        return options
    added = tuple(s for s in HIERARCHICAL_CHARTS if s not in options.sections)
    return dataclasses.replace(options, sections=(*options.sections, *added))


IMPORT_SOURCE_SINCE = (2020, 3)  # "Added a new Import Source (--import-source) option" (ncu 2020.3 release notes)


def for_version(options: NcuOptions, version: tuple[int, ...]) -> NcuOptions:
    """The options as this ncu takes them: the richer sets with their roofline charts (``with_roofline_charts``),
    and no ``--import-source`` from an ncu older than the option (the source is only a convenience)."""
    options = with_roofline_charts(options, version)
    if version[:2] < IMPORT_SOURCE_SINCE:
        options = dataclasses.replace(options, import_source=False)
    return options


def check_version(install: NcuInstall, options: NcuOptions) -> None:
    """Refuse an ncu older than any feature the options need, naming the feature and the version."""
    for needed, what in requirements(options):
        if install.version[:2] < needed:
            raise NcuError(f"{install.describe()} is too old for {what} (needs {needed[0]}.{needed[1]} or newer)",
                           "install a newer Nsight Compute and pass --ncu PATH or set ROOFLINE_NCU")


def build_argv(ncu: str, options: NcuOptions, report: str, log_file: str, app: Sequence[str]) -> list[str]:
    """The exact ncu command: options, passthrough args, ``-f`` only when forced, log, report, then the app."""
    argv = [ncu, "--target-processes", "all", *(("--set", options.section_set) if options.section_set else ())]
    for section in options.sections:
        argv += ["--section", section]
    chosen = options.kernel.ncu_name_base()
    base = chosen if chosen != DEFAULT_BASE else None
    argv += _pairs(("--metrics", options.metrics), ("-k", options.kernel.ncu_kernel_name()),
                   ("--kernel-name-base", base), ("-s", options.launch_skip), ("-c", options.launch_count))
    if options.nvtx_include:
        argv.append("--nvtx")
        for expr in options.nvtx_include:
            argv += ["--nvtx-include", expr]
    argv += _pairs(("--replay-mode", options.replay_mode), ("--clock-control", options.clock_control))
    if imports_source(options):
        argv += ["--import-source", "yes"]
    argv += options.extra
    if options.force:
        argv.append("-f")
    return argv + ["--log-file", log_file, "-o", report, *app]


SOURCE_SETS = ("full", "detailed")  # the sets asked for with the source files (hot spots show their lines)
SOURCE_SECTION = "SourceCounters"


def imports_source(options: NcuOptions) -> bool:
    """Whether ncu is asked to store the CUDA source files in the report (``--import-source yes``): with the sets
    or the section that sample warps per instruction, unless the passed-through options say otherwise, never from an
    ncu that predates the option (``for_version``), and never under range replay, which ncu refuses it with
    ("Option import-source is not supported during range replay", ncu 2022.3)."""
    sampled = options.section_set in SOURCE_SETS or SOURCE_SECTION in options.sections
    return (sampled and options.import_source and options.replay_mode != "range"
            and not any(arg.startswith("--import-source") for arg in options.extra))


def _pairs(*pairs: tuple[str, object]) -> list[str]:
    """Flatten ``(option, value)`` pairs into argv, leaving out unset values."""
    return [tok for opt, value in pairs if value is not None for tok in (opt, str(value))]


def shell_command(argv: Sequence[str]) -> str:
    """The command shell-quoted for copy and paste (only for display; nothing here runs a shell)."""
    return shlex.join(argv)


# --- The application and the report name ------------------------------------------------------------


def resolve_app(command: Sequence[str]) -> list[str]:
    """The argv that runs APP: a ``.py`` script through this Python, else the executable found on PATH."""
    first = command[0]
    if first.endswith(".py"):
        if not os.path.isfile(first):
            raise RooflineError(f"{first}: no such Python script", "check the path")
        return [sys.executable, *command]
    found = shutil.which(first)
    if found is None:
        raise RooflineError(f"{first}: not found or not executable",
                            "give the application's path (e.g. ./app) or put it on PATH")
    return [os.path.abspath(found), *command[1:]]


Launcher = Literal["python", "env", "shell", "time"]
_LAUNCHERS: tuple[tuple[re.Pattern[str], Launcher], ...] = (  # run the program named after them
    (re.compile(r"(?:python|pypy)[\d.]*"), "python"), (re.compile(r"env"), "env"),
    (re.compile(r"(?:ba|da|k|z)?sh"), "shell"), (re.compile(r"time"), "time"))
_VALUE_OPTIONS: dict[Launcher, frozenset[str]] = {  # the launcher's options that take the next word as their value
    "python": frozenset({"-W", "-X", "-Q", "--check-hash-based-pycs"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S"}),
    "shell": frozenset({"-o", "+o", "-O", "+O"}), "time": frozenset({"-f", "--format", "-o", "--output"})}
_ASSIGNMENT_RE = re.compile(r"[A-Za-z_]\w*=.*", re.S)  # env's NAME=VALUE
_UNSAFE_NAME_RE = re.compile(r"[\s=]+")  # never in a default report name


def app_name(command: Sequence[str]) -> str:
    """Default report name: the script's or program's file name without its extension; after an interpreter or
    launcher (``python app.py``, ``env A=1 python3 app.py``), the program it runs, so two scripts get two names;
    ``python -m pkg.mod``'s module (``mod``); for code given on the command line (``sh -c CODE``, ``python -c``),
    the interpreter's name. Spaces and ``=`` never reach the name."""
    words = list(command)
    while len(words) > 1 and (kind := _launcher(words[0])) is not None:
        options, rest = _launcher_options(words[1:], kind)
        if kind == "python" and (module := _module(options)) is not None:
            return _safe_name(module.removesuffix(".py").rpartition(".")[2]) or "report"
        if _runs_code(options, kind) or not rest or (kind == "python" and rest[0] == "-"):
            break  # code on the command line or on standard input (``python - ARGS``)
        words = rest
    return _safe_name(program_stem(words[0])) or "report"


# The extensions of a script or an executable that a report name leaves out (``app.py``, ``a.out``); any other dot
# is part of the name: ``./solver.v2`` and ``./solver.v3`` get reports of their own
PROGRAM_SUFFIXES = frozenset({".py", ".sh", ".bash", ".zsh", ".exe", ".out", ".bin", ".x", ".jl", ".pl", ".rb",
                              ".lua", ".js"})


def program_stem(word: str) -> str:
    """A program's file name without a script's or an executable's extension (``PROGRAM_SUFFIXES``)."""
    path = Path(word)
    return path.stem if path.suffix.lower() in PROGRAM_SUFFIXES else path.name


def _launcher(word: str) -> Launcher | None:
    """The kind of interpreter or launcher ``word`` runs (by its file name), or None for another program."""
    name = Path(word).name
    return next((kind for pattern, kind in _LAUNCHERS if pattern.fullmatch(name)), None)


def _launcher_options(words: Sequence[str], kind: Launcher) -> tuple[list[str], list[str]]:
    """A launcher's own options (with their values) and the words after them: the program and its arguments
    (env's NAME=VALUE words are skipped; python's ``-m MOD``, ``-c CODE`` end its options)."""
    options: list[str] = []
    i = 0
    while i < len(words) and _is_option(words[i], kind):
        word = words[i]
        if word == "--":
            return options, list(words[i + 1:])
        valued, inline = _python_cluster(word) if kind == "python" else (None, "")
        width = 2 if word in _VALUE_OPTIONS[kind] or (valued is not None and not inline) else 1
        options += words[i:i + width] if not _ASSIGNMENT_RE.fullmatch(word) else []
        i += width
        if valued in ("m", "c"):
            break
    return options, list(words[i:])


_PYTHON_VALUED = "cmWX"  # python's short options that take a value: the rest of the word, else the next word


def _python_cluster(word: str) -> tuple[str | None, str]:
    """Python's short options in one word (``-um``, ``-Bc``, ``-mpkg.mod``): the first that takes a value (None if
    none does) and the value given in the word after it ("" where it is the next word)."""
    if not word.startswith("-") or word.startswith("--"):
        return None, ""
    at = next((j for j, ch in enumerate(word[1:], 1) if ch in _PYTHON_VALUED), None)
    return (None, "") if at is None else (word[at], word[at + 1:])


def _is_option(word: str, kind: Launcher) -> bool:
    """Whether ``word`` is one of the launcher's options (a shell's may start with +; env's NAME=VALUE counts as
    one), not the program it runs."""
    if kind == "env" and (word == "-" or _ASSIGNMENT_RE.fullmatch(word)):
        return True
    return len(word) > 1 and word[0] in ("-+" if kind == "shell" else "-")


def _module(options: Sequence[str]) -> str | None:
    """The module of python's ``-m MOD`` (or ``-mMOD``, ``-um MOD``) among its options, or None."""
    for i, word in enumerate(options):
        valued, inline = _python_cluster(word)
        if valued == "m":
            return inline or (options[i + 1] if i + 1 < len(options) else None)
    return None


def _runs_code(options: Sequence[str], kind: Launcher) -> bool:
    """Whether the launcher runs code given on its command line (``sh -c``, ``bash -ec``, ``python -c``), not a
    program named after it."""
    if kind == "python":
        return any(_python_cluster(word)[0] == "c" for word in options)
    return kind == "shell" and any(w[:1] == "-" and w[1:2] != "-" and "c" in w[1:] for w in options)


def _safe_name(name: str) -> str:
    """``name`` with each run of spaces or ``=`` made one ``_``."""
    return _UNSAFE_NAME_RE.sub("_", name)


def report_template(output: str | None, default_name: str, tag: str = "",
                    env: Mapping[str, str] | None = None) -> str:
    """ncu's ``-o`` value: OUTPUT is a folder (existing, or ending in /) or a report name. ncu takes its macros in
    the file name only (2022.3: "Macro '%h' can only be used in the file name"), so the folder's %h, %q{VAR} and %%
    are filled in here (``_fill_folder``) and the file name's are left to ncu; UsageError for a % that is none of
    ncu's macros, which ncu would refuse."""
    env = os.environ if env is None else env
    _refuse_unknown_macros(output or "")
    name = _literal(default_name)
    if output is None:
        base = name
    elif output.endswith(("/", os.sep)) or os.path.isdir(expand_macros(output, env, None) or ""):
        base = os.path.join(output, name)
    else:
        base = output
    folder, file_name = os.path.split(base.removesuffix(REPORT_SUFFIX) + _literal(tag) + REPORT_SUFFIX)
    _refuse_unset(file_name, env, output)
    return os.path.join(_fill_folder(folder, env, output), file_name)


NCU_MACROS = "%h %p %q{VAR} %i %%"  # the macros ncu fills in a report's name (ncu --help, --export)
RUN_MACROS = ("%p", "%i")  # known only once ncu runs: the profiled process's id, the first unused number
_ANY_MACRO_RE = re.compile(r"%(?:q\{[^}]*\}|.|$)", re.S)  # a % and what follows it, a macro or not


def _refuse_unknown_macros(output: str) -> None:
    """UsageError, before ncu runs, for a % in ``output`` that starts none of ncu's macros (ncu: "Unknown macro")."""
    unknown = [m[0] for m in _ANY_MACRO_RE.finditer(output) if not _MACRO_RE.fullmatch(m[0])]
    if unknown:
        raise UsageError(f"--output {output}: '{unknown[0]}' is not one of ncu's macros ({NCU_MACROS})",
                         "write %% for a literal %")


def _fill_folder(folder: str, env: Mapping[str, str], output: str | None) -> str:
    """The report's folder with %h, %q{VAR} and %% filled in, as ncu fills them in a name, each % left in it
    escaped for ncu; UsageError for %p or %i, which only ncu knows, once it runs."""
    if any(m[0] in RUN_MACROS for m in _MACRO_RE.finditer(folder)):
        raise UsageError(f"--output {output}: ncu's {' and '.join(RUN_MACROS)} are known only once ncu runs, so they "
                         "cannot name the report's folder", "put them in the report's file name (e.g. -o out/app_%p)")
    _refuse_unset(folder, env, output)
    return _literal(str(expand_macros(folder, env, None)))


def _refuse_unset(part: str, env: Mapping[str, str], output: str | None) -> None:
    """UsageError, before ncu runs, for a %q{VAR} of ``part`` (the report's folder or file name) whose variable is
    not set: ncu refuses it ("Failed to read environment variable"); filled as "", ranks would share a name."""
    unset = [m[1] for m in _MACRO_RE.finditer(part) if m[1] is not None and m[1] not in env]
    if unset:
        raise UsageError(f"--output {output}: %q{{{unset[0]}}}: the environment variable {unset[0]} is not set",
                         "name a variable this run sets (under MPI: the launcher's rank variable, e.g. "
                         "OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID)")


def _literal(text: str) -> str:
    """``text`` as ncu reads it in a report's name, unchanged: each % doubled."""
    return text.replace("%", "%%")


def expand_macros(template: str, env: Mapping[str, str], unique: str | None) -> str | None:
    """Fill in ncu's %h, %q{VAR} and %% like ncu does; %p/%i become ``unique``, or give None when it is None."""
    if unique is None and any(m[0] in ("%p", "%i") for m in _MACRO_RE.finditer(template)):
        return None

    def fill(match: re.Match[str]) -> str:
        token = match[0]
        if token == "%%":
            return "%"
        if token == "%h":
            return socket.gethostname()
        if token in ("%p", "%i"):
            return str(unique)
        return env.get(match[1], "")

    return _MACRO_RE.sub(fill, template)


def refuse_overwrite(template: str, force: bool, env: Mapping[str, str] | None = None) -> None:
    """Stop before running anything when the report exists, or a file where ncu's log goes (``log_path``) that is
    not an earlier run's log (``log_is_ours``: a failed run's is replaced, so a retry says why it failed), and
    --force was not given (%p/%i names are new)."""
    path = expand_macros(template, os.environ if env is None else env, None)
    if force or path is None:
        return
    if os.path.exists(path):
        raise RooflineError(f"{path}: report already exists",
                            "pass --force to overwrite it, or choose another --output")
    log = _log_beside(path)
    if os.path.lexists(log) and not log_is_ours(log):
        raise RooflineError(f"{log}: exists, and ncu writes its log there (a file roofline did not mark as an "
                            "earlier run's log)", "pass --force to replace it, or choose another --output")


OTHER_FOLDER = "choose another folder with --output"
FOLDER_FIX = f"make it writable, or {OTHER_FOLDER}"


def report_folder(template: str) -> Path:
    """The folder where the report and ncu's log go (``report_template`` filled in its macros)."""
    return Path(str(expand_macros(os.path.dirname(template), os.environ, str(os.getpid()))))


def refuse_unwritable_folder(template: str) -> None:
    """Stop before running anything when the report's folder cannot be made, or takes no new file (read-only, no
    permission, a file in its path): ncu would profile, then fail to write."""
    folder = report_folder(template)
    blocked = unwritable_folder(folder)
    if blocked is None:
        return
    there, why = blocked
    shown = f"the current folder {os.getcwd()}" if str(folder) == "." else str(folder)
    fix = FOLDER_FIX if why != NOT_A_FOLDER else OTHER_FOLDER
    if there == Path(os.path.abspath(folder)):
        raise RooflineError(f"{shown}: cannot write the report there ({why})", fix)
    raise RooflineError(f"{shown}: cannot make the report's folder ({there}: {why})", fix)


def log_path(template: str, env: Mapping[str, str] | None = None) -> Path:
    """Where ncu's log goes: beside the report (``NAME.ncu.log``); %p/%i become roofline's PID."""
    return _log_beside(str(expand_macros(template, os.environ if env is None else env, str(os.getpid()))))


def _log_beside(report: str) -> Path:
    """ncu's log of a report: ``NAME.ncu.log`` beside ``NAME.ncu-rep``."""
    return Path(report.removesuffix(REPORT_SUFFIX) + LOG_SUFFIX)


def log_is_ours(log: Path) -> bool:
    """Whether ``log`` is a regular file (not a link) whose first line is roofline's mark (``mark_log``): the log of
    an earlier run, which the next run of the same report may replace."""
    try:
        fd = os.open(log, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        return stat.S_ISREG(os.fstat(fd).st_mode) and _LOG_MARK_RE.match(fh.read(MARK_BYTES)) is not None


def mark_log(log: Path) -> None:
    """Put roofline's mark (``LOG_MARK``) before the lines ncu wrote to its log, so that the next run of the same
    report replaces it (``refuse_overwrite``); the file is rewritten whole (a temporary file renamed over it)."""
    try:
        data = log.read_bytes()
    except OSError:  # ncu wrote no log (it did not start)
        return
    tmp = log.with_name(f".{log.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(LOG_MARK.encode() + data)
        os.replace(tmp, log)
    except OSError:  # the log stays as ncu wrote it: only its replacement by the next run is lost
        tmp.unlink(missing_ok=True)


# --- A prepared run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One prepared ncu invocation: the command, where the report and ncu's log go, and what is profiled."""

    ncu: str
    options: NcuOptions
    report_template: str
    log_file: Path
    app: tuple[str, ...]

    @property
    def argv(self) -> list[str]:
        """The ncu command line for this plan."""
        return build_argv(self.ncu, self.options, self.report_template, str(self.log_file), self.app)


def make_plan(ncu: str, options: NcuOptions, template: str, app: Sequence[str]) -> Plan:
    """Bundle a run's inputs, with the log file named after the report."""
    return Plan(ncu, options, template, log_path(template), tuple(app))


def profile(plan: Plan) -> Path:
    """Run ncu for ``plan`` with live output; return the written report, or raise the error that explains why not."""
    folder = report_folder(plan.report_template)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RooflineError(f"{folder}: cannot make the report's folder ({err.strerror})", FOLDER_FIX) from None
    run = run_ncu(plan.argv, plan.log_file)
    try:
        return check_outcome(run, plan)
    except AppFailed:
        _print_tail(run.tail)
        raise


def _print_tail(tail: Sequence[str]) -> None:
    """Repeat the application's last output lines above the error line."""
    if tail:
        print("roofline: last lines of the application's output:", *list(tail)[-TAIL_LINES:], sep="\n  ",
              file=sys.stderr)


# --- Running ncu -------------------------------------------------------------------------------------


@dataclass
class NcuRun:
    """What one ncu run left: exit code, ncu's messages, the app's last lines, profiled kernels, signal."""

    returncode: int = 0
    messages: list[str] = field(default_factory=list)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    kernels: list[str] = field(default_factory=list)
    report: str | None = None
    signum: int | None = None


def run_ncu(argv: Sequence[str], log_file: Path) -> NcuRun:
    """Run ncu in its own session, echo its and the app's output to stderr live, and collect ncu's messages;
    then mark ncu's log as roofline's (``mark_log``).

    stdout stays free for the analysis output. Python applications get PYTHONUNBUFFERED=1 so their output
    streams through the pipe as it is printed.
    """
    from rich.console import Console

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        log_file.unlink(missing_ok=True)  # a stale log from an earlier run must not be read as this run's
    except OSError as err:
        raise RooflineError(f"{log_file}: cannot replace ncu's log ({err.strerror})", FOLDER_FIX) from None
    try:
        proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    except OSError as err:
        raise NcuError(f"cannot run {argv[0]} ({err.strerror})", "check --ncu or ROOFLINE_NCU") from None
    run = NcuRun()
    with console.status("ncu: starting the application") as status, forward_signals(proc) as caught:
        collect = _Collector(run, lambda line: console.out(line, highlight=False), status.update)
        _pump(proc, _LogTail(log_file), collect)
    run.returncode, run.signum = proc.returncode, caught.signum or None
    mark_log(log_file)
    return run


def _pump(proc: subprocess.Popen[bytes], log: _LogTail, collect: _Collector) -> None:
    """Feed output lines (pipe and ncu's log) to ``collect`` until ncu exits and the pipe closes."""
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True).start()
    pipe_open, deadline = True, None
    while pipe_open and (deadline is None or time.monotonic() < deadline):
        with suppress(queue.Empty):
            item = lines.get(timeout=POLL_S)
            pipe_open = item is not None
            if item is not None:
                collect.feed(item, from_log=False)
        for line in log.read():
            collect.feed(line, from_log=True)
        if deadline is None and proc.poll() is not None:
            deadline = time.monotonic() + PIPE_GRACE_S
    proc.wait()
    for line in log.read(final=True):
        collect.feed(line, from_log=True)


def _read_lines(stream: IO[bytes], out: queue.Queue[str | None]) -> None:
    """Thread body: push each decoded output line, then None at end of stream."""
    for raw in iter(stream.readline, b""):
        out.put(raw.decode(errors="replace").rstrip("\r\n"))
    out.put(None)


class _LogTail:
    """Read the lines appended to ncu's log file since the last call (a partial last line waits)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pos = 0
        self.partial = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self, final: bool = False) -> list[str]:
        """New complete lines; with ``final`` also the unterminated rest."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.pos)
                data = fh.read()
        except OSError:  # not written yet, or not readable: ncu's messages still come through its output
            data = b""
        self.pos += len(data)
        *lines, self.partial = (self.partial + self.decoder.decode(data, final)).split("\n")
        if final and self.partial:
            lines.append(self.partial)
            self.partial = ""
        return [line.rstrip("\r") for line in lines]


class _Collector:
    """Echo each line; keep ncu's messages and the app's last lines; track kernels profiled for the status."""

    def __init__(self, run: NcuRun, echo: Callable[[str], None], status: Callable[[str], None]) -> None:
        self.run = run
        self.echo = echo
        self.status = status

    def feed(self, line: str, from_log: bool) -> None:
        """Handle one output line from the pipe or from ncu's log."""
        self.echo(line)
        if not (from_log or _NCU_LINE_RE.match(line)):
            self.run.tail.append(line)
            return
        self.run.messages.append(line)
        if match := _PROFILING_RE.match(line):
            self.run.kernels.append(match[1])
            passes = f", {match[2]} passes" if match[2] else ""
            self.status(f"ncu: {counted(len(self.run.kernels), 'kernel launch')} profiled, last {match[1]}{passes}")
        elif match := _REPORT_RE.match(line):
            self.run.report = match[1].strip()


# --- Interpreting the outcome ------------------------------------------------------------------------

Failure = Callable[[re.Match[str], str, Plan, NcuRun], RooflineError]


def _denied(_m: re.Match[str], _line: str, _plan: Plan, _run: NcuRun) -> RooflineError:
    return CountersDenied("ncu was denied access to the GPU performance counters (ERR_NVGPUCTRPERM)",
                    "run as root, or load the nvidia driver with NVreg_RestrictProfilingToAdminUsers=0; in a "
                    "container add --cap-add=SYS_ADMIN (see https://developer.nvidia.com/ERR_NVGPUCTRPERM)")


def _no_driver(_m: re.Match[str], _line: str, _plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError("ncu could not connect to the CUDA driver",
                    "run on a machine with an NVIDIA GPU and driver (nvidia-smi must work) and keep stub "
                    "libcuda.so off LD_LIBRARY_PATH")


def _exists(m: re.Match[str], _line: str, _plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu refused to overwrite {m[1]}", "pass --force, or choose another --output")


def _unwritable(m: re.Match[str], _line: str, plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu cannot write the report {plan.report_template}",
                    "make its folder writable, or choose another --output")


def _bad_section(m: re.Match[str], _line: str, plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu: --section '{m[1]}' matches no section",
                    f"list the sections with: {shell_command([plan.ncu, '--list-sections'])}")


def _no_app(m: re.Match[str], _line: str, _plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu cannot start '{m[1]}': not an executable", "give the application's path")


def _bad_option(_m: re.Match[str], line: str, plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu rejected its command line: {line.strip().rstrip('.')}",
                    f"check the option values and --ncu-arg (see: {shell_command([plan.ncu, '--help'])})")


def _app_failed(m: re.Match[str], _line: str, plan: Plan, run: NcuRun) -> RooflineError:
    log = f"; ncu's log: {plan.log_file}" if plan.log_file.is_file() else ""
    fix = f"{_missing_module(plan.app, run.tail) or 'fix the application'} (its last lines are above{log})"
    report = _written_report(run, plan) if run.kernels else None
    if report is not None:  # e.g. a crash in MPI_Finalize after the kernels: their profile is good
        fix = f"ncu profiled {counted(len(run.kernels), 'kernel launch')} before and wrote the report: analyse it " \
              f"with: {shell_command(['roofline', 'report', report])}; or {fix}"
    return AppFailed(int(m[1]), f"the application exited with code {m[1]} under ncu: {shell_command(plan.app)}", fix)


_IMPORT_ERROR_RE = re.compile(r"^(?:ModuleNotFoundError|ImportError): (.+)$")


def _missing_module(app: Sequence[str], tail: Sequence[str]) -> str | None:
    """For a script that roofline ran with its own Python (``resolve_app``) and that failed to import a module: that
    this Python ran it, and how to name another; None otherwise."""
    if len(app) < 2 or app[0] != sys.executable or not app[1].endswith(".py"):
        return None
    found = next((m for line in reversed(tail) if (m := _IMPORT_ERROR_RE.match(line.strip()))), None)
    if found is None:
        return None
    return (f"{app[1]} ran with roofline's own Python, {sys.executable} ({found[1]}); name the Python that has the "
            f"module before the script: -- /path/to/python {shell_command(app[1:])}")


def _no_kernels(_m: re.Match[str], _line: str, plan: Plan, _run: NcuRun) -> RooflineError:
    opts = plan.options
    if opts.kernel.terms:
        hint = (f"no launch's {opts.kernel.base} name matched {opts.kernel.describe()}; list the names by running "
                "without --kernel, or try --kernel-name-base demangled")
        named = [(t.value, kind) for t in opts.kernel.terms if (kind := classify(t.value)) is not None and kind.sm]
        if named:  # e.g. ampere_sgemm on an H100, where cuBLAS runs sm90_xmma_gemm_* kernels
            value, library = named[0]
            hint += (f"; '{value}' names {library.describe()}, and on other GPUs the library runs kernels of other "
                     "names" + (": try --kernel gemm" if library.op == "gemm" else ""))
    elif opts.nvtx_include or opts.launch_skip:
        hint = "--nvtx-include or --launch-skip excluded every launch; loosen them"
    else:
        hint = "the application launched no CUDA kernel; check that it runs on the GPU"
    return NoKernelMatched(f"ncu profiled no kernel of: {shell_command(plan.app)}", hint)


def _other_error(m: re.Match[str], _line: str, plan: Plan, _run: NcuRun) -> RooflineError:
    return NcuError(f"ncu: {m[1].strip().rstrip('.')}", _see_log(plan))


def _see_log(plan: Plan) -> str:
    """Where ncu said more: its log, where it wrote one; else its output above (a log never written is not named)."""
    if plan.log_file.is_file():
        return f"see ncu's log {plan.log_file}"
    return "see ncu's messages above (it wrote no log)"


# Checked in order: the first matching message explains the run (the driver error outranks the
# "application returned an error code (1)" that ncu 2022.3 prints with it).
FAILURES: tuple[tuple[re.Pattern[str], Failure], ...] = (
    (re.compile(r"ERR_NVGPUCTRPERM"), _denied),
    (re.compile(r"failed to connect to the CUDA driver"), _no_driver),
    (re.compile(r"==ERROR== File (.+?) already exists"), _exists),
    (re.compile(r"==ERROR== Unable to write to file"), _unwritable),
    (re.compile(r"==ERROR== Option '--section (.+?)' did not match any section"), _bad_section),
    (re.compile(r"==ERROR== '(.+)' does not exist or is not an executable"), _no_app),
    (re.compile(_OPTION_ERROR), _bad_option),
    (re.compile(r"==ERROR== The application returned an error code \((-?\d+)\)"), _app_failed),
    (re.compile(r"==WARNING== No kernels were profiled"), _no_kernels),
    (re.compile(r"==ERROR== (.+)"), _other_error),
)


def check_outcome(run: NcuRun, plan: Plan) -> Path:
    """Turn a finished run into the report's path, or raise the one-line error that explains the run."""
    if run.signum:
        log = f"ncu's log {plan.log_file}, " if plan.log_file.is_file() else ""
        raise ProfilingInterrupted(run.signum, f"profiling stopped by {signal.Signals(run.signum).name}",
                                   f"partial output kept: {log}report {plan.report_template} if ncu wrote one; run "
                                   "again to profile fully")
    for pattern, failure in FAILURES:
        for line in run.messages:
            if match := pattern.search(line):
                raise failure(match, line, plan, run)
    if run.returncode != 0:
        raise NcuError(f"ncu {_exit_status(run.returncode)}", _see_log(plan))
    report = _written_report(run, plan)
    if report is None:
        named = run.report or expand_macros(plan.report_template, os.environ, None) or plan.report_template
        raise NcuError(f"ncu finished but wrote no report {named}", _see_log(plan))
    return Path(report)


def _written_report(run: NcuRun, plan: Plan) -> str | None:
    """The report the run wrote (the one ncu named, else the plan's name with its macros filled in), or None where
    there is no such file."""
    report = run.report or expand_macros(plan.report_template, os.environ, None)
    return report if report is not None and os.path.isfile(report) else None


def _exit_status(returncode: int) -> str:
    """How ncu ended, for the error line: ``exited with code 1``, or ``was killed by SIGSEGV`` (a negative code)."""
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        return f"was killed by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"was killed by signal {-returncode}"
