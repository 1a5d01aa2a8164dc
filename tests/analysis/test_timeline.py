"""The ncu filter ``analyze --from-nsys`` builds from a timeline's kernels (``analysis.timeline.kernel_regex``):
anchored, escaped, and open at the end where an older nsys cut a name short."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from roofline.analysis.timeline import is_cut, kernel_regex
from roofline.cli.app import app
from roofline.core.timeline import KernelTime
from tests.conftest import find_shared_nsys


def kernel(name: str, short_name: str = "") -> KernelTime:
    return KernelTime(name, 1, 1e-3, 1e-3, 1e-3, 1e-3, (0,), short_name)


def matches(pattern: str, name: str) -> bool:
    """Whether ncu's -k ``regex:`` pattern takes ``name`` (its escapes and groups read alike in Python's re)."""
    return re.fullmatch(pattern.removeprefix("regex:"), name) is not None


def test_a_name_nsys_cut_short_matches_every_name_it_begins():
    """The 2020.3 export of the OpenMP offload example names its kernels "__omp_offloading_31_18a80a1__Z_3...":
    matched literally, no kernel ncu sees would match."""
    pattern = kernel_regex([kernel("__omp_offloading_31_18a80a1__Z_3...")], "function")
    assert pattern == "regex:^(?:__omp_offloading_31_18a80a1__Z_3.*)$"
    assert matches(pattern, "__omp_offloading_31_18a80a1__Z_3main_l59")
    assert not matches(pattern, "__omp_offloading_31_18a80a1__Z_2main_l40")


def test_a_whole_name_stays_literal_and_dots_inside_a_name_are_no_cut():
    pattern = kernel_regex([kernel("triad")], "function")
    assert pattern == "regex:^(?:triad)$" and not matches(pattern, "triad_half2")
    assert not is_cut("f<Ts...>(int)") and not is_cut("...") and is_cut("kernel_a...")
    demangled = kernel_regex([kernel("ns::k<4>...", "k")], "demangled")
    assert matches(demangled, "void ns::k<4>(float *, int)")


def test_from_nsys_says_which_names_nsys_cut_short():
    path = find_shared_nsys("v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite")
    result = CliRunner().invoke(app, ["analyze", "--from-nsys", str(path), "--top", "1", "--dry-run", "/bin/true"])
    assert result.exit_code == 0, result.output
    assert "-k 'regex:^(?:__omp_offloading_31_18a80a1__Z_3.*)$'" in result.output
    assert "nsys cut __omp_offloading_31_18a80a1__Z_3... short: -k matches every kernel whose name begins" in \
        " ".join(result.output.split())
