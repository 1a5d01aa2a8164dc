"""Today's JSON output of `report`, `summary`, `compare` and `diff` on the real reports, pinned as test data
(tests/data/pinned/*.json.gz) so a change of how the figures are computed shows every number it moves.

Regenerate (only when a change of output is intended, with the reason in the commit), from the repository root:
    python -m tests.pinned_cases
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from roofline.cli.app import app

REPO = Path(__file__).resolve().parents[1]
PINNED = REPO / "tests" / "data" / "pinned"
SHARED = Path("..") / "shared" / "ncu-reps"  # relative to the repository root, as the documents name it
EXAMPLE = Path("examples") / "h100-sxm_synthetic.roofline.json"
IGNORED = ("generator", "tool")  # the tool's version, not a result
# (case name, command line after `roofline`, without --format/-o): a few real pairs for the comparisons
COMPARISONS = (
    ("summary-a100-selfjoin", ["summary", str(SHARED / "a100-40gb_selfjoin-cub-sort-154launches_basic.ncu-rep")]),
    ("summary-rtx2070super-alife-nvtx", ["summary", "--by", "nvtx", "--top", "50",
                                         str(SHARED / "rtx2070super_alife-143launches_basic.ncu-rep")]),
    ("summary-several", ["summary", str(SHARED / "a10_linear-fp16-105launches_basic.ncu-rep"),
                         str(SHARED / "rtx5060ti_transpose-occupancy-45launches_metrics.ncu-rep"), str(EXAMPLE)]),
    ("compare-rtx3080-rtx4090-family", ["compare", "--match", "family",
                                         str(SHARED / "rtx3080_sgemm-vs-cublas_full.ncu-rep"),
                                         str(SHARED / "rtx4090_torch-linear-sgemm_custom.ncu-rep")]),
    ("compare-a100-a10g-sgemm", ["compare", "--match", "family", str(SHARED / "a100-40gb_cublas-sgemm_basic.ncu-rep"),
                                 str(SHARED / "a10g_sgemm-progression_basic.ncu-rep")]),
    ("compare-rtx5060ti-transpose", ["compare", "--match", "order",
                                     str(SHARED / "rtx5060ti_transpose_basic.ncu-rep"),
                                     str(SHARED / "rtx5060ti_transpose-occupancy-45launches_metrics.ncu-rep")]),
    ("diff-rtx3080-rtx4090-family", ["diff", "--allow-different-gpu", "--match", "family",
                                     str(SHARED / "rtx3080_sgemm-vs-cublas_full.ncu-rep"),
                                     str(SHARED / "rtx4090_torch-linear-sgemm_custom.ncu-rep")]),
    ("diff-a10g-sgemm", ["diff", "--match", "family", str(SHARED / "a10g_sgemm-blocktiling_roofline.ncu-rep"),
                         str(SHARED / "a10g_sgemm-progression_basic.ncu-rep")]),
    ("diff-rtx5060ti-transpose", ["diff", "--match", "order", str(SHARED / "rtx5060ti_transpose_basic.ncu-rep"),
                                  str(SHARED / "rtx5060ti_transpose-occupancy-45launches_metrics.ncu-rep")]),
)


def cases() -> Iterator[tuple[str, list[str]]]:
    """Every pinned case: `report` of each shared report and of the shipped example, then the comparisons."""
    for path in sorted((REPO / SHARED).glob("*.ncu-rep")):
        yield f"report-{path.stem}", ["report", str(SHARED / path.name)]
    yield "report-example", ["report", str(EXAMPLE)]
    yield from COMPARISONS


def run_case(argv: list[str], out: Path) -> dict[str, Any]:
    """The JSON document of one command, run in this process from the repository root, minus IGNORED keys."""
    here = Path.cwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(app, [*argv, "--format", "json", "-o", str(out)])
    finally:
        os.chdir(here)
    if not out.exists():
        raise AssertionError(f"roofline {' '.join(argv)} wrote nothing (exit {result.exit_code}): {result.output}")
    document = json.loads(out.read_text())
    out.unlink()
    return {k: v for k, v in document.items() if k not in IGNORED}


def pinned(name: str) -> Any:
    """The pinned document of one case."""
    with gzip.open(PINNED / f"{name}.json.gz", "rt") as f:
        return json.load(f)


def regenerate() -> None:
    """Write every case's document under tests/data/pinned (the old files removed first)."""
    PINNED.mkdir(parents=True, exist_ok=True)
    for old in PINNED.glob("*.json.gz"):
        old.unlink()
    scratch = PINNED / "scratch.json"
    for name, argv in cases():
        document = run_case(argv, scratch)
        with gzip.GzipFile(PINNED / f"{name}.json.gz", "wb", mtime=0) as f:
            f.write(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())
        print(name)


if __name__ == "__main__":
    regenerate()
