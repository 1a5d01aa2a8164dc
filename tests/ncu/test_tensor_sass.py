"""Tensor work counted from the SASS where a report has no ``sm__ops_path_tensor_*`` counters (ncu before 2025.1).

The expected values are computed here from the raw reports through ``ncu_report`` directly (per-opcode and per-PC
warp instruction counts, SASS text matched with a pattern of this file, operations per instruction from the PTX ISA's
mma/wgmma shapes written out below), never through roofline's reader. Where a report holds both the counters and the
SASS (the H100 BF16 GEMM of examples/h100), the SASS count equals ncu's own counter exactly.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.ncu import extract
from roofline.ncu import metrics as m
from tests.conftest import REPO, find_shared_report

H100_BF16 = REPO / "examples" / "h100" / "torch-bf16.full.ncu-rep"  # cuBLAS BF16 GEMM (nvjet, wgmma), --set full
MATRIX = re.compile(r"^\s*(?:@!?U?P\w+\s+)?(?P<op>[A-Z]+MMA)\.(?P<shape>[0-9x]+)(?P<rest>\S*)")
# Operations of one warp-level instruction, written out per shape (PTX ISA mma shapes; wgmma executed by 4 warps)
OPS_PER_WARP_INST = {("IMMA", "16832"): 2 * 16 * 8 * 32, ("HMMA", "16816"): 2 * 16 * 8 * 16,
                     ("HMMA", "1688"): 2 * 16 * 8 * 8, ("HGMMA", "64x128x16"): 2 * 64 * 128 * 16 // 4}


# Run in a fresh interpreter: once ncu_report's disassembler (sass_by_pc) has run in a process, a child forked from
# it (as roofline's reader forks) hangs, so this test process never calls it (as tests/ncu/test_hfma_moves.py).
COUNT_SCRIPT = r"""
import json, re, sys
import ncu_report

matrix = re.compile(sys.argv[3])
action = ncu_report.load_report(sys.argv[1]).range_by_idx(0).action_by_idx(int(sys.argv[2]))
per_pc, out = action.metric_by_name("inst_executed"), {}
ids = per_pc.correlation_ids()
for i in range(per_pc.num_instances()):
    found = matrix.match(action.sass_by_pc(ids.as_uint64(i)) or "") if per_pc.as_double(i) > 0 else None
    if found:
        key = found["op"] + " " + found["shape"]
        out[key] = out.get(key, 0.0) + per_pc.as_double(i)
print(json.dumps(out))
"""


@functools.cache
def raw_ops(path: Path, index: int) -> dict[tuple[str, str], float]:
    """Warp instructions executed per (opcode, shape) of the matrix instructions: every PC's count x its SASS."""
    pytest.importorskip("ncu_report")
    done = subprocess.run([sys.executable, "-c", COUNT_SCRIPT, str(path), str(index), MATRIX.pattern],
                          capture_output=True, text=True, check=True, timeout=600)
    return {tuple(key.split(" ")): n for key, n in json.loads(done.stdout).items()}


@functools.cache
def action(path: Path, index: int):
    """One action read with ncu_report in this process (its metrics only: no SASS text)."""
    ncu_report = pytest.importorskip("ncu_report")
    return ncu_report.load_report(str(path)).range_by_idx(0).action_by_idx(index)


@pytest.mark.parametrize(("sass", "dtype", "ops"), [
    ("HMMA.16816.F32", "fp16", 4096), ("HMMA.1688.F16", "fp16", 2048), ("HMMA.16816.F32.BF16", "bf16", 4096),
    ("HMMA.1684.F32.TF32", "tf32", 1024), ("HMMA.16832.F32.E4M3.E4M3", "fp8", 8192),
    ("IMMA.16832.S8.S8.SAT", "int8", 8192), ("IMMA.8816.U8.S8", "int8", 2048), ("IMMA.16864.S4.S4", "int4", 16384),
    ("DMMA.884", "fp64", 512), ("BMMA.88128.AND.POPC", "int1", 16384),
    ("HGMMA.64x128x16.F32.BF16", "bf16", 65536), ("HGMMA.64x256x16.F16", "fp16", 131072),
    ("QGMMA.64x128x32.F32.E4M3.E4M3", "fp8", 131072), ("IGMMA.64x64x32.S32.S8.S8", "int8", 65536)])
def test_operations_per_warp_instruction_are_2mnk_of_the_shape(sass, dtype, ops):
    assert m.mma_ops(sass) == (dtype, ops)


@pytest.mark.parametrize("sass", ["HMMA.884.F32.F32.STEP0", "HMMA.SP.16832.F32", "UTCHMMA", "FFMA", "HMMA", "IMMA.X"])
def test_instructions_that_cannot_be_sized_count_nothing(sass):
    assert m.mma_ops(sass) is None


def test_the_sass_count_equals_ncus_tensor_counter_where_a_report_holds_both():
    """H100 cuBLAS BF16 GEMM: 2,097,152 HGMMA.64x128x16 warp instructions x 65,536 = 137,438,953,472 BF16 FLOPs =
    sm__ops_path_tensor_src_bf16_dst_fp32.sum."""
    a = action(H100_BF16, 0)
    counter = a.metric_by_name("sm__ops_path_tensor_src_bf16_dst_fp32.sum").as_double()
    independent = sum(n * OPS_PER_WARP_INST[key] for key, n in raw_ops(H100_BF16, 0).items())
    assert independent == counter == 137_438_953_472
    assert extract.tensor_ops_by_sass(a) == {"bf16": counter}
    assert extract.mma_instructions(a) == 2_097_152


def test_the_cutlass_int8_gemm_is_placed_on_the_int8_roof_from_its_sass(roofline_report):
    """A100 CUTLASS INT8 GEMM (ncu 2024.1, no ops_path counters): 13,824 IMMA.16832 x 8,192 INT8 ops; its percent of
    the INT8 roof equals the tensor pipe's busy share over the duration (2.32%), measured apart by ncu."""
    from roofline.pipeline import analyze_loaded

    path = find_shared_report("a100-80gb_cutlass-gemm_full")
    want = sum(n * OPS_PER_WARP_INST[key] for key, n in raw_ops(path, 0).items())
    assert want == 13_824 * 8_192
    report = roofline_report("a100-80gb_cutlass-gemm_full")
    assert report.launches[0].value(m.SASS_TENSOR_OPS.format("int8")) == want
    k, reference = analyze_loaded(report).launches
    t = k.tensor_cores
    assert t is not None and t.work_source == "sass" and t.status == "used"
    roof = t.roofs["int8"]
    assert roof.source == "sass"
    assert roof.achieved_ops_per_s.value == pytest.approx(want / k.duration_s.value, rel=1e-12)
    assert roof.pct_of_peak.value == pytest.approx(t.pipe_elapsed_pct, abs=0.01)
    assert k.flops["tensor"].value == 0.0  # integer ops are no FLOPs
    # ReferenceGemm runs no matrix instruction: an exact 0, not the re-profile hint
    assert reference.flops["tensor"].value == 0.0 and "no matrix instruction" in reference.flops["tensor"].via
    assert reference.tensor_cores is not None and reference.tensor_cores.work_source == "sass"


def test_the_julia_hmma_kernel_gets_its_fp16_tensor_flops_from_the_sass(roofline_report):
    """A40 Julia (ncu 2022.4): julia_frb runs 24,966,144 HMMA.1688.F16 and as many HMMA.16816.F16; at 32.0% of the
    FP16 tensor roof, as the tensor pipe is busy 32.0% of the duration."""
    from roofline.pipeline import analyze_loaded

    path = find_shared_report("a40_julia-fp16x2_full")
    counts = raw_ops(path, 4)
    assert counts == {("HMMA", "1688"): 24_966_144, ("HMMA", "16816"): 24_966_144}
    want = sum(n * OPS_PER_WARP_INST[key] for key, n in counts.items())
    k = analyze_loaded(roofline_report("a40_julia-fp16x2_full")).launches[4]
    assert k.flops["tensor"].value == want and dict(k.tensor_flops_by_type) == {"fp16": want}
    t = k.tensor_cores
    assert t is not None and t.work_source == "sass" and t.roofs["fp16"].source == "sass"
    assert t.roofs["fp16"].pct_of_peak.value == pytest.approx(t.pipe_elapsed_pct, abs=0.05)
    assert any("counted from the SASS" in f for f in t.findings)


def test_a_launch_ncu_could_not_measure_says_so_for_its_tensor_flops_not_which_set_to_use(roofline_report):
    """The H800 FlashAttention launch of a --set full report: ncu stored NaN for its tensor pipe counters, so no
    --set or ncu version would add its Tensor FLOPs; the hint is to profile it again."""
    report = roofline_report("h800_flash-attn-fwd_full")
    launch = next(la for la in report.launches if la.name.startswith("flash_fwd_kernel"))
    assert any("pipe_tensor" in n for n in launch.nan_metrics)
    value, by_type = m.tensor_flops(launch, report.device)
    assert value.value is None and by_type == {} and value.hint == m.HINT_NAN
    assert value.via.startswith("ncu stored NaN for ") and "pipe_tensor" in value.via
