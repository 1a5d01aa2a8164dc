"""Every speed mechanism of the command line, switched here, each with its measured row in docs/benchmarks.md.

``ROOFLINE_PLAIN_START`` set to ``all`` turns every one of them off, or to a comma-separated list of names
(``MECHANISMS``) those only: the plain path, which tests run too and the benchmarks time against. Each function
here does the plain thing when its mechanism is off:

* ``help``: ``roofline``, ``roofline --help`` and ``roofline --version`` answered without importing typer (its import
  and the rich help are most of a start-up); plain: typer builds the application and answers;
* ``read-ahead``: a command that reads one report file starts reading it in a child process before its command line
  is parsed (``ncu.child.read_ahead``), so ncu_report's parse runs beside typer's import; plain: the pipeline
  reads it when the command runs;
* ``preload``: the modules every analysis imports (numpy, PyYAML, the analysis and its diagnostics), and matplotlib
  where the command draws a plot, imported once the command line is parsed, while that child reads; plain: each is
  imported where it is first used;
* ``blas``: ``OPENBLAS_NUM_THREADS=1`` while a command that reads reports runs, unless the user chose a count:
  roofline does no matrix products, and OpenBLAS's idle threads spin for about 0.1 s after numpy's import on the
  core that reads the report; plain: numpy's OpenBLAS starts as it does elsewhere;
* ``gc``: Python's cyclic garbage collector paused while a command that reads reports runs, and, where the command
  is the process' last work (the console script; ``run`` from Python enables it again), to the end (every object
  of a report model stays alive to the end, and each full collection walks them all again; reference counting
  still frees what is dropped); plain: the collector runs;
* ``exit``: the process ends with ``os._exit`` once the standard streams are flushed, skipping the interpreter's
  teardown (it frees every object and module of the run one by one), and the document a command that reads reports
  wrote is held to that end (``keep_to_the_end``) rather than freed object by object as the command returns;
  plain: ``sys.exit``, and the document freed as the command returns.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, NoReturn

from roofline.core.choices import OUTPUT_OPTION

SWITCH = "ROOFLINE_PLAIN_START"  # "all", or the names of the mechanisms to turn off, comma-separated
MECHANISMS = ("help", "read-ahead", "preload", "blas", "gc", "exit")
BLAS_THREADS = "OPENBLAS_NUM_THREADS"  # read once, when numpy's OpenBLAS loads


def on(mechanism: str) -> bool:
    """Whether a speed mechanism is on (``SWITCH`` does not name it, nor ``all``)."""
    off = {name.strip() for name in os.environ.get(SWITCH, "").split(",")}
    return "all" not in off and mechanism not in off


def answers_at_once(args: Sequence[str]) -> bool:
    """Whether the command line is one the hand-written help and version answer (``help``)."""
    return on("help") and list(args) in ([], ["--help"], ["--version"])


def start_reading(args: Sequence[str], sass: bool) -> None:
    """When the command line names exactly one existing file besides its output (``-o``), start reading it (an
    .ncu-rep) now (``read-ahead``). With several files the pipeline reads them in parallel itself. ``sass``: whether
    the command shows sampled instructions."""
    files = [arg for arg, before in zip(args, ["", *args], strict=False)
             if not arg.startswith("-") and before not in OUTPUT_OPTION and os.path.isfile(arg)]
    if len(files) == 1 and on("read-ahead"):
        from roofline.ncu.child import read_ahead

        read_ahead(files[0], sass)


def preloading(command_class: type | None) -> type:
    """A typer command class (``command_class``, typer's own by default) that imports what the analysis of a report
    needs once its command line is parsed, before the command runs (``preload``): a usage error loads none of it."""
    from typer.core import TyperCommand

    class Preloading(command_class or TyperCommand):  # type: ignore[misc]
        def invoke(self, ctx: Any) -> Any:
            if on("preload"):
                preload(draws(ctx.info_name, ctx.params))
            return super().invoke(ctx)

    return Preloading


def draws(command: str | None, params: dict[str, Any]) -> bool:
    """Whether a command, with the options it was given, draws a plot: ``plot``, ``--plot``, or a format that
    draws (Markdown and HTML)."""
    from roofline.render.base import FORMATS

    fmt = params.get("fmt")
    return (command == "plot" or params.get("plot") is not None
            or any(f.kind == command and f.name == fmt and f.draws for f in FORMATS))


def preload(drawing: bool = False) -> None:
    """Import what the analysis of a report needs now, while the first report is read in a child process on
    another core, rather than after its data arrive; matplotlib too when the command is ``drawing``."""
    import numpy  # noqa: F401  (the checks and the analysis run per cohort of launches over arrays)
    import yaml  # noqa: F401  (the spec match parses a device spec)

    from roofline.analysis import advice, hotspots, instructions, view  # noqa: F401
    from roofline.analysis.diagnostics import occupancy, stalls, tensor_cores  # noqa: F401
    from roofline.ncu import validation  # noqa: F401

    if drawing:
        import_matplotlib()


def import_matplotlib() -> None:
    """Import the matplotlib modules every plot uses (``render.mpl``'s figure and canvas: most of matplotlib)."""
    from matplotlib import figure  # noqa: F401
    from matplotlib.backends import backend_agg  # noqa: F401


_held: list[object] | None = None  # while the process' last command runs (``exit``): what it keeps to the end


def keep_to_the_end(obj: object) -> None:
    """Hold ``obj`` (a command's document, and all it refers to) until the process ends, where it ends with
    ``os._exit`` after this command (``exit``): freed one object at a time as the command returned, the summary of
    a 10,000-launch model took 170-180 ms more. Otherwise nothing is held."""
    if _held is not None:
        _held.append(obj)


@contextmanager
def reading_reports(last: bool = False) -> Iterator[None]:
    """While a command that reads reports runs: OpenBLAS held to one thread unless the user chose a count
    (``blas``; the variable goes after: the applications roofline runs see the user's setting), and the cyclic
    garbage collector paused (``gc``), to the end of the process where the command is its ``last`` work: enabled
    again, the collector's first pass would walk every object the command made (40-55 ms after an HTML report)
    just before the process ends."""
    import gc

    global _held
    if last and on("exit"):
        _held = []
    blas = on("blas") and BLAS_THREADS not in os.environ
    paused = on("gc") and gc.isenabled()
    if blas:
        os.environ[BLAS_THREADS] = "1"
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if blas:
            os.environ.pop(BLAS_THREADS, None)
        if paused and not last:
            gc.enable()


def leave(code: int | str | None) -> NoReturn:
    """End the process with ``code`` (as ``sys.exit`` takes it): flush the standard streams, end MPI on a rank of
    ``summary --mpi``, then skip the interpreter's teardown (``exit``). Every file roofline writes is closed by then
    (``write_output``)."""
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError, AttributeError):  # a closed pipe (roofline ... | head), or none (>&-)
            stream.flush()
    mpi = sys.modules.get("mpi4py.MPI")  # summary --mpi: a rank that ends without MPI_Finalize fails the MPI job
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.Finalize()
    if on("exit"):
        os._exit(code if isinstance(code, int) else 0)
    sys.exit(code)
