"""The command line's speed mechanisms (``roofline.core.mechanisms`` lists them with the switch that turns them off):
``help`` answers the help and version without typer, ``read-ahead`` starts reading a command's one report before its
module is imported and its command line parsed, ``collector-off`` runs a command that reads reports without the
garbage collector and ends the process without its final collections (``pause_collector``, ``leave``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, NoReturn

from roofline.core.mechanisms import MECHANISMS, SWITCH, on

if TYPE_CHECKING:  # pragma: no cover
    from roofline.cli.facts import Reads

__all__ = ["MECHANISMS", "SWITCH", "answers_at_once", "leave", "on", "pause_collector", "resume_collector",
           "settle_reading", "start_reading"]


def answers_at_once(args: Sequence[str]) -> bool:
    """Whether the command line is one the hand-written help and version answer (``help``)."""
    return on("help") and list(args) in ([], ["--help"], ["--version"])


def start_reading(args: Sequence[str], sass: bool | None = None) -> None:
    """When the command's arguments (``args``, those after its name) name exactly one existing file besides the
    value of ``-o``, start reading it, an ``.ncu-rep``, now (``read-ahead``; ``sass``: whether the command reads the
    SASS of the sampled instructions, None: not known yet, ``settle_reading`` says it). With several files the
    pipeline reads them in parallel itself."""
    from roofline.core.choices import OUTPUT_OPTION

    files = [arg for arg, before in zip(args, ["", *args], strict=False)
             if not arg.startswith("-") and before not in OUTPUT_OPTION and os.path.isfile(arg)]
    if len(files) == 1 and on("read-ahead"):
        from roofline.ncu.child import read_ahead

        read_ahead(files[0], sass)


def settle_reading(reads: Reads | None) -> None:
    """Once the command's facts are known: a read started ahead goes on where the command reads reports (with their
    SASS where it reads that), and is stopped where it does not."""
    child = sys.modules.get("roofline.ncu.child")  # only a run that started a read ahead imported it
    if child is not None:
        child.decide_ahead(None if reads is None else reads.sass)


def pause_collector() -> None:
    """In a process that ends after its command: no cyclic garbage collection from its start (``collector-off``;
    the analysis of reports leaves no cycles to collect, and the process ends with the command)."""
    if on("collector-off"):
        import gc

        gc.disable()


def resume_collector() -> None:
    """The cyclic garbage collector on again: the command reads no report (a server, a store, a profile)."""
    import gc

    gc.enable()


def leave(code: int | str | None) -> NoReturn:
    """End the process with ``code`` (as ``sys.exit`` takes it): flush the standard streams (a closed pipe is no
    error), end MPI on a rank of ``summary --mpi``, then exit (``collector-off``: every object moved out of the
    collector's reach first, so that the interpreter's end does not collect and free them one by one)."""
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
    if on("collector-off"):
        import gc

        gc.freeze()  # the interpreter's end neither traverses nor frees what the command built: the process ends
    sys.exit(code)
