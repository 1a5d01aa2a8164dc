"""The speed mechanisms, each with its measured row in docs/benchmarks.md (a mechanism stays only where it saves 10%
or more of a command's wall time: issue 64's rule, benchmarks/bench_start.py), and the switch that turns them off.

``ROOFLINE_PLAIN_START`` set to ``all``, or to a comma-separated list of names (``MECHANISMS``), turns those off: the
plain path, which tests run too and the benchmarks time against.

* ``help``: ``roofline``, ``roofline --help`` and ``roofline --version`` are answered without importing typer (its
  import and the rich help are most of a start-up); plain: typer builds the application and answers
  (``roofline.cli.fast_start``).
* ``read-ahead``: a command line that names exactly one ``.ncu-rep`` starts reading it in a child process
  (``ncu.child.read_ahead``) before the command's module is imported and its command line parsed, so ncu_report's
  parse runs beside the imports of the option parser and the analysis; the command's facts (``FACTS.reads``,
  ``roofline.cli.facts``) then say whether it reads the SASS, or stop the read where it reads no report; plain: the
  pipeline reads it when the command runs.
* ``early-diagnoses``: the pipeline analyses, diagnoses and advises each batch of an ``.ncu-rep``'s launches while
  the reader's child reads the next ones (``pipeline.EarlyDiagnoses``); plain: every launch once the whole report
  is read.
* ``collector-off``: the console script turns the cyclic garbage collector off first thing
  (``roofline.cli.fast_start.pause_collector``), on again once the command is known where it reads no report file
  (its ``FACTS.reads``: a server, a store, a profile), and freezes
  every object at the end (``gc.freeze`` in ``leave``), so neither the run nor the interpreter's end traverses them:
  the analysis makes no reference cycles to collect (none collected in the 136 collections of the 154-launch A100
  report; the peak memory of `report` and `summary` over every shared report is the same with it off);
  atexit handlers and stream flushes run as before; plain: the collector runs and the interpreter's end collects.
"""

from __future__ import annotations

import os

SWITCH = "ROOFLINE_PLAIN_START"  # "all", or the names of the mechanisms to turn off, comma-separated
MECHANISMS = ("help", "read-ahead", "early-diagnoses", "collector-off")


def on(mechanism: str) -> bool:
    """Whether a speed mechanism is on (``SWITCH`` does not name it, nor ``all``)."""
    off = {name.strip() for name in os.environ.get(SWITCH, "").split(",")}
    return "all" not in off and mechanism not in off
