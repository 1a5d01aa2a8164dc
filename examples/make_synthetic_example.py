"""Write examples/h100-sxm_synthetic.roofline.json: a SYNTHETIC report model, not a measurement.

It stands in for a real report until one profiled by this project on a GPU is committed. Each kernel's
counters are derived here from its analytic work (FLOPs = 2MNK for a GEMM, 3 x 4 x N bytes for a FP32
triad) and an assumed fraction of the H100 SXM5 roofs at an assumed locked clock, in the plain-counter
form that `ncu --metrics` produces. The tests check that `roofline` recovers exactly these counts.

Run: python examples/make_synthetic_example.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("h100-sxm_synthetic.roofline.json")

# Assumed device facts (NVIDIA H100 SXM5: 132 SMs; per-SM rates from the Hopper whitepaper).
SMS = 132
SM_CLOCK_HZ = 1.755e9  # assumed locked clock under ncu (below the 1.98 GHz boost)
DRAM_CLOCK_HZ = 2.6172e9  # 1280 B/clk x 2.6172 GHz = 3.35 TB/s
DRAM_BYTES_PER_CLK = 1280
L2_SLICE_PORTS = 160  # lts2xbar peak cycles per L2 clock (2 per slice, 80 slices)
PER_SM = {"ffma": 128, "dfma": 64, "hfma": 128, "tensor_bf16_dense": 4096, "tensor_bf16_sparse": 8192}

GEMM_N = 4096
TRIAD_N = 2**28


def peaks() -> dict[str, float]:
    """Peak counters (per cycle, summed over units) and clocks, as ncu stores them."""
    return {
        "sm__cycles_elapsed.avg.per_second": SM_CLOCK_HZ,
        "smsp__cycles_elapsed.avg.per_second": SM_CLOCK_HZ,
        "lts__cycles_elapsed.avg.per_second": SM_CLOCK_HZ,
        "l1tex__cycles_elapsed.avg.per_second": SM_CLOCK_HZ,
        "dram__cycles_elapsed.avg.per_second": DRAM_CLOCK_HZ,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": PER_SM["ffma"] * SMS,
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained": PER_SM["dfma"] * SMS,
        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained": PER_SM["hfma"] * SMS,
        "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained": PER_SM["tensor_bf16_sparse"] * SMS,
        "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained":
            PER_SM["tensor_bf16_dense"] * SMS,
        "sm__ops_path_tensor_src_fp16.sum.peak_sustained": PER_SM["tensor_bf16_sparse"] * SMS,  # FP16 = BF16 rate
        "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained": PER_SM["tensor_bf16_dense"] * SMS,
        "dram__bytes.sum.peak_sustained": DRAM_BYTES_PER_CLK,
        "lts__lts2xbar_cycles_active.sum.peak_sustained": L2_SLICE_PORTS,
        "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained": SMS,
    }


def counters(ffma=0.0, fadd=0.0, fmul=0.0, tensor_bf16=0.0, dram=0.0, l2=0.0, l1=0.0, seconds=0.0) -> dict:
    """Plain --metrics counters of one launch from its FLOPs and bytes."""
    return {
        "gpu__time_duration.sum": seconds * 1e9,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma,
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": fadd,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": fmul,
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 0.0,
        "sm__ops_path_tensor_src_bf16_dst_fp32.sum": tensor_bf16,
        "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum": tensor_bf16,
        "dram__bytes.sum": dram,
        "lts__lts2xbar_cycles_active.sum": l2 / 32,
        "l1tex__lsu_writeback_active_mem_lgds.sum": l1 / 128,
    }


def launch(index: int, name: str, grid: int, block: int, regs: int, smem: int, values: dict) -> dict:
    """One launch record in the model's serialized form."""
    return {
        "range_index": 0, "action_index": index, "name": name, "demangled_name": name, "mangled_name": name,
        "grid": [grid, 1, 1], "block": [block, 1, 1], "registers_per_thread": regs,
        "shared_mem_per_block_bytes": smem, "nvtx_ranges": [], "metrics": {**peaks(), **values},
        "nan_metrics": [], "rules": [],
    }


def sgemm_fp32() -> dict:
    """C = A B, 4096^3, FP32 on CUDA cores at an assumed 70% of the FP32 roof."""
    fma = float(GEMM_N**3)
    seconds = 2 * fma / (0.70 * 2 * PER_SM["ffma"] * SMS * SM_CLOCK_HZ)
    return counters(ffma=fma, dram=3 * 4 * GEMM_N**2 * 1.25, l2=2.0e9, l1=8.0e9, seconds=seconds)


def gemm_bf16() -> dict:
    """C = A B, 4096^3, BF16 inputs on Tensor Cores at an assumed 65% of the dense tensor roof."""
    flops = 2.0 * GEMM_N**3
    seconds = flops / (0.65 * PER_SM["tensor_bf16_dense"] * SMS * SM_CLOCK_HZ)
    return counters(tensor_bf16=flops, dram=(2 * 2 + 4) * GEMM_N**2 * 1.0, l2=6.0e8, l1=4.0e8, seconds=seconds)


def triad() -> dict:
    """a = b + s * c over 2^28 floats: 1 FFMA per element, 12 bytes per element, at 90% of DRAM roof."""
    moved = 3 * 4 * TRIAD_N
    seconds = moved / (0.90 * DRAM_BYTES_PER_CLK * DRAM_CLOCK_HZ)
    return counters(ffma=float(TRIAD_N), dram=moved, l2=moved, l1=2 * 4 * TRIAD_N, seconds=seconds)


def model() -> dict:
    """The whole synthetic report model."""
    device = {
        "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": SMS,
        "max_clock_hz": 1.98e9, "memory_clock_hz": 2.619e9, "memory_bus_width_bits": 5120,
        "l2_cache_bytes": 52428800, "total_memory_bytes": 85031714816, "attributes": {},
    }
    launches = [
        launch(0, "sgemm_fp32_4096", 1024, 256, 128, 32768, sgemm_fp32()),
        launch(1, "gemm_bf16_tensor_4096", 264, 384, 168, 198656, gemm_bf16()),
        launch(2, "triad_fp32", 1048576, 256, 16, 0, triad()),
    ]
    return {"format": "roofline-report-model", "version": 1,
            "label": "SYNTHETIC example (analytic counts at assumed efficiencies; not a measurement)",
            "device": device, "launches": launches}


if __name__ == "__main__":
    OUT.write_text(json.dumps(model(), indent=1) + "\n")
    print(f"wrote {OUT}")
