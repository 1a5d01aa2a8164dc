"""Print the Markdown table of the single-operator reports: per workload its kernels, their time, the verdict and
the busiest unit as ``roofline report`` gives them (its JSON), and the total.

    python examples/ops/make_table.py examples/h100/ops/*.json

``tests/test_ops_examples.py`` checks that the table in examples/README.md equals what this prints.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from roofline.core.units import middle_cut, pct, seconds

NAME_WIDTH = 48  # kernel names cut in the middle, as the report table cuts them
HEADER = ["| workload | kernel | time | bound | busiest unit |", "| --- | --- | ---: | --- | --- |"]


def report_json(paths: list[Path]) -> dict[str, Any]:
    """``roofline report -f json`` of the files, as the CLI writes it."""
    command = [sys.executable, "-m", "roofline", "report", "-f", "json", *map(str, paths)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def kernel_row(workload: str, kernel: dict[str, Any]) -> str:
    """One kernel's row: short name, time, bound, busiest unit at its percent of peak."""
    busiest = (kernel.get("verdict") or {}).get("busiest") or {}
    unit = f"{busiest['name']} {pct(busiest['pct'])}" if busiest else "n/a"
    name = middle_cut(kernel["name"], NAME_WIDTH)
    return f"| {workload} | `{name}` | {seconds(kernel['duration_s'])} | {kernel['bound']} | {unit} |"


def table(document: dict[str, Any]) -> list[str]:
    """The table's lines: every kernel of every report, each workload's total, then the total of all."""
    lines, total = list(HEADER), 0.0
    for report in document["reports"]:
        workload = Path(report["path"]).name.removesuffix(".json")
        for kernel in report["kernels"]:
            lines.append(kernel_row(workload, kernel))
        lines.append(f"| {workload} | **total** | **{seconds(report['total_time_s'])}** | | |")
        total += report["total_time_s"]
    lines.append(f"| **all {len(document['reports'])} workloads** | | **{seconds(total)}** | | |")
    return lines


def main(argv: list[str]) -> int:
    """Print the table for the report files named."""
    print("\n".join(table(report_json([Path(a) for a in argv]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
