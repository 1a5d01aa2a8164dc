"""The cross-generation cases of issue 12 as report models: the real RTX 4070 Ti report of a PyTorch-launched
application (``rtx4070ti_pytorch-sim_full``, ncu 2024.1.0) and the same application on an H100 PCIe at a larger
problem size, which ../shared/ncu-reps does not hold. That second report is built here from the first: every launch
keeps its metrics, with

* the H100 PCIe's device attributes, peak counters and clocks, taken from the real H100 PCIe report
  (``h100-pcie_rmsnorm-float4_full-roofline``, ncu 2025.1.0);
* the work of the larger problem, as the issue quotes it: linspace on a 547 x 547 grid (16 x 16 on the RTX 4070 Ti)
  with 28.7 M FLOPs (24 k there) in 2.04 ms; the other kernels scaled by the same number of elements (547^2 / 16^2),
  their counters set as plain counts (``X.sum``, which the reader takes first);
* the verdict inputs (SpeedOfLight throughputs, waves) each kernel would plausibly have there, set per kernel below.

Every value the tests expect is computed from these numbers, not from the code under test.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from roofline.core.model import KernelLaunch, Report
from roofline.ncu.metrics import INSTRUCTIONS, WAVES, counter

RTX4070TI = "rtx4070ti_pytorch-sim_full"
H100_SOURCE = "h100-pcie_rmsnorm-float4_full-roofline"
ELEMENTS = (547 * 547) / (16 * 16)  # the larger problem over the smaller one
LINSPACE_FLOPS = (23936.0, 28.7e6)  # FP32 FLOPs per launch, RTX 4070 Ti and H100 (the "24 k vs 28.7 M")
SM_PCT, MEM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed", \
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
RATE_SUFFIXES = (".sum.per_cycle_elapsed", ".sum.per_second")
# per kernel on the H100: (time per launch s, grid, SM %, memory %, waves per SM). linspace's time is the issue's;
# the others are plausible for 1169x the elements (memory-bound fills and scans, an FP64-bound fill_vector).
H100_LAUNCHES = {
    "linspace": (2.04e-3, (547, 547, 1), 20.0, 65.0, 18.7),
    "fill_vector": (95e-6, (547, 547, 1), 70.0, 20.0, 18.7),
    "generate_encoded_signal": (1.1e-3, (547, 547, 1), 25.0, 70.0, 18.7),
    "_kernel_agent": (1.3e-3, (2338, 1, 1), 15.0, 82.0, 2.6),
    "DeviceScanInitKernel": (3.1e-6, (1247, 1, 1), 1.0, 2.0, 0.68),
    "DeviceScanKernel": (1.6e-3, (159505, 1, 1), 30.0, 85.0, 87.0),
}


def h100_model(rtx: Report, h100: Report, ncu_version: str = "2025.1.0.0") -> Report:
    """The RTX 4070 Ti application on an H100 PCIe at the larger problem size (see the module docstring)."""
    roofs = {k: v for k, v in h100.launches[0].metrics.items()
             if k.endswith(".peak_sustained") or k.endswith("cycles_elapsed.avg.per_second")}
    launches = tuple(_scaled(k, roofs) for k in rtx.launches)
    return Report(path="h100-pcie_pytorch-sim_larger.json", device=h100.device, launches=launches, source="model",
                  label="RTX 4070 Ti application scaled to an H100 PCIe (test model)", ncu_version=ncu_version)


def _scaled(launch: KernelLaunch, roofs: dict[str, float | str | None]) -> KernelLaunch:
    duration, grid, sm, mem, waves = H100_LAUNCHES[launch.name]
    scale = LINSPACE_FLOPS[1] / LINSPACE_FLOPS[0] if launch.name == "linspace" else ELEMENTS
    counts = {}
    for key in launch.metrics:
        if key.endswith(RATE_SUFFIXES):
            base = key.split(".sum.")[0]
            counts[f"{base}.sum"] = (counter(launch, base).value or 0.0) * scale
    metrics = {k: v for k, v in launch.metrics.items() if not k.endswith(RATE_SUFFIXES)}
    metrics.update(roofs)
    metrics.update(counts)
    if isinstance(launch.metrics.get(INSTRUCTIONS), float):
        metrics[INSTRUCTIONS] = float(launch.metrics[INSTRUCTIONS] or 0.0) * scale
    metrics.update({"gpu__time_duration.sum": duration * 1e9, SM_PCT: sm, MEM_PCT: mem, WAVES: waves,
                    "launch__grid_dim_x": float(grid[0]), "launch__grid_dim_y": float(grid[1]),
                    "launch__grid_dim_z": float(grid[2]), "launch__grid_size": float(grid[0] * grid[1] * grid[2])})
    return msgspec.structs.replace(launch, grid=grid, metrics=metrics)


def slowed(report: Report, name: str, factor: float, path: str) -> Report:
    """The same report with one kernel's launches ``factor`` times longer (the same work, on the same GPU)."""
    return retimed(report, lambda k: factor if k.name == name else 1.0, path)


def retimed(report: Report, factor: Callable[[KernelLaunch], float], path: str) -> Report:
    """The same report with each launch's time (and its per-second rates, so the counts stay) scaled."""
    def one(k: KernelLaunch) -> KernelLaunch:
        f = factor(k)
        metrics = {key: v / f if key.endswith(RATE_SUFFIXES) and isinstance(v, float) else v
                   for key, v in k.metrics.items()}
        metrics["gpu__time_duration.sum"] = float(k.metrics["gpu__time_duration.sum"] or 0.0) * f
        return msgspec.structs.replace(k, metrics=metrics)

    return msgspec.structs.replace(report, path=path, launches=tuple(one(k) for k in report.launches))
