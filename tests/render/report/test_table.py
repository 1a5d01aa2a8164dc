"""Terminal table: one row per launch with numbers or n/a, the reasons behind every n/a, 80 columns."""

from __future__ import annotations

import pytest

from roofline.analysis.roofline import analyze_report
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS, Device, KernelLaunch, Report
from roofline.core.units import pct, seconds
from roofline.render.report import table
from tests.views import views

H800 = "h800_flash-attn-fwd_full"
H100 = "h100-pcie_rmsnorm-float4_full-roofline"
BASIC = "a10g_sgemm-progression_basic"
MANY = "a100-40gb_selfjoin-cub-sort-154launches_basic"  # 154 launches


@pytest.fixture(scope="module")
def rendered(roofline_report):
    """``rendered(name) -> (ReportAnalysis, text at 80 columns)``, once per report per module."""
    cache = {}

    def get(name):
        if name not in cache:
            result = analyze_report(roofline_report(name))
            cache[name] = result, table.render(views([result]), width=80)
        return cache[name]

    return get


def launch_rows(text: str, result) -> dict[str, str]:
    """The launch table's row of each launch key ("0:3") that is printed."""
    keys = {k.launch.key for k in result.launches}
    rows = {}
    for line in text.splitlines():
        first = line.split(" ", 1)[0]
        if first in keys and first not in rows:
            rows[first] = line
    return rows


@pytest.mark.parametrize("name", [H800, H100, BASIC, MANY, "v100_miniweather-openacc_full"])
def test_fits_80_columns_and_names_the_report(rendered, name):
    result, text = rendered(name)
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)
    assert result.report.path in text.replace("\n", "")
    assert result.device.name in text
    assert f"CC {result.device.compute_capability}" in text
    valid = [k for k in result.launches if not k.launch.invalid]
    ran = [p for p in PRECISIONS if any(k.flops[p].value is None or k.flops[p].value != 0 for k in valid)]
    for key in (*PRECISIONS, *LEVELS):  # one ceiling row per roof of what the launches ran or could run
        assert (f"\n{NAMES[key].split()[0]} " in text) == (key in (*ran, *LEVELS)), key


def test_nan_launch_row_is_na_and_reasons_are_listed(rendered):
    result, text = rendered(H800)
    rows = launch_rows(text, result)
    assert set(rows) == {"0:0", "0:1", "0:2", "0:3", "0:4"}
    nan_row = rows["0:4"]
    assert "flash_fwd_kernel" in nan_row and nan_row.count("n/a") >= 4 and "0.0" not in nan_row
    measured = result.launches[0]
    assert seconds(measured.duration_s.value) in rows["0:0"]
    assert pct(measured.roof.pct_of_roof) in rows["0:0"]
    flat = " ".join(text.split())
    assert "Why n/a (not measured, or no ceiling" in flat
    assert "duration: ncu stored NaN for gpu__time_duration.sum" in flat
    assert "[1 of 5 launches]" in flat
    assert "[all launches]" in flat  # a bracketed count must not be eaten as a rich style tag


def test_memory_bound_kernel_row(rendered):
    result, text = rendered(H100)
    rows = launch_rows(text, result)
    k = result.launches[0]
    assert k.verdict.bound == "memory" and k.roof.limiter == "dram"
    assert f"{k.roof.pct_of_roof:.1f}% DRAM" in rows["0:0"]  # the closest roof
    assert f"memory: DRAM {k.verdict.busiest.pct:.0f}%" in rows["0:0"]  # the verdict and its busiest unit
    assert "Kernels with several launches" in text  # 4 launches of one kernel


def test_basic_set_shows_time_and_explains_the_rest(rendered):
    result, text = rendered(BASIC)
    rows = launch_rows(text, result)
    for k in result.launches:
        row = rows[k.launch.key]
        assert seconds(k.duration_s.value) in row
        assert "n/a" in row
    flat = " ".join(text.split())
    assert "re-profile with --set roofline or --set full" in flat


def test_long_reports_show_the_longest_launches(rendered):
    result, text = rendered(MANY)
    rows = launch_rows(text, result)
    assert len(rows) == table.MAX_LAUNCH_ROWS
    longest = sorted(result.launches, key=lambda k: -(k.duration_s.value or 0))[: table.MAX_LAUNCH_ROWS]
    assert set(rows) == {k.launch.key for k in longest}
    assert f"... {len(result.launches) - table.MAX_LAUNCH_ROWS} shorter launches not shown" in text


@pytest.mark.parametrize("name", [H800, H100, BASIC, MANY, "v100_miniweather-openacc_full"])
def test_no_line_ends_in_spaces(rendered, name):
    _, text = rendered(name)
    assert [line for line in text.splitlines() if line != line.rstrip()] == []


def why_na(text: str) -> list[str]:
    """The lines of the "Why n/a" list, up to the next heading."""
    lines = text.split("Why n/a (", 1)[1].splitlines()[1:]
    return lines[:next((i for i, line in enumerate(lines) if not line.startswith(" ")), len(lines))]


def test_a_basic_set_report_says_per_set_what_it_lacks(rendered):
    """One line per --set that would collect what is missing, naming the values it leaves n/a, with no metric names
    (JSON has them); a line that wraps goes on indented."""
    _, text = rendered(BASIC)
    lines = why_na(text)
    flat = " ".join(" ".join(lines).split())
    for hint in ("re-profile with --set roofline or --set full [all launches]",
                 "re-profile with --set roofline (hierarchical half-precision chart) [all launches]",
                 "re-profile with ncu 2025.1 or newer and --set roofline or --set full [all launches]",
                 "re-profile with --set full (SourceCounters: roofline counts the MMA instructions of the SASS), or "
                 "with --set roofline or --set full of ncu 2025.1 or newer (its Tensor FLOP counters) [all launches]",
                 "re-profile with --set roofline (hierarchical roofline sections) [all launches]"):
        assert flat.count(hint) == 1, hint
    assert "FLOPs FP64, FP32; bytes DRAM; kernel-clock roof FP64, FP32, DRAM: re-profile with --set roofline or " \
           "--set full" in flat
    assert "__" not in flat and "missing metrics" not in flat
    starts = [line for line in lines if not line.startswith("    ")]
    assert all(line.startswith("  ") and not line.startswith("   ") for line in starts)  # entries at 2 spaces
    assert len(starts) == 5 and len(lines) > len(starts)  # the five hints (Tensor FLOPs and roof apart); some wrap


def test_the_shared_pipe_is_named_as_ncu_names_it():
    """sm__pipe_shared_cycles_active is one pipe that tensor instructions share with FP64 ones on V100, A100 and
    H100 and with FP16 ones on V100 and Turing, FP16 alone on a GTX 16xx: its busy percent under ncu's name."""
    from roofline.pipeline import analyze_files
    from tests.conftest import REPO

    result = analyze_files([REPO / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"])[0]
    k = result.launches[0]
    assert k.verdict.busiest.metric.startswith("sm__pipe_shared_cycles_active")
    assert k.verdict.busiest.name.startswith("shared pipe (FP16, FP64 or tensor, by GPU)")
    assert table.verdict_cell(k.verdict) == f"compute: shared pipe {k.verdict.busiest.pct:.0f}%"


# --- Hand-built report (no shared data): names with brackets print literally ------------------------------------
def synthetic(names: list[str]) -> Report:
    metrics = {
        "gpu__time_duration.sum": 1e6,  # 1 ms
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": 5e8,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 1024.0,
        "sm__cycles_elapsed.avg.per_second": 1e9,
        "dram__bytes.sum": 1e8,
        "dram__bytes.sum.peak_sustained": 256.0,
        "dram__cycles_elapsed.avg.per_second": 1e9,
    }
    launches = tuple(KernelLaunch(0, i, name, metrics=metrics) for i, name in enumerate(names))
    return Report(path="synthetic[1].json", device=Device(name="Test GPU [sim]", compute_capability="8.0",
                                                           sm_count=8), launches=launches, source="model",
                  label="hand-built [test]")


def test_brackets_in_names_paths_and_labels_print_literally():
    text = table.render(views([analyze_report(synthetic(["k[0]", "[bold]x", "gemm<float>[2]"]))]), width=80)
    for literal in ("k[0]", "[bold]x", "gemm<float>[2]", "synthetic[1].json", "Test GPU [sim]", "hand-built [test]"):
        assert literal in text, literal
    assert "report model (JSON), not read from an .ncu-rep" in text


def test_numbers_in_the_row_follow_the_analysis():
    result = analyze_report(synthetic(["fma_kernel"]))
    k = result.launches[0]
    # 1e9 FLOP in 1 ms = 1 TFLOP/s against 2 x 1024 x 1 GHz = 2.048 TFLOP/s; DRAM 100 GB/s of 256 GB/s
    assert k.flop_per_s["fp32"].value == pytest.approx(1e12)
    assert k.roof.pct_of_roof == pytest.approx(100 / 2.048)
    text = table.render(views([result]), width=80)
    row = launch_rows(text, result)["0:0"]
    assert "1 ms" in row and "48.8% FP32" in row
    assert row.rstrip().endswith("n/a")  # no throughputs and no roof at 60%: no verdict (the reason is listed)
    assert "100.0%" in row  # the only launch: all of the time
    assert "no SpeedOfLight throughputs" in " ".join(text.split())


def test_table_gives_the_reason_for_every_missing_ceiling():
    from typer.testing import CliRunner

    from roofline.cli.app import app
    from tests.conftest import find_shared_report

    out = CliRunner().invoke(app, ["report", str(find_shared_report("rtx3080_sgemm-vs-cublas_full"))]).output
    flat = " ".join(out.split())
    assert "kernel-clock roof L2, L1: re-profile with --set roofline (hierarchical roofline sections)" in flat
    # no FP16 peak counter: the datasheet's, scaled to the measured clock, and marked; the SASS holds no matrix
    # instruction (0 Tensor FLOPs), so no Tensor row is shown and the note does not name one
    assert "* FP16: no peak counter in the report; the datasheet roof scaled" in flat
    assert "Tensor" not in flat.split("#")[0]


# --- Kernel names at the terminal's width ------------------------------------------------------------------
CUTLASS = "a100-80gb_cutlass-gemm_full"  # cutlass::Kernel<cutlass::gemm::kernel::Gemm<...>> (7,000 characters)
PYTORCH_KERNEL = "distribution_elementwise_grid_stride_kernel"


def name_cells(text: str, result) -> dict[str, str]:
    """The kernel cell of each launch row: the text between the launch key and the time column."""
    cells = {}
    for key, row in launch_rows(text, result).items():
        time = seconds(next(k for k in result.launches if k.launch.key == key).duration_s.value)
        cells[key] = row[len(key):row.rindex(time) if time != "n/a" else row.index(" n/a")].strip()
    return cells


@pytest.mark.parametrize("width", [80, 120, 200])
def test_names_take_the_width_the_terminal_gives(roofline_report, width):
    """The H800 report's four PyTorch launches of one kernel and a CUTLASS template name, at 80, 120 and 200 columns:
    no line is longer than the terminal, the name column fills what the numbers leave, a name is cut in the middle
    of its template arguments (its function name and last arguments kept), and launches of one kernel stay apart
    by their launch configuration."""
    h800 = analyze_report(roofline_report(H800))
    text = table.render(views([h800]), width=width)
    assert all(len(line) <= width for line in text.splitlines())
    rows = launch_rows(text, h800)
    last = max(len("bound: busiest unit"), *(len(row.rsplit("  ", 1)[1]) for row in rows.values()))
    padded = [len(row) - len(row.rsplit("  ", 1)[1]) + last for row in rows.values()]  # as wide as the table
    assert max(padded) == width  # the longest name was given all the room there is
    cells = name_cells(text, h800)
    configs = {"0:0": "(1056)x(256)", "0:1": "(8)x(256)", "0:2": "(1056)x(256)", "0:3": "(1056)x(256)"}
    for key, config in configs.items():
        assert cells[key].endswith(" " + config), cells[key]
    assert len({cells["0:0"], cells["0:1"]}) == 2  # told apart by their grid
    flash = cells["0:4"]  # flash_fwd_kernel<Flash_fwd_kernel_traits<...>, (bool)0, ..., (bool)0>: one launch
    assert flash.startswith("flash_fwd_kernel<") and flash.endswith(">") and "…" in flash
    if width >= 120:
        assert cells["0:0"].startswith(PYTORCH_KERNEL + "<")  # the whole function name, then its arguments
    if width >= 200:
        assert cells["0:0"].startswith(PYTORCH_KERNEL + "<float, (int)4, void at::native::templates")
        assert cells["0:0"].endswith("(instance 1)]> (1056)x(256)") and "…" in cells["0:0"]
        assert flash.startswith("flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64, (int)4, ")

    cutlass = analyze_report(roofline_report(CUTLASS))
    text = table.render(views([cutlass]), width=width)
    assert all(len(line) <= width for line in text.splitlines())
    kernel = name_cells(text, cutlass)["0:0"]
    assert kernel.startswith("Kernel<cutlass") and kernel.endswith("(bool)0>>") and "…" in kernel
    if width >= 120:
        assert kernel.startswith("Kernel<cutlass::gemm::kernel::Gemm<")
    assert name_cells(text, cutlass)["0:1"] == "ReferenceGemm_kernel"


def test_wide_tables_cut_no_name(roofline_report):
    h800 = analyze_report(roofline_report(H800))
    text = table.render(views([h800]), width=100_000)
    full = h800.launches[0].launch.demangled_name.removeprefix("void ")
    assert full[:full.rindex("(")] + " (1056)x(256)" in text  # scope, function, every template argument


def test_ceilings_table_shows_the_calibrated_roofs_with_their_ratio():
    """The H100 SXM5 has a shipped calibration: its FP32 and DRAM rows carry the calibrated roof (read from the
    file here) and its ratio to the datasheet's 66.9 TFLOP/s and 3.35 TB/s."""
    from pathlib import Path

    import yaml

    from roofline.pipeline import analyze_files

    root = Path(__file__).resolve().parents[3]
    roofs = yaml.safe_load((root / "device_specs/measured/h100-sxm5.yaml").read_text())["measured"]["roofs"]
    text = table.render(views(analyze_files([root / "examples/h100/triad-cupy.roofline.ncu-rep"])), width=120)
    assert "calibrated  ratio" in text
    fp32, dram = roofs["fp32"]["ncu"]["median"], roofs["dram"]["ncu"]["median"]
    fp32_row = next(line for line in text.splitlines() if line.startswith("FP32 "))
    dram_row = next(line for line in text.splitlines() if line.startswith("DRAM "))
    assert fp32_row.split()[-3:] == [f"{fp32 / 1e12:.3g}", "TFLOP/s", f"{fp32 / 66.9e12:.2f}"]
    assert dram_row.split()[-3:] == [f"{dram / 1e12:.3g}", "TB/s", f"{dram / 3.35e12:.2f}"]


@pytest.fixture(scope="module")
def diagnosed(roofline_report):
    """``diagnosed(name) -> text at 80 columns`` of a report analysed as ``roofline report`` does (hot spots)."""
    from roofline.pipeline import analyze_loaded

    return lambda name: table.render(views([analyze_loaded(roofline_report(name))]), width=80)


def test_hot_spots_show_the_top_lines_with_their_share_and_stall(diagnosed):
    text = diagnosed("rtx4090_smem-transpose_full")
    hot = text[text.index("Hot spots"):]
    assert "  0:2 transposeSmem  40,044 samples" in hot
    assert "43.6% smemTranspose.cu:65 long_scoreboard STS [R11.X4], R2" in hot  # 17,459 of 40,044
    assert "41.6% smemTranspose.cu:69 barrier         LDS R9, [R9.X4]" in hot
    assert "No source lines" not in hot
    assert all(len(line) <= 80 and line == line.rstrip() for line in text.splitlines())


def test_hot_spots_without_line_information_show_instructions_and_the_fix_once(roofline_report):
    from roofline.pipeline import analyze_files
    from tests.ncu.test_pc_sampling import IN_REPO

    text = table.render(views(analyze_files([IN_REPO[0]])), width=80)
    hot = text[text.index("Hot spots"):]
    assert "83.1% +0x340 long_scoreboard  FFMA.FTZ R11, R6, UR13, R9" in hot
    assert hot.count("No source lines") == 1 and "-lineinfo" in hot


def test_at_80_columns_no_launch_row_cuts_its_key_time_or_share() -> None:
    """Names set apart by their launch configuration (op38: two nchwToNhwcKernel launches) leave the verdict too
    little room; it wraps, and the numbers stay whole in every shipped single-operator model."""
    import roofline
    from tests.conftest import REPO

    for path in sorted((REPO / "examples" / "h100" / "ops").glob("*.json")):
        result = analyze_report(roofline.load(path))
        text = table.render(views([result]), width=80)
        assert all(len(line) <= 80 for line in text.splitlines()), path.name
        rows = launch_rows(text, result)
        for k in result.launches:
            share = pct(None if k.time_share is None else 100 * k.time_share)
            assert seconds(k.duration_s.value) in rows[k.launch.key] and share in rows[k.launch.key], path.name


def test_the_missing_source_lines_note_names_the_launches_it_is_about(shared_report):
    """GH200: the Triton SiLU kernel has source lines, the PyTorch one none; the note names the PyTorch launch only."""
    from roofline.pipeline import analyze_files

    text = table.render(views(analyze_files([shared_report("gh200_silu_full-roofline")])), width=100)
    hot = " ".join(text[text.index("Hot spots"):].split())
    assert "No source lines for 0:0: the binary has no line information" in hot and "silu-triton.py:" in hot


def test_a_kernel_whose_items_each_save_under_1pct_says_how_many_the_table_leaves_out(shared_report):
    """A10G SGEMM "basic": 98.9% of its L1 LSU data pipe in whole blocks per SM leaves 106 us of 10.8 ms, under 1%:
    the table counts its items instead of printing a kernel with nothing under it."""
    from roofline.pipeline import analyze_files

    (a,) = analyze_files([shared_report(BASIC)])
    v = views([a])
    (basic,) = [k for k in v.reports[0].advised if k.longest.launch.name == "basic"]
    duration = basic.longest.duration_s.value
    assert basic.advice and not basic.brief
    assert all(item.est_saved_s is None or item.est_saved_s < 0.01 * duration for item in basic.advice)
    text = " ".join(table.render(v, width=200).split())
    assert (f"0:0 basic - {len(basic.advice)} items each saving under 1% of its time (--format markdown or json "
            "lists them)") in text


def test_the_memory_lines_give_each_edges_percent_and_the_l2_rates_of_loads_and_stores(roofline_report):
    """A100 CUTLASS GEMM (ncu 2024.1 full set): DRAM->L2 321 kB at 1.6% of its peak; L2 hit 84.2% split into loads
    74.4% and stores 100.1%."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.table import render
    from tests.views import views

    text = render(views([analyze_loaded(roofline_report("a100-80gb_cutlass-gemm_full"))]), width=120)
    assert "DRAM->L2 321 kB (1.6% of peak)" in text
    assert "L2 hit 84.2% (loads 74.4%, stores 100.1%)" in text
    assert "kernel->L1 1.13 MB  shared wavefronts 30.7 k (2.6% of peak)" in text


def test_a_launch_without_a_time_is_not_counted_among_the_shorter_ones(shared_report):
    """rtx5060ti's 45 launches: launch 0:44 has no counters (invalid), so of the 15 left out 14 are shorter and one
    has no time at all."""
    from roofline.pipeline import analyze_files

    (a,) = analyze_files([shared_report("rtx5060ti_transpose-occupancy-45launches_metrics")])
    untimed = [k for k in a.launches if k.duration_s.value is None]
    assert [k.launch.key for k in untimed] == ["0:44"]
    hidden = len(a.launches) - table.MAX_LAUNCH_ROWS
    assert table.hidden_launches(a.launches) == f"{hidden - 1} shorter launches and 1 without a time"


def test_the_l1_speed_of_light_is_labelled_as_a_percent_of_active_cycles(roofline_report, raw_actions):
    """RTX 2070 Super alife, render_kernel: ncu's L1/TEX Speed of Light is over the unit's active cycles
    (l1tex__throughput.avg.pct_of_peak_sustained_active, 90.64% in the raw report) while the memory side is over
    the elapsed ones (60.64%): the L1 figure says so, or it reads as a busiest unit above the memory's."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.table import render
    from tests.views import views

    name = "rtx2070super_alife-143launches_basic"
    raw = max((r for r in raw_actions(name) if r.name == "render_kernel"), key=lambda r: r["gpu__time_duration.sum"])
    l1 = raw["l1tex__throughput.avg.pct_of_peak_sustained_active"]
    text = " ".join(render(views([analyze_loaded(roofline_report(name))]), width=200).split())
    assert f"L1 {l1:.2f}% of active cycles" in text and f"{l1:.2f}%" == "90.64%"


def test_a_kernel_without_launch_times_shows_one_na_for_its_shortest_and_longest(roofline_report, raw_actions):
    """GH200 SiLU (hand-picked metrics, no gpu__time_duration in the raw report): the table of kernels with several
    launches gives one "n/a" for min-max, not "n/a-n/a"; the reason is under "Why n/a" (duration)."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.table import render
    from tests.views import views

    name = "gh200_silu_metrics"
    assert not any(r.has("gpu__time_duration.sum") for r in raw_actions(name))
    text = render(views([analyze_loaded(roofline_report(name))]), width=80)
    row = next(line for line in text.splitlines() if line.startswith("silu_kernel_non_strided "))
    assert "n/a-n/a" not in text and row.split()[-2:] == ["n/a", "n/a"]
    assert "duration: re-profile" in text


def test_a_verdict_near_its_threshold_shows_a_decimal(roofline_report, raw_actions):
    """RTX 2070 Super alife render_kernel: 0:0's memory throughput is at or above the 60% latency threshold, 0:5's
    below (raw gpu__compute_memory_throughput): rounded to whole percent both read "L2 60%" beside different
    verdicts; with the decimal that the threshold's nearness calls for they read apart, each on its side of 60."""
    from roofline.pipeline import analyze_loaded

    name = "rtx2070super_alife-143launches_basic"
    raws = raw_actions(name)
    memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
    assert raws[0][memory] >= 60.0 > raws[5][memory]
    launches = analyze_loaded(roofline_report(name)).launches
    first, fifth = (table.verdict_cell(launches[i].verdict) for i in (0, 5))
    assert first.startswith("memory: L2 ") and fifth.startswith("latency: L2 ")
    number = [float(cell.rsplit(" ", 1)[1].rstrip("%")) for cell in (first, fifth)]
    assert number[0] >= 60.0 > number[1], (first, fifth)
    assert table.verdict_cell(launches[21].verdict) == f"latency: FP64 {launches[21].verdict.busiest.pct:.0f}%"


def test_at_80_columns_the_memory_lines_wrap_under_their_block_and_keep_each_label_with_its_value():
    """H100 CuPy triad (examples/, full set): the SOL line is longer than 80 columns; its fifth figure goes onto a
    line of its own six spaces in, "L2 73.44%" whole, not "L2" at one line's end and "73.44%" at column 0."""
    from pathlib import Path

    from roofline.pipeline import analyze_files

    example = Path(__file__).resolve().parents[3] / "examples" / "h100" / "triad-cupy.full.ncu-rep"
    text = table.render(views(analyze_files([example])), width=80)
    lines = text.splitlines()
    sol = next(i for i, line in enumerate(lines) if line.startswith("    SOL "))
    assert lines[sol] == "    SOL SM 44.10%  memory 74.11%  DRAM 74.11%  L1 17.23% of active cycles"
    assert lines[sol + 1] == "      L2 73.44%"
    assert all(len(line) <= 80 for line in lines)
    first, wrapped = next((line, lines[i + 1]) for i, line in enumerate(lines) if line.startswith("kernel-clock = "))
    assert first.endswith("locked") and wrapped == "  to base (1.58 GHz)"
