"""roofline.core.kernel_names: demangled names split into scope, function and template arguments, fitted to a
column by giving up the scope, then the middle of the template arguments, then the middle of the function; and the
key that tells kernels apart."""

from __future__ import annotations

import pytest

from roofline.core.kernel_names import KernelName, fit_apart, kernel_key, kernel_name, windows_cut
from roofline.core.units import window_cut

PYTORCH = ("void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, void "
           "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, "
           "double, T1)::[lambda(int, float) (instance 1)]>(int, at::PhiloxCudaState, T3, T4)")
GEMM = "void gemm<(int)128, (int)8, (bool)0>(float *, float *, float *, int, int, int)"


@pytest.mark.parametrize("function, demangled, parts", [
    ("kernel_A", "kernel_A(double *, int, int)", KernelName("kernel_A")),
    ("gemm", GEMM, KernelName("gemm", "", "(int)128, (int)8, (bool)0")),
    ("distribution_elementwise_grid_stride_kernel", PYTORCH,
     KernelName("distribution_elementwise_grid_stride_kernel", "at::native::<unnamed>::",
                "float, (int)4, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const "
                "at::TensorBase &, double, double, T1)::[lambda(int, float) (instance 1)]")),
    ("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", KernelName("ampere_sgemm_128x64_nn")),
    ("k", "", KernelName("k")),
    ("k", "void k<(int)1>(int", KernelName("k")),  # unbalanced: the function name alone
])
def test_demangled_names_are_split(function: str, demangled: str, parts: KernelName) -> None:
    assert kernel_name(function, demangled) == parts


def test_fitting_gives_up_scope_then_arguments_then_the_function() -> None:
    name = kernel_name("distribution_elementwise_grid_stride_kernel", PYTORCH)
    assert name.fit(1000) == name.full and name.full.startswith("at::native::<unnamed>::distribution_")
    assert name.fit(len(name.full) - 1) == name.full.removeprefix(name.scope)
    cut = name.fit(len(name.full) - len(name.scope) - 1)
    assert cut.startswith("distribution_elementwise_grid_stride_kernel<float, ") and "…" in cut
    assert len(cut) == len(name.full) - len(name.scope) - 1 and cut.endswith("(instance 1)]>")
    sixty = name.fit(60)
    assert len(sixty) == 60 and sixty.startswith("distribution_elementwise_grid_stride_kernel<float, …")
    assert sixty.endswith("ce 1)]>")
    assert name.fit(48) == "distribution_elementwise_grid_stride_kernel<…>"
    assert name.fit(20) == "distributi…de_kernel"
    for width in range(5, 300):
        assert len(name.fit(width)) <= width


def test_a_suffix_is_never_cut() -> None:
    name = KernelName("render_kernel", suffix=" (1024)x(256)")
    assert name.fit(100) == "render_kernel (1024)x(256)"
    assert name.fit(20) == "ren…nel (1024)x(256)"


def test_a_suffix_longer_than_the_width_leaves_the_function_four_characters() -> None:
    name = KernelName("nchwToNhwcKernel", suffix=" (8192, 1, 16)x(256)")
    assert name.fit(15) == "nc…l (8192, 1, 16)x(256)"  # past the width, but the row still names its kernel


def test_a_kernel_is_its_template_instance_and_a_plain_function_its_name() -> None:
    assert kernel_key("gemm", GEMM) == "gemm<(int)128, (int)8, (bool)0>"  # no return type, no parameters
    assert kernel_key("gemm", "void gemm<(int)64>(float *)") != kernel_key("gemm", GEMM)
    assert kernel_key("kernel_A", "kernel_A(double *, int, int)") == "kernel_A"  # overloads pooled, as ncu names it
    assert kernel_key("k", "") == "k"
    assert kernel_key("k", "void k<(int)1>(int") == "k"  # unbalanced: the function name


def test_names_that_would_read_alike_show_where_they_differ() -> None:
    """Two instances of one template cut in their middle read the same; they then show the arguments around their
    first difference, and a name unlike the others keeps its usual fit."""
    a = KernelName("_kernel_agent", "", "thrust::detail::arg_min_f<float>, int, thrust::tuple<float>")
    b = KernelName("_kernel_agent", "", "thrust::detail::arg_max_f<float>, int, thrust::tuple<float>")
    other = KernelName("reset_particles_per_cell")
    assert a.fit(30) == b.fit(30)
    fitted = fit_apart([a, other, b, a], 30)
    assert fitted[0] != fitted[2] and "min" in fitted[0] and "max" in fitted[2]
    assert fitted[1] == other.fit(30) and fitted[3] == fitted[0]
    assert all(len(text) <= 30 for text in fitted)


def test_long_function_names_alike_when_cut_show_where_each_parts_from_the_nearest() -> None:
    """cuDNN's generated names (RTX 3090 conv profile): cut in the middle to 23 characters, three read
    'sm80_xmma_f…_kernel_trt'; each keeps its start and shows where it parts from the name most like it."""
    stem = "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize"
    names = [KernelName(stem + "128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_t1r3s3_execute_kernel_trt"),
             KernelName(stem + "128x64x64_stage3_warpsize2x2x1_g1_tensor16x8x16_t1r3s3_execute_kernel_trt"),
             KernelName(stem + "128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_t1r1s1_execute_kernel_trt")]
    assert len({n.fit(23) for n in names}) == 1
    fitted = fit_apart(names, 23)
    assert len(set(fitted)) == 3 and all(len(text) <= 23 and text.startswith("sm80_") for text in fitted)
    assert "128x64" in fitted[1] and "t1r1" in fitted[2] and "t1r3" in fitted[0]


# four instances of thrust's _kernel_agent as the RTX 2070 SUPER report holds them (shortened): they part twice, on
# the iterator (zip_iterator, tuple) early in their arguments and on the functor (arg_min_f, arg_max_f) late
AGENT_ARGS = "thrust::cuda_cub::__reduce::ReduceAgent<thrust::{it}<float, long long, thrust::null_type, " \
             "thrust::null_type, thrust::null_type, thrust::null_type>, int, thrust::cuda_cub::__extrema::{f}<float, " \
             "long long, thrust::less<float>>>"
AGENTS = [KernelName("_kernel_agent", "thrust::cuda_cub::core::", AGENT_ARGS.format(it=it, f=f))
          for it in ("zip_iterator", "tuple") for f in ("arg_min_f", "arg_max_f")]


@pytest.mark.parametrize("width", [30, 40, 60])
def test_instances_alike_in_pairs_show_each_place_they_part(width: int) -> None:
    """The four agents read alike cut in their middle, and alike in pairs around either place they part alone: each
    shows both places (the iterator and the functor), the scope given up first, within the width."""
    assert len({n.fit(width) for n in AGENTS}) == 1
    fitted = fit_apart(AGENTS, width)
    assert len(set(fitted)) == 4 and all(len(text) <= width for text in fitted)
    assert all(text.startswith("_kernel_agent<") for text in fitted)
    for text, (it, f) in zip(fitted, [("zip", "min"), ("zip", "max"), ("tup", "min"), ("tup", "max")], strict=True):
        assert it in text and f in text, text


def test_names_too_narrow_to_part_are_numbered_never_alike() -> None:
    """At 16 characters the function name leaves the arguments no room to show where four instances part: they are
    numbered in their order (a suffix never cut), and a name that reads apart keeps its fit."""
    other = KernelName("reset_particles_per_cell")
    fitted = fit_apart([*AGENTS, other, AGENTS[0]], 16)
    assert fitted[:4] == ["_kernel_agent ~1", "_kernel_agent ~2", "_kernel_agent ~3", "_kernel_agent ~4"]
    assert fitted[4] == other.fit(16) and fitted[5] == fitted[0]


def test_windows_cut_keeps_each_index_in_view() -> None:
    """Two windows of (16 - 3) // 2 = 6 characters around index 3 ('d') and 30 ('4'); windows that touch make one;
    one index is ``window_cut``'s."""
    text = "abcdefghijklmnopqrstuvwxyz0123456789"
    assert windows_cut(text, [3, 30], 16) == "abcdef…123456…"
    assert windows_cut(text, [10, 12], 12) == "…ijklmn…"
    assert windows_cut(text, [20], 12) == window_cut(text, 20, 12)
    assert windows_cut("short", [1, 3], 10) == "short"
