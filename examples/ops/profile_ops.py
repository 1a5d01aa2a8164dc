"""Profile the standard single-operator workloads with ``roofline analyze``, one report per workload.

For each workload id of the YAML, in file order, this runs

    roofline analyze --set none --section SpeedOfLight ... --clock-control none --nvtx-include ID/
        -o OUT/ID examples/ops/run_ops.py --workloads YAML --id ID

(the sections the analysis reads, nothing else, so the reports stay small; the clocks left as users run them),
keeps each run's output in ``OUT/ID.log``, and stops starting new runs once ``--deadline`` seconds have passed, so
a fixed GPU lease is never overrun: the workloads left out are listed in ``OUT/profile-ops.tsv`` with the
others' exit code, seconds and report size.

    python examples/ops/profile_ops.py --workloads ../shared/workloads/single-ops.yaml --out examples/h100/ops
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN_OPS = HERE / "run_ops.py"
# What the analysis reads: the SpeedOfLight breakdowns (the verdict), FLOPs and bytes per level for FP32 and for
# the Tensor Cores (TF32 convolutions), launch configuration and occupancy.
SECTIONS = ("SpeedOfLight", "SpeedOfLight_HierarchicalSingleRooflineChart",
            "SpeedOfLight_HierarchicalTensorRooflineChart", "LaunchStats", "Occupancy")


def analyze_command(workload_id: str, workloads: Path, out: Path) -> list[str]:
    """The roofline analyze command line that profiles one workload."""
    sections = [arg for section in SECTIONS for arg in ("--section", section)]
    return [sys.executable, "-m", "roofline", "analyze", "--set", "none", *sections, "--clock-control", "none",
            "--nvtx-include", f"{workload_id}/", "-o", str(out / workload_id), str(RUN_OPS),
            "--workloads", str(workloads), "--id", workload_id]


def run_logged(command: list[str], log_path: Path, timeout: float) -> int | str:
    """Run one command with its output in ``log_path``; past ``timeout`` seconds its whole process group is killed
    (roofline, ncu and the application alike) and the answer is "timeout"."""
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return "timeout"


def workload_ids(workloads: Path) -> list[str]:
    """The ids of the YAML, in file order (through run_ops.py's own reader)."""
    sys.path.insert(0, str(HERE))
    import run_ops

    return [w.id for w in run_ops.load_workloads(workloads)]


def main(argv: list[str]) -> int:
    """Profile every workload (or those named) until the deadline; write the summary table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--deadline", type=float, default=420.0, help="start no run after this many seconds")
    parser.add_argument("--only", nargs="*", help="these ids only")
    parser.add_argument("--run-timeout", type=float, default=120.0, help="seconds one workload's run may take")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ids = [i for i in workload_ids(args.workloads) if not args.only or i in args.only]
    start, rows = time.monotonic(), ["id\texit\tseconds\treport_bytes"]
    for workload_id in ids:
        if time.monotonic() - start > args.deadline:
            rows.append(f"{workload_id}\tleft out: GPU time\t\t")
            continue
        began = time.monotonic()
        code = run_logged(analyze_command(workload_id, args.workloads, args.out), args.out / f"{workload_id}.log",
                          args.run_timeout)
        report = args.out / f"{workload_id}.ncu-rep"
        size = report.stat().st_size if report.exists() else 0
        rows.append(f"{workload_id}\t{code}\t{time.monotonic() - began:.1f}\t{size}")
        print(rows[-1], flush=True)
    (args.out / "profile-ops.tsv").write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
