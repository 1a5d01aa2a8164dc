"""Time `roofline collect` and the five questions of docs/store.md on N report models, against `report -f json`.

The models are derived from the report models shipped under examples/ (the H100 and H200 .json files, one launch
each, both model versions): report i copies template i mod T and scales every amount (times, cycles,
counts, bytes: the metrics ending in .sum, and the elapsed cycles) by its own factor 1 + i / N (x0.9..1.1 jitter per
launch), so no two reports are the same and each is analysed. Every 100th file is broken (a model cut in half), to
be one row of the errors table among the others.

Measured, each in a fresh process where it says so:
- collect, one process and no Dask: wall time per report and peak memory (a fresh `roofline collect`);
- `report -f json` of the same files in one process (the facade's report and its JSON text, what collect does
  before its rows), per report, and a few fresh `roofline report -f json` processes for reference;
- collect with --workers 1 and 2 (a Dask LocalCluster, its start included): wall time;
- each query of docs/store.md over the store: median of 5 (connection and views included).

Run: python benchmarks/bench_store.py [--reports 500] [--workers 1 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = sorted(p for folder in ("h100", "h200") for p in (REPO / "examples" / folder).glob("*.json"))
AMOUNT_NAMES = ("gpu__time_duration.sum", "sm__cycles_elapsed.avg")
BROKEN_EVERY = 100

QUERIES = {
    "top kernels by time to gain": """
        SELECT kernel, device, count(*) AS launches, sum(time_to_gain_s) AS to_gain_s FROM launches WHERE valid
        GROUP BY kernel, device ORDER BY to_gain_s DESC NULLS LAST LIMIT 10""",
    "regressions between two runs": """
        WITH base AS (SELECT kernel, sum(duration_s) AS s FROM launches WHERE parse_filename(path) = '{a}'
                      GROUP BY kernel),
             new AS (SELECT kernel, sum(duration_s) AS s FROM launches WHERE parse_filename(path) = '{b}'
                     GROUP BY kernel)
        SELECT kernel, base.s, new.s, new.s / base.s - 1 AS slower FROM base JOIN new USING (kernel)
        WHERE new.s > 1.005 * base.s ORDER BY slower DESC""",
    "one kernel across GPUs": """
        SELECT device, ncu_version, count(*) AS launches, median(duration_s) AS median_s, median(pct_of_roof) AS pct
        FROM launches WHERE kernel = (SELECT min(kernel) FROM launches) GROUP BY ALL ORDER BY median_s""",
    "share of roof per library": """
        SELECT coalesce(library, '(own code)') AS library, count(*) AS launches, sum(duration_s) AS total_s,
               sum(duration_s * pct_of_roof) / sum(duration_s) FILTER (WHERE pct_of_roof IS NOT NULL) AS pct
        FROM launches WHERE valid GROUP BY 1 ORDER BY total_s DESC""",
    "reports that failed": "SELECT parse_filename(path) AS file, error FROM errors ORDER BY file",
}


def _is_amount(name: str) -> bool:
    return name in AMOUNT_NAMES or (name.endswith(".sum") and not name.startswith("launch__"))


def _scaled(value: Any, factor: float) -> Any:
    return value * factor if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def scaled_model(template: dict[str, Any], factor: float, rng: random.Random, label: str) -> dict[str, Any]:
    """A copy of a report model (version 1: launches as a list; 2: by column) with its amounts scaled."""
    model = json.loads(json.dumps(template))
    model["label"] = label
    launches = model["launches"]
    if isinstance(launches, list):
        for launch in launches:
            jitter = factor * rng.uniform(0.9, 1.1)
            launch["metrics"] = {k: _scaled(v, jitter) if _is_amount(k) else v for k, v in launch["metrics"].items()}
    else:
        jitters = [factor * rng.uniform(0.9, 1.1) for _ in range(launches["count"])]
        launches["metrics"] = {k: [_scaled(v, j) for v, j in zip(column, jitters, strict=True)] if _is_amount(k)
                               else column for k, column in launches["metrics"].items()}
    return model


def write_models(folder: Path, count: int) -> tuple[list[Path], int]:
    """``count`` distinct models (every BROKEN_EVERY-th cut in half) in ``folder``; the files and how many are bad."""
    templates = [json.loads(p.read_text()) for p in TEMPLATES]
    rng = random.Random(66)
    paths, broken = [], 0
    for i in range(count):
        path = folder / f"bench-{i:05d}.json"
        text = json.dumps(scaled_model(templates[i % len(templates)], 1 + i / count, rng, f"bench {i}"))
        if i % BROKEN_EVERY == BROKEN_EVERY - 1:
            text, broken = text[:len(text) // 2], broken + 1
        path.write_text(text)
        paths.append(path)
    return paths, broken


def run_measured(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of a fresh process (exit 0, or 2 for the broken files)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 2):
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return elapsed, usage.ru_maxrss / 1024.0


def report_json_in_process(paths: list[Path]) -> float:
    """Seconds per report of the facade's report and its JSON text, one process, one report at a time."""
    from roofline.facade import Roofline
    from roofline.render.report.json import render

    facade = Roofline()
    good = [p for i, p in enumerate(paths) if i % BROKEN_EVERY != BROKEN_EVERY - 1]
    render(facade.report(good[:1]).view)  # the catalog loaded, the modules imported, as a collect has them
    start = time.perf_counter()
    for path in good:
        render(facade.report([path]).view)
    return (time.perf_counter() - start) / len(good)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", type=int, default=500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", type=Path, help="folder to write the models and stores into and keep them")
    args = parser.parse_args()
    from roofline.store.query import query

    py = [sys.executable, "-m", "roofline"]
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; {len(TEMPLATES)} templates; "
          f"{args.reports} reports")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        models = folder / "models"
        shutil.rmtree(models, ignore_errors=True)
        models.mkdir(parents=True)
        paths, broken = write_models(models, args.reports)
        print(f"models: {len(paths)} files ({broken} broken), {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB")

        store = folder / "store"
        shutil.rmtree(store, ignore_errors=True)
        wall, peak = run_measured([*py, "collect", str(models), "-o", str(store)])
        print(f"collect, one process: {wall:.1f} s, {1000 * wall / len(paths):.1f} ms per report, peak {peak:.0f} MB")
        again, _ = run_measured([*py, "collect", str(models), "-o", str(store)])
        print(f"collect again, nothing changed: {again:.2f} s")
        per = report_json_in_process(paths)
        print(f"report -f json in one process: {1000 * per:.1f} ms per report")
        cli = [run_measured([*py, "report", str(p), "-f", "json", "-o", str(folder / "r.json")])[0]
               for p in paths[:5]]
        print(f"roofline report -f json, a fresh process each: {1000 * statistics.median(cli):.0f} ms per report")
        for n in args.workers:
            other = folder / f"store-{n}"
            shutil.rmtree(other, ignore_errors=True)
            t, _ = run_measured([*py, "collect", str(models), "-o", str(other), "--workers", str(n)])
            print(f"collect --workers {n}: {t:.1f} s ({1000 * t / len(paths):.1f} ms per report)")

        a, b = paths[0].name, paths[len(TEMPLATES)].name  # one template, two runs of it
        for name, sql in QUERIES.items():
            times = []
            for _ in range(5):
                start = time.perf_counter()
                rows = query(store, sql.format(a=a, b=b)).num_rows
                times.append(time.perf_counter() - start)
            print(f"query {name}: {1000 * statistics.median(times):.0f} ms ({rows} rows)")
        files = sum(1 for _ in store.rglob("*.parquet"))
        size = sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) / 1e6
        print(f"store: {files} Parquet files, {size:.1f} MB")


if __name__ == "__main__":
    main()
