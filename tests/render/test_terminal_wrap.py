"""roofline.render.terminal.hanging: wrapped terminal lines stay under their block, a label with its value."""

from __future__ import annotations

from roofline.render.terminal import hanging, unbroken


def test_continuation_lines_sit_two_spaces_under_the_lines_own_indentation():
    lines = hanging("    " + " ".join(["word"] * 30), 40)
    assert lines[0].startswith("    word") and all(line.startswith("      word") for line in lines[1:])
    assert all(len(line) <= 40 for line in lines) and len(lines) > 2


def test_an_unbroken_piece_is_never_parted_and_prints_with_plain_spaces():
    text = "    SOL " + "  ".join(unbroken(s) for s in ["SM 44.10%", "memory 74.11%", "DRAM 74.11%",
                                                         "L1 17.23% of active cycles", "L2 73.44%"])
    lines = hanging(text, 80)
    assert lines == ["    SOL SM 44.10%  memory 74.11%  DRAM 74.11%  L1 17.23% of active cycles",
                     "      L2 73.44%"]


def test_a_word_keeps_the_percent_after_it_and_a_number_its_unit():
    lines = hanging("  idle 219 ms: host outside CUDA calls 95.4%, copying Host-to-Device (pageable) 3.1%", 70)
    assert lines == ["  idle 219 ms: host outside CUDA calls 95.4%, copying Host-to-Device",
                     "    (pageable) 3.1%"]
    assert hanging("x" * 20 + " 52.2 ms", 25) == ["x" * 20, "  52.2 ms"]


def test_report_text_is_escaped_for_rich_and_its_control_characters_shown():
    assert hanging("kernel [all launches] a\x00b", 80) == ["kernel \\[all launches] a\\x00b"]


def test_a_word_longer_than_the_line_stands_whole_on_a_line_of_its_own():
    from roofline.render.terminal import hanging

    name = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_execute_kernel"
    lines = hanging(f"  kernels: {name} and others", 40)
    assert lines == ["  kernels:", f"    {name}", "    and others"]
