"""roofline.render.names: a group's name, rows of one name told apart by their launch configuration, ncu's launch
notation."""

from __future__ import annotations

from roofline.core.kernel_names import KernelName, kernel_key
from roofline.render.names import distinguish, group_name, launch_config

GEMM = "void gemm<(int)128, (int)8, (bool)0>(float *, float *, float *, int, int, int)"


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


def test_a_kernel_group_shows_its_template_and_a_function_group_its_name() -> None:
    assert group_name(kernel_key("gemm", GEMM), ("gemm",)).arguments == "(int)128, (int)8, (bool)0"
    assert group_name("gemm", ("gemm",)) == KernelName("gemm")  # grouped by function
    assert group_name("step > solve", ("a", "b")) == KernelName("step > solve")  # an NVTX range
