"""Run an application under ``nsys profile`` with CUDA tracing only, for `analyze --no-counters`: no performance
counters are needed, so it works where ncu is refused them (ERR_NVGPUCTRPERM). nsys writes ``BASE.nsys-rep`` and,
with ``--export sqlite``, ``BASE.sqlite``, which the timeline reader reads. The argument list runs without a shell;
files already there are refused before anything runs unless ``force``. nsys's and the application's output go to
standard error, as under ncu: standard output is the analysis's."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import Interrupted, RooflineError
from roofline.nsys.export import Nsys

NSYS_REPORT = ".nsys-rep"
NSYS_SQLITE = ".sqlite"
NCU_SUFFIX = ".ncu-rep"


@dataclass(frozen=True)
class NsysPlan:
    """One nsys run: the command line and the files it writes."""

    argv: tuple[str, ...]
    report: Path
    sqlite: Path


def plan(nsys: Nsys, base: str, app: Sequence[str], force: bool) -> NsysPlan:
    """The nsys command that traces the CUDA API and kernels of ``app`` (no CPU sampling, no context switches) and
    exports the profile to SQLite beside the report; ``base`` is the report's path without a suffix."""
    base = base.removesuffix(NCU_SUFFIX).removesuffix(NSYS_REPORT)
    argv = (nsys.path, "profile", "--trace", "cuda", "--sample", "none", "--cpuctxsw", "none", "--export", "sqlite",
            "--force-overwrite", "true" if force else "false", "--output", base, *app)
    return NsysPlan(argv, Path(base + NSYS_REPORT), Path(base + NSYS_SQLITE))


STDERR_FD = 2


def stderr_fd() -> int:
    """The file descriptor of standard error, for a child's output: ``sys.stderr``'s, else the process's own 2 (a
    ``sys.stderr`` replaced by one with no descriptor, as under a test runner)."""
    import io

    try:
        sys.stderr.flush()
        return sys.stderr.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return STDERR_FD


def refuse_overwrite(p: NsysPlan, force: bool) -> None:
    """RooflineError when a file the run would write is already there (unless ``force``)."""
    there = [str(f) for f in (p.report, p.sqlite) if f.exists()]
    if there and not force:
        raise RooflineError(f"{' and '.join(there)} already exist{'s' if len(there) == 1 else ''}",
                            "pass --force to overwrite, or choose another --output")


def run(p: NsysPlan) -> Path:
    """Run nsys with its and the application's output live on standard error (``stderr_fd``), SIGINT and SIGTERM
    passed on to it (``core.signals``); the SQLite export's path, or a one-line error."""
    import signal

    from roofline.core.signals import forward_signals

    p.report.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    try:
        proc = subprocess.Popen(list(p.argv), stdin=subprocess.DEVNULL, stdout=stderr_fd(), start_new_session=True)
    except OSError as err:
        raise RooflineError(f"{p.argv[0]} cannot run ({err})", "check the nsys install or pass --nsys PATH") from None
    with forward_signals(proc) as caught:
        proc.wait()
    if caught.signum:
        raise Interrupted(caught.signum, f"profiling stopped by {signal.Signals(caught.signum).name}",
                              f"nsys's messages above say what it kept of {p.report}")
    if proc.returncode != 0:
        raise RooflineError(f"nsys profile exited with code {proc.returncode}: {shlex.join(p.argv)}",
                            "see nsys's messages above; check that the application runs without nsys")
    if not p.report.is_file():
        raise RooflineError(f"nsys profile wrote no {p.report} (see its messages above: an nsys without its "
                            "importer leaves only a .qdstrm)",
                            "install Nsight Systems whole, or pass --nsys PATH to one that is")
    if not p.sqlite.is_file():
        raise RooflineError(f"nsys profile wrote no {p.sqlite}",
                            f"export it yourself (nsys export --type sqlite {p.report}) and run roofline timeline")
    return p.sqlite
