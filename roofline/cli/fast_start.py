"""The command line's speed mechanisms, switched here, each with its measured row in docs/benchmarks.md (a mechanism
stays only where it saves 10% or more of a command's wall time: issue 64's rule, benchmarks/bench_start.py).

``ROOFLINE_PLAIN_START`` set to ``all``, or to a comma-separated list of names (``MECHANISMS``), turns those off: the
plain path, which tests run too and the benchmarks time against.

* ``help``: ``roofline``, ``roofline --help`` and ``roofline --version`` are answered without importing typer (its
  import and the rich help are most of a start-up); plain: typer builds the application and answers.
* ``read-ahead``: a command whose arguments are report files (its ``FACTS.reads``, ``roofline.cli.facts``) and that
  names exactly one starts reading it in a child process (``ncu.child.read_ahead``) before its command line is
  parsed, so ncu_report's parse runs beside the imports of the option parser and the analysis; plain: the pipeline
  reads it when the command runs.

``leave`` ends the process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import NoReturn

SWITCH = "ROOFLINE_PLAIN_START"  # "all", or the names of the mechanisms to turn off, comma-separated
MECHANISMS = ("help", "read-ahead")


def on(mechanism: str) -> bool:
    """Whether a speed mechanism is on (``SWITCH`` does not name it, nor ``all``)."""
    off = {name.strip() for name in os.environ.get(SWITCH, "").split(",")}
    return "all" not in off and mechanism not in off


def answers_at_once(args: Sequence[str]) -> bool:
    """Whether the command line is one the hand-written help and version answer (``help``)."""
    return on("help") and list(args) in ([], ["--help"], ["--version"])


def start_reading(args: Sequence[str], sass: bool) -> None:
    """When the command's arguments (``args``, those after its name) name exactly one existing file besides the
    value of ``-o``, start reading it, an ``.ncu-rep``, now (``read-ahead``; ``sass``: whether the command reads the
    SASS of the sampled instructions). With several files the pipeline reads them in parallel itself."""
    from roofline.core.choices import OUTPUT_OPTION

    files = [arg for arg, before in zip(args, ["", *args], strict=False)
             if not arg.startswith("-") and before not in OUTPUT_OPTION and os.path.isfile(arg)]
    if len(files) == 1 and on("read-ahead"):
        from roofline.ncu.child import read_ahead

        read_ahead(files[0], sass)


def leave(code: int | str | None) -> NoReturn:
    """End the process with ``code`` (as ``sys.exit`` takes it): flush the standard streams (a closed pipe is no
    error), end MPI on a rank of ``summary --mpi``, then exit."""
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # roofline ... | head: the rest goes nowhere, also at the interpreter's end
            with suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError, AttributeError):  # no stream (>&-), or a closed one
            pass
    mpi = sys.modules.get("mpi4py.MPI")  # summary --mpi: a rank that ends without MPI_Finalize fails the MPI job
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.Finalize()
    sys.exit(code)
