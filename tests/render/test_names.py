"""roofline.render.names: a group's name, rows of one name told apart by their launch configuration, ncu's launch
notation."""

from __future__ import annotations

import pytest

from roofline.core.kernel_names import KernelName, kernel_key
from roofline.render.names import bound_word, distinguish, group_name, launch_config, terminal_safe

GEMM = "void gemm<(int)128, (int)8, (bool)0>(float *, float *, float *, int, int, int)"


def test_launch_configurations_tell_rows_of_one_name_apart() -> None:
    names = [KernelName("k"), KernelName("k"), KernelName("k"), KernelName("other")]
    configs = ["(1056)x(256)", "(8)x(256)", "(1056)x(256)", "(8)x(256)"]
    assert [n.full for n in distinguish(names, configs)] == ["k (1056)x(256)", "k (8)x(256)", "k (1056)x(256)",
                                                             "other"]
    same = distinguish([KernelName("k"), KernelName("k")], ["(8)x(256)", "(8)x(256)"])
    assert [n.full for n in same] == ["k", "k"]  # the same configuration tells nothing: the # column does


def test_launch_config_drops_trailing_ones() -> None:
    assert launch_config((1056, 1, 1), (256, 1, 1)) == "(1056)x(256)"
    assert launch_config((3, 4, 1), (16, 16, 1)) == "(3, 4)x(16, 16)"
    assert launch_config(None, (256, 1, 1)) == ""


def test_a_kernel_group_shows_its_template_and_a_function_group_its_name() -> None:
    assert group_name(kernel_key("gemm", GEMM), ("gemm",)).arguments == "(int)128, (int)8, (bool)0"
    assert group_name("gemm", ("gemm",)) == KernelName("gemm")  # grouped by function
    assert group_name("step > solve", ("a", "b")) == KernelName("step > solve")  # an NVTX range


# --- One sanitising function per medium (issue 37) -------------------------------------------------------------------
HOSTILE = "k\x1b[2J\x1b[31mred\x00nul\rcr\nlf\tt\x7f\x9b\u202eevil\u2028\ud800"


def test_visible_writes_every_control_character_as_an_escape_and_replaces_lone_surrogates():
    from roofline.render.names import visible

    assert visible(HOSTILE) == ("k\\x1b[2J\\x1b[31mred\\x00nul\\rcr\\nlf\\tt\\x7f\\x9b\\u202eevil\\u2028\ufffd")
    assert visible(visible(HOSTILE)) == visible(HOSTILE)  # escaping twice changes nothing
    assert visible("ampere_sgemm_128x64_nn<float, 2>") == "ampere_sgemm_128x64_nn<float, 2>"
    assert visible("µs €") == "µs €"  # text is left as it is


def test_visible_bounds_the_length_with_an_ellipsis():
    from roofline.render.names import MAX_SHOWN_CHARS, visible

    shown = visible("k" * (10 * MAX_SHOWN_CHARS))
    assert len(shown) == MAX_SHOWN_CHARS and shown.endswith("k…")
    assert visible("abcdef", 4) == "abc…"


def test_plot_text_is_visible_and_no_mathematics():
    from roofline.render.names import plot_text

    assert plot_text("a$\\frac{$b\n") == "a\\$\\frac{\\$b\\n"


def test_json_text_is_strict_and_encodable():
    import json

    from roofline.render.names import json_text

    doc = {"name": HOSTILE, "ok": "😀 µs", "n": [1, 2.5], HOSTILE: None}
    text = json_text(doc)
    text.encode("utf-8")  # strict: no lone surrogate left, escaped or not
    assert "\\ud800" not in text and json.loads(text)["name"].endswith("\u2028\ufffd")
    assert json.loads(text)["ok"] == "😀 µs" and json.loads(json_text({"a": 1})) == {"a": 1}
    assert json_text({"a": "b"}) == '{"a":"b"}\n'


def test_json_text_is_ascii_with_the_escapes_json_writes_and_null_for_non_finite():
    import json
    import math

    import numpy as np

    from roofline.render.names import json_text

    doc = {"name": "é\u2028\x7f\x1b\x9b😀", "n": [np.float64(2.5), np.int64(3), 1e-05, 1e300, 0.1],
           "bad": [math.nan, math.inf], 7: True}
    text = json_text(doc)
    assert text.isascii() and "\x7f" not in text and text.endswith("}\n") and "\n" not in text[:-1]
    assert "\\u00e9\\u2028\\u007f\\u001b\\u009b\\ud83d\\ude00" in text  # as json.dumps escapes them
    assert json.loads(text) == {"name": doc["name"], "n": [2.5, 3, 1e-05, 1e300, 0.1], "bad": [None, None], "7": True}
    with pytest.raises(TypeError, match="object is not JSON"):
        json_text({"a": object()})


def test_fitting_counts_the_escapes_a_terminal_shows():
    from roofline.render.terminal import fitted

    shown = fitted(KernelName("a\nb\x1b" * 10), 12)
    assert len(shown) == 12 and "\n" not in shown and "\x1b" not in shown


def test_a_document_reaches_a_terminal_with_its_control_characters_escaped():
    """CSV (CRLF line ends), JSON or Markdown written to a terminal (-o -): a name's escape sequence, bell, carriage
    return and bidirectional override are shown as escapes; line ends and tabs stay."""
    document = "name,kernel\r\nk\x1b]0;title\x07,tri\x1b[31mad\rX\u202e\tok\n"
    assert terminal_safe(document) == "name,kernel\r\nk\\x1b]0;title\\x07,tri\\x1b[31mad\\rX\\u202e\tok\n"
    assert terminal_safe("plain\r\n") == "plain\r\n"


def test_a_number_wider_than_its_share_of_the_terminal_wraps_and_is_never_cut():
    """At 80 columns a table of many columns wraps a long number (an interval with two units) and a header onto a
    second line; kernel names alone are shortened, with an ellipsis."""
    import io

    from rich.console import Console

    from roofline.render.terminal import add_rows, plain_table

    table = plain_table("", ("kernel", "measured", "projected", "interval", "by", "threads B/A", "work", "bound"))
    add_rows(table, [[KernelName("silu_kernel_non_strided_and_more"), "153 us", "510 us", "510 us-1.02 ms", "DRAM",
                      "4.88x", "DIFFERENT", "510 us"]], 80)
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(table)
    text = out.getvalue()
    assert "…" in text.splitlines()[-1] or "…" in text  # the name gave way
    for whole in ("153 us", "510 us", "1.02", "ms", "DRAM", "4.88x", "DIFFERENT", "threads", "B/A"):
        assert whole in text, (whole, text)
    assert all(len(line) <= 80 for line in text.splitlines())


def test_bound_word_writes_the_verdict_as_words() -> None:
    assert [bound_word(b) for b in ("small_grid", "memory", None)] == ["small grid", "memory", "n/a"]


def test_markdown_and_the_tooltips_write_a_small_grid_as_words(shared_report, tmp_path) -> None:
    """RTX 2070 SUPER alife: five small-grid kernels; the Markdown ranking and the HTML plot's tooltips say
    "small grid", as the tables do (JSON keeps the value "small_grid")."""
    from typer.testing import CliRunner

    from roofline.cli.app import app

    path = shared_report("rtx2070super_alife-143launches_basic")
    for fmt in ("markdown", "html"):
        out = tmp_path / f"r.{fmt}"
        result = CliRunner().invoke(app, ["report", str(path), "-f", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        text = out.read_text()
        assert "small grid" in text and "small_grid" not in text
