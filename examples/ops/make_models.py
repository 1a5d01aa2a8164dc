"""Write the report model (``Report.to_dict()``, read by every command like the report) of each ``.ncu-rep`` given.

The single-operator reports are 0.8 to 48 MB each, almost all of it the cuBLAS or cuDNN module ncu stores with a
kernel (naming fewer sections does not shrink them: op01 is 2,350,057 bytes with five sections, 2,353,399 with
``--set roofline``). Their models hold every metric the analysis reads, the NVTX ranges and ncu's rule results, in
30 to 60 kB.

    python examples/ops/make_models.py --out examples/h100/ops REPORT.ncu-rep...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import roofline


def model_label(report: Path, device: str, ncu_version: str) -> str:
    """The label a model carries: what it was made from, on which GPU, with which ncu."""
    size_mb = report.stat().st_size / 1e6
    return (f"model of {report.name} ({size_mb:.1f} MB), profiled on an {device} with ncu {ncu_version} "
            "(examples/README.md)")


def write_model(report: Path, out: Path) -> Path:
    """Write ``out/<stem>.json`` for one report; refuse to overwrite an existing file."""
    loaded = roofline.load(report)
    data = loaded.to_dict()
    data["label"] = model_label(report, loaded.device.name, ".".join(loaded.ncu_version.split(".")[:3]))
    target = out / f"{report.stem}.json"
    with open(target, "x") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    return target


def main(argv: list[str]) -> int:
    """Convert every report named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("reports", type=Path, nargs="+")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for report in args.reports:
        print(write_model(report, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
