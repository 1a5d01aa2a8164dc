"""Benchmark each speed mechanism (``roofline/core/mechanisms.py``) against the command's wall time.

Each mechanism is switched off alone (``ROOFLINE_PLAIN_START=NAME``), and all of them together (``all``), and timed
against the command with every mechanism on, the variants run in turn (on, off, on, off, ...) after one warm-up
each, so that a change in the machine's load reaches them alike. A mechanism's share is its variant's median wall
time over the median with every mechanism on, minus one: the part of the command's wall time it saves. It stays
in the code only where that share reaches ``KEEP`` on a real report (issue 64); ``--help`` is timed for ``help``.
The load average (``/proc/loadavg``) is printed before and after: on a machine shared with other work the wall
times swing by more than a small mechanism's share.

    python benchmarks/bench_start.py                         # the 154-launch A100 and the RTX 4070 Ti reports
    python benchmarks/bench_start.py --repeat 9 REPORT.ncu-rep --command summary
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "ncu-reps"
REPORTS = ("a100-40gb_selfjoin-cub-sort-154launches_basic.ncu-rep", "rtx4070ti_pytorch-sim_full.ncu-rep")
KEEP = 0.10  # the least share of the command's wall time a mechanism must save to stay


def mechanisms() -> tuple[str, ...]:
    sys.path.insert(0, str(REPO))
    from roofline.core.mechanisms import MECHANISMS

    return MECHANISMS


def timed(cmd: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time (the process and every child it reaped) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode(errors='replace')}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def medians(cmd: Sequence[str], variants: dict[str, dict[str, str]], repeat: int) -> dict[str, tuple[float, float]]:
    """Per variant (its environment), the median wall and CPU time, the variants run in turn."""
    for env in variants.values():
        timed(cmd, env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, env in variants.items():
            runs[name].append(timed(cmd, env))
    return {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in runs.items()}


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "n/a"


def table(title: str, cmd: Sequence[str], names: Sequence[str], env: dict[str, str], repeat: int) -> None:
    variants = {"on": {**env, "ROOFLINE_PLAIN_START": ""}}
    variants.update({f"{name} off": {**env, "ROOFLINE_PLAIN_START": name} for name in names})
    print(f"\n{title} (load average {load()})")
    found = medians(cmd, variants, repeat)
    wall_on, cpu_on = found["on"]
    print(f"{'variant':14} {'wall':>8} {'CPU':>8} {'saves (wall)':>13} {'kept':>5}")
    for name, (wall, cpu) in found.items():
        share = wall / wall_on - 1.0
        keep = "" if name == "on" else ("yes" if share >= KEEP else "no")
        print(f"{name:14} {wall:7.3f}s {cpu:7.3f}s {100 * share:+12.1f}% {keep:>5}")
    print(f"load average after: {load()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="*", type=Path, help="report files (default: the 154-launch A100 and the "
                        "RTX 4070 Ti full-set reports of ../shared/ncu-reps)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per variant; the median is shown (default 7)")
    parser.add_argument("--command", default="report", help="the command timed on each report (default report)")
    args = parser.parse_args(argv)
    reports = args.reports or [SHARED / name for name in REPORTS]
    missing = [str(p) for p in reports if not p.is_file()]
    if missing:
        raise SystemExit(f"not found: {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="roofline-bench-") as folder:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=str(Path(folder) / "pycache"))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        names = mechanisms()
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.repeat} runs, in turn; "
              f"a mechanism stays where it saves >= {100 * KEEP:.0f}% of the wall time")
        roofline = [sys.executable, "-m", "roofline"]
        if "help" in names:
            table("roofline --help", [*roofline, "--help"], ["help"], env, args.repeat)
        for path in reports:
            cmd = [*roofline, args.command, str(path), "--format", "json"]
            table(f"roofline {args.command} {path.name} --format json", cmd,
                  [n for n in names if n != "help"] + ["all"], env, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
