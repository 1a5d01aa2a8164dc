"""The measured error of the projection (``roofline project``, ``compare --project-to``): every pair of reports of
the same kernels on two GPUs the project has, each projected from one GPU onto the other and compared with the
time measured there.

Pairs: examples/h100 and examples/h200 (the same programs and commands profiled on an H100 SXM and an H200, ncu
2025.3), in both directions; each kernel is paired by name, and pairs whose work differs beyond the tolerance
are left out (they are not the same kernel run). ../shared/ncu-reps holds no kernel with the same work on two
GPUs (its few shared names, PyTorch's random fill and cuBLAS SGEMM, run other sizes), and the H200's
sgemm-lineinfo.full runs 2048^3 where the H100's SGEMM runs 4096^3, so no pair comes from those. The error of a
kernel is projected / measured - 1; the interval covers it when low_s <= measured <= high_s. The projections are at
the target's base clock (``--clock base``): the time ncu measured there is at the clock it locks while profiling.

Run: python benchmarks/bench_projection.py [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

import roofline
from roofline.compare.pairing import PairOptions, pair_reports
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.specs.catalog import load_catalog

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GPUS = ("h100", "h200")  # folders of examples/ with the same programs profiled on two GPUs
GOVERNED = ("compute", "memory")  # the verdicts the target (median error within 25%) is stated for


@dataclass(frozen=True)
class Row:
    """One kernel projected from ``source`` onto the GPU of ``target``, against the time measured there."""

    source: str
    target: str
    kernel: str
    bound: str
    governing: str
    measured_source_s: float
    projected_s: float
    low_s: float
    high_s: float
    measured_s: float

    @property
    def error(self) -> float:
        return self.projected_s / self.measured_s - 1.0

    @property
    def covered(self) -> bool:
        return self.low_s <= self.measured_s <= self.high_s


def pairs() -> list[tuple[Path, Path]]:
    """Reports of one name in both GPU folders, each direction."""
    first, second = (EXAMPLES / g for g in GPUS)
    common = sorted(p.name for p in first.iterdir() if (second / p.name).is_file() and not p.name.endswith(".md"))
    return [(a / name, b / name) for name in common for a, b in ((first, second), (second, first))]


def project_pair(source: Path, target: Path) -> list[Row]:
    """Each kernel of ``source`` (same work in ``target``) projected onto ``target``'s GPU."""
    options = AnalysisOptions(diagnostics=False)
    analyses = [analyze_loaded(roofline.load(p), options) for p in (source, target)]
    spec = load_catalog().get(analyses[1].spec_id or "")
    rows = []
    for pair in pair_reports(analyses, project_to=spec, options=PairOptions(clock="base")).pairs:
        there, check, proj = pair.sides[1], pair.work[1], pair.projections[0]
        if there is None or proj is None or (check is not None and check.different):
            continue
        values = (pair.base.median_s.value, proj.projected_s.value, proj.low_s.value, proj.high_s.value,
                  there.median_s.value)
        if any(v is None for v in values):
            continue
        rows.append(Row(f"{source.parent.name}/{source.name}", target.parent.name, pair.label,
                        pair.base.verdict.bound or "n/a", proj.governing or "n/a", *values))  # type: ignore[arg-type]
    return rows


@dataclass(frozen=True)
class Summary:
    """The median and worst absolute error of some kernels, and the share their intervals cover."""

    kernels: int
    median_abs_error: float
    worst_abs_error: float
    covered: float


def summary(rows: list[Row]) -> Summary | None:
    """None for no kernel."""
    if not rows:
        return None
    errors = [abs(r.error) for r in rows]
    return Summary(len(rows), statistics.median(errors), max(errors), sum(r.covered for r in rows) / len(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the rows and the summary as JSON")
    args = parser.parse_args()
    rows = [row for source, target in pairs() for row in project_pair(source, target)]
    governed = [r for r in rows if r.bound in GOVERNED]
    if args.json:
        print(json.dumps({"rows": [{**r.__dict__, "error": r.error, "covered": r.covered} for r in rows],
                          **{key: s.__dict__ if s else None for key, s in (
                              ("all", summary(rows)), ("compute_and_memory_bound", summary(governed)))}}, indent=1))
        return
    print(f"{'source':34} {'->':5} {'kernel':28} {'bound':8} {'by':12} {'measured':>9} {'projected':>9} "
          f"{'there':>9} {'error':>7} covered")
    for r in rows:
        print(f"{r.source:34} {r.target:5} {r.kernel[:28]:28} {r.bound:8} {r.governing:12} "
              f"{r.measured_source_s * 1e6:8.1f}u {r.projected_s * 1e6:8.1f}u {r.measured_s * 1e6:8.1f}u "
              f"{100 * r.error:+6.1f}% {'yes' if r.covered else 'NO'}")
    for name, subset in (("all", rows), ("compute- and memory-bound", governed)):
        s = summary(subset)
        if s is not None:
            print(f"{name}: {s.kernels} kernels, median |error| {100 * s.median_abs_error:.1f}%, "
                  f"worst {100 * s.worst_abs_error:.1f}%, interval covers {100 * s.covered:.0f}%")


if __name__ == "__main__":
    main()
