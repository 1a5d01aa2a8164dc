"""`roofline summary` says which figure ranked each kernel, one number per kernel in the table and the plot, and the
reasons it gives agree with its JSON: a kernel without an estimated saving is placed by its recoverable time and its
row says so (table and JSON); the plot numbers its groups with the table's ranks; a group not drawn gives the reason
of its missing DRAM intensity; `--nsys`'s notes give the ncu/nsys ratio the way up its column does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.cli.options import analysis_options
from roofline.core.units import ratio, seconds
from roofline.facade import Roofline
from roofline.render.compare.plot import summary_data
from tests.conftest import find_shared_nsys

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
ALIFE = "rtx2070super_alife-143launches_basic"
SELFJOIN = "a100-40gb_selfjoin-cub-sort-154launches_basic"
JULIA = "a40_julia-fp16x2_full"
TRANSPOSE = "rtx4090_smem-transpose_full"
MINIWEATHER = "v100_miniweather-openacc_full"
GP100 = "gp100_miniweather-openacc_2021.2-export2022.2.sqlite"


def invoke(*args: object, env: dict[str, str] | None = None):
    return runner.invoke(app, ["summary", *map(str, args)], env=env or WIDE)


def summary_json(*args: object) -> dict:
    result = invoke(*args, "-f", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def summary_document(path: Path):
    """The document `summary` renders, analysed as the command analyses (advised, no SASS)."""
    options = analysis_options(None, "function", "kernel-clock", None, sass=False)
    return Roofline(options).summary([path])


# --- Item 2: the figure that placed each row --------------------------------------------------------------
@pytest.mark.parametrize("name, by, placed", [(ALIFE, "kernel", "mix_give_take_3_kernel"),
                                              (SELFJOIN, "function", "kernelUniqueKeys")])
def test_json_says_which_figure_placed_each_row(shared_report, name, by, placed):
    """Each row's ``ranked_by_kind`` and ``ranked_by_value_s``: its time to gain, or (none estimated) its
    recoverable time; the rows are in the order of those values; the report counts the groups left out of
    ``time_to_gain_s`` and their recoverable time."""
    (report,) = summary_json(shared_report(name), "--by", by, "--top", 100)["reports"]
    rows = report["rows"]
    assert report["ranked_by"] == "time to gain"
    for r in rows:
        if r["time_to_gain_s"] is not None:
            assert (r["ranked_by_kind"], r["ranked_by_value_s"]) == ("time_to_gain", r["time_to_gain_s"])
        else:
            assert (r["ranked_by_kind"], r["ranked_by_value_s"]) == ("recoverable", r["recoverable_s"])
    values = [r["ranked_by_value_s"] for r in rows]
    assert values == sorted(values, reverse=True)
    row = next(r for r in rows if r["name"] == placed)
    assert row["ranked_by_kind"] == "recoverable" and row["time_to_gain_s"] is None
    without = [r["recoverable_s"] for r in rows if r["ranked_by_kind"] == "recoverable"]
    assert report["groups_without_gain"] == len(without)
    assert report["without_gain_recoverable_s"] == pytest.approx(sum(without), rel=1e-12)


@pytest.mark.parametrize("name, by, placed", [(ALIFE, "kernel", "mix_give_take_3_kernel"),
                                              (SELFJOIN, "function", "kernelUniqueKeys")])
def test_table_shows_the_recoverable_time_that_placed_a_row_without_an_estimate(shared_report, name, by, placed):
    """The row's "to gain" cell holds the recoverable time it was placed by, in parentheses (the word left to the
    header, which says how such a row is ranked, so that the cell takes no room from the names); "to gain in all"
    says what it leaves out."""
    (report,) = summary_json(shared_report(name), "--by", by)["reports"]
    row = next(r for r in report["rows"] if r["name"] == placed)
    result = invoke(shared_report(name), "--by", by)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    line = next(line for line in result.stdout.splitlines() if f" {placed} " in line)
    assert f"  ({seconds(row['ranked_by_value_s'])})  " in line and "recoverable" not in line
    assert f"ranked by time to gain; a {by} without an estimate by its recoverable time, shown in parentheses" in text
    count = report["groups_without_gain"]
    assert f"to gain in all: {seconds(report['time_to_gain_s'])} (without {count} {by}" in text
    assert f"with no estimate, {seconds(report['without_gain_recoverable_s'])} recoverable)" in text


def test_table_with_a_recoverable_cell_fits_80_columns(shared_report):
    result = invoke(shared_report(ALIFE), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 80 and "recoverable)" in result.stdout


def test_a_report_ranked_by_time_to_gain_throughout_marks_no_row(shared_report):
    (report,) = summary_json(shared_report(JULIA))["reports"]
    assert {r["ranked_by_kind"] for r in report["rows"]} == {"time_to_gain"} and report["groups_without_gain"] == 0
    result = invoke(shared_report(JULIA))
    assert "recoverable)" not in result.stdout and "without an estimate" not in result.stdout


# --- Item 3: one number per kernel in the table and the plot ----------------------------------------------
@pytest.mark.parametrize("name", [JULIA, ALIFE, TRANSPOSE])
def test_plot_numbers_each_group_with_its_rank_in_the_table(shared_report, name):
    """The plot's bars, points and notes carry the table's (and the JSON's) rank of each group, bars in that
    order: julia__5_11236 is #2 and julia__5_11155 #3 in both, though 11155 has more recoverable time."""
    path = shared_report(name)
    ranks = {r["name"]: r["rank"] for r in summary_json(path)["reports"][0]["rows"]}
    document = summary_document(path)
    (merged,) = document.panels
    assert {g.name: g.number for g in merged.groups} == ranks
    assert [g.number for g in merged.groups] == sorted(ranks.values())
    (panel,) = summary_data(document.panels).panels
    assert [b.label.split()[0] for b in panel.bars] == [f"#{n}" for n in sorted(ranks.values())]
    numbers = {p.number for p in panel.points} | {int(what.split()[0][1:]) for what, _ in panel.skipped}
    assert numbers == set(ranks.values())
    if name == JULIA:
        assert ranks["julia__5_11236"] == 2 and ranks["julia__5_11155"] == 3
        assert [b.label for b in panel.bars][1:] == ["#2 julia__5_11236", "#3 julia__5_11155"]


# --- Item 4: the reason a group is not drawn ---------------------------------------------------------------
def test_plot_note_gives_the_missing_flop_count_as_the_json_does(shared_report):
    """The smem-transpose report has no FLOP counters: each group not drawn says its DRAM intensity is missing for
    the JSON's reason (no FLOP count), not the roof's partial ceilings."""
    path = shared_report(TRANSPOSE)
    rows = summary_json(path)["reports"][0]["rows"]
    why = {r["rank"]: r["missing"]["intensity.dram"] for r in rows}
    assert all(reason.startswith("no FLOP count: missing metrics") for reason in why.values())
    (panel,) = summary_data(summary_document(path).panels).panels
    assert len(panel.skipped) == len(rows) and not panel.points
    for what, reason in panel.skipped:
        assert reason == f"no DRAM intensity ({why[int(what.split()[0][1:])]})"
        assert "partial" not in reason and "l2 ceiling" not in reason


# --- Item 1: summary --nsys gives the ratio one way up -------------------------------------------------------
def test_nsys_notes_give_the_ratio_as_the_ncu_over_nsys_column(shared_report):
    """miniweather: the table's ncu/nsys column and each note of a kernel whose times are far apart give ncu's time
    over nsys's, the same number (74 for compute_tendencies_x_278_gpu, ncu slower); the JSON's ``time_gaps`` carry
    it as ``ncu_over_nsys`` beside ``nsys_over_ncu``; the legend is whole."""
    profile = find_shared_nsys(GP100)
    report = shared_report(MINIWEATHER)
    result = invoke(report, "--nsys", profile, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    column = {k["nsys_name"]: k["ncu_over_nsys"] for k in doc["kernels"]}
    assert doc["time_gaps"]
    for gap in doc["time_gaps"]:
        assert gap["ncu_over_nsys"] == pytest.approx(column[gap["name"]], rel=1e-12)
        assert gap["ncu_over_nsys"] == pytest.approx(1 / gap["nsys_over_ncu"], rel=1e-12)
    table = invoke(report, "--nsys", profile)
    assert table.exit_code == 0, table.output
    text = " ".join(table.stdout.split())
    gap = next(g for g in doc["time_gaps"] if g["short_name"] == "compute_tendencies_x_278_gpu")
    assert ratio(gap["ncu_over_nsys"]) == "74"
    assert "compute_tendencies_x_278_gpu: 83.6 us in nsys, 6.19 ms in ncu (ncu/nsys 74x, ncu slower)" in text
    for g in doc["time_gaps"]:
        assert f"(ncu/nsys {ratio(g['ncu_over_nsys'])}x, {g['slower']} slower)" in text
    assert "0.0135x" not in text
    assert ("roof, bound: ncu's percent of roof and verdict; ncu/nsys: ncu's time per launch over nsys's median "
            "launch (above 1: ncu slower)") in text


@pytest.mark.parametrize("name", ["rtx5060ti_transpose_basic", "rtx5060ti_transpose-occupancy-45launches_metrics",
                                  "gh200_silu_metrics", SELFJOIN])
def test_each_null_figure_of_a_report_has_its_reason(shared_report, name):
    """A report not ranked by time to gain (no advice item with an estimate, no roof position, no time) says why
    each of its summed figures is null; one ranked by time to gain has none null."""
    report = summary_json(shared_report(name))["reports"][0]
    fields = ("shown_share", "small_grid_s", "recoverable_s", "time_to_gain_s", "without_gain_recoverable_s")
    assert set(report["missing"]) == {f for f in fields if report[f] is None} | (
        {"report.total_time_s"} if report["report"]["total_time_s"] is None else set())
    if report["ranked_by"] == "time to gain":
        assert report["missing"] == {}
    else:
        assert report["without_gain_recoverable_s"] is None and report["time_to_gain_s"] is None
        assert report["missing"]["without_gain_recoverable_s"].startswith("not ranked by time to gain")


def test_a_kernel_whose_time_to_gain_leaves_launches_out_says_how_many_and_their_recoverable_time(shared_report):
    """The A100 self-join's distanceCalculationsKernel: 11 launches, one with an estimated item (its last wave), ten
    latency-bound ones without: the 131 ms to gain leaves 10 launches out, and the row says so with their
    recoverable time, the sum of theirs in the report's JSON."""
    path = shared_report(SELFJOIN)
    report = summary_json(path)["reports"][0]
    row = report["rows"][0]
    assert row["name"] == "distanceCalculationsKernel" and row["count"] == 11
    assert row["unestimated_launches"] == 10
    launches = json.loads(runner.invoke(app, ["report", str(path), "-k", "exact:distanceCalculationsKernel", "-f",
                                              "json"]).stdout)["reports"][0]["kernels"]
    without = [k for k in launches
               if not any(a["kind"] != "measurement" and a["est_saved_s"] is not None for a in k["advice"])]
    assert len(without) == 10
    assert row["unestimated_recoverable_s"] == pytest.approx(sum(k["recoverable_s"] for k in without), rel=1e-9)
    assert row["time_to_gain_s"] < 0.2 < row["unestimated_recoverable_s"]
    placed = next(r for r in report["rows"] if r["ranked_by_kind"] == "recoverable")  # kernelUniqueKeys: no estimate
    assert placed["unestimated_launches"] is None and placed["unestimated_recoverable_s"] is None
    assert placed["missing"]["unestimated_launches"].startswith("no time to gain")
    text = " ".join(invoke(path).stdout.split())
    assert (f"#1: 10 of its 11 launches have no estimated advice item ({seconds(row['unestimated_recoverable_s'])} "
            "recoverable), not in its time to gain") in text
