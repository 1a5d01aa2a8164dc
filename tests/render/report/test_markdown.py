"""Markdown optimization report: structure, ranking, per-kernel content and recommendations with numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from roofline.analysis.advice import rank_by_time_to_gain
from roofline.analysis.ncu_rules import clean_rule_text
from roofline.core.units import seconds
from roofline.ncu.metrics import FlopNoteKind
from roofline.pipeline import analyze_files
from roofline.render import GENERATED_BY
from roofline.render.base import image_names
from roofline.render.report import json as report_json
from roofline.render.report import markdown
from roofline.render.report.prose import bound_of, cited, estimate_text, flop_note_text
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.fixture(scope="module")
def example():
    return analyze_files([EXAMPLE])[0]  # as `roofline report` does: with the matching datasheet spec


@pytest.fixture(scope="module")
def text(example):
    return markdown.render(views([example]))


def test_generator_mark_and_report_name_only(text):
    assert text.startswith(f"<!-- {GENERATED_BY} ")
    assert "## `h100-sxm_synthetic.roofline.json`" in text
    assert str(EXAMPLE.parent) not in text  # no absolute path of this machine


def test_model_report_is_labelled(text):
    assert "> **Warning:** Report model (JSON), not read from an .ncu-rep: SYNTHETIC" in text


def test_ceilings_side_by_side(text):
    assert ("| roof | datasheet | kernel-clock | kernel-clock / datasheet | calibrated | calibrated / datasheet |"
            in text)
    # kernel-clock FP32 = 2 x 16896 FFMA/clk x 1.755 GHz (the example's locked clock) = 59.3 TFLOP/s; calibrated:
    # the FP32 FMA rate roofline calibrate measured on an H100 SXM5 (device_specs/measured/h100-sxm5.yaml)
    assert re.search(r"^\| FP32 \| 66\.9 TFLOP/s \| 59\.3 TFLOP/s \| 0\.89 \| 48\.5 TFLOP/s \| 0\.73 \|$", text,
                     flags=re.M)


def test_kernels_in_time_to_gain_order(example, text):
    ranked = [g.name for _, g in rank_by_time_to_gain(example.groups)]
    headings = re.findall(r"^### \d+\. `([^`]+)`", text, flags=re.M)
    assert headings == ranked
    table_order = re.findall(r"^\| \d+ \| #\d+ \| `([^`]+)`", text, flags=re.M)
    assert table_order == ranked


def test_kernel_section_content(example, text):
    section = text.split(". `triad_fp32`")[1].split("### ")[0]
    # the example holds no SpeedOfLight throughputs: the verdict is the roofline's, and says so
    assert "**Memory-bound**: DRAM roof at 90.0% of its peak; units the FP roofline does not measure" in section
    assert "Roofline: DRAM at 90.0% of its roof, the closest." in section
    assert "| DRAM | 3.02 TB/s | 3.35 TB/s | 90.0% | 0.167 |" in section
    # 0.167 FLOP per DRAM byte: a streaming kernel, told to move fewer bytes, not to tile
    assert ("DRAM traffic (3.22 GB) sets the time (DRAM roof at 90.0% of its peak): each byte is used about once"
            in section)


def test_tensor_warning_and_advice(text):
    section = text.split("### 1. `sgemm_fp32_4096`")[1].split("### 2.")[0]
    assert "> **Warning:** looks like a matrix multiply" in section
    # the synthetic model has no SpeedOfLight section: its time model sees the FP and byte roofs alone
    assert ("- **saves at most 2 ms (changed floor; FP and byte roofs only)**: Run the FP32 matrix math on Tensor "
            "Cores as TF32") in section


def test_recommendations_are_the_advice_of_the_longest_launch(example, text):
    for group in example.groups:
        section = text.split(f"`{group.name}`\n")[1].split("### ")[0]
        shown = section.split("**Recommendations** (ranked by estimated time saved)\n\n")[1].split("\n\n")[0]
        items = [f"**{estimate_text(a)}**: {a.text}{cited(a)} (when: {a.condition}; bound: {bound_of(a)})"
                 if bound_of(a) else f"**{estimate_text(a)}**: {a.text}{cited(a)} (when: {a.condition})"
                 for a in group.longest.advice]
        assert shown == "\n".join(f"- {t}" for t in items or [markdown.NO_ADVICE])


def test_real_report_ranking_and_rules(shared_report):
    a = analyze_files([shared_report("v100_miniweather-openacc_full")])[0]
    text = markdown.render(views([a]))
    assert re.search(r"^### 1\. `compute_tendencies_x_279_gpu`", text, flags=re.M)
    assert "**warning** This kernel executes 250895971 fused and 167533724 non-fused FP64 instructions." in text
    assert "@section:" not in text and "@url:" not in text and "https://" not in text



def test_no_tensor_flops_are_listed_as_not_measured_on_a_gpu_without_tensor_cores(shared_report):
    """TU116 has no Tensor Cores: the list of what the report did not measure offers no re-profiling for Tensor
    FLOPs, and keeps the FP16 FLOPs, which TU116 executes."""
    a = analyze_files([shared_report("gtx1660super_sgemm-naive_full")])[0]
    unmeasured = text_after(markdown.render(views([a])), "### Not measured in this report")
    assert "FLOPs FP16:" in unmeasured and "Tensor" not in unmeasured


def text_after(text: str, heading: str) -> str:
    """The section of ``text`` under ``heading``, to the next heading."""
    return text.split(heading, 1)[1].split("\n#", 1)[0]

@pytest.mark.parametrize("raw, clean", [
    ("See the @url:CUDA Best Practices Guide:https://docs.nvidia.com/cuda/x.html#occupancy@ for more.",
     "See the CUDA Best Practices Guide for more."),
    ("Look at @section:LaunchStats:Launch Statistics@ for\n more details.",
     "Look at Launch Statistics for more details."),
])
def test_clean_rule_text(raw, clean):
    assert clean_rule_text(raw) == clean


def test_plot_image_is_embedded_under_the_ceilings(example):
    text = markdown.render(views([example]), ["x.png"])
    line = "![Roofline plot of h100-sxm_synthetic.roofline.json](x.png)"
    assert text.index("### Ceilings") < text.index(line) < text.index("### Kernels ranked by time to gain")
    assert "![" not in markdown.render(views([example]))  # no image without its file


def test_a_report_with_nothing_to_plot_has_no_plot_column_in_its_ranking(shared_report):
    """A basic-set report places no kernel on the plot: the ranking numbered its kernels as plot points anyway."""
    a = analyze_files([shared_report("a10g_sgemm-progression_basic")])[0]
    text = markdown.render(views([a]), [""])
    header = text_after(text, "### Kernels ranked by time to gain").strip().splitlines()[0]
    assert "No roofline plot" in text and header.startswith("| # | kernel |") and "plot" not in header
    plotted = markdown.render(views([analyze_files([shared_report("v100_miniweather-openacc_full")])[0]]), ["x.png"])
    assert text_after(plotted, "### Kernels ranked by time to gain").strip().startswith("| # | plot | kernel |")


def test_image_names_beside_the_markdown_file():
    assert image_names("app.md", 1) == ["app.png"]
    assert image_names("app.md", 2) == ["app-1.png", "app-2.png"]


def test_kernels_are_headed_by_their_function_name_then_their_demangled_name(shared_report):
    import html as std_html

    from roofline.render.report import html

    a = analyze_files([shared_report("h800_flash-attn-fwd_full")])[0]
    text = markdown.render(views([a]))
    demangled = a.launches[0].launch.demangled_name  # the four launches of the PyTorch kernel share it
    heading = "### 1. `distribution_elementwise_grid_stride_kernel<float, (int)4, "  # its template arguments, fitted
    assert re.search("^" + re.escape(heading) + ".*`$", text, flags=re.M)
    section = text.split(heading, 1)[1].split("\n", 1)[1]
    assert section.lstrip().startswith(f"demangled: `{demangled}`")
    page = html.render(views([a]))
    assert "<code>distribution_elementwise_grid_stride_kernel&lt;float, (int)4, " in page
    assert f"demangled: <code>{std_html.escape(demangled, quote=False)}</code>" in page


def test_a_kernel_section_carries_its_launch_notes_on_what_it_ran():
    """The H100 triad's roofline-set report counts FP16 FLOPs from HFMA2 alone: its section says they may be register
    moves (the FP16 row is shown). Its full-set report leaves the moves out, so no FP16 FLOPs remain and the note on
    them concerns nothing the triad ran: the section leaves it out, the JSON keeps it."""
    counted = analyze_files([EXAMPLE.parent / "h100" / "triad-cupy.roofline.ncu-rep"])[0]
    note = next(flop_note_text(n) for n in counted.launches[0].notes if n.kind is FlopNoteKind.HFMA_MOVES_UNCOUNTED)
    assert f"> {note}." in markdown.render(views([counted]))
    full = analyze_files([EXAMPLE.parent / "h100" / "triad-cupy.full.ncu-rep"])[0]
    moves = next(flop_note_text(n) for n in full.launches[0].notes if n.kind is FlopNoteKind.HFMA_MOVES_LEFT_OUT)
    assert moves not in markdown.render(views([full]))
    assert moves in json.loads(report_json.render(views([full])))["reports"][0]["kernels"][0]["notes"]


def test_each_kernel_has_its_instruction_roofline_section():
    """examples/h200/intops: each kernel's section gives its warp rate against the issue peak, instructions per
    transaction, the walls and the integer roofline, with the figures of ``instruction_roofline``."""
    intops = Path(__file__).resolve().parents[3] / "examples" / "h200" / "intops.full.ncu-rep"
    text = markdown.render(views(analyze_files([intops])))
    assert text.count("**Instruction roofline**") == 2
    assert "- 531 warp GIPS, 67.3% of the issue peak (789 GIPS); thread instructions / 32: 531 GIPS" in text
    assert ("- global sectors per warp instruction: ld 32, st 4 (walls for ld 4 B, st 4 B: stride 0 = 1, unit "
            "stride = ld 4, st 4, scattered = 32)") in text  # widths from the SASS: LDG.E, STG.E
    assert ("- integer instructions: 16502 GIOPS, 130.6% of the integer pipe's peak (12632 GIOPS): above it, as "
            "integer multiplies (IMAD) issue to the FMA pipe beside the ALU") in text
    assert "- integer instructions: 1088 GIOPS, 8.6% of the integer pipe's peak (12610 GIOPS)" in text


def test_a_basic_set_says_which_section_counts_instructions(shared_report):
    text = markdown.render(views(analyze_files([shared_report("a10g_sgemm-progression_basic")])))
    assert ("- warp instructions not measured: missing metrics: smsp__inst_executed.sum; re-profile with --section "
            "InstructionStats or --set full") in text
    assert "integer instructions not measured: missing metrics: smsp__sass_thread_inst_executed_op_integer" in text


def test_hot_spots_list_lines_and_their_source(roofline_report):
    """The shared-memory transpose (line information, source imported): the hot lines in a table, and the source
    around the first ones with the hot line marked."""
    from roofline.pipeline import analyze_loaded

    text = markdown.render(views([analyze_loaded(roofline_report("rtx4090_smem-transpose_full"))]))
    assert "**Hot spots** (40,044 warp samples; the lines with the most)" in text
    assert "| 43.6% | 17,459 | smemTranspose.cu:65 | long_scoreboard | STS \\[R11.X4\\], R2 |" in text
    assert ">    65          tile[threadIdx.y][threadIdx.x] = mat[idx];" in text
    assert "No source lines" not in text


def test_hot_spots_without_sass_say_why_instead_of_an_empty_column(roofline_report):
    """The V100 miniWeather report: ncu_report gives '???' for every instruction. The table had an empty SASS
    column (and "waits on"), the reason only in the JSON; now it has neither, and the reason is under it."""
    from roofline.pipeline import analyze_loaded

    analysis = analyze_loaded(roofline_report("v100_miniweather-openacc_full"))
    text = markdown.render(views([analysis]))
    assert "| share | samples | where | top stall |\n" in text and "| SASS |" not in text
    reason = next(k.hotspots.sass_missing for k in analysis.launches if k.hotspots and k.hotspots.sass_missing)
    assert "could not disassemble" in reason and f"> No SASS: {reason}." in text


def test_a_source_listing_is_fenced_past_any_backticks_in_it():
    listing = markdown.Block("code", "a = ```b```;\n`c`")
    assert markdown._markdown(listing) == "````\na = ```b```;\n`c`\n````"


def test_a_small_grid_kernel_leads_the_table_and_its_section_says_its_time_to_gain() -> None:
    """op38: the 35.6 ms dgrad kernel (110 blocks on 132 SMs) has 0 recoverable time and 5.93 ms to gain; it is #1
    in the kernel table, in its time-to-gain column, and in the first kernel section."""
    ops = Path(__file__).resolve().parents[3] / "examples" / "h100" / "ops"
    path = ops / "op38-conv-transposed-3d-square-input-asymmetric-kernel.json"
    (analysis,) = analyze_files([path])
    (v,) = views([analysis]).reports
    duration = v.ranking[0].longest.duration_s.value
    assert duration is not None
    gain = duration * (1 - 110 / 132)
    text = markdown.render(views([analysis]))
    table_row = next(line for line in text.splitlines() if line.startswith("| 1 |"))
    assert "dgrad" in table_row and table_row.rstrip(" |").endswith(seconds(gain))
    assert table_row.startswith("| 1 | #1 |")  # #1 on the plot too
    section = text[text.index("### 1. "):]
    assert "dgrad" in section.splitlines()[0]
    assert f"recoverable 0 ns, time to gain {seconds(gain)}." in section


def test_the_memory_table_has_a_percent_of_peak_column_and_the_l2_rates_of_loads_and_stores(roofline_report):
    """A100 CUTLASS GEMM: the kernel's L1 edge has no percent (n/a); DRAM -> L2 is at 1.6% of its peak."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.markdown import memory_blocks

    analysis = analyze_loaded(roofline_report("a100-80gb_cutlass-gemm_full"))
    launch = next(g.longest for g in analysis.groups if g.longest.launch.key == "0:0")
    blocks = memory_blocks(launch)
    (table,) = [b for b in blocks if b.kind == "table"]
    assert table.header == ("from", "to", "traffic", "% of peak", "counts")
    rows = {(r[0], r[1]): r for r in table.rows}
    assert rows[("kernel", "L1")][3] == "n/a" and rows[("DRAM", "L2")][2:4] == ("321 kB", "1.6%")
    assert any("L2 84.2% (loads 74.4%, stores 100.1%)" in b.text for b in blocks)


def test_the_ranking_names_each_kernels_number_on_the_plot_where_kernels_go_by_time(shared_report) -> None:
    """rtx3060-laptop_reductions_full: ranked by time to gain, reduceUnrolled is 2nd, but 5th by time, its number
    on the plot; the table says so, so a reader finds it there."""
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    (analysis,) = analyze_files([shared_report("rtx3060-laptop_reductions_full")])
    text = markdown.render(views([analysis]))
    by_time = [g.name for g in analysis.groups]
    rows = [line for line in text.splitlines() if re.match(r"^\| \d+ \| #\d+ \| `", line)]
    shown = {r.split("`")[1]: int(r.split("|")[2].strip(" #")) for r in rows}
    assert shown == {name: by_time.index(name) + 1 for name in shown} and shown["reduceUnrolled"] == 5


def test_the_l1_speed_of_light_is_labelled_as_a_percent_of_active_cycles(roofline_report, raw_actions):
    """RTX 2070 Super alife, render_kernel: the L1/TEX figure (l1tex__throughput over active cycles, from the raw
    report) is labelled so; the memory and L2 figures, over elapsed cycles, are not."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.markdown import memory_blocks

    name = "rtx2070super_alife-143launches_basic"
    raw = max((r for r in raw_actions(name) if r.name == "render_kernel"), key=lambda r: r["gpu__time_duration.sum"])
    launch = next(g.longest for g in analyze_loaded(roofline_report(name)).groups if g.name == "render_kernel")
    (sol,) = [b.text for b in memory_blocks(launch) if b.text.startswith("**Speed of Light**")]
    l1, l2 = (raw[f"{unit}.avg.pct_of_peak_sustained_{over}"] for unit, over in (("l1tex__throughput", "active"),
                                                                                  ("lts__throughput", "elapsed")))
    assert f"L1/TEX {l1:.2f}% of active cycles" in sol and sol.endswith(f"L2 {l2:.2f}%")


def test_the_small_grids_column_is_never_blank(shared_report, raw_actions):
    """RTX 3070 daxpy: every launch fills the GPU (at least one wave per SM in the raw report), so each kernel's
    small-grid time is 0 ns, said, not left blank; RTX 2070 Super alife: compute_forces (under one wave) shows the
    summed raw time of its launches."""
    from roofline.core.units import seconds

    def cells(name: str) -> dict[str, str]:
        text = markdown.render(views(analyze_files([shared_report(name)])))
        table = text.split("### Kernels ranked by time to gain", 1)[1].split("\n\n")[1].splitlines()
        header = [c.strip() for c in table[0].strip("|").split("|")]
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
        at, kernel = header.index("small grids"), header.index("kernel")
        return {row[kernel].strip("`"): row[at] for row in rows}

    daxpy = raw_actions("rtx3070_daxpy-nvtx_custom")
    assert all(r["launch__waves_per_multiprocessor"] >= 1 for r in daxpy)
    assert set(cells("rtx3070_daxpy-nvtx_custom").values()) == {"0 ns"}
    alife = cells("rtx2070super_alife-143launches_basic")
    forces = [r for r in raw_actions("rtx2070super_alife-143launches_basic") if r.name == "compute_forces"]
    assert all(r["launch__waves_per_multiprocessor"] < 1 for r in forces)
    assert alife["compute_forces"] == seconds(sum(r["gpu__time_duration.sum"] for r in forces) * 1e-9)
    assert "" not in alife.values()


def test_the_small_grids_cell_of_a_kernel_without_a_verdict_is_n_a_as_its_json_null(shared_report, raw_actions):
    """RTX 5060 Ti transpose, a metrics-only report (times, no SpeedOfLight throughput in the raw report): its
    kernel's small-grid time is not known, so the cell reads n/a, the renderer's text for the document's null."""
    name = "rtx5060ti_transpose-occupancy-45launches_metrics"
    timed = [r for r in raw_actions(name) if r.has("gpu__time_duration.sum")]
    assert timed and not any(r.has("sm__throughput.avg.pct_of_peak_sustained_elapsed") for r in timed)
    text = markdown.render(views(analyze_files([shared_report(name)])))
    table = text.split("### Kernels ranked by time to gain", 1)[1].split("\n\n")[1].splitlines()
    header = [c.strip() for c in table[0].strip("|").split("|")]
    (row,) = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert row[header.index("small grids")] == "n/a" and row[header.index("launches")] == str(len(timed))


def test_the_ranking_never_shows_two_kernels_under_one_name(shared_report):
    """RTX 2070 Super alife: four CUB reduce agents cut to one width read "_kernel_agent<thrust::cuda_cub::__reduce::
    Redu… long long, thrust::less<float>>>" alike in the Markdown and HTML ranking; they show where they part."""
    import re

    from roofline.render.report.markdown import ranking_table

    (a,) = analyze_files([shared_report("rtx2070super_alife-143launches_basic")])
    groups = list(a.groups)
    table = ranking_table(groups, [None] * len(groups))
    names = [row[1] for row in table.rows if row[1].startswith("`")]
    agents = [n for n in names if "kernel_agent" in n]
    assert len(agents) >= 4 and len(set(names)) == len(names)
    assert any(re.search(r"arg_min_f", n) for n in agents) and any(re.search(r"arg_max_f", n) for n in agents)


def test_an_intensity_that_leaves_out_flops_not_measured_reads_as_a_lower_bound(shared_report):
    """V100 miniWeather (FP16 not measured in its full set): each FLOP/byte cell of an advised kernel is marked
    ">=" and a note says it counts the measured FLOPs alone, naming FP16 and the option that measures it; the
    roofline line says so too. Markdown and HTML read the same blocks."""
    from roofline.render.report import html

    v = views(analyze_files([shared_report("v100_miniweather-openacc_full")]))
    text, page = markdown.render(v), html.render(v)
    k = next(x for x in v.reports[0].analysis.launches if x.launch.name == "compute_tendencies_x_309_gpu")
    assert k.flops["fp16"].value is None and k.intensity_leaves_out == ("fp16",)
    dram = k.intensity["dram"].value
    assert f"| >= {dram:.3g} |" in text
    note = ("FLOP/byte counts the measured FLOPs alone, each a lower bound (marked >=): FP16 FLOPs not measured "
            "(re-profile with --set roofline (hierarchical half-precision chart)).")
    assert f"> {note}" in text and note.replace(">=", "&gt;=") in page
    assert f"Its intensity there, {dram:.3g} FLOP/byte (of the measured FLOPs alone: FP16 not measured)" in text
    assert "| 0 |" not in text  # the zero-FLOP kernels' intensity is null, not 0
