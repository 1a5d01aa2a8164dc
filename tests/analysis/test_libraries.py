"""roofline.analysis.libraries: the one name classifier, checked on every kernel name in ../shared/ncu-reps and on the
names the libraries are known to give their kernels."""

from __future__ import annotations

import pytest

from roofline.analysis.libraries import library, matmul_name

# Every distinct kernel of the shared reports that comes from a library (function name, start of the demangled
# name); the others (user kernels, Julia, OpenACC, hand-written GEMMs) must classify as none.
REAL_LIBRARY_KERNELS = {
    "ampere_sgemm_128x64_nn": "cuBLAS", "ampere_sgemm_128x32_tn": "cuBLAS",
    "Kernel": "CUTLASS",  # void cutlass::Kernel<cutlass::gemm::kernel::Gemm<...
    "DeviceRadixSortHistogramKernel": "CUB/Thrust", "DeviceRadixSortExclusiveSumKernel": "CUB/Thrust",
    "DeviceRadixSortOnesweepKernel": "CUB/Thrust", "DeviceReduceKernel": "CUB/Thrust",
    "DeviceReduceSingleTileKernel": "CUB/Thrust", "DeviceScanInitKernel": "CUB/Thrust",
    "DeviceScanKernel": "CUB/Thrust", "_kernel_agent": "CUB/Thrust",  # thrust::cuda_cub::core::_kernel_agent
    "distribution_elementwise_grid_stride_kernel": "PyTorch ATen", "flash_fwd_kernel": "FlashAttention",
}


def test_every_kernel_name_in_the_shared_reports(shared_dir, roofline_report):
    seen = {}
    for path in sorted(shared_dir.glob("*.ncu-rep")):
        for k in roofline_report(path.name).launches:
            lib = library((k.name, k.demangled_name))
            seen[k.name] = lib.name if lib else None
    assert {n: lib for n, lib in seen.items() if lib} == REAL_LIBRARY_KERNELS
    assert {"gemm", "naive_gemm", "ReferenceGemm_kernel", "linspace", "fill_vector", "warptiling",
            "julia_frb_5885", "silu_kernel_non_strided"} <= {n for n, lib in seen.items() if lib is None}


@pytest.mark.parametrize("name, expected", [
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off",
     "cuBLAS"),
    ("volta_h884gemm_64x64_ldg8_nn", "cuBLAS"), ("gemv2T_kernel_val<int, int, float, float, float>", "cuBLAS"),
    ("sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc", "cuDNN"),
    ("implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>", "cuDNN"),
    ("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4", "CUTLASS"),
    ("void regular_fft<256u, EPT<8u>, 32u, 16u, (padding_t)0>", "cuFFT"), ("vector_fft<64u, EPT<4u>>", "cuFFT"),
    ("ncclKernel_AllReduce_RING_LL_Sum_float", "NCCL"), ("ncclDevKernel_AllGather_RING_LL", "NCCL"),
    ("vectorized_elementwise_kernel", "PyTorch ATen"), ("triton_poi_fused_add_relu_0", "Triton"),
    ("my_conv2d_kernel", None), ("transposeSmem", None),
])
def test_library_names(name, expected):
    lib = library((name,))
    assert (lib.name if lib else None) == expected


@pytest.mark.parametrize("name, hit", [("ampere_sgemm_128x64_nn", "gemm"), ("wmma_kernel", "wmma"),
                                       ("conv2d_fprop", "conv"), ("triton_tem_fused_mm_0", "mm"),
                                       ("gamma_correct", ""), ("convert_fp16", ""), ("rms_norm", ""),
                                       ("linspace", ""), ("commit_kernel", "")])
def test_matmul_name(name, hit):
    assert matmul_name((name,)) == hit


@pytest.mark.parametrize("name", [
    "void thrust::THRUST_200301_890_NS::cuda_cub::core::_kernel_agent<thrust::THRUST_200301_890_NS::cuda_cub::"
    "__parallel_for::ParallelForAgent<thrust::THRUST_200301_890_NS::cuda_cub::for_each_f<thrust::"
    "THRUST_200301_890_NS::counting_iterator<int>, thrust::THRUST_200301_890_NS::detail::wrapped_function<"
    "__nv_dl_wrapper_t<__nv_dl_tag<void (*)(), &icon::step, 1u>>, void>>, int>, ...>(T2, T3)",
    "void cub::CUB_200301_890_NS::detail::for_each::static_kernel<..., icon::update(double *)::{lambda(int)#1}>(...)",
])
def test_a_users_lambda_inside_a_thrust_template_is_the_users_code(name):
    """A lambda run by thrust::for_each (the ICON _kernel_agent<...for_each_f<...lambda>>) is user code: no
    library advice ("batch segments into one call ...") for it."""
    assert library((name.split("<")[0], name)) is None


def test_thrusts_own_functors_stay_library_code():
    name = ("void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__parallel_for::ParallelForAgent<"
            "thrust::cuda_cub::for_each_f<thrust::pointer<float>, thrust::detail::wrapped_function<thrust::detail::"
            "allocator_traits_detail::construct1_via_allocator<float>, void>>, long>>(T2, T3)")
    assert library(("_kernel_agent", name)).name == "CUB/Thrust"


@pytest.mark.parametrize(("name", "sort"), [
    ("DeviceRadixSortHistogramKernel", True), ("DeviceRadixSortExclusiveSumKernel", True),
    ("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<int>>(...)", True),
    ("void thrust::cuda_cub::__radix_sort::something<int>(...)", True),
    ("DeviceReduceKernel<cub::DeviceReducePolicy<float>, float *>", False),
    ("void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__reduce::ReduceAgent<float>>(...)", False)])
def test_only_a_radix_sort_is_told_to_limit_its_key_bits(name, sort):
    """The CUB/Thrust advice: every primitive call is told to batch; only a sort to limit its key bits."""
    lib = library((name,))
    assert lib is not None and lib.name == "CUB/Thrust" and "make fewer calls" in lib.caller_advice
    assert ("key bits" in lib.caller_advice) == sort
