"""`roofline compare` through the CLI: table width, JSON document, projection, plot and exit codes.

Expected numbers come from raw metric values (ncu_report directly, the ``raw_actions`` fixture)."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys

import pytest
import yaml
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render.report.json import SCHEMA_VERSION
from tests.synthetic import REPO, SPEC_DRAM, SPEC_FP32, write_spec

runner = CliRunner()
ENV = {"COLUMNS": "80"}
A10G_BASIC = "a10g_sgemm-progression_basic"
A10G_ROOFLINE = "a10g_sgemm-blocktiling_roofline"
RTX3080 = "rtx3080_sgemm-vs-cublas_full"
A100_BASIC = "a100-40gb_cublas-sgemm_basic"
RTX4090_LINEAR = "rtx4090_torch-linear-sgemm_custom"
EXAMPLE = str(REPO / "examples" / "h100-sxm_synthetic.roofline.json")


def invoke(*args: str):
    return runner.invoke(app, ["compare", *map(str, args)], env=ENV)


def test_table_fits_80_columns_and_lists_each_pair(shared_report):
    result = invoke(shared_report(A10G_BASIC), shared_report(A10G_ROOFLINE), shared_report(RTX3080),
                    shared_report(A100_BASIC))
    assert result.exit_code == 0, result.output
    assert max(map(len, result.stdout.splitlines())) <= 80
    for text in ("Work per launch, A -> B", "Work per launch, A -> C", "Work per launch, A -> D",
                 "Time per launch, A -> B (same work)", "warptiling", "ampere_sgemm_128x6",
                 "only in A (3): basic, gmem_coalesce, smem_blocking"):
        assert text in result.stdout
    # the A100's cuBLAS SGEMM launches 4x the threads of the A10G's (no FLOP counters in these basic sets)
    assert "Throughput, A -> D (different work: not a speedup of times)" in result.stdout
    assert "times only, the report has no FLOP or byte counters" in result.stdout


def test_match_family_prints_the_pairing_and_keeps_work_it_cannot_compare_apart_from_same_work(shared_report):
    """cuBLAS SGEMM of the RTX 3080 and the RTX 4090's nn.Linear (a custom set without FLOP counters): two kernel
    names of one family, so neither the FLOPs nor the threads launched can say whether they do the same work: their
    times are compared as a ratio, in a table of their own, not as a speedup."""
    result = invoke(shared_report(RTX3080), shared_report(RTX4090_LINEAR), "--match", "family")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "pairing used: family (1) gemm/f32 (family) = A: ampere_sgemm_128x64_nn; B: ampere_sgemm_128x32_tn" in text
    assert ("Time per launch, A -> B (work not compared: a ratio of times, a speedup only if the work is the same) "
            "kernel A B A/B time") in text
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("am") and " -> " in line]
    assert rows[0][:3] == ["amp…_nn", "->", "amp…_tn"]  # each name cut apart, the arrow kept
    assert rows[0][-1] == "unknown"  # the work table's row, first


def test_json_gives_times_for_basic_reports_and_nulls_with_reasons(shared_report, raw_actions):
    result = invoke(shared_report(A10G_BASIC), shared_report(A100_BASIC), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == "compare" and doc["matching"] == "name"
    assert [r["label"] for r in doc["reports"]] == [A10G_BASIC, A100_BASIC]
    kernel = next(k for k in doc["kernels"] if k["key"] == "ampere_sgemm_128x64_nn")
    times = [[a["gpu__time_duration.sum"] * 1e-9 for a in raw_actions(n) if a.name == "ampere_sgemm_128x64_nn"]
             for n in (A10G_BASIC, A100_BASIC)]
    assert [s["per_launch_s"] for s in kernel["sides"]] == pytest.approx(list(map(statistics.mean, times)), rel=1e-9)
    median_ratio = math.exp(statistics.median(math.log(b / a) for a in times[0] for b in times[1]))
    assert kernel["speedup"] == pytest.approx([1.0, 1 / median_ratio], rel=1e-9)
    assert kernel["change"][0] is None and kernel["change"][1]["ratio"] == pytest.approx(median_ratio, rel=1e-9)
    assert kernel["change"][1]["untested"].startswith("untested for noise: 2 and 11 launches")
    assert kernel["expected_speedup"][1] is None and "expected_speedup[1]" in kernel["missing"]
    threads = [raw_threads(next(a for a in raw_actions(n) if a.name == "ampere_sgemm_128x64_nn"))
               for n in (A10G_BASIC, A100_BASIC)]
    work = kernel["work"][1]
    assert work["basis"] == "threads" and work["different"] is True
    assert work["measures"]["threads"]["ratio"] == pytest.approx(threads[1] / threads[0], rel=1e-12)
    assert kernel["headline"][1]["kind"] == "throughput" and kernel["headline"][1]["unit"] == "threads/s"
    side = kernel["sides"][0]
    assert side["flop_per_s"]["fp32"] is None and side["pct_of_roof"] is None
    assert "flop_per_s.fp32" in side["missing"] and "pct_of_roof" in side["missing"]
    assert doc["unmatched"][A100_BASIC] == []


def raw_threads(raw) -> float:
    """Threads launched: grid x block from the raw launch__ metrics."""
    return math.prod(raw[f"launch__{kind}_dim_{axis}"] for kind in ("grid", "block") for axis in "xyz")


def test_markdown_and_html_carry_the_work_mark_and_the_plot(shared_report, tmp_path):
    """--format markdown writes the document with the plot as a PNG beside it; html one page with the plot inline;
    both carry the tables of the terminal output, "different work" included. Where no paired kernel has a place on
    the plot (two basic sets: no FLOP or byte counter), neither draws empty axes: both say why."""
    reports = (shared_report(A10G_BASIC), shared_report(A100_BASIC))
    md = tmp_path / "cmp.md"
    assert invoke(*reports, "-f", "markdown", "-o", md).exit_code == 0
    text = md.read_text()
    why = "No comparison plot: no paired kernel has FLOPs and bytes measured."
    assert text.startswith("<!-- generated by roofline") and why in text and "![" not in text
    assert not (tmp_path / "cmp.png").exists()
    assert "| `ampere_sgemm_128x64_nn` | n/a | n/a | 4x | n/a | n/a | threads | DIFFERENT |" in text
    page = tmp_path / "cmp.html"
    assert invoke(*reports, "-f", "html", "-o", page).exit_code == 0
    html = page.read_text()
    assert html.startswith("<!-- generated by roofline") and "<svg" not in html and why in html and "DIFFERENT" in html
    placed = (shared_report(A10G_BASIC), shared_report(A10G_ROOFLINE))  # the blocktiling kernels have FLOPs, bytes
    md, page = tmp_path / "placed.md", tmp_path / "placed.html"
    assert invoke(*placed, "-f", "markdown", "-o", md).exit_code == 0
    assert invoke(*placed, "-f", "html", "-o", page).exit_code == 0
    assert "![Comparison plot](placed.png)" in md.read_text()
    assert (tmp_path / "placed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = page.read_text()
    assert "<svg" in html and "No comparison plot" not in html
    assert "http://" not in html.split("<svg", 1)[1].split(">", 1)[0]  # no namespace URL on the inline figure


def test_project_to_gives_projects_number_with_the_per_kernel_bound(shared_report, raw_actions, tmp_path):
    """The cuBLAS SGEMM of the RTX 3080 onto the test spec (100 SMs, 2 GHz): `compare --project-to`'s time per
    launch is `project`'s (its launches' projected total over their count, one number), beside the per-kernel
    model's roofline bound at the spec's peaks and its clocks; `project`'s row sums the per-launch projection."""
    result = invoke(shared_report(RTX3080), "--project-to", "compare-test-gpu", "--specs", write_spec(tmp_path),
                    "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    raw = next(a for a in raw_actions(RTX3080) if a.name == "ampere_sgemm_128x64_nn")
    t = raw["gpu__time_duration.sum"] * 1e-9
    rate = sum(w * raw[f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"]
               for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2)))
    flops = rate * raw["smsp__cycles_elapsed.avg.per_second"] * t
    dram = raw["dram__bytes.sum.per_second"] * t
    side = next(k for k in doc["kernels"] if k["key"] == "ampere_sgemm_128x64_nn")["sides"][0]
    projection = side["projection"]
    assert projection["kind"] == "model of the time per launch there, not a measurement"
    # the clocks: the SM clock it ran at (ncu's measurement) against the target's 2 GHz boost, the kernel keeping
    # the share of the RTX 3080's locked base (device_specs/rtx-3080.yaml) it ran at, 1 within the tolerance that
    # reads as locked to base
    from roofline.core.thresholds import CLOCK_TOLERANCE

    clock = raw["sm__cycles_elapsed.avg.per_second"]
    base = yaml.safe_load((REPO / "device_specs" / "rtx-3080.yaml").read_text())["base_clock_hz"]["value"]
    share = clock / base if clock < base * (1 - CLOCK_TOLERANCE) else 1.0
    assert projection["clock"]["factor"] == pytest.approx((clock / raw["device__attribute_max_gpu_frequency_khz"]
                                                           / 1e3) / share, rel=1e-6)
    # the default clock is the one the target holds under load: the test spec gives none, so its boost
    assert projection["clock"]["choice"] == "sustained"
    assert projection["clock"]["source_clock_hz"] == pytest.approx(clock)
    assert projection["bound_s"] == pytest.approx(max(flops / SPEC_FP32, dram / SPEC_DRAM), rel=1e-6)
    assert projection["max_speedup"] == pytest.approx(t / projection["bound_s"], rel=1e-9)
    assert projection["left_out"] == ["l2 (no l2 bandwidth in the spec)", "l1 (no l1 bandwidth in the spec)"]
    table = invoke(shared_report(RTX3080), "--project-to", "compare-test-gpu", "--specs", write_spec(tmp_path))
    assert "(a model of the time there, not a measurement)" in table.stdout
    alone = runner.invoke(app, ["project", str(shared_report(RTX3080)), "--to", "compare-test-gpu", "--specs",
                                str(write_spec(tmp_path)), "--format", "json"], env=ENV)
    assert alone.exit_code == 0, alone.output
    doc = json.loads(alone.stdout)
    kernel = next(k for k in doc["kernels"] if k["name"] == "ampere_sgemm_128x64_nn")
    launches = [x for x in doc["workload"]["launches"] if x["name"] == "ampere_sgemm_128x64_nn"]
    assert kernel["count"] == sum(x["count"] for x in launches) == side["count"]
    assert kernel["measured_s"] == pytest.approx(side["total_s"], rel=1e-9)
    for key in ("projected_s", "low_s", "high_s"):
        assert kernel[key] == pytest.approx(sum(x["count"] * x[key] for x in launches), rel=1e-12)
        assert projection[key] == pytest.approx(kernel[key] / kernel["count"], rel=1e-12)  # one number


def test_plot_and_normalized_plot_are_written(shared_report, tmp_path):
    for extra in ((), ("--normalize",)):
        out = tmp_path / f"compare{len(extra)}.png"
        result = invoke(shared_report(A10G_ROOFLINE), shared_report(RTX3080), "--match", "order", "--plot", out, *extra)
        assert result.exit_code == 0, result.output
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, fragment", [
    (("--match", "fuzzy"), "unknown matching mode"),
    (("--map", "a=b=c"), "needs 2"),
    (("--project-to", "no-such-gpu"), "unknown device spec id"),
    (("--plot", "out.txt"), "unknown plot format"),
])
def test_usage_errors_exit_2_with_one_line(shared_report, args, fragment):
    result = invoke(shared_report(A10G_BASIC), shared_report(A100_BASIC), *args)
    assert result.exit_code == 2
    assert fragment in result.output and result.output.count("\n") == 1


def test_one_report_needs_project_to(shared_report):
    result = invoke(shared_report(A10G_BASIC))
    assert result.exit_code == 2 and "compare needs two or more reports" in result.output


def test_missing_report_is_exit_2(tmp_path, shared_report):
    result = invoke(shared_report(A10G_BASIC), tmp_path / "gone.ncu-rep")
    assert result.exit_code == 2 and "no such file" in result.output


def test_cli_import_stays_light():
    code = ("import sys, roofline.cli.app; heavy = {'matplotlib', 'ncu_report'} & set(sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_kernel_in_common_is_one_line_naming_the_nearest_names_and_exit_2(shared_report, tmp_path):
    """No kernel in common: nothing is written (no plot either), one line with the nearest names across the
    reports (the cuBLAS SGEMM of the RTX 3080 and the vectorized tiling of the A10G): names this far apart get no
    ready-made --map (they may be different programs), only the options that pair kernels; the --map pairs them."""
    out = tmp_path / "cmp.png"
    a, b = shared_report(RTX3080), shared_report(A10G_ROOFLINE)
    result = invoke(a, b, "--plot", out)
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == (f"roofline: error: {a} and {b}: no kernel in common (name matching), and no names "
                             "alike (nearest: A 'ampere_sgemm_128x64_nn', B 'vectorized_blocktiling'): check that "
                             "both profile the same program, or pair kernels with --map BASE=NEW or --match "
                             "family|order|regex:PATTERN\n")
    paired = invoke(a, b, "--map", "ampere_sgemm_128x64_nn=vectorized_blocktiling")
    assert paired.exit_code == 0 and "map ampere_sgemm_128x64_nn=vectorized_blocktiling" in paired.stdout




def test_a_report_of_one_launch_says_1_launch(tmp_path):
    h100, h200 = ("examples/h100/triad-cupy.roofline.ncu-rep", "examples/h200/triad-cupy.roofline.ncu-rep")
    for fmt in ("table", "markdown"):
        out = tmp_path / f"compare.{fmt}"
        result = invoke(h100, h200, "-f", fmt, "-o", out)
        assert result.exit_code == 0, result.output
        text = " ".join(out.read_text().split())  # the table wraps its lines
        assert text.count("1 launch,") == 2 and "1 launches" not in text


@pytest.mark.parametrize("args, error", [
    (["--clock", "base"], "--clock: it sets the target GPU's clock of a projection, and there is none: add "
                          "--project-to ID, or leave out --clock"),
    (["--clock", "sustained"], "--clock: it sets the target GPU's clock of a projection, and there is none"),
    (["--project-to", "h200", "-f", "markdown"], "--project-to: --format markdown does not show the projection: use "
                                                 "--format table or json, or roofline project REPORT --to ID -f "
                                                 "markdown"),
    (["--project-to", "h200", "-f", "html"], "--project-to: --format html does not show the projection"),
    (["--normalize"], "--normalize: it scales the plot, and --format table draws none: add --plot FILE, use --format "
                      "markdown or html, or leave out --normalize"),
    (["--normalize", "-f", "json"], "--normalize: it scales the plot, and --format json draws none"),
])
def test_an_option_the_comparison_would_not_read_is_refused(tmp_path, monkeypatch, args, error):
    monkeypatch.chdir(tmp_path)
    result = invoke(EXAMPLE, EXAMPLE, *args)
    assert result.exit_code == 2 and result.stderr.startswith(f"roofline: error: {error}")
    assert list(tmp_path.iterdir()) == []


def test_normalize_with_a_plot_or_a_drawing_format_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke(EXAMPLE, EXAMPLE, "--normalize", "--plot", "n.png").exit_code == 0
    assert invoke(EXAMPLE, EXAMPLE, "--normalize", "-f", "html", "-o", "n.html").exit_code == 0
    assert invoke(EXAMPLE, "--project-to", "h100-sxm5", "--clock", "base").exit_code == 0


def test_a_plot_with_nothing_on_it_keeps_the_comparison(shared_report, tmp_path):
    """Two basic sets pair their kernel but have nothing to draw: the plot is not written (one line, exit 2), the
    comparison asked for with it is."""
    out, png = tmp_path / "c.json", tmp_path / "c.png"
    report = shared_report(A100_BASIC)
    result = invoke(report, report, "-f", "json", "-o", out, "--plot", png)
    assert result.exit_code == 2 and not png.exists()
    assert json.loads(out.read_text())["kernels"]
    assert result.stderr.splitlines()[-1].startswith(f"roofline: error: {png}: not written, nothing to plot")


def test_compare_from_a_store_gives_the_numbers_of_compare_on_the_files(tmp_path):
    """compare --store STORE A B C names the reports inside the store (file name, path tail, report id): the same
    document as compare on the files, and each side's launches and time are the store's own figures."""
    pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")
    from roofline.store.collect import collect
    from roofline.store.query import query

    files = [REPO / "examples" / "h100" / "torch-fp64.roofline.json", REPO / "examples" / "h100" /
             "torch-fp64.full.json", REPO / "examples" / "h200" / "torch-fp64.roofline.json"]
    store = tmp_path / "store"
    assert not collect(files, store).errors
    rows = query(store, "SELECT path, report_id, function, count(*) AS n, sum(duration_s) AS s FROM launches "
                        "WHERE valid GROUP BY ALL").to_pylist()
    ids = {r["path"]: r["report_id"] for r in rows}
    names = ["h100/torch-fp64.roofline.json", "torch-fp64.full.json", ids[str(files[2].resolve())][:8]]
    from_store = runner.invoke(app, ["compare", "--store", str(store), *names, "-f", "json"], env=ENV)
    assert from_store.exit_code == 0, from_store.output
    document = json.loads(from_store.stdout)
    on_files = runner.invoke(app, ["compare", *(str(f.resolve()) for f in files), "-f", "json"], env=ENV)
    assert document == json.loads(on_files.stdout)
    stored = {(r["path"], r["function"]): (r["n"], r["s"]) for r in rows}
    paths = [r["path"] for r in document["reports"]]
    assert paths == [str(f.resolve()) for f in files]
    sides = [(path, side) for kernel in document["kernels"] for path, side in zip(paths, kernel["sides"], strict=True)
             if side is not None]
    assert sides
    for path, side in sides:
        n, s = stored[(path, side["names"][0])]
        assert side["count"] == n and side["total_s"] == pytest.approx(s, rel=1e-12)


def test_compare_from_a_store_refuses_a_name_of_several_reports_in_one_line(tmp_path):
    pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")
    from roofline.store.collect import collect

    store = tmp_path / "store"
    collect([REPO / "examples" / f / "torch-fp64.roofline.json" for f in ("h100", "h200")], store)
    result = runner.invoke(app, ["compare", "--store", str(store), "torch-fp64.roofline.json",
                                 "h200/torch-fp64.roofline.json"])
    assert result.exit_code == 2 and "names 2 reports of the store" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_every_null_work_measure_has_its_reason(shared_report):
    """Basic sets hold no FLOP, byte or instruction counters: each null measure of the work comparison, and each
    null of a side's work per launch, says why (the report's reason, or the section that collects it)."""
    doc = json.loads(invoke(shared_report(A10G_BASIC), shared_report(A100_BASIC), "-f", "json").stdout)
    kernel = next(k for k in doc["kernels"] if k["key"] == "ampere_sgemm_128x64_nn")
    measures = kernel["work"][1]["measures"]
    assert measures["instructions"]["base"] is None
    assert "InstructionStats" in measures["instructions"]["missing"]["base"]
    assert measures["flops.fp32"]["missing"]["ratio"] == "no ratio: base and other not measured"
    for key, m in measures.items():
        for field in ("base", "other", "ratio"):
            assert (m[field] is None) == (field in m["missing"]), f"{key}.{field}"
    for side in kernel["sides"]:
        nulls = [f"work_per_launch.{kind}.{k}" for kind in ("flops", "bytes")
                 for k, v in side["work_per_launch"][kind].items() if v is None]
        assert nulls and all(side["missing"][path] for path in nulls)
        assert "InstructionStats" in side["missing"]["work_per_launch.instructions"]


@pytest.mark.parametrize("to", ["all", "t4,h200"])
def test_project_to_several_gpus_points_to_project(to):
    """compare projects onto one GPU; 'all' or a list was read as one unknown id ('did you mean l4?')."""
    result = invoke(EXAMPLE, "--project-to", to)
    assert result.exit_code == 2 and "did you mean" not in result.stderr
    assert f"--project-to {to}: compare projects onto one GPU" in result.stderr
    assert f"roofline project {EXAMPLE} --to {to}" in result.stderr


def table_lines(text: str, title: str) -> list[str]:
    """The header and rows of the table under ``title`` (up to its legend, the first line starting lower-case after
    a row, or a blank line)."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next(i for i in range(start + 2, len(lines) + 1) if i == len(lines) or not lines[i].strip()
               or lines[i].split()[0] in ("threads,", "throughput", "AI", "speedup", "A/B"))
    return lines[start:end]


def test_the_tables_fit_80_columns_and_break_no_header_nor_cell(shared_report):
    """A10G, RTX 3080 and A100 SGEMMs piped at 80 columns: the work table printed "DIFFEREN" over a lone "T" and
    split "threads B/A" and "inst. B/A" over two lines (probe r25). Now every table's header and each row is one
    line within 80 columns: short headers (ratios B/A named in the legend), the names cut to fit."""
    result = invoke(shared_report(A10G_BASIC), shared_report(RTX3080), shared_report(A100_BASIC), "-j", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    for pair in ("A -> B", "A -> C"):
        header, *rows = table_lines(out, f"Work per launch, {pair}")
        assert header.split() == ["kernel", "FLOPs", "A", "FLOPs", pair[-1], "threads", "DRAM", "inst.", "by", "work"]
        assert len(rows) == 1 and rows[0].split()[-2:] == ["threads", "DIFFERENT"]
        header, *rows = table_lines(out, f"Throughput, {pair} (different work: not a speedup of times)")
        assert len(rows) == 1 and rows[0].split()[1] == "thread/s" and rows[0].split()[-3:] == ["untested", "n/a",
                                                                                                "n/a"]
    assert "threads, DRAM, inst. = B/A, the ratio of the threads launched, DRAM bytes and warp instructions" in \
        " ".join(out.split())
