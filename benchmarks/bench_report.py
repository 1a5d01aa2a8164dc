"""Benchmark `roofline report --format json` against the bare cost of reading the same metrics with ncu_report.

For each report (by default the largest files in ../shared/ncu-reps) it times, as medians of several runs:

  bare process   a fresh `python` that imports ncu_report, calls load_report and reads the metrics roofline
                 reads (roofline.metrics.METRICS_TO_READ plus the EXTRA_METRIC_PREFIXES families) on every
                 action: the least a one-shot command can cost;
  roofline CLI   `python -m roofline report FILE --format json -o OUT` in a fresh process;
  bare in-proc   load_report + the same reads, in this (warm) process;
  pipeline       roofline.analyze_files (the pipeline every command runs) and the JSON document written to a
                 file, in this process;

and prints the ratios (targets: at most 1.3x the bare cost), then the start-up time of `roofline --help`
(median of several runs; target under 0.5 s).

Child processes run with bytecode caching on (PYTHONPYCACHEPREFIX set to a temporary folder and one warm-up
run), as an installed package would; pass --as-is to keep this environment's settings instead (for example
PYTHONDONTWRITEBYTECODE=1, which makes every run recompile roofline's modules). --profile prints where the
in-process time goes.

    python benchmarks/bench_report.py                    # 3 largest shared reports, 5 runs each
    python benchmarks/bench_report.py --top 5 --repeat 7
    python benchmarks/bench_report.py path/to/a.ncu-rep --profile
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "ncu-reps"
TARGET_RATIO = 1.3
TARGET_STARTUP_S = 0.5

BARE = """
import sys
import ncu_report
from roofline.metrics import EXTRA_METRIC_PREFIXES, METRICS_TO_READ

def read(path):
    ctx = ncu_report.load_report(path)
    values = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            for name in action.metric_names():
                if name in METRICS_TO_READ or name.startswith(EXTRA_METRIC_PREFIXES):
                    action.metric_by_name(name).value()
                    values += 1
    return values

if __name__ == "__main__":
    read(sys.argv[1])
"""


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def child_env(as_is: bool, cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def run_checked(cmd: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")


def bare_in_process(path: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "bare"}
    exec(BARE, namespace)
    namespace["read"](str(path))


def startup_command() -> list[str]:
    script = shutil.which("roofline", path=str(Path(sys.executable).parent))
    return [script, "--help"] if script else [sys.executable, "-m", "roofline", "--help"]


def default_reports(top: int) -> list[Path]:
    if not SHARED.is_dir():
        raise SystemExit("../shared/ncu-reps not found: pass report files, or put the shared data folder beside "
                         "the repository")
    return sorted(SHARED.glob("*.ncu-rep"), key=lambda p: p.stat().st_size, reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="*", type=Path, help="report files (default: the largest shared ones)")
    parser.add_argument("--top", type=int, default=3, help="how many of the largest shared reports (default 3)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the median is shown")
    parser.add_argument("--as-is", action="store_true", help="keep this environment's bytecode settings")
    parser.add_argument("--profile", action="store_true", help="cProfile the in-process pipeline run")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    import ncu_report  # noqa: F401  (imported before timing the in-process runs)

    from roofline import analyze_files
    from roofline.render import json as json_render

    reports = args.reports or default_reports(args.top)
    cache = tempfile.mkdtemp(prefix="roofline-bench-pyc-")
    out = Path(cache) / "out.json"
    env = child_env(args.as_is, cache)
    bare_script = Path(cache) / "bare.py"
    bare_script.write_text(BARE)
    def ours(path: Path) -> None:
        out.write_text(json_render.render(analyze_files([path])))

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; bytecode cache: {'as-is' if args.as_is else 'on (temporary prefix)'}; "
          f"median of {args.repeat} runs")
    header = (f"{'report':48} {'MB':>5} {'launches':>8} | {'bare proc':>9} {'CLI':>7} {'ratio':>6} | "
              f"{'bare in':>7} {'pipelin':>7} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    worst = 0.0
    for path in reports:
        bare_cmd = [sys.executable, str(bare_script), str(path)]
        cli_cmd = [sys.executable, "-m", "roofline", "report", str(path), "--format", "json", "-o", str(out)]
        run_checked(bare_cmd, env)  # warm-ups: page cache, bytecode
        run_checked(cli_cmd, env)
        bare_p = median_time(functools.partial(run_checked, bare_cmd, env), args.repeat)
        cli = median_time(functools.partial(run_checked, cli_cmd, env), args.repeat)
        bare_in_process(path)
        ours(path)
        bare_i = median_time(functools.partial(bare_in_process, path), args.repeat)
        ours_i = median_time(functools.partial(ours, path), args.repeat)
        from roofline.reader import load_report

        launches = len(load_report(path).launches)
        worst = max(worst, cli / bare_p, ours_i / bare_i)
        print(f"{path.name[:48]:48} {path.stat().st_size / 1e6:5.1f} {launches:8d} | {bare_p:8.3f}s {cli:6.3f}s "
              f"{cli / bare_p:5.2f}x | {bare_i:6.3f}s {ours_i:6.3f}s {ours_i / bare_i:5.2f}x")

    startup = median_time(lambda: run_checked(startup_command(), env), max(args.repeat, 7))
    print()
    print(f"start-up `{' '.join(Path(c).name for c in startup_command())}`: {startup:.3f} s "
          f"(target < {TARGET_STARTUP_S} s): {'ok' if startup < TARGET_STARTUP_S else 'MISSED'}")
    print(f"worst ratio {worst:.2f}x (target <= {TARGET_RATIO}x): {'ok' if worst <= TARGET_RATIO else 'MISSED'}")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for path in reports:
            ours(path)
        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
    shutil.rmtree(cache, ignore_errors=True)
    return 0 if worst <= TARGET_RATIO and startup < TARGET_STARTUP_S else 1


if __name__ == "__main__":
    sys.exit(main())
