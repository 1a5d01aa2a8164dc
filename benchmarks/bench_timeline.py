"""Time `roofline timeline`'s reader on a synthetic nsys SQLite export of 1,000,000 kernel launches (target: at most
2 s and 1 GB of peak memory on a 2-core machine; the reader aggregates in SQLite, never one Python object a row).

Run: python benchmarks/bench_timeline.py [--launches N] [--kernels K] [--keep FILE]. The export holds the tables
and columns the reader uses, as nsys 2024.6 names them (``StringIds``, ``CUPTI_ACTIVITY_KIND_KERNEL``,
``TARGET_INFO_GPU``), with 2 GPUs, 4 streams and launches that overlap; it is a benchmark input, not a profile.
The peak memory is the process's maximum resident set (``ru_maxrss``), measured in a fresh child process that only
reads the export; the CPU time and the load average are printed beside the wall time, which other work on the
machine lengthens.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 2.0
TARGET_MB = 1000.0
KERNEL_COLUMNS = ("start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
                  "demangledName", "shortName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY",
                  "blockZ")
GLOBAL_PID = 322425493389312


def make_export(path: Path, launches: int, kernels: int, seed: int = 1) -> None:
    """Write a synthetic export: ``kernels`` names, ``launches`` rows on 2 GPUs, durations 2 to 200 us."""
    rng = random.Random(seed)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, f"kernel_{i}") for i in range(kernels)])
    db.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(f'{c!r} INTEGER' for c in KERNEL_COLUMNS)})")
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

    db.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({', '.join('?' * len(KERNEL_COLUMNS))})", rows())
    db.commit()
    db.close()


READ = """
import resource, sys, time
from pathlib import Path
from roofline.nsys.timeline import read_timeline
t0, c0 = time.perf_counter(), time.process_time()
timeline = read_timeline(Path(sys.argv[1]))
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(seconds, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(timeline.kernels),
      sum(k.count for k in timeline.kernels))
"""


def measure(path: Path) -> tuple[float, float, float, int, int]:
    """(wall seconds, CPU seconds, peak MB, kernels, launches) of one read of ``path`` in a fresh Python process."""
    out = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True, text=True, check=True).stdout
    seconds, cpu, mb, kernels, launches = out.split()
    return float(seconds), float(cpu), float(mb), int(kernels), int(launches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="write the export here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "synthetic.sqlite"
        t0 = time.perf_counter()
        make_export(path, args.launches, args.kernels)
        print(f"export: {args.launches:,} launches of {args.kernels} kernels, {path.stat().st_size / 2**20:.0f} MiB, "
              f"written in {time.perf_counter() - t0:.1f} s")
        seconds, cpu, mb, kernels, launches = measure(path)
    ok = seconds <= TARGET_S and mb <= TARGET_MB and launches == args.launches
    print(f"read_timeline: {seconds:.2f} s (target {TARGET_S:.0f} s; {cpu:.2f} s of CPU, load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores), peak memory {mb:.0f} MB (target "
          f"{TARGET_MB:.0f} MB), {kernels} kernels, {launches:,} launches counted: {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
