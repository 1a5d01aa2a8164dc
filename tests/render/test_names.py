"""roofline.render.names: demangled names split into scope, function and template arguments, and fitted to a
column by giving up the scope, then the middle of the template arguments, then the middle of the function."""

from __future__ import annotations

import pytest

from roofline.render.names import KernelName, common_name, distinguish, kernel_name, launch_config

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


def test_launch_configurations_tell_rows_of_one_name_apart() -> None:
    names = [KernelName("k"), KernelName("k"), KernelName("k"), KernelName("other")]
    configs = ["(1056)x(256)", "(8)x(256)", "(1056)x(256)", "(8)x(256)"]
    assert [n.full for n in distinguish(names, configs)] == ["k (1056)x(256)", "k (8)x(256)", "k (1056)x(256)",
                                                             "other"]
    same = distinguish([KernelName("k"), KernelName("k")], ["(8)x(256)", "(8)x(256)"])
    assert [n.full for n in same] == ["k", "k"]  # the same configuration tells nothing: the # column does


def test_launch_config_drops_trailing_ones() -> None:
    assert launch_config((1056, 1, 1), (256, 1, 1)) == "(1056)x(256)"
    assert launch_config((3, 4, 1), (16, 16, 1)) == "(3, 4)x(16, 16)"
    assert launch_config(None, (256, 1, 1)) == ""


def test_a_group_shows_its_template_only_when_its_launches_share_it() -> None:
    assert common_name("gemm", [GEMM, GEMM]).arguments == "(int)128, (int)8, (bool)0"
    assert common_name("gemm", [GEMM, "void gemm<(int)64>(float *)"]) == KernelName("gemm")


# --- One sanitising function per medium (issue 37) -------------------------------------------------------------------
HOSTILE = "k\x1b[2J\x1b[31mred\x00nul\rcr\nlf\tt\x7f\x9b\u202eevil\u2028\ud800"


def test_visible_writes_every_control_character_as_an_escape_and_replaces_lone_surrogates():
    from roofline.render.names import visible

    assert visible(HOSTILE) == ("k\\x1b[2J\\x1b[31mred\\x00nul\\rcr\\nlf\\tt\\x7f\\x9b\\u202eevil\\u2028\ufffd")
    assert visible(visible(HOSTILE)) == visible(HOSTILE)  # escaping twice changes nothing
    assert visible("ampere_sgemm_128x64_nn<float, 2>") == "ampere_sgemm_128x64_nn<float, 2>"
    assert visible("µs €") == "µs €"  # text is left as it is


def test_visible_bounds_the_length_with_an_ellipsis():
    from roofline.render.names import MAX_SHOWN_CHARS, visible

    shown = visible("k" * (10 * MAX_SHOWN_CHARS))
    assert len(shown) == MAX_SHOWN_CHARS and shown.endswith("k…")
    assert visible("abcdef", 4) == "abc…"


def test_plot_text_is_visible_and_no_mathematics():
    from roofline.render.names import plot_text

    assert plot_text("a$\\frac{$b\n") == "a\\$\\frac{\\$b\\n"


def test_json_text_is_strict_and_encodable():
    import json

    from roofline.render.names import json_text

    doc = {"name": HOSTILE, "ok": "😀 µs", "n": [1, 2.5], HOSTILE: None}
    text = json_text(doc)
    text.encode("utf-8")  # strict: no lone surrogate left, escaped or not
    assert "\\ud800" not in text and json.loads(text)["name"].endswith("\u2028\ufffd")
    assert json.loads(text)["ok"] == "😀 µs" and json.loads(json_text({"a": 1})) == {"a": 1}
    assert json_text({"a": "b"}) == '{"a":"b"}\n'


def test_fitting_counts_the_escapes_a_terminal_shows():
    from roofline.render.terminal import fitted

    shown = fitted(KernelName("a\nb\x1b" * 10), 12)
    assert len(shown) == 12 and "\n" not in shown and "\x1b" not in shown
