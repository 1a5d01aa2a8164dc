"""roofline.kernel_filter: the --kernel language (exact function or demangled name, or regex:PATTERN)."""

from __future__ import annotations

import pytest

from roofline.errors import NoKernelMatched, RooflineError
from roofline.kernel_filter import filter_kernels
from roofline.model import Device, KernelLaunch, Report

REPORT = Report("app.json", Device("Test GPU"), (
    KernelLaunch(0, 0, "gemm", demangled_name="void gemm<64>(float *)"),
    KernelLaunch(0, 1, "ampere_sgemm_128x64_nn"),
    KernelLaunch(0, 2, "copy"),
), source="model")


@pytest.mark.parametrize("pattern, kept", [
    (None, ["gemm", "ampere_sgemm_128x64_nn", "copy"]),
    ("", ["gemm", "ampere_sgemm_128x64_nn", "copy"]),
    ("copy", ["copy"]),
    ("void gemm<64>(float *)", ["gemm"]),  # the demangled name
    ("regex:gemm", ["gemm", "ampere_sgemm_128x64_nn"]),
    ("regex:<64>", ["gemm"]),  # searched in the demangled name too
    ("regex:^g", ["gemm"]),
])
def test_names_and_patterns_select_launches(pattern, kept):
    assert [k.name for k in filter_kernels(REPORT, pattern).launches] == kept


def test_an_exact_name_is_the_whole_name():
    with pytest.raises(NoKernelMatched) as err:
        filter_kernels(REPORT, "ampere_sgemm")
    assert str(err.value) == ("app.json: no kernel matches 'ampere_sgemm': kernels in this report: "
                              "ampere_sgemm_128x64_nn, copy, gemm; use an exact name or regex:PATTERN")


def test_an_invalid_regex_is_a_one_line_error():
    with pytest.raises(RooflineError, match=r"invalid kernel regex '\(' .*fix the pattern after regex:"):
        filter_kernels(REPORT, "regex:(")


def test_a_regex_that_backtracks_for_ever_is_stopped_with_one_line():
    """Issue 15: a user regex could run for hours; it is stopped after timelimit.REGEX_LIMIT_S."""
    hostile = Report("app.json", Device("Test GPU"), (KernelLaunch(0, 0, "a" * 64 + "!"),), source="model")
    with pytest.raises(RooflineError) as err:
        filter_kernels(hostile, "regex:(a+)+$")
    assert str(err.value) == ("kernel regex '(a+)+$' on the names in app.json took longer than 2 s and was stopped: "
                              "simplify the pattern: nested repeats such as (a+)+ or (.*)* backtrack exponentially "
                              "on long names")
