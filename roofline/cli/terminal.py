"""What a command shows on the terminal beside its document: the progress bar of a long analysis, the width
of its tables."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # pragma: no cover
    pass

WIDE_COLUMNS = 100_000  # --wide: a table width no kernel name reaches

PROGRESS_AFTER_S = 2.0  # expected work below this shows no progress bar
EXPECTED_S_PER_MIB = 0.05  # analysis time of a report per MiB of its file (benchmarks/: 0.03 to 0.05 s/MiB)
EXPECTED_S_PER_FILE = 0.1  # and per file


def expected_seconds(paths: Sequence[str | os.PathLike[str]], jobs: int) -> float:
    """A rough estimate of the time the analysis of these files takes on ``jobs`` cores (from their sizes)."""
    size = 0
    for path in paths:
        with contextlib.suppress(OSError):
            size += os.stat(path).st_size
    return (EXPECTED_S_PER_FILE * len(paths) + EXPECTED_S_PER_MIB * size / 2**20) / max(1, min(jobs, len(paths)))


@contextlib.contextmanager


def progress(paths: Sequence[str | os.PathLike[str]], jobs: int = 1,
             stream: TextIO | None = None) -> Iterator[Callable[[], None] | None]:
    """A progress bar over ``paths`` on ``stream`` (stderr) when it is a terminal and the work is expected to take
    over ``PROGRESS_AFTER_S``: yields the function to call after each file, else None (nothing is shown)."""
    stream = stream or sys.stderr
    if not stream.isatty() or expected_seconds(paths, jobs) <= PROGRESS_AFTER_S:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from roofline.render.terminal import plain_terminal

    with Progress(TextColumn("analysing reports"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(file=stream, color_system=None if plain_terminal(os.environ) else "auto"),
                  transient=True) as bar:
        task = bar.add_task("reports", total=len(paths))
        yield lambda: bar.advance(task)


def terminal_width(wide: bool = False) -> int:
    """Columns for tables: $COLUMNS, else the terminal's width, at least 80 (80 when not a terminal); with
    ``wide``, room for every name in full."""
    import shutil

    return WIDE_COLUMNS if wide else max(80, shutil.get_terminal_size((80, 24)).columns)
