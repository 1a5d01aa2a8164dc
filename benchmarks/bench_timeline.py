"""Time `roofline timeline` on an nsys SQLite export of 1,000,000 kernel launches, end to end (target: at most 2 s
and 512 MiB of peak memory on a 2-core machine), beside SQLite's own GROUP BY over the same kernel table.

Run: python benchmarks/bench_timeline.py [--launches N] [--source EXPORT | --synthetic] [--runs R] [--keep FILE].

The export: a copy of a real one (by default ../shared/nsys-reps' miniWeather export, 2,596 launches of 10 kernels
on a Quadro GP100) whose kernel rows are repeated, each copy shifted past the end of the one before (start, end and
correlationId), until the table holds N launches; its other tables (CUDA API calls, copies) stay as they were. Where
the shared folder is absent, or with --synthetic, a synthetic export is written instead (200 kernels, 2 GPUs, 4
streams, launches that overlap; the tables and columns the reader uses, as nsys 2024.6 names them). Either is a
benchmark input, written to a temporary folder, not a profile.

Each run is a fresh ``python -m roofline timeline EXPORT -f json`` whose wall time, CPU time (user + system) and
peak resident memory (``ru_maxrss`` from ``os.wait4``) are taken from that process alone; the figures are medians
of ``--runs`` runs after one warm-up (the peak memory: the largest). The GROUP BY floor (wall and CPU) is the
median of as many in-process queries, count, total, min and max of the durations per (short, demangled) name with
the names joined from StringIds. The load average is printed beside them: the machine's other work lengthens the
wall time, much less the CPU time.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 2.0
TARGET_MIB = 512.0
REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO.parent / "shared" / "nsys-reps" / "gp100_miniweather-openacc_2021.2-export2022.2.sqlite"
KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
KERNEL_COLUMNS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
                  "demangledName", "shortName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY",
                  "blockZ")
GLOBAL_PID = 322425493389312
GAP_NS = 1_000  # between one copy of the kernel rows and the next
FLOOR = f"""SELECT s.value, d.value, g.n, g.total, g.low, g.high
            FROM (SELECT shortName AS sid, demangledName AS did, COUNT(*) AS n, SUM("end" - start) AS total,
                         MIN("end" - start) AS low, MAX("end" - start) AS high
                  FROM {KERNELS} GROUP BY shortName, demangledName) g
            LEFT JOIN StringIds s ON s.id = g.sid LEFT JOIN StringIds d ON d.id = g.did"""


def repeat_export(source: Path, path: Path, launches: int) -> None:
    """A copy of ``source`` whose kernel table holds ``launches`` rows: its own rows repeated in rowid order, each
    copy shifted by the span of the rows (plus ``GAP_NS``) after the one before, correlationIds by the largest."""
    shutil.copyfile(source, path)
    path.chmod(0o644)
    db = sqlite3.connect(path)
    cols = [row[1] for row in db.execute(f"PRAGMA table_info({KERNELS})")]
    first, last, corr, rows = db.execute(f'SELECT MIN(start), MAX("end"), MAX(correlationId), COUNT(*) '
                                         f"FROM {KERNELS}").fetchone()
    shift, copies = last - first + GAP_NS, -(-launches // rows)
    shifted = {"start": "start + :t", "end": '"end" + :t', "correlationId": "correlationId + :c"}
    select = ", ".join(shifted.get(c, f'"{c}"') for c in cols)
    db.execute(f"CREATE TEMP TABLE one AS SELECT * FROM {KERNELS} ORDER BY rowid")
    for i in range(1, copies):
        n = min(rows, launches - i * rows)
        db.execute(f"INSERT INTO {KERNELS} SELECT {select} FROM temp.one ORDER BY rowid LIMIT :n",
                   {"t": i * shift, "c": i * (corr + 1), "n": n})
    if launches < rows:
        db.execute(f"DELETE FROM {KERNELS} WHERE rowid NOT IN (SELECT rowid FROM {KERNELS} ORDER BY rowid "
                   "LIMIT ?)", (launches,))
    db.commit()
    db.close()


def make_export(path: Path, launches: int, kernels: int, seed: int = 1) -> None:
    """Write a synthetic export: ``kernels`` names, ``launches`` rows on 2 GPUs, durations 2 to 200 us."""
    rng = random.Random(seed)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, f"kernel_{i}") for i in range(kernels)])
    db.execute(f"CREATE TABLE {KERNELS} ({', '.join(f'{c!r} INTEGER' for c in KERNEL_COLUMNS)})")
    db.execute("CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT)")
    db.executemany("INSERT INTO TARGET_INFO_GPU VALUES (?, ?)", [(0, "Synthetic GPU 0"), (1, "Synthetic GPU 1")])
    clock = [0, 0]

    def rows():  # noqa: ANN202 - a generator of rows for executemany
        for i in range(launches):
            device, name = i % 2, rng.randrange(kernels)
            duration = rng.randint(2_000, 200_000)
            clock[device] += rng.randint(-1_000, 5_000) + duration // 2  # some launches overlap the previous
            start = clock[device]
            yield (start, start + duration, device, 1, i % 4, i, GLOBAL_PID, name, name, 32, 80, 1, 1, 256, 1, 1)

    db.executemany(f"INSERT INTO {KERNELS} VALUES ({', '.join('?' * len(KERNEL_COLUMNS))})", rows())
    db.commit()
    db.close()


def run_cli(path: Path, out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MiB) of one ``roofline timeline`` of ``path`` to JSON, in a process of its own."""
    argv = [sys.executable, "-m", "roofline", "timeline", str(path), "-f", "json", "-o", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)  # this checkout
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"roofline timeline failed ({proc.returncode}): {err.strip()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def floor(path: Path) -> tuple[float, float]:
    """(wall s, CPU s) of SQLite's GROUP BY of the kernel table (``FLOOR``), in this process."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        db.execute(FLOOR).fetchall()
        return time.perf_counter() - t0, time.process_time() - c0
    finally:
        db.close()


def launches_in(document: Path) -> int:
    """The launches a timeline JSON document counts."""
    import json

    return sum(k["count"] for t in json.loads(document.read_text())["timelines"] for k in t["kernels"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--source", type=Path, default=SOURCE, help="the real export whose kernel rows are repeated")
    parser.add_argument("--synthetic", action="store_true", help="a synthetic export instead of a repeated one")
    parser.add_argument("--kernels", type=int, default=200, help="kernels of the synthetic export")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the export here and keep it")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-timeline-") as tmp:
        path = args.keep or Path(tmp) / "timeline.sqlite"
        t0 = time.perf_counter()
        if args.synthetic or not args.source.is_file():
            make_export(path, args.launches, args.kernels)
            made = f"synthetic, {args.kernels} kernels on 2 GPUs"
        else:
            repeat_export(args.source, path, args.launches)
            made = f"kernel rows of {args.source.name} repeated"
        print(f"export: {args.launches:,} launches ({made}), {path.stat().st_size / 2**20:.0f} MiB, written in "
              f"{time.perf_counter() - t0:.1f} s")
        out = Path(tmp) / "timeline.json"
        run_cli(path, out)  # warm-up: bytecode, page cache
        runs = [run_cli(path, out) for _ in range(args.runs)]
        counted = launches_in(out)
        floors = [floor(path) for _ in range(args.runs)]
    seconds, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    mib = max(r[2] for r in runs)
    ok = seconds <= TARGET_S and mib <= TARGET_MIB and counted == args.launches
    print(f"roofline timeline -f json: {seconds:.2f} s wall (target {TARGET_S:.0f} s), {cpu:.2f} s CPU, peak "
          f"{mib:.0f} MiB (target {TARGET_MIB:.0f} MiB); medians of {args.runs}, {counted:,} launches counted")
    print(f"SQLite GROUP BY of the kernel table: {statistics.median(f[0] for f in floors):.2f} s wall, "
          f"{statistics.median(f[1] for f in floors):.2f} s CPU; load average {os.getloadavg()[0]:.1f}: "
          f"{'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
