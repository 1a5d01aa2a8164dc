"""roofline.core.kernel_families: library kernel names read into (library, SM version, operation, operand type,
layout), and the architecture-neutral family key. The names are real ones: from the reports in
../shared/ncu-reps, or quoted in the sources each rule cites."""

from __future__ import annotations

import pytest

from roofline.core.kernel_families import RULES, LibraryKernel, architecture, classify, device_sm, family

XMMA_TF32 = ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_"
             "kernel__5x_cublas")
XMMA_FFMA = ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
             "execute_kernel__5x_cublas")


@pytest.mark.parametrize("name, expected", [
    ("ampere_sgemm_128x64_nn", LibraryKernel("cuBLAS", 80, "gemm", "f32", "nn")),
    ("ampere_sgemm_128x32_tn", LibraryKernel("cuBLAS", 80, "gemm", "f32", "tn")),
    ("ampere_sgemm", LibraryKernel("cuBLAS", 80, "gemm", "f32", None)),  # a prefix as users type it
    ("volta_sgemm_32x128_tn", LibraryKernel("cuBLAS", 70, "gemm", "f32", "tn")),
    ("volta_cgemm_32x64_tn", LibraryKernel("cuBLAS", 70, "gemm", "c32", "tn")),
    ("volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1",
     LibraryKernel("cuDNN", 70, "conv", "f16", "tn")),
    ("ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_nn", LibraryKernel("cuBLAS", 80, "gemm", "bf16", "nn")),
    (XMMA_TF32, LibraryKernel("cuBLAS", 90, "gemm", "f32", "nn")),  # TF32 math on FP32 operands
    (XMMA_FFMA, LibraryKernel("cuBLAS", 80, "gemm", "f32", "tn")),
    ("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
     "cublas", LibraryKernel("cuBLAS", 90, "gemm", "f16", "tn")),
    ("sm90_xmma_gemm", LibraryKernel("cuBLAS", 90, "gemm")),
    ("sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nchw", LibraryKernel("cuDNN", 80, "conv-fprop", "f32")),
    ("cutlass_80_simt_sgemm_64x64_8x5_nn_align1", LibraryKernel("CUTLASS", 80, "gemm", "f32", "nn")),
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(T1::Params)",
     LibraryKernel("CUTLASS", 80, "gemm", "f32", "nn")),  # inside a demangled name
    ("cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_64x32x16_1x1x1_3_nnn_align1_bias_f32_relu",
     LibraryKernel("CUTLASS", 100, "gemm", "f32", "nn")),
    ("cutlass3x_sm90_tensorop_s64x128x32gemm_e4m3_e4m3_f32_f32_e5m2_64x128x128_1x2x1_0_tnn_align16_warpspecialized",
     LibraryKernel("CUTLASS", 90, "gemm", "fp8", "tn")),
    ("cutlass_tensorop_s1688gemm_f16_256x128_32x3_nn_align8", LibraryKernel("CUTLASS", None, "gemm", "f16", "nn")),
    ("nvjet_sm120_qqtst_mma", LibraryKernel("cuBLAS", 120, "gemm")),
])
def test_library_names_are_read(name: str, expected: LibraryKernel) -> None:
    assert classify(name) == expected


@pytest.mark.parametrize("name", ["gemm", "my_ampere_sgemm", "Kernel", "sgemm_fp32_4096", "ampere", "sm90_gemm",
                                  "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<int>>(T1::Params)"])
def test_other_names_are_no_library_kernel(name: str) -> None:
    assert classify(name) is None and family(name) == name


def test_the_family_is_the_same_across_architectures() -> None:
    """An A100's cuBLAS SGEMM and an H100's, TF32 or FFMA, share a key; an FP16 GEMM does not."""
    keys = {family(n) for n in ("ampere_sgemm_128x64_nn", "volta_sgemm_32x128_tn", XMMA_TF32, XMMA_FFMA,
                                "cutlass_80_simt_sgemm_64x64_8x5_nn_align1")}
    assert keys == {"gemm/f32"}
    assert family("ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_nn") == "gemm/bf16"
    assert family("Kernel2", "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(T1::Params)") == \
        "gemm/f32"


def test_counterparts_need_the_same_operation_and_known_types_to_agree() -> None:
    sgemm = LibraryKernel("cuBLAS", 80, "gemm", "f32")
    assert LibraryKernel("cuBLAS", 90, "gemm", "f32", "tn").counterpart_of(sgemm)
    assert LibraryKernel("cuBLAS", 90, "gemm").counterpart_of(sgemm)  # nvjet: type not spelled
    assert not LibraryKernel("cuBLAS", 90, "gemm", "f16").counterpart_of(sgemm)
    assert not LibraryKernel("cuDNN", 90, "conv-fprop", "f32").counterpart_of(sgemm)


@pytest.mark.parametrize("sm, name", [(70, "Volta"), (75, "Turing"), (80, "Ampere"), (86, "Ampere"), (89, "Ada"),
                                      (90, "Hopper"), (100, "Blackwell"), (120, "Blackwell")])
def test_architectures(sm: int, name: str) -> None:
    assert architecture(sm) == name


def test_device_sm() -> None:
    assert (device_sm("9.0"), device_sm("8.6"), device_sm("12.0"), device_sm(None), device_sm("?")) == \
        (90, 86, 120, None, None)


def test_every_rule_cites_its_source() -> None:
    for _pattern, _read, source in RULES:
        assert "https://" in source or "../shared/ncu-reps" in source


def test_real_reports_classify_only_the_cublas_kernels(shared_name: str, roofline_report) -> None:
    """In ../shared/ncu-reps only cuBLAS's ampere_sgemm_* kernels are library kernels of these families; the
    user kernels, CUB, Thrust, PyTorch and CUTLASS-template kernels are not misread."""
    report = roofline_report(shared_name)
    found = {k.name: classify(k.name) or classify(k.demangled_name) for k in report.launches}
    assert {name for name, kind in found.items() if kind} <= {"ampere_sgemm_128x64_nn", "ampere_sgemm_128x32_tn"}
    for name, kind in found.items():
        if kind:
            assert (kind.library, kind.sm, kind.key, kind.layout) == ("cuBLAS", 80, "gemm/f32", name[-2:])
