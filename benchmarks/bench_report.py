"""Benchmark the cost of analysing reports against the floor, against ncu, at start-up and over many reports.

Every figure is the median of several runs of a whole process, the commands of one comparison run alternately
(A B A B ...) so that a change in the machine's load reaches both sides alike:

  floor       a fresh `python` that loads the report with ncu_report and reads the data roofline reads on every
              launch: the metrics (the one list, ``roofline.ncu.metrics.to_read``, and the units the two breakdowns
              list), where a launch executed HFMA2 instructions, the SASS text that tells their register moves
              from arithmetic (``roofline.ncu.extract.hfma_moves``, issue 7), and the per-instruction warp samples
              with their SASS and source lines (``roofline.ncu.extract.pc_sampling``, issue 32): the least a one-shot
              command can cost. For a report whose figures need SASS, the metrics alone are timed too beside it;
  report      `roofline report FILE --format json` (to a null output), on the largest shared reports;
  ncu         NVIDIA's `ncu --import FILE --page raw --csv` (the ncu on PATH), on every shared report it reads,
              beside `python -c "import numpy, typer, yaml"`: the import of the dependencies every `report` run
              loads (the option parser, the analysis by arrays, the device spec), which no run can go below;
  --help      `roofline --help` against `python -c pass`;
  --jobs      `roofline report --format json` and `roofline summary` over 50 reports (hard links to the shared
              reports in a temporary folder, each a file of its own), with --jobs 1 and --jobs 2.

Targets (issues 13 and 64): report <= 1.5x the floor on the reports given (the four largest by default; issue 64
names the full-set RTX 4070 Ti one); report <= 1.25x ncu on every report ncu reads (the reports given, else every
shared one; issue 64 names the 154-launch A100 one); --help <= 4x python -c pass. The exit status is 0 when all
are met.

Child processes run with bytecode caching on (PYTHONPYCACHEPREFIX set to a temporary folder and one warm-up
run), as an installed package would; --as-is keeps this environment's settings instead. --profile prints where
the in-process time of one report goes (cProfile).

    python benchmarks/bench_report.py                      # everything, 5 runs per figure
    python benchmarks/bench_report.py --repeat 9 --only floor ncu
    python benchmarks/bench_report.py --profile ../shared/ncu-reps/a100-40gb_selfjoin-cub-sort-154launches_basic.ncu-rep
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "ncu-reps"
TARGET_FLOOR_RATIO = 1.5
TARGET_NCU_RATIO = 1.25
TARGET_HELP_RATIO = 4.0
LARGEST = 4
MANY = 50
PARTS = ("floor", "ncu", "help", "jobs")
DEPENDENCIES = ("numpy", "typer", "yaml")  # what every `report` run imports: parser, analysis, device spec

FLOOR = """
import sys
import ncu_report
from roofline.ncu.metrics import BREAKDOWNS, breakdown_units, counts_hfma, to_read
from roofline.ncu.extract import hfma_moves, pc_sampling

with_sass = sys.argv[2:] != ["--metrics-only"]

kind = ncu_report.IMetric
by_kind = {kind.ValueKind_DOUBLE: kind.as_double, kind.ValueKind_FLOAT: kind.as_double,
           kind.ValueKind_UINT32: kind.as_uint64, kind.ValueKind_UINT64: kind.as_uint64,
           kind.ValueKind_STRING: kind.as_string}


def value(metric):
    read = None if metric is None else by_kind.get(metric.kind())
    return None if read is None else read(metric)


ctx = ncu_report.load_report(sys.argv[1])
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        action = rng.action_by_idx(a)
        names = action.metric_names()
        values = {name: value(action.metric_by_name(name)) for name in to_read(names)}
        for breakdown in BREAKDOWNS:
            for unit in breakdown_units(str(values.get(breakdown) or "")):
                values[unit] = value(action.metric_by_name(unit))
        if with_sass and counts_hfma(name for name, v in values.items() if v is not None):
            hfma_moves(action)
        if with_sass:
            pc_sampling(action, names)
"""


class Runner:
    """Runs whole commands with the benchmark's environment and times them, alternating."""

    def __init__(self, env: dict[str, str], repeat: int) -> None:
        self.env, self.repeat = env, repeat

    def once(self, cmd: Sequence[str]) -> float:
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=self.env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if proc.returncode:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode(errors='replace')}")
        return elapsed

    def medians(self, *cmds: Sequence[str]) -> list[float]:
        """The median time of each command, the commands run in turn ``repeat`` times after one warm-up each."""
        for cmd in cmds:
            self.once(cmd)
        times: list[list[float]] = [[] for _ in cmds]
        for _ in range(self.repeat):
            for i, cmd in enumerate(cmds):
                times[i].append(self.once(cmd))
        return [statistics.median(t) for t in times]


def roofline(*args: str) -> list[str]:
    return [sys.executable, "-m", "roofline", *args]


def shared_reports() -> list[Path]:
    if not SHARED.is_dir():
        raise SystemExit("../shared/ncu-reps not found: put the shared data folder beside the repository")
    return sorted(SHARED.glob("*.ncu-rep"), key=lambda p: p.stat().st_size, reverse=True)


def launches(path: Path) -> tuple[int, bool]:
    """How many launches the report holds, and whether roofline reads SASS for any of them (HFMA2 executed, or
    instructions with warp samples)."""
    from roofline.ncu.metrics import HFMA_MOVES
    from roofline.ncu.reader import load_report

    report = load_report(path)
    return len(report.launches), any(launch.value(HFMA_MOVES) is not None
                                     or launch.pc_sampling is not None and launch.pc_sampling.pcs
                                     for launch in report.launches)


def bench_floor(run: Runner, floor_script: Path, reports: Sequence[Path]) -> bool:
    print(f"\nroofline report --format json vs the floor (target <= {TARGET_FLOOR_RATIO}x)")
    print(f"{'report':52} {'MB':>5} {'launches':>8} {'floor':>8} {'report':>8} {'ratio':>6}")
    worst = 0.0
    for path in reports:
        count, sass = launches(path)
        floors = [[sys.executable, str(floor_script), str(path)]]
        floors += [[*floors[0], "--metrics-only"]] if sass else []
        *floor_times, ours = run.medians(*floors, roofline("report", str(path), "--format", "json"))
        floor = floor_times[0]
        worst = max(worst, ours / floor)
        print(f"{path.name[:52]:52} {path.stat().st_size / 1e6:5.1f} {count:8d} {floor:7.3f}s "
              f"{ours:7.3f}s {ours / floor:5.2f}x")
        for alone in floor_times[1:]:  # what the floor costs without the SASS read
            print(f"{'  the metrics alone, no SASS':52} {'':5} {'':8} {alone:7.3f}s {'':8} {ours / alone:5.2f}x")
    print(f"worst {worst:.2f}x: {'met' if worst <= TARGET_FLOOR_RATIO else 'MISSED'}")
    return worst <= TARGET_FLOOR_RATIO


def bench_ncu(run: Runner, reports: Sequence[Path]) -> bool:
    ncu = shutil.which("ncu")
    print(f"\nroofline report --format json vs ncu --import FILE --page raw --csv (target <= {TARGET_NCU_RATIO}x), "
          f"beside the import of {', '.join(DEPENDENCIES)} alone")
    if ncu is None:
        print("ncu not on PATH: skipped")
        return True
    readable = [p for p in reports if subprocess.run([ncu, "--import", str(p), "--page", "raw", "--csv"],
                                                     capture_output=True).returncode == 0]
    print(f"{ncu} reads {len(readable)} of the {len(reports)} shared reports")
    print(f"{'report':52} {'MB':>5} {'launches':>8} {'ncu':>8} {'imports':>8} {'report':>8} {'ratio':>6}")
    worst, below_imports = 0.0, 0
    imports = [sys.executable, "-c", f"import {', '.join(DEPENDENCIES)}"]
    for path in readable:
        theirs, floor, ours = run.medians([ncu, "--import", str(path), "--page", "raw", "--csv"], imports,
                                          roofline("report", str(path), "--format", "json"))
        worst = max(worst, ours / theirs)
        below_imports += theirs < floor
        print(f"{path.name[:52]:52} {path.stat().st_size / 1e6:5.1f} {launches(path)[0]:8d} {theirs:7.3f}s "
              f"{floor:7.3f}s {ours:7.3f}s {ours / theirs:5.2f}x")
    verdict = "met" if worst <= TARGET_NCU_RATIO else "MISSED"
    print(f"slowest against ncu {worst:.2f}x: {verdict}; on {below_imports} of "
          f"{len(readable)} reports ncu's whole export takes less than importing {', '.join(DEPENDENCIES)}")
    return worst <= TARGET_NCU_RATIO


def bench_help(run: Runner) -> bool:
    script = shutil.which("roofline", path=str(Path(sys.executable).parent))
    command = [script, "--help"] if script else roofline("--help")
    bare, helped = run.medians([sys.executable, "-c", "pass"], command)
    ratio = helped / bare
    print(f"\n`{Path(command[0]).name} --help` {helped:.3f}s, python -c pass {bare:.3f}s: {ratio:.2f}x "
          f"(target <= {TARGET_HELP_RATIO}x): {'met' if ratio <= TARGET_HELP_RATIO else 'MISSED'}")
    return ratio <= TARGET_HELP_RATIO


def bench_jobs(run: Runner, reports: Sequence[Path], folder: Path) -> None:
    many = folder / "many"
    many.mkdir()
    links = []
    for i, source in zip(range(MANY), itertools.cycle(reports), strict=False):
        link = many / f"{i:02d}-{source.name}"
        try:  # a hard link: a file of its own to roofline (a symbolic one resolves to the same file, read once)
            os.link(source, link)
        except OSError:  # another file system
            shutil.copyfile(source, link)
        links.append(str(link))
    size = sum(p.stat().st_size for p in map(Path, links)) / 1e6
    print(f"\n{MANY} reports ({size:.0f} MB, hard links to the shared ones), --jobs 1 vs --jobs 2 "
          f"({os.cpu_count()} CPUs)")
    for command in (("report", "--format", "json"), ("summary",)):
        serial, parallel = run.medians(roofline(*command, *links, "--jobs", "1"),
                                       roofline(*command, *links, "--jobs", "2"))
        print(f"  roofline {' '.join(command):22} --jobs 1 {serial:6.2f}s  --jobs 2 {parallel:6.2f}s  "
              f"speed-up {serial / parallel:4.2f}x")


def profile(path: Path) -> None:
    """Where the in-process time of one report goes: the pipeline and the JSON document."""
    import ncu_report  # noqa: F401  (loaded before the profile, as the CLI's reader child has it)

    from roofline import analyze_files
    from roofline.pipeline import build_view
    from roofline.render.report import json as json_render

    profiler = cProfile.Profile()
    profiler.enable()
    json_render.render(build_view(analyze_files([path])))
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
    print(text.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="*", type=Path, help="report files for the floor comparison "
                        "(default: the four largest shared ones)")
    parser.add_argument("--ncu-reports", nargs="+", type=Path, help="report files for the ncu comparison "
                        "(default: every shared one)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is shown (default 5)")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS, help="which comparisons to run")
    parser.add_argument("--as-is", action="store_true", help="keep this environment's bytecode settings")
    parser.add_argument("--profile", action="store_true", help="cProfile the in-process analysis of each report")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))

    folder = Path(tempfile.mkdtemp(prefix="roofline-bench-"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    if not args.as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    run = Runner(env, args.repeat)
    floor_script = folder / "floor.py"
    floor_script.write_text(FLOOR)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"bytecode cache: {'as-is' if args.as_is else 'on (temporary prefix)'}; medians of {args.repeat} runs, "
          "alternating")
    try:
        if args.profile:
            for path in args.reports or shared_reports()[:LARGEST]:
                profile(path)
            return 0
        met = []
        if "floor" in args.only:
            met.append(bench_floor(run, floor_script, args.reports or shared_reports()[:LARGEST]))
        if "ncu" in args.only:
            met.append(bench_ncu(run, args.ncu_reports or shared_reports()))
        if "help" in args.only:
            met.append(bench_help(run))
        if "jobs" in args.only:
            bench_jobs(run, shared_reports(), folder)
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
        return 0 if all(met) else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
