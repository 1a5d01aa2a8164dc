"""Time `summary`, `compare` and `diff` of report models of 10,000 launches (more on request) against `json.load`
of the same files, each in a fresh process. The target: the times at 10,000 launches recorded in
docs/benchmarks.md, kept within 5% by a change (measured side by side with the code before it).

The models are built from the launches of a real full-set report in ../shared/ncu-reps (the metrics roofline
reads, as a model written from that report holds them): every generated launch copies one of its launches, is
given one of KERNELS kernel names (a few hot ones, as in a training step) and has its amounts (time, counts,
bytes) scaled by a per-kernel size and a per-launch jitter, its percentages jittered. The NEW model of a pair is
the same application with its own jitter and some kernels slower. Rule results are left out.

ncu replays each launch it profiles, so real reports hold up to about 10,000 launches: that is the size measured
by default; 100,000 and 1,000,000 launches can be asked for (--sizes) to see how the commands scale.

Run: python benchmarks/bench_models.py [--sizes 10000 100000 1000000] [--commands summary compare diff]
                                       [--repeat 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from roofline.core.model import LAUNCH_FIELDS

REPORTS = Path(__file__).resolve().parents[1].parent / "shared" / "ncu-reps"
TEMPLATE = "rtx4070ti_pytorch-sim_full.ncu-rep"  # full set, several kernels of a PyTorch application
KERNELS = 200  # distinct kernel names in a generated application
# amounts scale with a kernel's size; rates, peaks, clocks, percentages and launch shapes do not
AMOUNT_SUFFIXES = (".sum",)
AMOUNT_NAMES = ("gpu__time_duration.sum", "sm__cycles_elapsed.avg")
PERCENT_MARK = "pct"
COMMANDS = ("summary", "compare", "diff")


def template_launches(report: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The device and the launches of a real report, one object per launch with the metrics roofline reads."""
    import roofline
    from roofline.ncu import metrics as m

    data = roofline.load(report).to_dict()
    columns = data.pop("launches")
    keep = set(m.to_read(columns["metrics"]))
    fields = [key for key in LAUNCH_FIELDS if key != "metrics"]
    launches = [{**{key: columns[key][i] for key in fields}, "rules": [],
                 "metrics": {name: column[i] for name, column in columns["metrics"].items()
                             if name in keep and column[i] is not None}} for i in range(columns["count"])]
    return data, launches


def _is_amount(name: str) -> bool:
    return name in AMOUNT_NAMES or (name.endswith(AMOUNT_SUFFIXES) and not name.startswith("launch__"))


def _vary(metrics: dict[str, Any], size: float, rng: random.Random) -> dict[str, Any]:
    """One launch's metrics: amounts x size x jitter, percentages jittered within 0..100."""
    jitter = size * rng.uniform(0.9, 1.1)
    out: dict[str, Any] = {}
    for name, value in metrics.items():
        if isinstance(value, float | int) and not isinstance(value, bool):
            if _is_amount(name):
                value = float(value) * jitter
            elif PERCENT_MARK in name:
                value = min(100.0, max(0.0, float(value) * rng.uniform(0.95, 1.05)))
        out[name] = value
    return out


def launches_of(templates: Sequence[dict[str, Any]], count: int, seed: int, slower: float) -> Iterator[dict[str, Any]]:
    """``count`` launches over KERNELS kernels; kernels k % 5 == 0 run ``slower`` times longer."""
    rng = random.Random(seed)
    shape = random.Random(7)  # the application's kernels are the same in both models of a pair
    kernels = [(templates[k % len(templates)], 2.0 ** shape.uniform(-3, 3)) for k in range(KERNELS)]
    weights = [1.0 / (k + 1) for k in range(KERNELS)]
    for index, k in enumerate(rng.choices(range(KERNELS), weights=weights, k=count)):
        base, size = kernels[k]
        item = dict(base)
        item["action_index"] = index
        item["name"] = f"{base['name']}_{k:03d}"
        item["demangled_name"] = f"{item['name']}(float *, int)"
        item["nvtx_ranges"] = [f"step {index // 5000}", f"layer_{k % 12}"]
        item["metrics"] = _vary(base["metrics"], size * (slower if k % 5 == 0 else 1.0), rng)
        yield item


def write_model(path: Path, device_doc: dict[str, Any], templates: Sequence[dict[str, Any]], count: int, seed: int,
                slower: float = 1.0) -> None:
    """A report model (version 2: launches by column) of ``count`` launches, written one column at a time."""
    fields: dict[str, list[Any]] = {key: [] for key in LAUNCH_FIELDS if key != "metrics"}
    metrics: dict[str, list[Any]] = {name: [] for name in dict.fromkeys(n for t in templates for n in t["metrics"])}
    for item in launches_of(templates, count, seed, slower):
        for key, column in fields.items():
            column.append(item[key])
        values = item["metrics"]
        for name, column in metrics.items():
            column.append(values.get(name))
    head = {**device_doc, "label": f"benchmark model, {count} launches"}
    with path.open("w") as out:
        out.write(json.dumps(head)[:-1] + f', "launches": {{"count": {count}')
        for key, column in fields.items():
            out.write(f", {json.dumps(key)}: {json.dumps(column)}")
        out.write(', "metrics": {' + ", ".join(f"{json.dumps(name)}: {json.dumps(column)}"
                                               for name, column in metrics.items()) + "}}}")


def run_measured(argv: Sequence[str]) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of a fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: diff's gate failed, as the slower NEW model makes it
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return elapsed, usage.ru_maxrss / 1024.0


def commands(base: Path, new: Path, out: Path) -> dict[str, list[list[str]]]:
    """Per command: the roofline run and the json.load of the same files."""
    py = sys.executable
    load = "import json, sys\nkept = [json.load(open(f)) for f in sys.argv[1:]]"  # both files held, as compared
    roofline = [py, "-m", "roofline"]
    return {
        "summary": [[*roofline, "summary", str(base), "--format", "json", "-o", str(out)],
                    [py, "-c", load, str(base)]],
        "compare": [[*roofline, "compare", str(base), str(new), "--format", "json", "-o", str(out)],
                    [py, "-c", load, str(base), str(new)]],
        "diff": [[*roofline, "diff", str(base), str(new), "--format", "json", "-o", str(out)],
                 [py, "-c", load, str(base), str(new)]],
    }


def bench_size(size: int, folder: Path, device_doc: dict[str, Any], templates: Sequence[dict[str, Any]],
               repeat: int, names: Sequence[str]) -> None:
    """Write the pair of models of ``size`` launches, time each command against json.load."""
    from roofline.ncu.reader import model_max_bytes

    sample = folder / "sample.json"
    write_model(sample, device_doc, templates, 1000, 3)
    per_launch = sample.stat().st_size / 1000
    if per_launch * size > model_max_bytes():
        print(f"\n{size:,} launches: skipped, a model would be {per_launch * size / 1e9:.1f} GB, over the "
              f"{model_max_bytes() / 1e9:.1f} GB this machine parses (reader.model_max_bytes)")
        return
    base, new = folder / f"base-{size}.json", folder / f"new-{size}.json"
    for path, seed, slower in ((base, 1, 1.0), (new, 2, 1.3)):
        if not path.exists():
            write_model(path, device_doc, templates, size, seed, slower)
    mb = (base.stat().st_size + new.stat().st_size) / 2 / 1e6
    print(f"\n{size:,} launches ({mb:.0f} MB per model), median of {repeat} runs, alternating")
    print(f"{'command':8} {'time s':>8} {'json s':>8} {'ratio':>6} {'peak MB':>8} {'json MB':>8} {'ratio':>6}")
    for name, (tool, floor) in commands(base, new, folder / "out.json").items():
        if name not in names:
            continue
        runs: list[tuple[tuple[float, float], tuple[float, float]]] = [
            (run_measured(tool), run_measured(floor)) for _ in range(repeat)]
        t, t0 = (statistics.median(r[i][0] for r in runs) for i in (0, 1))
        mem, mem0 = (statistics.median(r[i][1] for r in runs) for i in (0, 1))
        print(f"{name:8} {t:8.2f} {t0:8.2f} {t / t0:6.2f} {mem:8.0f} {mem0:8.0f} {mem / mem0:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000],
                        help="launches per model (10,000 by default: about the most an ncu report holds; larger sizes "
                             "are measured on request, without a target)")
    parser.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (3 at 1,000,000 launches)")
    parser.add_argument("--keep", type=Path, help="folder to write the models into and keep them (reused)")
    parser.add_argument("--template", type=Path, default=REPORTS / TEMPLATE, help="the real report to derive from")
    args = parser.parse_args()
    device_doc, templates = template_launches(args.template)
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; template {args.template.name} "
          f"({len(templates)} launches, {statistics.median(len(t['metrics']) for t in templates):.0f} metrics each)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            bench_size(size, folder, device_doc, templates, min(args.repeat, 3) if size >= 1_000_000 else args.repeat,
                       args.commands)


if __name__ == "__main__":
    main()
