"""Benchmark each output of `report` and `compare` against the table of the same reports (issue 46).

Each figure is a whole `roofline` process, as a user runs it, writing to a file in a temporary folder: for every
report, `report -f table`, `-f json`, `-f markdown` (the plot as a PNG beside it), `-f html` (the plot inline) and
`plot`; for a pair, `compare` as a table, Markdown, HTML and a table with `--plot`. The outputs of one report run in
turn (table, json, markdown, html, plot, table, ...) so that a change in the machine's load reaches them alike; the
figures are the medians of the rounds, wall time and CPU time (the process and every child it reaped: the reader,
the spare process that draws), each also as a multiple of the table's.

Target (issue 46): Markdown, HTML and the plot within 1.5x the table's time. The exit status is 0 when every wall
time ratio meets it. ``ROOFLINE_PLAIN_START`` passes through, so a speed mechanism can be timed off against on.

    python benchmarks/bench_formats.py                       # the shipped triad and four shared reports, 5 rounds
    python benchmarks/bench_formats.py --rounds 3 FILE.ncu-rep ...
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "ncu-reps"
TARGET_RATIO = 1.5
REPORTS = (REPO / "examples" / "h100" / "triad-cupy.roofline.ncu-rep",
           SHARED / "v100_miniweather-openacc_full.ncu-rep",
           SHARED / "a40_julia-fp16x2_full.ncu-rep",
           SHARED / "rtx4070ti_pytorch-sim_full.ncu-rep",
           SHARED / "h100-pcie_rmsnorm-float4_full-roofline.ncu-rep")
PAIR = (SHARED / "a10g_sgemm-progression_basic.ncu-rep", SHARED / "a10g_sgemm-blocktiling_roofline.ncu-rep")
REPORT_OUTPUTS = ("table", "json", "markdown", "html", "plot")
COMPARE_OUTPUTS = ("table", "markdown", "html", "table --plot")
DRAWN = ("markdown", "html", "plot", "table --plot")  # the outputs the target is for


def report_command(path: Path, output: str, folder: Path) -> list[str]:
    """The command line of one output of one report, written into ``folder``."""
    if output == "plot":
        return ["plot", str(path), "-o", str(folder / "out.png")]
    return ["report", str(path), "-f", output, "-o", str(folder / f"out.{output}")]


def compare_command(pair: Sequence[Path], output: str, folder: Path) -> list[str]:
    """The command line of one output of ``compare`` of a pair, written into ``folder``."""
    fmt, _, plot = output.partition(" ")
    extra = ["--plot", str(folder / "compare.png")] if plot else []
    return ["compare", *map(str, pair), "-f", fmt, "-o", str(folder / f"compare.{fmt}"), *extra]


def timed(args: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``roofline ARGS`` (CPU: the process and the children it reaped); RuntimeError
    when it fails."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "roofline", *args], stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            errors.seek(0)
            raise RuntimeError(f"roofline {' '.join(args)}: exit {code}: {errors.read().decode().strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def rounds(commands: dict[str, list[str]], count: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) of each command, all of them run in turn ``count`` times after one warm-up round."""
    for args in commands.values():
        timed(args)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(count):
        for name, args in commands.items():
            times[name].append(timed(args))
    return {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for name, t in times.items()}


def table_rows(label: str, medians: dict[str, tuple[float, float]]) -> tuple[list[str], bool]:
    """Markdown rows of one report or pair (wall, then CPU), and whether every drawn output meets the target."""
    base_wall, base_cpu = medians["table"]
    wall = [_cell(w, base_wall, name) for name, (w, _) in medians.items()]
    cpu = [_cell(c, base_cpu, name) for name, (_, c) in medians.items()]
    met = all(w / base_wall <= TARGET_RATIO for name, (w, _) in medians.items() if name in DRAWN)
    return [f"| {label}, wall | {' | '.join(wall)} |", f"| same, CPU | {' | '.join(cpu)} |"], met


def _cell(seconds: float, table: float, name: str) -> str:
    return f"{seconds:.2f} s" if name == "table" else f"{seconds:.2f} s ({seconds / table:.2f}x)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path, help="reports to time (default: the triad and 4 shared)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every output (default 5)")
    parser.add_argument("--no-compare", action="store_true", help="leave out the compare pair")
    args = parser.parse_args(argv)
    reports = [p for p in (args.reports or REPORTS) if p.exists()]
    if not reports:
        print("no report to time: name one, or put the shared reports at ../shared/ncu-reps", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start; medians of {args.rounds} "
          f"rounds; ROOFLINE_PLAIN_START={os.environ.get('ROOFLINE_PLAIN_START', '')!r}\n")
    print(f"| report | {' | '.join(REPORT_OUTPUTS)} |\n|---|{'---|' * len(REPORT_OUTPUTS)}")
    all_met = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for path in reports:
            medians = rounds({o: report_command(path, o, folder) for o in REPORT_OUTPUTS}, args.rounds)
            rows, met = table_rows(f"`{path.name}`", medians)
            all_met &= met
            print("\n".join(rows), flush=True)
        if not args.no_compare and all(p.exists() for p in PAIR):
            print(f"\n| compare | {' | '.join(COMPARE_OUTPUTS)} |\n|---|{'---|' * len(COMPARE_OUTPUTS)}")
            medians = rounds({o: compare_command(PAIR, o, folder) for o in COMPARE_OUTPUTS}, args.rounds)
            rows, met = table_rows(" and ".join(f"`{p.stem}`" for p in PAIR), medians)
            all_met &= met
            print("\n".join(rows))
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end; target: drawn outputs within {TARGET_RATIO}x the "
          f"table's wall time: {'met' if all_met else 'missed'}")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
