"""The terminal tables of ``compare`` (``render.compare.table``): what each n/a in them stands for is said under
them."""

from __future__ import annotations

from roofline.compare.pairing import Matcher, pair_reports
from roofline.pipeline import analyze_files
from roofline.render.compare.table import comparison_text, expectation_lines
from tests.conftest import REPO


def test_every_expected_speedup_left_out_is_explained_under_the_table():
    """The FP32 cuBLAS GEMM on the H100 and the H200 is instruction-bound on both: no roof sets its time, so there
    is no expected speedup, and the line under the table says why (it said nothing where the cause was not one of
    the verdicts)."""
    examples = REPO / "examples"
    c = pair_reports(analyze_files([examples / "h100" / "torch-fp32.roofline.json",
                                    examples / "h200" / "torch-fp32.roofline.json"]))
    (pair,) = c.pairs
    expected = pair.expected_speedup[1]
    assert expected.value is None and expected.reason
    (line,) = expectation_lines(c, 1)
    assert line.endswith(f": {expected.reason}") and "(instructions)" in line
    assert expected.reason in " ".join(comparison_text(c, width=200).split())


def test_the_diff_note_says_the_change_is_not_the_medians_ratio(shared_report):
    """RTX 5060 Ti transpose, order-matched: one BASE launch of 60.9 us, 44 NEW launches in two clusters (about 20
    and 50 us) with a 35.2 us median. The change (-47.1%) is the geometric mean of the two middle pairwise ratios,
    not 35.2 / 60.9 - 1 = -42.2%: the note says which, so the printed medians do not contradict it."""
    import math

    from roofline.compare.pairing import Matcher
    from roofline.compare.regression import Thresholds
    from roofline.facade import Roofline
    from roofline.pipeline import AnalysisOptions
    from roofline.render.compare.table import noise_note

    base, new = (shared_report(n) for n in ("rtx5060ti_transpose_basic",
                                            "rtx5060ti_transpose-occupancy-45launches_metrics"))
    d = Roofline(AnalysisOptions()).diff(base, new, Thresholds(), Matcher("order")).result
    v = d.verdicts[0]
    a, b = v.pair.side(0), v.pair.side(1)
    times = sorted(b.durations_s)
    middle = [t / a.durations_s[0] for t in times[len(times) // 2 - 1: len(times) // 2 + 1]]
    assert math.isclose(v.change.ratio, math.exp(sum(map(math.log, middle)) / 2), rel_tol=1e-9)
    assert abs(v.change.ratio - b.median_s.value / a.median_s.value) > 0.04
    assert "not the ratio of the two medians shown" in noise_note(d) and "columns A and B" not in noise_note(d)


def test_a_diff_pair_whose_work_was_not_compared_is_no_speedup(shared_report):
    """RTX 3080 SGEMM against the RTX 4090 torch SGEMM (family match, different kernels, no FLOP counts on the 4090
    side): 77.4 -> 3.74 us printed "ok" as a -95.2% change though the NEW side launches 1.5% of the threads and
    0.14% of the instructions (raw launch__grid_size x block size, smsp__inst_executed.sum). Its status is now
    "work?" and a line says the change is no speedup of the same work."""
    from roofline.compare.pairing import Matcher
    from roofline.compare.regression import Thresholds
    from roofline.facade import Roofline
    from roofline.pipeline import AnalysisOptions
    from roofline.render.compare.table import status_word, work_unknown

    a, b = (shared_report(n) for n in ("rtx3080_sgemm-vs-cublas_full", "rtx4090_torch-linear-sgemm_custom"))
    doc = Roofline(AnalysisOptions()).diff(a, b, Thresholds(), Matcher("family"), allow_different_gpu=True)
    (v,) = doc.result.verdicts
    check = v.pair.work[1]
    assert check is not None and not check.basis and not check.different
    assert work_unknown(v) and status_word(v) == "work?"
    threads = next(m for m in check.measures if m.key == "threads")
    assert threads.ratio == (4 * 256) / (525 * 128)  # raw launch__grid_size x launch__block_size, NEW / BASE


def test_the_legend_never_wraps_a_number_away_from_its_unit(shared_report):
    """compare of four reports at 80 columns: "ncu 2023.1.1.0, 9" ended a line and "launches, spec a10g" began the
    next. Each line of the legend now ends and begins outside a number and its unit."""
    import re

    from typer.testing import CliRunner

    from roofline.cli.app import app
    from roofline.render.compare.table import unit_wrap

    assert unit_wrap("A: r  GPU (CC 8.6), ncu 2023.1.1.0, 9 launches, spec a10g", 44) == [
        "A: r  GPU (CC 8.6), ncu 2023.1.1.0,", "9 launches, spec a10g"]
    names = ("a10g_sgemm-progression_basic", "a10g_sgemm-blocktiling_roofline", "rtx3080_sgemm-vs-cublas_full",
             "a100-40gb_cublas-sgemm_basic")
    result = CliRunner().invoke(app, ["compare", *(str(shared_report(n)) for n in names)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    legend = result.stdout.split("matching:")[0].splitlines()
    assert len(legend) > len(names)  # some entries wrap at 80 columns
    for before, after in zip(legend, legend[1:], strict=False):
        assert not (re.search(r"\d$", before) and re.match(r"[A-Za-z%]", after)), (before, after)
        assert not re.search(r"\b(ncu|CC)$", before), before


def test_a_change_that_rounds_to_zero_is_never_minus_zero() -> None:
    """The CuPy triad's roofline and full-set runs differ by -0.004%: the diff printed "-0.0%"."""
    from roofline.render.compare.table import change_text

    assert change_text(1 - 4e-5, -0.004) == "+0.0%"
    assert change_text(1.123, 12.3) == "+12.3%" and change_text(0.96, -4.0) == "-4.0%"
    assert change_text(584.0, 58300.0) == "584x" and change_text(None, 1.0) == "n/a"


def test_the_diff_total_of_a_change_that_rounds_to_zero_reads_plus_zero():
    """The CuPy triad's roofline and full-set runs on the H100: the kernel read "+0.0%" but the total "-0.0%"."""
    from roofline.compare.regression import Thresholds
    from roofline.facade import Roofline
    from roofline.pipeline import AnalysisOptions
    from roofline.render.compare.table import total_text

    examples = REPO / "examples" / "h100"
    d = Roofline(AnalysisOptions()).diff(examples / "triad-cupy.roofline.ncu-rep", examples / "triad-cupy.full.ncu-rep",
                                         Thresholds()).result
    assert d.total is not None and -0.05 < d.total.change_pct <= 0.0
    assert ": +0.0% (<= 5%)" in total_text(d)


def test_a_map_that_pools_several_kernels_into_one_row_is_warned(shared_report):
    """A10G SGEMM steps: '.*tiling' takes every blocktiling and warptiling kernel of each side into one row, whose
    median mixes them; the pairing line says how many kernels each side pools (it only listed their names)."""
    from roofline.compare.pairing import parse_matcher
    from roofline.compare.regression import Thresholds
    from roofline.facade import Roofline
    from roofline.pipeline import AnalysisOptions
    from roofline.render.compare.table import pairing_lines

    path = shared_report("a10g_sgemm-blocktiling_roofline")
    d = Roofline(AnalysisOptions()).diff(path, path, Thresholds(), parse_matcher(maps=[".*tiling=.*tiling"])).result
    pooled = next(p for p in d.comparison.pairs if p.method == "map")
    n = len(pooled.sides[0].names)
    assert n > 1 and len(pooled.sides[1].names) == n
    (line,) = [x for x in pairing_lines(d.comparison) if "one row for several kernels" in x]
    assert f"{n} in A, {n} in B" in line
    assert not any("one row for several" in x for x in pairing_lines(
        Roofline(AnalysisOptions()).diff(path, path, Thresholds(), parse_matcher(match="order")).result.comparison))


def test_flops_that_leave_out_an_unmeasured_precision_read_as_a_lower_bound_never_zero(shared_report):
    """The A100 CUTLASS report counts FP32/FP64/Tensor FLOPs of 0 and has no FP16 counter (hfma): its kernels'
    FLOPs are 'at least 0', not 0; the RTX 3080 side (FP16 not measured either) reads '>= 901 M'; a report with
    every precision measured keeps its plain figure."""
    from roofline.render.compare.table import work_grid

    a, b = analyze_files([shared_report("rtx3080_sgemm-vs-cublas_full"), shared_report("a100-80gb_cutlass-gemm_full")])
    grid = work_grid(pair_reports([a, b], Matcher("order")), 1)
    assert [row[:2] for row in grid.rows] == [(">= 901 M", ">= 0"), (">= 968 M", ">= 0")]
    assert "FLOPs >= X: the precisions measured, another not measured" in grid.caption
    full = analyze_files([shared_report("a10g_sgemm-blocktiling_roofline")] * 2)
    plain = work_grid(pair_reports(full), 1)
    assert all(not cell.startswith(">=") for row in plain.rows for cell in row[:2])
    assert "FLOPs >= X" not in plain.caption
