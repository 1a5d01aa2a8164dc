"""`roofline diff BASE NEW`: exit codes (0 no regression, 1 regression, 2 usage/input error), thresholds, the
JSON schema (version 1) and Markdown that GitHub renders as a table.

Slowdowns are recomputed from raw gpu__time_duration.sum values (ncu_report directly)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from roofline.analysis.roofline import analyze_report
from roofline.cli.app import app
from roofline.compare.pairing import pair_reports
from roofline.compare.regression import Thresholds, judge
from roofline.render.compare.markdown import COLUMNS, diff_markdown
from roofline.render.report.json import SCHEMA_VERSION
from tests.synthetic import OLD_GPU, launch, model

runner = CliRunner()
ENV = {"COLUMNS": "80"}
BASIC = "a10g_sgemm-progression_basic"
ROOFLINE = "a10g_sgemm-blocktiling_roofline"
REDUCTIONS = "rtx3060-laptop_reductions_full"
SHARED = ("one_blocktiling", "two_blocktiling", "vectorized_blocktiling", "warptiling")


def invoke(*args: object):
    return runner.invoke(app, ["diff", *map(str, args)], env=ENV)


def slowdowns(raw_actions) -> dict[str, float]:
    """Percent change of each shared kernel's time from BASE (progression) to NEW (blocktiling), from raw values."""
    times = [{a.name: a["gpu__time_duration.sum"] for a in raw_actions(n) if a.name in SHARED}
             for n in (BASIC, ROOFLINE)]
    return {k: 100.0 * (times[1][k] / times[0][k] - 1.0) for k in SHARED}


def test_exit_1_lists_the_kernels_slower_than_the_threshold(shared_report, raw_actions):
    change = slowdowns(raw_actions)
    threshold = sorted(change.values())[-2] + 1e-3  # only the slowest kernel is above it
    result = invoke(shared_report(BASIC), shared_report(ROOFLINE), "--fail-if-slower", threshold, "-f", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    worst = max(change, key=change.get)
    assert doc["regression"] is True and doc["exit_code"] == 1
    assert [r["kernel"] for r in doc["regressions"]] == [worst]
    assert doc["regressions"][0]["reasons"][0].startswith(f"slower {change[worst]:.1f}%")
    by_key = {k["key"]: k for k in doc["kernels"]}
    assert {k: by_key[k]["slowdown_pct"] for k in SHARED} == pytest.approx(change, rel=1e-9)
    assert all(by_key[k]["roof_drop_pct"] is None and "roof_drop_pct" in by_key[k]["missing"] for k in SHARED)
    assert set(doc["only_in_base"]) == {"basic", "gmem_coalesce", "smem_blocking", "ampere_sgemm_128x64_nn"}


def test_exit_0_when_no_kernel_is_beyond_the_threshold(shared_report, raw_actions):
    threshold = max(slowdowns(raw_actions).values()) + 1.0
    result = invoke(shared_report(BASIC), shared_report(ROOFLINE), "--fail-if-slower", threshold)
    assert result.exit_code == 0, result.output
    assert "no regression" in result.stdout and max(map(len, result.stdout.splitlines())) <= 80


def test_same_report_never_regresses_even_at_zero_threshold(shared_report):
    result = invoke(shared_report(REDUCTIONS), shared_report(REDUCTIONS), "--fail-if-slower", 0,
                    "--fail-if-roof-drop", 0)
    assert result.exit_code == 0, result.output


def test_roof_drop_gate_on_mapped_kernels(shared_report, raw_actions):
    """reduceShared (BASE) -> reduceNeighbored (NEW): percent of the DRAM roof rises, time grows."""
    raws = {a.name: a for a in raw_actions(REDUCTIONS)}
    pct = {k: 100 * r["dram__bytes.sum.per_second"] / (r["dram__bytes.sum.peak_sustained"]
                                                      * r["dram__cycles_elapsed.avg.per_second"])
           for k, r in raws.items()}
    args = (shared_report(REDUCTIONS), shared_report(REDUCTIONS), "--map", "reduceNeighbored=reduceShared",
            "--ceilings", "measured-clock")
    result = invoke(*args, "--fail-if-roof-drop", 0.5, "-f", "json")
    doc = json.loads(result.stdout)
    kernel = next(k for k in doc["kernels"] if k["matched_by"].startswith("map"))
    assert kernel["roof_drop_pct"] == pytest.approx(pct["reduceNeighbored"] - pct["reduceShared"], rel=1e-6)
    assert result.exit_code == 1 and doc["regressions"][0]["kernel"] == "reduceNeighbored -> reduceShared"
    assert invoke(*args, "--fail-if-roof-drop", kernel["roof_drop_pct"] + 0.1).exit_code == 0


def test_json_schema_version_top_level_and_kernel_fields(shared_report):
    result = invoke(shared_report(REDUCTIONS), shared_report(REDUCTIONS), "--fail-if-slower", 5, "-f", "json")
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == "diff"
    assert set(doc) == {"schema_version", "kind", "tool", "generator", "base", "new", "matching", "setup_notes",
                        "thresholds", "regression", "exit_code", "regressions", "total", "kernels", "only_in_base",
                        "only_in_new", "only_in_new_s", "only_in_new_share", "missing",
                        "only_in_new_regressed", "not_judged"}
    assert doc["thresholds"] == {"slower_pct": 5.0, "min_share_pct": 1.0, "total_slower_pct": 5.0,
                                 "roof_drop_pct": None, "alpha": 0.01, "work_tolerance": 0.05,
                                 "gate_different_work": False, "new_share_pct": None}
    assert set(doc["kernels"][0]) == {"key", "label", "matched_by", "base", "new", "work", "change", "speedup",
                                      "expected_speedup", "kept_up", "slowdown_pct", "per_work_slowdown_pct",
                                      "roof_drop_pct", "share_pct", "p_value", "gated", "not_gated", "regressed",
                                      "reasons", "unchecked", "hot_lines", "missing"}
    assert doc["base"]["ncu_version"] == "2024.1.0.0" and doc["setup_notes"] == []
    assert doc["total"]["change_pct"] == pytest.approx(0.0, abs=1e-9)
    side_fields = {"per_launch_s", "pct_of_roof", "bound", "flop_per_s", "bytes_per_s", "projection", "missing"}
    assert side_fields <= set(doc["kernels"][0]["base"])


@pytest.mark.parametrize("extra, fragment", [
    (("--fail-if-roof-drop", "5"), "--fail-if-roof-drop cannot be checked"),
    (("--match", "regex:("), "invalid regular expression"),
])
def test_usage_and_input_errors_exit_2(shared_report, extra, fragment):
    result = invoke(shared_report(BASIC), shared_report(ROOFLINE), *extra)
    assert result.exit_code == 2 and fragment in result.output and result.output.count("\n") == 1


def test_no_kernel_in_common_and_missing_file_exit_2(shared_report, tmp_path):
    apart = invoke(shared_report(BASIC), shared_report(REDUCTIONS), "--allow-different-gpu")
    assert "no kernel in common" in apart.output and apart.exit_code == 2
    assert invoke(shared_report(BASIC), tmp_path / "none.ncu-rep").exit_code == 2
    assert invoke(shared_report(BASIC), shared_report(BASIC), "--fail-if-slower", "-1").exit_code == 2


def test_markdown_is_a_github_table_and_output_file_keeps_the_exit_code(shared_report, raw_actions, tmp_path):
    threshold = sorted(slowdowns(raw_actions).values())[-2] + 1e-3
    out = tmp_path / "comment.md"
    result = invoke(shared_report(BASIC), shared_report(ROOFLINE), "--fail-if-slower", threshold, "-f", "markdown",
                    "-o", out)
    assert result.exit_code == 1 and f"wrote {out}" in result.output
    header, rows = parse_table(out.read_text())
    assert header == list(COLUMNS) and len(rows) == len(SHARED)
    assert rows[0][-1].startswith(":x: slower") and all(r[-1] == "ok" for r in rows[1:])


def test_markdown_cells_escape_pipes_in_kernel_names():
    base = model("base.json", [launch(0, "operator|", 1e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "operator|", 2e-3, 1e9, 1e7, OLD_GPU)])
    text = diff_markdown(judge(pair_reports([analyze_report(base), analyze_report(new)]), Thresholds(slower_pct=10.0)))
    header, rows = parse_table(text)
    assert len(rows) == 1 and len(rows[0]) == len(header) == len(COLUMNS)
    assert rows[0][0] == "operator|" and "slower 100.0% > 10%" in rows[0][-1]


def parse_table(text: str) -> tuple[list[str], list[list[str]]]:
    """The first table in the Markdown as GitHub-flavoured parsing sees it: header cells and body rows."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    assert any(t.type == "table_open" for t in tokens), "no table in the Markdown"
    header: list[str] = []
    rows: list[list[str]] = []
    section = None
    for t in tokens:
        if t.type in ("thead_open", "tbody_open"):
            section = t.type
        elif t.type == "tr_open" and section == "tbody_open":
            rows.append([])
        elif t.type == "inline" and section == "thead_open":
            header.append(t.content)
        elif t.type == "inline" and section == "tbody_open":
            rows[-1].append(_plain(t))
        elif t.type == "table_close":
            break
    return header, rows


def _plain(inline) -> str:
    """Text of a cell with inline code unwrapped (what a reader sees)."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


# --- Lines that gained or lost warp samples ------------------------------------------------------------------
def _line_shares(launch) -> dict[str, float]:
    """A launch's share of warp samples per source line, summed here from its per-PC counters."""
    by_line: dict[str, float] = {}
    for pc in launch.pc_sampling.pcs:
        if pc.samples and pc.file:
            where = f"{pc.file.rsplit('/', 1)[-1]}:{pc.line}"
            by_line[where] = by_line.get(where, 0) + pc.samples
    total = sum(by_line.values())
    return {where: n / total for where, n in by_line.items()}


@pytest.fixture(scope="module")
def transposes(roofline_report, tmp_path_factory):
    """BASE: the shared-memory transpose; NEW: its padded version under the same name (one RTX 4090 report, as
    report models), so the diff pairs them: the tile moved to other lines."""
    import msgspec

    report = roofline_report("rtx4090_smem-transpose_full")
    plain, padded = report.launches[2], report.launches[3]
    renamed = msgspec.structs.replace(padded, name=plain.name, demangled_name=plain.demangled_name)
    folder = tmp_path_factory.mktemp("transposes")
    paths = []
    for side, one in (("base", plain), ("new", renamed)):
        path = folder / f"{side}.json"
        path.write_text(json.dumps(msgspec.structs.replace(report, launches=(one,)).to_dict()))
        paths.append(path)
    return paths, _line_shares(plain), _line_shares(padded)


def test_diff_lists_the_lines_that_gained_or_lost_samples(transposes):
    (base, new), before, after = transposes
    result = invoke(base, new, "--format", "json")
    assert result.exit_code == 0, result.output
    (kernel,) = json.loads(result.stdout)["kernels"]
    lines = kernel["hot_lines"]
    assert [line["source"] for line in lines[:3]] == ["smemTranspose.cu:103", "smemTranspose.cu:65",
                                                      "smemTranspose.cu:69"]
    for line in lines:
        assert line["base_share"] == pytest.approx(before.get(line["source"], 0.0))
        assert line["new_share"] == pytest.approx(after.get(line["source"], 0.0))
        assert line["change_pts"] == pytest.approx(100 * (line["new_share"] - line["base_share"]))
    changes = [abs(line["change_pts"]) for line in lines]
    assert changes == sorted(changes, reverse=True) and len(lines) == 5
    text = invoke(base, new).stdout
    assert "lines of transposeSmem (share of warp samples, A -> B):" in text
    assert "  smemTranspose.cu:65   43.6% ->   0.0%  -43.6 pts" in text
    markdown = invoke(base, new, "--format", "markdown").stdout
    assert "- `smemTranspose.cu:103`: 0.0% → 51.9% (+51.9 points)" in markdown


def test_a_report_against_itself_moves_no_line_and_without_lines_says_why(tmp_path):
    from tests.ncu.test_pc_sampling import H100, SGEMM_LINEINFO

    same = json.loads(invoke(SGEMM_LINEINFO, SGEMM_LINEINFO, "--format", "json").stdout)
    assert same["kernels"][0]["hot_lines"] == []
    assert "lines of" not in invoke(SGEMM_LINEINFO, SGEMM_LINEINFO).stdout
    triad = H100 / "triad-cupy.full.ncu-rep"  # sampled, but built without -lineinfo
    (kernel,) = json.loads(invoke(triad, triad, "--format", "json").stdout)["kernels"]
    assert kernel["hot_lines"] is None and "-lineinfo" in kernel["missing"]["hot_lines"]


def test_a_report_cut_short_is_no_regression_test(shared_report, tmp_path):
    """A BASE cut inside its second record: its first launch reads, the second is missing. Gating what is left would
    pass a kernel that is only in NEW; diff refuses in one line and exits 2, as for any bad input."""
    whole = shared_report("rtx2080ti_kernels_basic")
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(whole.read_bytes()[:95_000])
    result = invoke(cut, whole)
    assert result.exit_code == 2
    assert "cut.ncu-rep: the file is incomplete (cut short or missing records)" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_a_pair_of_kernels_of_other_names_is_shown_with_both_names():
    """--match family pairs an FP16 GEMM with a BF16 one of another name: the table showed only the BASE name."""
    from pathlib import Path

    h100 = Path(__file__).resolve().parents[3] / "examples" / "h100"
    base, new = h100 / "torch-fp16.roofline.ncu-rep", h100 / "torch-bf16.roofline.ncu-rep"
    a, b = "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
    text = runner.invoke(app, ["diff", str(base), str(new), "--match", "family"], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    assert f"  gemm (family) = A: {a}; B: {b}" in text.stdout.splitlines()
    markdown = invoke(base, new, "--match", "family", "-f", "markdown")
    assert f"- gemm (family) = A: {a}; B: {b}" in markdown.stdout.splitlines()


# --- diff --store STORE BASE NEW: the reports named inside a store ------------------------------------------------
def _stored(tmp_path, reports):
    """A store collected from ``reports``, and per report path its launches' (count, summed time, summed FP64 and
    DRAM work) per function name, as the store holds them."""
    pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")
    from roofline.store.collect import collect
    from roofline.store.query import query

    store = tmp_path / "store"
    assert not collect(reports, store).errors
    rows = query(store, "SELECT path, function, count(*) AS n, sum(duration_s) AS s, sum(flops_fp64) AS fp64, "
                        "sum(bytes_dram) AS dram FROM launches WHERE valid GROUP BY ALL").to_pylist()
    return store, {(r["path"], r["function"]): (r["n"], r["s"], r["fp64"], r["dram"]) for r in rows}


@pytest.mark.parametrize("pair", ["examples", "shared"])
def test_diff_from_a_store_gives_the_numbers_of_diff_on_the_files(pair, shared_report, tmp_path):
    """The same document as diff on the report files (an H100 pair of shipped models; an A10G pair of shared
    reports, basic against roofline sections), and each kernel's launches, time and work are the store's own."""
    from pathlib import Path

    h100 = Path(__file__).resolve().parents[3] / "examples" / "h100"
    base, new = ((h100 / "torch-fp64.roofline.json", h100 / "torch-fp64.full.json") if pair == "examples"
                 else (shared_report(BASIC), shared_report(ROOFLINE)))
    store, stored = _stored(tmp_path, [base, new])
    files = invoke(base.resolve(), new.resolve(), "-f", "json")
    from_store = invoke("--store", store, base.name, new.name, "-f", "json")
    assert from_store.exit_code == files.exit_code and from_store.exit_code in (0, 1), from_store.output
    document = json.loads(from_store.stdout)
    assert document == json.loads(files.stdout)
    assert document["kernels"]
    for kernel in document["kernels"]:
        for side, path in (("base", base), ("new", new)):
            if kernel.get(side) is None:
                continue
            n, s, fp64, dram = stored[(str(path.resolve()), kernel[side]["names"][0])]
            assert kernel[side]["count"] == n and kernel[side]["total_s"] == pytest.approx(s, rel=1e-12)
            work = kernel[side]["work_per_launch"]
            if fp64 is not None:
                assert work["flops"]["fp64"] == pytest.approx(fp64 / n, rel=1e-12)
            if dram is not None:
                assert work["bytes"]["dram"] == pytest.approx(dram / n, rel=1e-12)


def test_diff_from_a_store_refuses_a_report_gone_since_collect_in_one_line(tmp_path):
    import shutil
    from pathlib import Path

    h100 = Path(__file__).resolve().parents[3] / "examples" / "h100"
    base = Path(shutil.copy(h100 / "torch-fp64.roofline.json", tmp_path))
    store, _ = _stored(tmp_path, [base, h100 / "torch-fp64.full.json"])
    base.unlink()
    result = invoke("--store", store, base.name, "torch-fp64.full.json")
    assert result.exit_code == 2 and "the file is gone" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_kernels_only_in_new_say_their_time_and_share_which_nothing_gates(shared_report):
    """blocktiling -> progression: the four shared kernels hold 1.21 ms of NEW's 14.7 ms; the four NEW runs alone
    (basic, gmem_coalesce, ...) take the rest, 91.8%, which the gate cannot judge: the output says so."""
    base, new = shared_report(ROOFLINE), shared_report(BASIC)
    doc = json.loads(invoke(base, new, "-f", "json").stdout)
    paired = sum(k["new"]["total_s"] for k in doc["kernels"])
    assert doc["only_in_new_s"] == pytest.approx(doc["new"]["total_time_s"] - paired, rel=1e-12)
    assert doc["only_in_new_share"] == pytest.approx(doc["only_in_new_s"] / doc["new"]["total_time_s"], rel=1e-12)
    assert doc["only_in_new_share"] > 0.9 and doc["only_in_new_regressed"] is None
    assert doc["missing"] == {"only_in_new_regressed": "not gated: --fail-if-new-share not given",
                              "thresholds.roof_drop_pct": "--fail-if-roof-drop not given: that gate is off",
                              "thresholds.new_share_pct": "--fail-if-new-share not given: that gate is off"}
    text = " ".join(invoke(base, new).stdout.split())
    assert f"only in NEW (4, 13.5 ms, {100 * doc['only_in_new_share']:.1f}% of NEW's kernel time, not gated)" in text
    same = json.loads(invoke(base, base, "-f", "json").stdout)
    assert same["only_in_new_s"] is None and same["missing"]["only_in_new_s"] == "NEW runs no kernel BASE lacks"


def test_fail_if_new_share_gates_the_kernels_only_in_new_in_every_format(shared_report):
    """blocktiling -> progression: NEW's four kernels of its own take 91.8% of its time; --fail-if-new-share 90
    fails the job (exit 1) and says why in the table, the JSON and the Markdown; 95 passes it."""
    base, new = shared_report(ROOFLINE), shared_report(BASIC)
    failed = invoke(base, new, "--fail-if-new-share", 90, "-f", "json")
    doc = json.loads(failed.stdout)
    assert failed.exit_code == 1 and doc["exit_code"] == 1 and doc["only_in_new_regressed"] is True
    assert doc["thresholds"]["new_share_pct"] == 90.0 and doc["regressions"] == []
    assert doc["total"]["regressed"] is False
    text = " ".join(invoke(base, new, "--fail-if-new-share", 90).stdout.split())
    share = f"{100 * doc['only_in_new_share']:.1f}%"
    assert "NEW's own kernels regressed (exit 1); thresholds:" in text
    assert "kernels only in NEW > 90% of its kernel time" in text
    assert f"only in NEW (4, 13.5 ms, {share} of NEW's kernel time, > 90%: REGRESSED)" in text
    markdown = invoke(base, new, "--fail-if-new-share", 90, "-f", "markdown").stdout
    assert ":x: **NEW's own kernels regressed**" in markdown and "REGRESSED" in markdown
    passed = invoke(base, new, "--fail-if-new-share", 95, "-f", "json")
    assert passed.exit_code == 0 and json.loads(passed.stdout)["only_in_new_regressed"] is False
    assert invoke(base, new, "--fail-if-new-share", 101).exit_code == 2  # a share is at most 100%
    near = " ".join(invoke(base, new, "--fail-if-new-share", 91.79).stdout.split())  # the share is 91.769%
    assert "91.77% of NEW's kernel time, <= 91.79%: ok" in near


H100_EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "h100"


def test_a_kernel_ncu_did_not_time_has_each_null_with_its_reason_and_says_not_measured(shared_report):
    """The H800 FlashAttention report against itself: ncu stored NaN for flash_fwd_kernel's duration, so its change,
    share and p-value are null, each with that reason; its time per unit of work is null for the reason its work
    summary gives (no measure on both sides), not "same work"; the table and the Markdown say "not measured", not
    "work?" or "ok". The other kernel (4 launches a side) is untested for noise, the p-value's reason."""
    path = shared_report("h800_flash-attn-fwd_full")
    doc = json.loads(invoke(path, path, "-f", "json").stdout)
    flash = next(k for k in doc["kernels"] if k["key"] == "flash_fwd_kernel")
    assert flash["change"] is None and flash["share_pct"] is None and flash["p_value"] is None
    for key in ("change", "share_pct", "p_value"):
        assert "ncu stored NaN for gpu__time_duration.sum" in flash["missing"][key], key
    assert flash["work"]["summary"].startswith("work not compared")
    assert flash["missing"]["per_work_slowdown_pct"] == flash["work"]["summary"]
    assert set(flash["work"]["missing"]) == {"basis", "throughput_unit", "work_ratio", "governing.base",
                                             "governing.other"}
    other = next(k for k in doc["kernels"] if k["key"] != "flash_fwd_kernel")
    assert other["p_value"] is None and other["missing"]["p_value"] == other["change"]["untested"]
    table = invoke(path, path, "--wide").stdout
    row = next(line for line in table.splitlines() if line.startswith("flash_fwd_kernel"))
    assert row.split()[-2:] == ["not", "measured"] and "work?" not in table
    markdown = invoke(path, path, "-f", "markdown").stdout
    assert "| `flash_fwd_kernel` |" in markdown and "| not measured (see Not checked) |" in markdown


def test_every_null_p_value_has_its_reason(shared_report):
    """The A100 self-join report against itself: each kernel's p-value is the noise test's, or null with why (one
    launch a side, too few launches, not gated, no time)."""
    path = shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic")
    doc = json.loads(invoke(path, path, "-f", "json").stdout)
    nulls = [k for k in doc["kernels"] if k["p_value"] is None]
    assert nulls and all(k["missing"]["p_value"] for k in nulls)
    assert doc["missing"]["thresholds.roof_drop_pct"] == "--fail-if-roof-drop not given: that gate is off"


def test_a_roof_drop_is_written_with_the_digits_that_make_its_reason_true():
    """The H100 triad, full set -> roofline set: percent of roof falls by a few hundredths of a point. Against
    --fail-if-roof-drop 0.01 the reason says the drop to two decimals (0.0 would read as no drop at all)."""
    base, new = H100_EXAMPLES / "triad-cupy.full.ncu-rep", H100_EXAMPLES / "triad-cupy.roofline.ncu-rep"
    result = invoke(base, new, "--fail-if-roof-drop", 0.01, "-f", "json")
    doc = json.loads(result.stdout)
    (triad,) = doc["kernels"]
    drop = triad["base"]["pct_of_roof"] - triad["new"]["pct_of_roof"]
    assert 0.01 < drop < 0.1 and result.exit_code == 1
    assert triad["reasons"] == [f"roof drop {drop:.2f} points of roof > 0.01 points of roof"]
    assert float(f"{drop:.2f}") > 0.01


@pytest.mark.parametrize(("maps", "named", "pattern", "nearest"), [
    ("x=y", "triad-cupy.full.ncu-rep", "(A), 'x'", "'triad'"),
    ("triad=nomatch", "triad-half2.full.ncu-rep", "(B), 'nomatch'", "'triad_half2'"),
])
def test_a_map_pattern_that_matches_no_kernel_is_one_line_and_exit_2(maps, named, pattern, nearest):
    """--map x=y (neither side names a kernel) and --map triad=nomatch (NEW's side names none): a typo would pair
    nothing, silently; the error names the report, the pattern and the report's nearest kernel name, never the
    map's text as a kernel."""
    result = invoke(H100_EXAMPLES / "triad-cupy.full.ncu-rep", H100_EXAMPLES / "triad-half2.full.ncu-rep", "--map",
                    maps)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith(f"roofline: error: {H100_EXAMPLES / named}: --map '{maps}': its pattern for this "
                                    f"report {pattern}, matches no kernel; nearest kernel name: {nearest}")
    assert "'triad=nomatch=" not in result.output


def test_a_map_whose_kernels_an_earlier_map_took_is_kept():
    """--map 'tri.*=triad_half2' --map 'triad=triad_half2': the second map's patterns fully match the kernels
    ('triad', 'triad_half2') that the first one took; it is redundant, not a typo, so the diff runs and pairs the
    two kernels by the first map."""
    result = invoke(H100_EXAMPLES / "triad-cupy.full.ncu-rep", H100_EXAMPLES / "triad-half2.full.ncu-rep", "--map",
                    "tri.*=triad_half2", "--map", "triad=triad_half2", "--gate-different-work", "-f", "json")
    assert result.exit_code == 0, result.output
    (kernel,) = json.loads(result.stdout)["kernels"]
    assert kernel["matched_by"] == "map tri.*=triad_half2"


def test_a_later_map_that_matches_no_kernel_is_refused_after_one_that_does():
    """--map 'tri.*=triad_half2' --map 'trx=triad_half2': the first map pairs the kernels, the second one's pattern
    for A ('trx') fully matches none of A's names, so it is refused naming that pattern."""
    result = invoke(H100_EXAMPLES / "triad-cupy.full.ncu-rep", H100_EXAMPLES / "triad-half2.full.ncu-rep", "--map",
                    "tri.*=triad_half2", "--map", "trx=triad_half2")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith(f"roofline: error: {H100_EXAMPLES / 'triad-cupy.full.ncu-rep'}: --map "
                                    "'trx=triad_half2': its pattern for this report (A), 'trx', matches no kernel")


def test_a_self_diff_warns_of_its_report_once_on_stderr(shared_report):
    """RTX 5060 Ti transpose, one invalid launch of 45, diffed with itself: stderr carried the same warning twice
    (once per side), each legend once more."""
    path = shared_report("rtx5060ti_transpose-occupancy-45launches_metrics")
    result = invoke(path, path)
    assert result.exit_code == 0
    lines = [x for x in result.stderr.splitlines() if x.startswith("roofline: warning:")]
    assert len(lines) == 1 and "1 of 45 launches are invalid" in lines[0]


def test_a_kernel_of_unknown_share_is_not_offered_a_min_share_that_cannot_leave_it_out(shared_report):
    """The H800 FlashAttention report against itself: flash_fwd_kernel has no time on either side, so no --min-share
    leaves it out (--min-share 100 still left it not judged, exit 2), and the fix said to raise --min-share above its
    share. The line now says its share is unknown and offers --kernel filters; the gate still does not pass it."""
    path = shared_report("h800_flash-attn-fwd_full")
    for args in ((), ("--min-share", "100")):
        result = invoke(path, path, *args)
        assert result.exit_code == 2
        text = " ".join(result.stdout.split())
        assert ("not judged flash_fwd_kernel (no time on either side: its share unknown, so no --min-share leaves it "
                "out)") in text
        assert "gate the other kernels alone with --kernel filters that leave it out" in text
        assert "raise --min-share above its share" not in text
    markdown = invoke(path, path, "-f", "markdown").stdout
    assert "gate the other kernels alone with --kernel filters" in markdown


@pytest.mark.parametrize("pair", [("h800_flash-attn-fwd_full",) * 2, (BASIC, ROOFLINE)])
def test_every_null_of_the_diff_document_has_its_reason(shared_report, pair):
    """Among them an untested interval's ends (reason: its change's untested), not_gated of a gated kernel, a
    measure's apart under one definition, and a not-judged kernel's unknown share (keyed by its index)."""
    from tests.null_reasons import unexplained_nulls

    result = invoke(*map(shared_report, pair), "-f", "json")
    doc = json.loads(result.stdout)
    assert unexplained_nulls(doc) == []
    if pair[0] == pair[1]:
        assert doc["not_judged"][0]["share_of"] is None
        assert doc["missing"]["not_judged[0].share_of"] == "neither report has a launch time of the kernel"


EXAMPLE_MODEL = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.mark.parametrize("option, value, words", [
    ("--fail-if-roof-drop", "150", "150 is above 100"),
    ("--fail-if-slower", "1e300", "1e+300 is above 1000"),
    ("--fail-if-total-slower", "1000.5", "1000.5 is above 1000"),
    ("--work-tolerance", "1e6", "1e+06 is not below 1e+06"),
    ("--alpha", "0", "0 is not above 0"),
    ("--alpha", "0.5", "0.5 is not below 0.5"),
])
def test_a_gate_threshold_past_its_bound_is_a_usage_error_naming_the_bound(option, value, words):
    """No value switches the gate off: each threshold has an upper bound in the Number layer, and the line names
    the bound passed (--work-tolerance 1e6 said "must be a percent of 0 or more")."""
    result = invoke(EXAMPLE_MODEL, EXAMPLE_MODEL, option, value)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (f"roofline: error: invalid value for {option}: {words}: run 'roofline diff --help' for "
                             "the options\n")


def test_a_kernel_48_times_slower_fails_the_gate_at_the_largest_thresholds(tmp_path):
    """The thresholds at their bounds (1000 percent, 100 points) still fail a kernel 48 times slower (exit 1)."""
    doc = json.loads(EXAMPLE_MODEL.read_text())
    for launch_ in doc["launches"]:
        launch_["metrics"]["gpu__time_duration.sum"] *= 48
    new = tmp_path / "new.json"
    new.write_text(json.dumps(doc))
    gate = ["--gate-different-work", "--fail-if-slower", "1000", "--fail-if-total-slower", "1000",
            "--fail-if-roof-drop", "100", "-f", "json"]
    result = invoke(EXAMPLE_MODEL, new, *gate)
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["regression"] is True and doc["thresholds"]["slower_pct"] == 1000
