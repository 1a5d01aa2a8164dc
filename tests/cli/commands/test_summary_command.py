"""`roofline summary`: the whole-application view of reports with 140+ launches, by kernel and by NVTX range.

Group totals, shares and recoverable times are recomputed from raw gpu__time_duration.sum and SpeedOfLight
throughput values (ncu_report directly)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.kernel_names import kernel_key
from roofline.render.report.json import SCHEMA_VERSION
from tests.conftest import REPO, find_shared_nsys, raw_whole_blocks_pct

runner = CliRunner()
ENV = {"COLUMNS": "80"}
ALIFE = "rtx2070super_alife-143launches_basic"
SELFJOIN = "a100-40gb_selfjoin-cub-sort-154launches_basic"


def invoke(*args: object):
    return runner.invoke(app, ["summary", *map(str, args)], env=ENV)


SM, MEMORY = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")


def raw_totals(raw_actions, name: str) -> dict[str, float]:
    totals: dict[str, float] = {}
    for a in raw_actions(name):
        key = kernel_key(a.name, a.demangled)
        totals[key] = totals.get(key, 0.0) + a["gpu__time_duration.sum"] * 1e-9
    return totals


L2_SECTORS = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"
L2_REACHABLE = 0.80  # device_specs/architecture/memory.yaml: the L2 sectors' reachable share of their peak


def raw_recoverable(raw_actions, name: str) -> tuple[dict[str, float], float]:
    """Per kernel, the time above the busiest unit's peak (the L2's sectors at the share of theirs a kernel can
    reach: neither GPU has an L2 calibration); and the small grids' time, counted apart."""
    saved: dict[str, float] = {}
    small_grid_time = 0.0
    for a in raw_actions(name):
        t = a["gpu__time_duration.sum"] * 1e-9
        small = a[SM] < 60 and a[MEMORY] < 60 and a["launch__waves_per_multiprocessor"] < 1
        key = kernel_key(a.name, a.demangled)
        l2 = a.value(L2_SECTORS)
        l2_reach = None if l2 is None else l2 / L2_REACHABLE
        attained = max(v for v in (a[SM], a[MEMORY], raw_whole_blocks_pct(a), l2_reach) if v is not None)
        saved[key] = saved.get(key, 0.0) + (0.0 if small else t * max(0.0, 1 - attained / 100))
        small_grid_time += t if small else 0.0
    return saved, small_grid_time


def test_json_ranks_the_top_groups_of_each_large_report(shared_report, raw_actions):
    result = invoke(shared_report(ALIFE), shared_report(SELFJOIN), "--top", 4, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == "summary" and doc["top"] == 4
    for report, name, launches in zip(doc["reports"], (ALIFE, SELFJOIN), (143, 154), strict=True):
        totals = raw_totals(raw_actions, name)
        saved, small_grid_time = raw_recoverable(raw_actions, name)
        grand = sum(totals.values())
        top = [r["name"] for r in report["rows"]]
        gains = [r["time_to_gain_s"] for r in report["rows"]]
        assert report["report"]["launches"] == launches and report["groups"] == len(totals)
        assert report["ranked_by"] == "time to gain"  # advised: what each launch's first item saves, as report's
        # a group with no estimated item takes its place by its recoverable time (advice.rank_by_time_to_gain)
        keys = [g if g is not None else r["recoverable_s"] for g, r in zip(gains, report["rows"], strict=True)]
        assert keys == sorted(keys, key=lambda k: (k is None, -(k or 0.0))) and len(top) == 4
        assert [r["recoverable_s"] for r in report["rows"]] == pytest.approx([saved[k] for k in top], rel=1e-9)
        assert [r["total_s"] for r in report["rows"]] == pytest.approx([totals[k] for k in top], rel=1e-9)
        assert [r["time_share"] for r in report["rows"]] == pytest.approx([totals[k] / grand for k in top], rel=1e-9)
        assert report["shown_share"] == pytest.approx(sum(totals[k] for k in top) / grand, rel=1e-9)
        assert report["small_grid_s"] == pytest.approx(small_grid_time, rel=1e-9)
        assert "counted apart as small grids" in report["recoverable_counts"]
        assert all(r["pct_of_roof"] is None and "pct_of_roof" in r["missing"] for r in report["rows"])


def test_table_fits_80_columns_and_says_what_is_hidden(shared_report, raw_actions):
    result = invoke(shared_report(ALIFE), "--top", 3)
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 80
    hidden = len(raw_totals(raw_actions, ALIFE)) - 3  # 17 kernels: thrust's _kernel_agent instances apart
    assert "Top 3 by kernel" in result.stdout and f"{hidden} more not shown (--top)" in result.stdout


def test_by_nvtx_range(shared_report):
    result = invoke(shared_report("rtx3070_daxpy-nvtx_custom"), "--by", "nvtx", "-f", "json")
    rows = json.loads(result.stdout)["reports"][0]["rows"]
    assert result.exit_code == 0 and {r["name"] for r in rows} == {"run_test > init_data", "run_test > daxpy",
                                                                  "run_test > check_results"}


@pytest.mark.parametrize("by, groups, names", [
    ("nvtx", "3 NVTX ranges", ("run_test > daxpy", "run_test > init_data", "run_test > check_results")),
    ("function", "3 functions", ("daxpy_kernel", "init_data_kernel", "check_results_kernel")),
])
def test_the_table_names_each_grouping_by_what_it_groups(shared_report, by, groups, names):
    """The table's rows carry the group's own name (a kernel name only when grouped by kernel) and the header counts
    the groups by their kind, as the JSON does."""
    result = invoke(shared_report("rtx3070_daxpy-nvtx_custom"), "--by", by)
    header = " ".join(result.stdout.split())
    assert result.exit_code == 0 and f"3 launches in {groups}," in header
    assert all(name in result.stdout for name in names)


def test_a_small_grid_reads_as_in_the_report_table(shared_report):
    result = invoke(shared_report("a10g_sgemm-progression_basic"))
    assert result.exit_code == 0 and "small grid" in result.stdout and "small_grid" not in result.stdout


def test_plot_is_written(shared_report, tmp_path):
    out = tmp_path / "summary.png"
    result = invoke(shared_report(ALIFE), shared_report("rtx3060-laptop_reductions_full"), "--plot", out)
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, fragment", [
    (("--top", "0"), "--top 0: must be at least 1"),
    (("--plot", "out.txt"), "unknown plot format"),
])
def test_usage_errors_exit_2(shared_report, args, fragment):
    result = invoke(shared_report(ALIFE), *args)
    assert result.exit_code == 2 and fragment in result.output and result.output.count("\n") == 1


def test_a_bad_report_does_not_stop_the_others(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
    result = invoke(example, tmp_path / "gone.json", "-f", "json")
    assert result.exit_code == 2
    assert [r["report"]["path"] for r in json.loads(result.stdout)["reports"]] == [str(example)]
    assert result.stderr == f"roofline: error: {tmp_path / 'gone.json'}: no such file: check the path\n"


def test_header_counts_one_kernel_in_the_singular(shared_report):
    result = invoke(shared_report("a100-40gb_cublas-sgemm_basic"), "--jobs", 1)
    assert result.exit_code == 0, result.output
    assert "11 launches in 1 kernel," in result.output


def test_the_recoverable_time_is_defined_once_under_every_summary(shared_report):
    """Two reports: each has its table, and what the recoverable time and the roof column count is said once, at
    the end."""
    from roofline.compare.ranking import RECOVERABLE_COUNTS
    from roofline.render.compare.table import POOLED_ROOF

    result = invoke(shared_report(ALIFE), shared_report(SELFJOIN), "--wide")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert flat.count(RECOVERABLE_COUNTS) == 1 and flat.count(POOLED_ROOF) == 1
    assert flat.endswith(f"{RECOVERABLE_COUNTS} {POOLED_ROOF}")
    assert flat.count("ranked by time to gain") == 2
    assert [line for line in result.stdout.splitlines() if line != line.rstrip()] == []  # no padding at line ends


def test_the_help_defines_the_recoverable_time_the_code_computes():
    """summary --help: time x (1 - attained / 100) with the attained percent the largest of percent of roof, the
    two throughputs and the busiest SM unit in whole blocks per SM, at most the time above the launch floor and the
    time above its floor at the peaks it can reach (analysis.roofline.recoverable_time, launches.within_reach), small
    grids apart, as docs/figures.md says."""
    help_text = " ".join(runner.invoke(app, ["summary", "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert ("recoverable time: the time above the launch's floor at the peaks it can reach (grade's most saved), "
            "or without a time model time x (1 - attained / 100), attained = the largest of percent of roof, the SM "
            "and memory throughputs and the busiest SM unit in whole blocks per SM, at most the time above the "
            "1.5 us launch floor; small-grid launches are counted apart") in help_text
    assert "(1 - percent of roof)" not in help_text
    assert "Rank the kernels of whole applications by their time to gain: per launch, what its first estimated " \
        "advice item" in help_text  # the figure it ranks by, the one the report's table and advice give


@pytest.mark.parametrize("name", ["gp100_miniweather-openacc_2021.2-export2022.2.sqlite",
                                  "h200_nvfuser-matmul-nvtx_2025.1.nsys-rep"])
def test_an_nsight_systems_profile_given_as_a_report_points_to_timeline_and_nsys(name: str) -> None:
    """The shared Nsight Systems profiles (an .sqlite export, an .nsys-rep) given where Nsight Compute reports
    belong: one line that says what the file is and the commands that read it."""
    profile = find_shared_nsys(name)
    result = invoke(profile)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    line = result.stderr
    assert line.startswith(f"roofline: error: {profile}: not an Nsight Compute report (no NVR header)")
    assert "an Nsight Systems profile" in line and "roofline timeline" in line and "summary REPORT --nsys" in line


def test_an_sqlite_file_given_as_a_report_points_to_timeline(tmp_path) -> None:
    profile = tmp_path / "app.sqlite"
    profile.write_bytes(b"SQLite format 3\x00" + bytes(4096))
    result = invoke(profile)
    assert result.exit_code == 2 and "roofline timeline" in result.stderr and len(result.stderr.splitlines()) == 1


def null_paths(doc: object, path: str = "") -> list[str]:
    """The paths of the null values of a document's rows and reports, "intensity.dram" for a nested one."""
    if isinstance(doc, dict):
        return [p for key, value in doc.items() if key != "missing"
                for p in null_paths(value, f"{path}.{key}" if path else key)]
    return [path] if doc is None else []


@pytest.mark.parametrize("name", ["h800_flash-attn-fwd_full", "gh200_silu_metrics", "a100-40gb_cublas-sgemm_basic",
                                  "a10g_sgemm-progression_basic"])
def test_every_null_of_a_summary_row_has_its_reason_and_no_unmeasured_time_is_0(shared_report, raw_actions, name):
    """H800 FlashAttention (ncu stored NaN for its duration), the GH200 SiLU metrics (no duration collected) and
    two basic sets (no roof position): every null of a row, its times and median percent of roof included, has its
    reason under the row's missing (where a roof position is partial, its note is there too); a group none of whose
    launches ncu timed (read with ncu_report) has its small-grid time null, not 0, and a null report total time has
    its reason."""
    result = invoke(shared_report(name), "-n", 100, "-f", "json")
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["reports"]
    timed = {kernel_key(a.name, a.demangled) for a in raw_actions(name)
             if a.has("gpu__time_duration.sum") and a["gpu__time_duration.sum"] > 0}
    for row in report["rows"]:
        assert set(null_paths(row)) <= set(row["missing"]), row["name"]  # (a partial roof's note too)
        assert (row["total_s"] is None) == (row["name"] not in timed), row["name"]
        if row["total_s"] is None:
            assert row["small_grid_s"] is None and row["missing"]["small_grid_s"].startswith(
                "no launch of the group has a time")
    if report["report"]["total_time_s"] is None:
        assert report["missing"]["report.total_time_s"]


def test_a_report_with_no_valid_duration_is_one_line_and_exit_2_and_a_mix_is_summarised(tmp_path):
    """The 50-launch calibration model with every duration 0, negative, NaN or inf: nothing is left to summarise,
    so one error line names the file (exit 2), where "50 launches in 0 kernels, total n/a" came with exit 0; beside
    a valid report, the valid one is summarised (exit 0)."""
    from pathlib import Path

    source = json.loads((Path(__file__).resolve().parents[2] / "data" / "calibration" /
                         "h100-ncu.roofline.json").read_text())
    for i, launch in enumerate(source["launches"]):
        launch["metrics"]["gpu__time_duration.sum"] = (0, -5.0, float("nan"), float("inf"))[i % 4]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(source))
    result = invoke(bad)
    assert result.exit_code == 2 and "in 0 kernels" not in result.stdout
    (error,) = [line for line in result.stderr.splitlines() if "error" in line]
    assert error.startswith(f"roofline: error: {bad}: nothing to summarise: none of its 50 launches is valid")
    example = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
    mixed = invoke(bad, example, "-f", "json")
    assert mixed.exit_code == 0, mixed.output
    assert [r["groups"] for r in json.loads(mixed.stdout)["reports"]] == [0, 3]


def test_a_timed_group_without_a_verdict_has_its_small_grid_time_null_with_why_not_0(shared_report, raw_actions):
    """RTX 5060 Ti transpose, a metrics-only report: ncu timed its launches (gpu__time_duration.sum, read with
    ncu_report) but collected no SpeedOfLight throughput, so no launch has a verdict: the row's and the report's
    small-grid time are null, not 0, and the reason says the verdict is what is missing, not the time."""
    name = "rtx5060ti_transpose-occupancy-45launches_metrics"
    timed = [a for a in raw_actions(name) if a.has("gpu__time_duration.sum")]
    assert timed and not any(a.has("sm__throughput.avg.pct_of_peak_sustained_elapsed") for a in timed)
    result = invoke(shared_report(name), "-f", "json")
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["reports"]
    (row,) = report["rows"]
    assert row["total_s"] == pytest.approx(sum(a["gpu__time_duration.sum"] for a in timed) * 1e-9)
    assert row["small_grid_s"] is None and report["small_grid_s"] is None
    assert row["missing"]["small_grid_s"].startswith("no launch of the group has a verdict, so whether it is a small "
                                                     "grid is not known: no SpeedOfLight throughputs")
    assert report["missing"]["small_grid_s"].startswith("no launch of the report has a verdict")


def table_rows(text: str) -> list[list[str]]:
    """The rows of the first summary table of ``text``: its cells split on runs of two spaces or more."""
    import re

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "name"]) + 1
    rows = []
    for line in lines[start:]:
        cells = re.split(r"\s{2,}", line.strip())
        if not cells[0].isdigit():
            break
        rows.append(cells)
    return rows


def test_at_80_columns_different_kernels_never_read_the_same(shared_report, raw_actions):
    """The RTX 2070 SUPER report's 17 kernels (thrust's _kernel_agent instances among them, four of them alike but
    for arg_min_f/arg_max_f and zip_iterator/tuple, deep in their template arguments): at 80 columns every row of the
    top 17 names its kernel apart from the others, and as many kernels are shown as ncu_report gives."""
    kernels = {kernel_key(a.name, a.demangled) for a in raw_actions(ALIFE)}
    result = invoke(shared_report(ALIFE), "--top", len(kernels))
    assert result.exit_code == 0, result.output
    names = [row[1] for row in table_rows(result.stdout)]
    assert len(names) == len(kernels) == 17 and len(set(names)) == len(names)
    assert max(map(len, result.stdout.splitlines())) <= 80


def test_a_row_placed_by_its_recoverable_time_does_not_squeeze_the_names(shared_report):
    """The A100 self-join's kernelUniqueKeys has no estimate and is placed by its recoverable time: the cell shows
    it in parentheses as the line above the table says, without the word that took 13 columns from the names, so
    at 80 columns every name up to 26 characters (distanceCalculationsKernel) is shown whole."""
    result = invoke(shared_report(SELFJOIN))
    assert result.exit_code == 0, result.output
    assert "shown in parentheses" in result.stdout and "recoverable)  " not in result.stdout
    rows = {row[1]: row for row in table_rows(result.stdout)}
    assert "distanceCalculationsKernel" in rows and "kernelUniqueKeys" in rows
    gain = rows["kernelUniqueKeys"][5]
    assert gain.startswith("(") and gain.endswith(" ms)")


def test_a_row_of_n_a_says_why_under_the_table(shared_report, raw_actions):
    """The H800 report's flash_fwd_kernel launch has no time (ncu stored NaN for gpu__time_duration.sum, read with
    ncu_report): its row reads n/a, and the reason is under the table, as report gives it, naming the metric."""
    name = "h800_flash-attn-fwd_full"
    untimed = [a for a in raw_actions(name) if a.value("gpu__time_duration.sum") != a.value("gpu__time_duration.sum")
               or not a.has("gpu__time_duration.sum")]
    assert [a.name for a in untimed] == ["flash_fwd_kernel"]
    result = runner.invoke(app, ["summary", str(shared_report(name))], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    (row,) = [r for r in table_rows(result.stdout) if r[1].startswith("flash_fwd_kernel")]
    assert row[3:] == ["n/a"] * 5
    why = " ".join(result.stdout.split("Why n/a", 1)[1].split())
    assert f"total, share [#{row[0]}]: no launch of the group has a time: ncu stored NaN for gpu__time_duration.sum" \
        in why


def test_a_report_without_the_kernel_asked_for_is_a_note_and_exit_0(shared_report, tmp_path):
    """summary -k triad over the H100 triad example and the T4 matrix-add report: the T4 report has no triad (its
    one kernel is matrix_addition2D), so it is noted on stderr and under the document's left_out, and the run exits
    0; with no report holding the kernel, it exits 2."""
    from pathlib import Path

    triad = Path(__file__).resolve().parents[3] / "examples" / "h100" / "triad-cupy.full.ncu-rep"
    t4 = shared_report("t4_matrix-add-2d_full")
    result = invoke(triad, t4, "--kernel", "triad", "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [r["report"]["path"] for r in doc["reports"]] == [str(triad)]
    assert [f["path"] for f in doc["left_out"]] == [str(t4)] and "no kernel matches" in doc["left_out"][0]["error"]
    assert doc["left_out"][0]["cause"] == "no_kernel_matched"  # a script tells it from a bad file by the cause
    bad = tmp_path / "gone.ncu-rep"
    mixed = json.loads(invoke(triad, bad, "--kernel", "triad", "-f", "json").stdout)
    assert [(f["path"], f["cause"]) for f in mixed["left_out"]] == [(str(bad), "report")]
    assert result.stderr.startswith(f"roofline: note: {t4}: no kernel matches --kernel 'triad'")
    assert "error" not in result.stderr
    none = invoke(t4, shared_report(ALIFE), "--kernel", "triad")
    assert none.exit_code == 2 and none.stderr.count("roofline: error:") == 2


def test_a_plot_with_nothing_to_draw_is_refused_and_the_summary_still_written(shared_report, tmp_path, raw_actions):
    """The GH200 metrics report: no launch has gpu__time_duration.sum (ncu_report), so no group has a bar or a
    point: the plot is not written, one line says why with the fix (as report --plot), exit 2, and the table is still
    printed."""
    name = "gh200_silu_metrics"
    assert not any(a.has("gpu__time_duration.sum") for a in raw_actions(name))
    out = tmp_path / "empty.png"
    result = invoke(shared_report(name), "--plot", out)
    assert result.exit_code == 2 and not out.exists()
    assert "Top 2 by kernel" in result.stdout
    assert result.stderr == (f"roofline: error: {out}: not written, nothing to plot: no kernel group of "
                             f"{shared_report(name)} has a measured time (a bar) or a place on the roofline: "
                             "re-profile with --set roofline or --set full, or leave out the plot\n")


def test_a_store_with_no_analysed_report_is_one_line_naming_the_failed_files_and_exit_2(tmp_path) -> None:
    """A store whose only collected file failed (bytes that are no ncu report): `summary STORE` printed the legend
    alone with exit 0; it now says in one line that no report was analysed, names the failed file and the errors
    view to read why, and exits 2 with nothing on standard output, as `summary` on that file alone does. An empty
    store says it holds no report."""
    bad = tmp_path / "foreign.ncu-rep"
    bad.write_bytes(b"hello\n")
    store = tmp_path / "s"
    collected = runner.invoke(app, ["collect", str(bad), "-o", str(store)])
    assert collected.exit_code == 2, collected.output
    alone = runner.invoke(app, ["summary", str(bad)])
    assert alone.exit_code == 2 and alone.stdout == ""
    for fmt in ("table", "json"):
        result = runner.invoke(app, ["summary", str(store), "-f", fmt])
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr == (
            f"roofline: error: {store}: nothing to summarise: no report of the store was analysed (1 file failed: "
            f"{bad}): see why with roofline query {store} \"SELECT path, error FROM errors\", fix them and collect "
            f"them again (roofline collect -o {store} FILE...)\n")
    errors = runner.invoke(app, ["query", str(store), "SELECT path FROM errors", "-f", "json"])
    assert errors.exit_code == 0 and str(bad) in errors.stdout
    from roofline.store.dataset import open_store

    open_store(tmp_path / "empty", create=True)
    empty = runner.invoke(app, ["summary", str(tmp_path / "empty")])
    assert empty.exit_code == 2 and empty.stderr.startswith(
        f"roofline: error: {tmp_path / 'empty'}: nothing to summarise: the store holds no report: ")


def test_one_rule_of_what_the_time_to_gain_counts_in_the_legend_json_help_and_docs(shared_report):
    """The legend and JSON time_to_gain_counts said "a launch without advice counts its recoverable time", while
    render_kernel's 502 us left out its 8 launches whose advice has no estimate (274 us recoverable; probe r25).
    The one rule the code follows (advice.lead_saving) is now said word for word in the legend, the JSON, --help
    and docs/comparisons.md, and the alife figures follow it: the first estimated item of each launch that has one."""
    from roofline.compare.ranking import TIME_TO_GAIN_COUNTS, TIME_TO_GAIN_RULE

    def flat(text: str) -> str:
        return " ".join(text.split())

    path = shared_report(ALIFE)
    legend = flat(invoke(path, "-j", "1").stdout)
    doc = json.loads(invoke(path, "-j", "1", "-f", "json").stdout)
    help_text = flat(runner.invoke(app, ["summary", "--help"], env={"COLUMNS": "200"}).stdout.replace("│", " "))
    docs = flat((REPO / "docs" / "comparisons.md").read_text(encoding="utf-8"))
    assert TIME_TO_GAIN_RULE in TIME_TO_GAIN_COUNTS == doc["reports"][0]["time_to_gain_counts"]
    for text in (legend, help_text, docs):
        assert TIME_TO_GAIN_RULE in text
    assert "a launch without advice counts its recoverable time" not in legend + TIME_TO_GAIN_COUNTS
    row = next(r for r in doc["reports"][0]["rows"] if r["name"] == "render_kernel")
    launches = json.loads(runner.invoke(app, ["report", str(path), "-k", "exact:render_kernel", "-f", "json"]).stdout
                          )["reports"][0]["kernels"]
    firsts = [next((a["est_saved_s"] for a in k["advice"]
                    if a["kind"] != "measurement" and a["est_saved_s"] is not None), None) for k in launches]
    assert row["time_to_gain_s"] == pytest.approx(sum(s for s in firsts if s is not None), rel=1e-9)
    assert row["unestimated_launches"] == firsts.count(None) == 8 and row["count"] == len(launches) == 23
