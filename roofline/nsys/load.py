"""A file given on the command line as a ``Timeline``: an SQLite export read as it is, a report exported first.
Each function takes the path as a str or a Path."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from roofline.core.streams import Migration, StreamTrace
from roofline.core.timeline import LaunchConfigTime, Representative, Timeline
from roofline.nsys.export import sqlite_of
from roofline.nsys.launches import kept
from roofline.nsys.streams import migrations, stream_trace
from roofline.nsys.timeline import launch_configs, rank_variables, read_timeline, representatives


def load_timeline(path: str | Path, nvtx: str | None = None, nsys: str | None = None,
                  group_by: str = "kernel") -> Timeline:
    """The timeline of ``path`` (.sqlite, .nsys-rep or .qdrep; a str or a Path), named by ``path`` whichever was
    read."""
    path = Path(path)
    with sqlite_of(path, nsys) as (sqlite, exported_by):
        return replace(read_timeline(sqlite, nvtx, group_by, path), path=str(path), exported_by=exported_by)


def load_for_profiling(path: str | Path, top: int, nsys: str | None = None,
                       group_by: str = "kernel") -> tuple[Timeline, dict[str, Representative]]:
    """The timeline of ``path`` and the representative launch of its ``top`` kernels, from one export."""
    path = Path(path)
    with sqlite_of(path, nsys) as (sqlite, exported_by):
        timeline = replace(read_timeline(sqlite, None, group_by, path), path=str(path), exported_by=exported_by)
        return timeline, representatives(sqlite, [k.name for k in timeline.kernels[:top]], group_by, path)


def load_with_configs(path: str | Path, nsys: str | None = None,
                      group_by: str = "kernel") -> tuple[Timeline, tuple[LaunchConfigTime, ...]]:
    """The timeline of ``path`` and its kernels per launch configuration, from one export."""
    path = Path(path)
    with sqlite_of(path, nsys) as (sqlite, exported_by):
        timeline = replace(read_timeline(sqlite, None, group_by, path), path=str(path), exported_by=exported_by)
        return timeline, launch_configs(sqlite, group_by, path)


class Loaded(NamedTuple):
    """What one export gives the timeline command: the timeline, its GPU work per stream (None where not asked),
    with ``configs`` the kernels per launch configuration and the unified-memory migrations under their launches,
    and the MPI launcher's rank variables nsys ran with (``nsys.timeline.rank_variables``)."""

    timeline: Timeline
    trace: StreamTrace | None
    configs: tuple[LaunchConfigTime, ...] = ()
    migrations: dict[tuple[str, tuple[int, int, int], tuple[int, int, int]], Migration] = {}
    rank_variables: dict[str, int] = {}


def load_with_streams(path: str | Path, nvtx: str | None = None, nsys: str | None = None, group_by: str = "kernel",
                      configs: bool = False, streams: bool = True) -> Loaded:
    """The timeline of ``path`` with its streams (``nsys.streams``; not read without ``streams``), from one export;
    with ``configs``, its launch configurations and the migrations under them (``timeline --work``)."""
    path = Path(path)
    with sqlite_of(path, nsys) as (sqlite, exported_by), kept():  # the kernels read once for both
        timeline = replace(read_timeline(sqlite, nvtx, group_by, path), path=str(path), exported_by=exported_by)
        trace = stream_trace(sqlite, path) if streams else None
        ranks = rank_variables(sqlite, path)
        if not configs:
            return Loaded(timeline, trace, rank_variables=ranks)
        return Loaded(timeline, trace, launch_configs(sqlite, group_by, path), migrations(sqlite, path, group_by),
                      ranks)
