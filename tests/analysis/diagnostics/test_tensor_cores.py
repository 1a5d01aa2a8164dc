"""Tensor Core diagnostics: use, instruction families, pipe activity, FLOP share and the matrix-multiply warning.

Real-report expectations were checked by hand against the raw ncu_report values (``raw_actions``):
sm__inst_executed_pipe_tensor_op_{hmma,imma,dmma,gmma}.avg.pct_of_peak_sustained_active,
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_{active,elapsed}, and the FFMA counts behind the FLOPs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import roofline
from roofline.analysis.diagnostics import tensor_cores as tc
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.roofline import analyze_report
from roofline.core.model import Device, KernelLaunch, Report
from roofline.pipeline import analyze_files, analyze_loaded

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
_CACHE: dict[str, ReportAnalysis] = {}
IMMA_PCT = "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active"
HMMA_PCT = "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"


@pytest.fixture
def launch(shared_report):
    """``launch(report, kernel)``: the kernel's first launch, analysed as `roofline report` does."""
    def get(report: str, kernel: str):
        if report not in _CACHE:
            _CACHE[report] = analyze_files([shared_report(report)])[0]
        return next(k for k in _CACHE[report].launches if k.launch.name == kernel)
    return get


def _raw(raw_actions, report, kernel):
    return next(a for a in raw_actions(report) if a.name == kernel)


def test_int8_cutlass_gemm_uses_imma(launch, raw_actions):
    t = launch("a100-80gb_cutlass-gemm_full", "Kernel").tensor_cores
    raw = _raw(raw_actions, "a100-80gb_cutlass-gemm_full", "Kernel")
    assert t.status == tc.USED and t.arch == "Ampere GA100" and not t.warning
    assert t.families["imma"] == pytest.approx(raw[IMMA_PCT])
    assert t.families["imma"] == pytest.approx(12.96, abs=0.01) and t.families["hmma"] == t.families["dmma"] == 0.0
    assert t.pipe_active_pct == pytest.approx(25.92, abs=0.01) and t.pipe_elapsed_pct == pytest.approx(2.32, abs=0.01)
    assert "IMMA (INT8/INT4)" in t.findings[0]
    assert t.matmul_like == "its name contains 'gemm'"  # demangled: cutlass::Kernel<cutlass::gemm::kernel::Gemm<...


def test_the_int8_gemm_has_its_int8_tensor_roof_from_its_sass_and_the_spec(launch, raw_actions):
    """No integer ops_path counter in this full set (ncu 2024.1, A100): the INT8 ops its IMMA.16832 instructions do
    (SourceCounters: 13,824 x 2 x 16 x 8 x 32) against the A100's dense INT8 roof (624 TOP/s at 1.41 GHz,
    device_specs) at the measured SM clock; the IMMA pipe's busy share of the elapsed cycles, measured apart, agrees
    within 0.05%."""
    k = launch("a100-80gb_cutlass-gemm_full", "Kernel")
    raw = _raw(raw_actions, "a100-80gb_cutlass-gemm_full", "Kernel")
    (roof,) = k.tensor_cores.roofs.values()
    share = (raw["sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active"] / 100
             * raw["sm__cycles_active.avg"] / raw["sm__cycles_elapsed.avg"])
    peak = 624e12 * raw["sm__cycles_elapsed.avg.per_second"] / 1.41e9
    ops = 13_824 * 2 * 16 * 8 * 32
    assert roof.dtype == "int8" and roof.source == "sass"
    assert roof.peak_ops_per_s.value == pytest.approx(peak, rel=1e-9)
    assert roof.achieved_ops_per_s.value == pytest.approx(ops / (raw["gpu__time_duration.sum"] * 1e-9), rel=1e-9)
    assert roof.pct_of_peak.value == pytest.approx(100 * share, rel=5e-4)
    assert roof.pct_of_peak.value == pytest.approx(k.tensor_cores.pipe_elapsed_pct, rel=0.01)  # ncu's elapsed %
    assert any(f.startswith("INT8 tensor roof") and f.endswith("counted from the SASS")
               for f in k.tensor_cores.findings)


def test_fp8_gemm_has_its_fp8_roof_from_the_ops_path_counters():
    """H200 FP8 GEMM (examples/h200, --set roofline): its FP8 FLOPs over the duration against the dense FP8 peak."""
    from tests.conftest import REPO, raw_actions_at

    path = REPO / "examples" / "h200" / "torch-fp8.roofline.ncu-rep"
    (a,) = analyze_files([path])
    for k, raw in zip(a.launches, raw_actions_at(path), strict=True):
        roof = k.tensor_cores.roofs["fp8"]
        ops = sum(raw[n] for n in raw.values if n.startswith("sm__ops_path_tensor_src_fp8") and n.endswith(".sum"))
        seconds = raw["gpu__time_duration.sum"] * 1e-9
        peak = (raw["sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"]
                * raw["sm__cycles_elapsed.avg.per_second"])
        assert roof.achieved_ops_per_s.value == pytest.approx(ops / seconds, rel=1e-9)
        assert roof.peak_ops_per_s.value == pytest.approx(peak, rel=1e-9)
        assert roof.pct_of_peak.value == pytest.approx(100 * ops / seconds / peak, rel=1e-9)


def test_no_tensor_work_no_roof(launch):
    assert launch("a100-80gb_cutlass-gemm_full", "ReferenceGemm_kernel").tensor_cores.roofs == {}


def test_integer_reference_gemm_is_no_fp_warning(launch):
    # ReferenceGemm_kernel (int8 reference): tensor pipe 0%, and no FP32/FP64 FLOPs counted at all
    t = launch("a100-80gb_cutlass-gemm_full", "ReferenceGemm_kernel").tensor_cores
    assert t.status == tc.NOT_USED and not t.warning
    assert any("counted no floating-point FLOPs" in f for f in t.findings)


@pytest.mark.parametrize("kernel, flops", [("gemm", 901e6), ("ampere_sgemm_128x64_nn", 968e6)])
def test_fp32_gemm_on_cuda_cores_is_warned(launch, raw_actions, kernel, flops):
    k = launch("rtx3080_sgemm-vs-cublas_full", kernel)
    t = k.tensor_cores
    raw = _raw(raw_actions, "rtx3080_sgemm-vs-cublas_full", kernel)
    assert raw["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] == 0.0
    assert t.status == tc.NOT_USED and k.flops["fp32"].value == pytest.approx(flops, rel=1e-3)
    assert "ran on the CUDA cores" in t.warning and "take TF32" in t.warning
    # GeForce GA102: TF32 Tensor = FP32 = 29.8 TFLOP/s, FP16 Tensor (FP32 accumulate) 59.5 (device_specs/rtx-3080)
    assert t.advice.startswith("On this GPU TF32 Tensor Cores run no faster than the FP32 CUDA cores (1x): "
                               "only FP16/BF16 inputs would gain (2x)")


def test_instruction_mix_flags_an_sgemm_without_gemm_in_its_name(launch):
    # warptiling: FFMA only (fadd = fmul = 0) at 170 FLOP per DRAM byte, tensor pipe 0% (A10G, --set roofline)
    t = launch("a10g_sgemm-blocktiling_roofline", "warptiling").tensor_cores
    assert t.matmul_like.startswith("instruction mix: 100% of its FP32 FLOPs are FMAs")
    assert t.warning and "TF32" in t.warning


def test_fp16_tensor_use_on_ampere(launch, raw_actions):
    t = launch("a40_julia-fp16x2_full", "julia_frb_5885").tensor_cores
    raw = _raw(raw_actions, "a40_julia-fp16x2_full", "julia_frb_5885")
    assert t.status == tc.USED
    assert t.families["hmma"] == pytest.approx(raw[HMMA_PCT])
    assert t.families["hmma"] == pytest.approx(22.18, abs=0.01)


def test_hopper_hfma2_pipe_activity_is_not_tensor_use(launch, raw_actions):
    # silu on GH200: op_hmma 0.23% of peak, but every sm__ops_path_tensor_src_* count is 0 and the kernel runs
    # HFMA2 instructions, which GH100 issues on the tensor pipe: register moves (HFMA2.MMA R3, -RZ, RZ, 1.625, 0),
    # so no FP16 FLOPs either (tests/ncu/test_hfma_moves.py)
    k = launch("gh200_silu_full-roofline", "silu_kernel_non_strided")
    raw = _raw(raw_actions, "gh200_silu_full-roofline", "silu_kernel_non_strided")
    assert raw[HMMA_PCT] > 0
    assert k.flops["tensor"].value == 0.0 and k.flops["fp16"].value == 0.0
    assert k.tensor_cores.status == tc.NOT_USED
    assert any("tensor pipe activity may be packed FP16 (HFMA2)" in f for f in k.tensor_cores.findings)


def test_gtx_16_series_has_no_tensor_cores(launch):
    t = launch("gtx1660super_sgemm-naive_full", "naive_gemm").tensor_cores
    assert t.status == tc.NO_TENSOR_CORES and not t.warning
    assert set(t.missing) == {"pipe_active_pct", "pipe_elapsed_pct", "flop_share"}


def test_unmeasured_launch(launch):
    t = launch("h800_flash-attn-fwd_full", "flash_fwd_kernel").tensor_cores  # every counter NaN in the report
    assert t.status == tc.NOT_MEASURED and "NaN" in t.reason


def test_synthetic_example_tensor_share_and_warning():
    result = analyze_files([EXAMPLE])[0]  # with the H100 SXM5 datasheet spec
    by_name = {k.launch.name: k.tensor_cores for k in result.launches}
    bf16 = by_name["gemm_bf16_tensor_4096"]
    assert bf16.status == tc.USED and bf16.flop_share == 1.0 and set(bf16.flops_by_type) == {"bf16"}
    assert not by_name["triad_fp32"].warning
    sgemm = by_name["sgemm_fp32_4096"]
    assert sgemm.advice.startswith("Run the FP32 matrix math on Tensor Cores as TF32")
    assert "TF32 tensor roof (495 TFLOP/s) is 7.39x the FP32 roof (66.9 TFLOP/s, datasheet)" in sgemm.advice


def test_without_a_spec_the_gain_is_left_out():
    report = roofline.load(EXAMPLE)
    launch = next(k for k in analyze_report(report).launches if k.launch.name == "sgemm_fp32_4096")
    sgemm = tc.diagnose(launch, report.device)  # no spec, and the model has no TF32 peak counter
    assert sgemm.warning and "tensor roof" not in sgemm.warning


@pytest.mark.parametrize("cc, name, families", [("7.5", "NVIDIA GeForce GTX 1660 SUPER", ()),
                                                ("7.5", "Tesla T4", ("hmma", "imma")),
                                                ("8.0", "NVIDIA A100 80GB PCIe", ("hmma", "imma", "dmma")),
                                                ("8.6", "NVIDIA A40", ("hmma", "imma")),
                                                ("9.0", "NVIDIA H800", ("hmma", "imma", "dmma", "gmma"))])
def test_architecture_table(cc, name, families):
    assert tc.architecture(Device(name, compute_capability=cc)).families == families


def test_unknown_architecture():
    assert tc.architecture(Device("future GPU", compute_capability="99.0")) is None


def linspace_like(l1_writeback_cycles: float, name: str = "linspace"):
    """A launch whose FP32 FLOPs are all FMAs at 20 FLOP per DRAM byte (its stores still in L2): 1e6 FFMA,
    1e5 DRAM bytes, 2e5 L2 bytes, and ``l1_writeback_cycles`` x 128 B loaded through L1."""
    metrics = {
        "gpu__time_duration.sum": 1e4, "sm__cycles_elapsed.avg.per_second": 1e9,
        "dram__cycles_elapsed.avg.per_second": 1e9, "l1tex__cycles_elapsed.avg.per_second": 1e9,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1e6,
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 0.0,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 0.0,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 7680,
        "dram__bytes.sum": 1e5, "dram__bytes.sum.peak_sustained": 64,
        "l1tex__m_xbar2l1tex_read_bytes.sum": 2e5, "l1tex__lsu_writeback_active_mem_lg.sum": l1_writeback_cycles,
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": 0.0,
    }
    device = Device("NVIDIA GeForce RTX 4070 Ti", compute_capability="8.9", sm_count=60)
    launch = KernelLaunch(0, 0, name, metrics=metrics)
    report = Report("m.json", device, (launch,), source="model")
    return analyze_loaded(report).launches[0]


def test_fma_share_alone_is_no_matrix_multiply():
    """The linspace case: 100% FMAs and 20 FLOP per DRAM byte, but (nearly) nothing loaded: no Tensor Core advice."""
    k = linspace_like(0.0)  # nothing loaded through L1: its FLOP per L1 byte is unbounded, not reuse
    assert k.intensity["dram"].value == pytest.approx(20.0) and k.intensity["l1"].value is None
    assert k.tensor_cores.matmul_like == "" and not k.tensor_cores.advice
    assert not any(a.kind == "tensor_cores" for a in k.advice)
    streaming = linspace_like(1e5)  # 12.8 MB loaded for 2 MFLOP: 0.16 FLOP per L1 byte, no reuse
    assert streaming.tensor_cores.matmul_like == "" and not streaming.tensor_cores.advice


def test_fma_share_with_reuse_at_every_level_is_a_matrix_multiply():
    k = linspace_like(1e3, name="tile_kernel")  # 128 kB loaded through L1 for 2 MFLOP: 15.6 FLOP per L1 byte
    assert k.tensor_cores.matmul_like.startswith("instruction mix: 100% of its FP32 FLOPs are FMAs, at 20 per DRAM")
    assert "15.6 per L1 byte" in k.tensor_cores.matmul_like


@pytest.mark.parametrize("name, has", [
    ("NVIDIA GeForce GTX 1660 SUPER", False), ("NVIDIA GeForce GTX 1650", False),  # TU116, TU117
    ("NVIDIA GeForce MX450", False), ("NVIDIA GeForce MX550", False),  # TU117
    ("Tesla T4", True), ("NVIDIA GeForce RTX 2080 Ti", True),  # TU104, TU102
])
def test_the_turing_parts_without_tensor_cores_are_known_by_name(name, has):
    """Compute capability 7.5 spans TU10x (Tensor Cores) and TU116/TU117 (none: the GTX 16 and Turing MX parts)."""
    assert tc.has_tensor_cores(Device(name=name, compute_capability="7.5")) is has


def test_an_fp32_gemm_without_flops_is_offered_the_tensor_types_of_fp32_and_is_sized(launch, raw_actions):
    """A100 cuBLAS SGEMM, basic set (no FLOPs counted): its FMA pipe at 97% (raw breakdown) and the FP64 pipe idle
    show FP32 math, so the item offers TF32 (FP16/BF16 inputs with care), not FP64; the time model sizes it (FMA and
    issue work moved off), so it does not ask to re-profile to size it."""
    from roofline.render.report.prose import advice_text

    k = launch("a100-40gb_cublas-sgemm_basic", "ampere_sgemm_128x64_nn")
    raw = _raw(raw_actions, "a100-40gb_cublas-sgemm_basic", "ampere_sgemm_128x64_nn")
    fma = raw["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"]
    assert fma > 90 and raw["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"] == 0.0
    assert not any(n.startswith("smsp__sass_thread_inst_executed_op_f") for n in raw.values)  # no FLOPs counted
    t = k.tensor_cores
    assert "as TF32, or FP16/BF16 inputs if the accuracy allows" in t.advice and "FP64" not in t.advice
    assert f"FMA pipe, which runs FP32 math, is at {fma:.1f}%" in t.advice
    (item,) = [a for a in k.advice if a.kind == "tensor_cores"]
    assert item.est_saved_s is not None and "Re-profile" not in advice_text(item)


def _spec_peaks(spec_file: str) -> dict[str, float]:
    """The dense peaks of a device spec YAML, read here apart from the catalog's loader."""
    import yaml

    doc = yaml.safe_load((Path(__file__).resolve().parents[3] / "device_specs" / spec_file).read_text())
    return {key: float(entry["value"]) for key, entry in doc["peaks"].items()}


def test_an_unsized_item_on_a_gpu_whose_tf32_is_no_faster_offers_the_16_bit_types_with_their_gain(shared_report):
    """RTX 4090 torch.nn.Linear (custom metrics, no breakdowns nor FLOPs): ampere_sgemm_128x32_tn names FP32
    operands, and the RTX 4090's datasheet puts TF32 Tensor Cores at the FP32 rate (82.6 TFLOP/s both): the item
    never tells to try TF32 (it said "as TF32" first), says TF32 runs no faster and offers FP16/BF16 inputs with
    their gain (tensor_fp16 / fp32 of the YAML, 2x), as the item of a launch with counted FLOPs words it; nothing
    sizes the gain, so it says to re-profile. The cuBLAS item of the same launch says the same of FP32 data."""
    from roofline.render.report.prose import advice_text

    peaks = _spec_peaks("rtx-4090.yaml")
    assert peaks["tensor_tf32"] == peaks["fp32"]
    a = analyze_files([shared_report("rtx4090_torch-linear-sgemm_custom")])[0]
    k = next(k for k in a.launches if k.launch.name == "ampere_sgemm_128x32_tn")
    (item,) = [x for x in k.advice if x.kind == "tensor_cores"]
    said = (f"TF32 Tensor Cores run no faster than the FP32 CUDA cores (1x): only FP16/BF16 inputs would gain "
            f"({peaks['tensor_fp16'] / peaks['fp32']:.3g}x), if the accuracy allows")
    assert item.est_saved_s is None and "FP8" not in item.text and "as TF32" not in item.text
    assert item.text.startswith(f"On this GPU {said}: its name says FP32 operands")
    assert advice_text(item).endswith("Re-profile with --set full to size the gain.")
    (lib,) = [x for x in k.advice if x.kind == "library"]
    assert f"for FP32 data, on this GPU {said}" in lib.text and "allow_tf32" not in lib.text


@pytest.mark.parametrize("report, kernel", [("a10g_sgemm-progression_basic", "ampere_sgemm_128x64_nn"),
                                            ("rtx3080_sgemm-vs-cublas_full", "ampere_sgemm_128x64_nn")])
def test_a_cublas_sgemm_on_a_gpu_whose_tf32_is_no_faster_is_never_told_tf32(report, kernel, launch):
    """A10G (basic set, no FLOPs counted) and RTX 3080 (full set): the datasheets put TF32 at the FP32 rate, so
    neither the Tensor Core item nor the cuBLAS item advises TF32 (the A10G's item led with "as TF32" while its
    saving sized the FP16 path, the RTX 3080's cuBLAS item said to enable TF32 beside a Tensor Core item saying it
    runs no faster); both name the FP16/BF16 gain of the YAML's peaks."""
    spec = {"a10g_sgemm-progression_basic": "a10g.yaml", "rtx3080_sgemm-vs-cublas_full": "rtx-3080.yaml"}[report]
    peaks = _spec_peaks(spec)
    assert peaks["tensor_tf32"] / peaks["fp32"] < 1.05
    k = launch(report, kernel)
    gain = f"only FP16/BF16 inputs would gain ({peaks['tensor_fp16'] / peaks['fp32']:.3g}x)"
    items = {a.kind: a for a in k.advice}
    assert gain in items["tensor_cores"].text and "as TF32" not in items["tensor_cores"].text
    assert gain in items["library"].text and "TF32 enabled" not in items["library"].text
    assert "allow_tf32" not in items["library"].text and "CUBLAS_TF32_TENSOR_OP_MATH" not in items["library"].text


def test_a_tensor_launch_without_a_time_says_its_share_of_the_roof_is_not_known(tmp_path):
    """The synthetic example's BF16 GEMM with its gpu__time_duration.sum removed: its Tensor FLOPs are counted but
    its rate and so its share of the BF16 roof are not; the roof's line says so with the reason (it raised a
    TypeError formatting the null share, and `roofline report` of such a model was a traceback)."""
    import json

    model = json.loads(EXAMPLE.read_text())
    bf16 = next(launch for launch in model["launches"] if launch["name"] == "gemm_bf16_tensor_4096")
    del bf16["metrics"]["gpu__time_duration.sum"]
    path = tmp_path / "no-time.roofline.json"
    path.write_text(json.dumps(model))
    k = next(k for k in analyze_files([path])[0].launches if k.launch.name == "gemm_bf16_tensor_4096")
    (line,) = [f for f in k.tensor_cores.findings if f.startswith("BF16 tensor roof")]
    roof = k.tensor_cores.roofs["bf16"]
    assert roof.pct_of_peak.value is None and roof.pct_of_peak.reason
    assert f"its share not known ({roof.pct_of_peak.reason})" in line
