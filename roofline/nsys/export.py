"""Turn an Nsight Systems report (.nsys-rep, .qdrep) into the SQLite export the reader reads, with ``nsys export``.

Which nsys: ``--nsys PATH``, else ``$ROOFLINE_NSYS``, else ``nsys`` on PATH, else the usual install places. An nsys
reads reports written by its own version and older ones only. Reports from nsys 2023.4 on name their version in
their first line (``NVIDIA Tegra Profiler Report 2025@1@1@110-...``), so a too old nsys is refused before it runs;
older reports say ``... Report 1.`` there, and an nsys that cannot read one (Debian's 2022.4 and a 2023.1-2023.3
report) fails with a parse error, which is reported with the same fix. The export goes to a temporary folder and
is removed after reading: the user's folder is never written to.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from roofline.core.files import EMPTY_FILE, open_regular
from roofline.errors import ReportError, RooflineError

SQLITE_SUFFIX = ".sqlite"
REPORT_MAGIC = b"NVIDIA Tegra Profiler Report "
ENV_VAR = "ROOFLINE_NSYS"
INSTALL_GLOBS = ("/opt/nvidia/nsight-systems/*/bin/nsys", "/usr/local/cuda*/bin/nsys",
                 "/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys",
                 "/opt/nsight-systems*/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys")
EXPORT_TIMEOUT_S = 600.0
_NEW_HEADER = re.compile(rb"(\d{4})@(\d+)@(\d+)")  # the first line's version from 2023.4 on
# the build string in a report's closing section ("2023.1.2.43-32377213v0"), where the first line holds no version
_TRAILER_BUILD = re.compile(rb"(20\d\d)\.(\d+)\.(\d+)\.\d+-\d+v\d")
TRAILER_BYTES = 8192
_VERSION = re.compile(r"version (\d{4})\.(\d+)(?:\.(\d+))?")
FIX = ("export it to SQLite with an nsys as new as the one that wrote it (nsys export --type sqlite FILE) and give "
       "the .sqlite, or pass --nsys PATH to a newer nsys")
# An export that fails on a report no newer than the nsys may be cut short or damaged as well (a truncated copy of a
# 2021.5 .nsys-rep: "Section Table Reference magic number mismatch"), which no newer nsys mends.
EXPORT_FIX = f"if the file was cut short or damaged in copying, copy it again whole; else {FIX}"
ACCEPTED = ("give an Nsight Systems report (.nsys-rep, .qdrep: nsys profile writes them) or its SQLite export "
            "(nsys export --type sqlite FILE)")


@dataclass(frozen=True)
class Nsys:
    path: str
    version: tuple[int, ...]

    def describe(self) -> str:
        return f"nsys {'.'.join(map(str, self.version))} ({self.path})"


def find_nsys(explicit: str | None = None, env: Mapping[str, str] | None = None) -> Nsys:
    """The nsys to run, with its version; ReportError naming what to install when none is found."""
    env = os.environ if env is None else env
    candidates = [explicit] if explicit else [env[ENV_VAR]] if env.get(ENV_VAR) else [
        shutil.which("nsys"), *sorted((p for g in INSTALL_GLOBS for p in glob.glob(g)), reverse=True)]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return Nsys(candidate, nsys_version(candidate))
    where = explicit or env.get(ENV_VAR)
    raise ReportError(f"{where}: not an executable nsys" if where else "no nsys found (PATH, /opt/nvidia, CUDA)",
                      "install Nsight Systems, pass --nsys PATH or set ROOFLINE_NSYS; or give the report's SQLite "
                      "export (nsys export --type sqlite FILE)")


def nsys_version(path: str) -> tuple[int, ...]:
    """``nsys --version`` as (year, release, patch)."""
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ReportError(f"{path} --version failed ({err})", "check the nsys install") from None
    match = _VERSION.search(proc.stdout + proc.stderr)
    if match is None:
        raise ReportError(f"{path} --version printed no 'version YYYY.R' line", "check that this is NVIDIA's nsys")
    return tuple(int(g) for g in match.groups() if g is not None)


def report_version(path: Path) -> tuple[int, ...] | None:
    """The version that wrote the report, where its first line says it (2023.4 on), else None; ReportError for a
    file that is no nsys report."""
    with open_regular(path, ReportError, "give an .nsys-rep, .qdrep or .sqlite file") as f:
        head = f.read(80)
    if not head.startswith(REPORT_MAGIC):
        what = "a Git LFS pointer, not the file" if head.startswith(b"version https") else "not an nsys report"
        raise ReportError(f"{path}: {what}", "give an .nsys-rep, .qdrep or its .sqlite export")
    match = _NEW_HEADER.match(head[len(REPORT_MAGIC):])
    return tuple(int(g) for g in match.groups()) if match else trailer_version(path)


def trailer_version(path: Path) -> tuple[int, ...] | None:
    """The nsys build that wrote the report, from the build string in its closing bytes (2023.1 and 2023.2 reports
    name no version on their first line); None where there is none (2021 and older)."""
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - TRAILER_BYTES))
        found = _TRAILER_BUILD.findall(f.read())
    return tuple(int(g) for g in found[-1]) if found else None


@contextmanager
def exported(path: Path, nsys: Nsys) -> Iterator[Path]:
    """The report exported to SQLite in a temporary folder, removed afterwards."""
    written = report_version(path)
    if written is not None and written[:2] > nsys.version[:2]:
        raise ReportError(f"{path}: written by nsys {'.'.join(map(str, written))}, which {nsys.describe()} cannot "
                          "read", FIX)
    with tempfile.TemporaryDirectory(prefix="roofline-nsys-") as tmp:
        target = Path(tmp) / (path.stem + SQLITE_SUFFIX)
        argv = [nsys.path, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", str(target),
                str(path)]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise RooflineError(f"{path}: nsys export failed ({err})", FIX) from None
        if proc.returncode != 0 or not target.is_file():
            lines = [ln.strip() for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            said = lines[-1][:200] if lines else f"exit status {proc.returncode}"
            raise ReportError(f"{path}: {nsys.describe()} cannot export it ({said})", EXPORT_FIX)
        yield target


def _refuse_unknown(path: Path, head: bytes) -> None:
    """ReportError (one line, naming every kind read) for a file that starts as none of the files given here: not
    an nsys report, not SQLite, and not a file the reader names better (an ncu report, a Git LFS pointer)."""
    from roofline.ncu.container import MAGIC as NCU_MAGIC
    from roofline.nsys.timeline import SQLITE_MAGIC

    if not head.startswith((SQLITE_MAGIC[:len(head)], NCU_MAGIC[:len(head)], b"version https")):
        raise ReportError(f"{path}: not an SQLite file, nor an nsys report", ACCEPTED)


@contextmanager
def sqlite_of(path: Path, nsys: str | None = None) -> Iterator[tuple[Path, str | None]]:
    """The SQLite export to read for ``path`` and the nsys that made it: ``path`` itself when it is an SQLite
    file (None), else its export by the nsys found (``find_nsys(nsys)``), removed afterwards."""
    with open_regular(path, ReportError, "give an .nsys-rep, .qdrep or .sqlite file") as f:
        head = f.read(len(REPORT_MAGIC))
    if not head:
        raise ReportError(f"{path}: {EMPTY_FILE}", "give an .nsys-rep, .qdrep or .sqlite file with its data")
    if not head.startswith(REPORT_MAGIC):
        _refuse_unknown(path, head)
        yield path, None  # an SQLite file, or a file the reader names (an ncu report, a Git LFS pointer)
        return
    try:
        found = find_nsys(nsys)
    except ReportError as err:  # the file that needs the export, named
        raise ReportError(f"{path}: needs nsys to read it; {err.message}", err.hint) from None
    with exported(path, found) as target:
        yield target, found.describe()
