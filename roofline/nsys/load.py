"""A file given on the command line as a ``Timeline``: an SQLite export read as it is, a report exported first."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from roofline.core.timeline import Timeline
from roofline.nsys.export import sqlite_of
from roofline.nsys.timeline import read_timeline


def load_timeline(path: Path, nvtx: str | None = None, nsys: str | None = None) -> Timeline:
    """The timeline of ``path`` (.sqlite, .nsys-rep or .qdrep), named by ``path`` whichever was read."""
    with sqlite_of(path, nsys) as (sqlite, exported_by):
        return replace(read_timeline(sqlite, nvtx), path=str(path), exported_by=exported_by)
