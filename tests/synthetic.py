"""Synthetic report models for the comparison tests (pairing, regression gate, ranking): two made-up GPUs
whose peaks are set here, launches with plain counters, and a device spec YAML for projections. Every
expected value in those tests is computed from these numbers, independently of the code under test."""

from __future__ import annotations

from pathlib import Path

from roofline.core.model import Device, KernelLaunch, Report

REL = 1e-9
REPO = Path(__file__).resolve().parents[1]
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on"
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"

# Two synthetic GPUs: FP32 peak = 2 x ffma peak per cycle x SM clock, DRAM = bytes per cycle x DRAM clock.
OLD_GPU = {"ffma_peak": 1000.0, "sm_clock": 1.0e9, "dram_peak": 100.0, "dram_clock": 1.0e9}  # 2 TFLOP/s, 100 GB/s
NEW_GPU = {"ffma_peak": 4000.0, "sm_clock": 1.5e9, "dram_peak": 300.0, "dram_clock": 1.0e9}  # 12 TFLOP/s, 300 GB/s

TEST_SPEC = """\
id: compare-test-gpu
display_names: ["Compare Test GPU"]
architecture: Test
compute_capability: "9.0"
sm_count: {value: 100, source: test fixture}
boost_clock_hz: {value: 2.0e+9, source: test fixture}
fp32_lanes_per_sm: {value: 128, source: test fixture}
memory:
  type: HBM3
  bytes: {value: 80000000000, source: test fixture}
  bandwidth_bytes_per_s: {value: 3.0e+12, source: test fixture}
l2_bytes: {value: 50000000, source: test fixture}
peaks:
  fp64: {value: 25.6e+12, source: test fixture}
  fp32: {value: 51.2e+12, source: test fixture}
"""
SPEC_FP32, SPEC_FP64, SPEC_DRAM = 51.2e12, 25.6e12, 3.0e12


def write_spec(folder: Path) -> Path:
    """A device spec YAML for projections (id compare-test-gpu); returns its folder for --specs."""
    (folder / "compare-test-gpu.yaml").write_text(TEST_SPEC)
    return folder


def peak_fp32(gpu: dict) -> float:
    return 2.0 * gpu["ffma_peak"] * gpu["sm_clock"]


def peak_dram(gpu: dict) -> float:
    return gpu["dram_peak"] * gpu["dram_clock"]


COMPUTE_BOUND = (85.0, 30.0)  # SpeedOfLight SM and memory throughput (percent of peak) of a compute-bound launch
WAVES = 8.0  # waves per SM: a full GPU, so the throughputs decide the verdict (not a small grid)


def launch(i: int, name: str, duration_s: float, ffma: float, dram: float, gpu: dict, demangled: str = "",
           nvtx: tuple[str, ...] = (), sol: tuple[float, float] | None = None) -> KernelLaunch:
    """A launch with plain counters (FP32 only, DRAM only) and the peaks of ``gpu``; ``sol`` adds the SpeedOfLight
    SM and memory throughputs (percent of peak) that decide the verdict, e.g. COMPUTE_BOUND."""
    throughputs = {} if sol is None else {"sm__throughput.avg.pct_of_peak_sustained_elapsed": sol[0],
                                          "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": sol[1],
                                          "launch__waves_per_multiprocessor": WAVES}
    metrics = {**throughputs,
        "gpu__time_duration.sum": duration_s * 1e9, f"{FFMA}.sum": ffma,
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 0.0,
        "dram__bytes.sum": dram,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": gpu["ffma_peak"],
        "sm__cycles_elapsed.avg.per_second": gpu["sm_clock"],
        "dram__bytes.sum.peak_sustained": gpu["dram_peak"], "dram__cycles_elapsed.avg.per_second": gpu["dram_clock"],
    }
    return KernelLaunch(range_index=0, action_index=i, name=name, demangled_name=demangled or f"{name}()",
                        nvtx_ranges=nvtx, metrics=metrics)


def model(path: str, launches: list[KernelLaunch]) -> Report:
    return Report(path=path, device=Device(name="Synthetic GPU", compute_capability="9.0"), launches=tuple(launches),
                  source="model", label="synthetic test model")


def roof_time(flops: float, dram: float, gpu: dict) -> float:
    return max(flops / peak_fp32(gpu), dram / peak_dram(gpu))


def names_model(path: str, names: list[tuple[str, str]], gpu: dict = OLD_GPU) -> Report:
    return model(path, [launch(i, n, 1e-3 * (i + 1), 1e6, 1e6, gpu, demangled=d) for i, (n, d) in enumerate(names)])
