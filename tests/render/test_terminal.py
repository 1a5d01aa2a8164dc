"""roofline.render.terminal: kernel names fitted to a table column."""

from __future__ import annotations

from rich.console import Console

from roofline.core.kernel_names import KernelName
from roofline.render.terminal import Chain, chained


def test_a_chain_of_names_keeps_its_arrow_and_shows_where_alike_names_part():
    alike = Chain((KernelName("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"),
                   KernelName("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")))
    text = chained(alike, 34)
    assert len(text) <= 34 and " -> " in text and "hsh" in text and "tst" in text
    assert chained(Chain((KernelName("basic"), KernelName("warptiling"))), 40) == "basic -> warptiling"
    assert chained(Chain((KernelName("_kernel_agent"), KernelName("matrix_addition2D"))), 12) == "_k…t -> ma…D"


def _printed(rows: list[list[str | KernelName | Chain]], header: tuple[str, ...], width: int, whole: bool) -> list[str]:
    from roofline.render.terminal import add_rows, plain_table, record

    def body(console: Console) -> None:
        console.print(add_rows(plain_table("", header), rows, width, whole=whole), crop=False)

    return record(body, width).splitlines()


WIDE_HEADER = ("kernel", "measured", "projected", "interval", "by", "threads B/A", "work", "bound")
WIDE_ROW: list[object] = [KernelName("silu_kernel_non_strided_and_more"), "153 us", "510 us", "510 us-1.02 ms",
                          "DRAM achievable", "4.88x", "DIFFERENT", "510 us"]


def test_a_whole_table_that_cannot_fit_runs_past_the_width_and_breaks_no_header_nor_cell():
    """The compare tables at 80 columns split "DIFFERENT" into "DIFFEREN"/"T" and "threads B/A" over two lines
    (probe r25); with whole=True every header and cell stays on its line, the name cut to its least (12)."""
    lines = _printed([WIDE_ROW], WIDE_HEADER, 80, whole=True)
    assert len(lines) == 2 and lines[0].split() == ["kernel", "measured", "projected", "interval", "by", "threads",
                                                     "B/A", "work", "bound"]
    assert lines[1].split()[1:] == ["153", "us", "510", "us", "510", "us-1.02", "ms", "DRAM", "achievable", "4.88x",
                                    "DIFFERENT", "510", "us"]
    assert len(lines[1].split()[0]) == 12 and "…" in lines[1] and len(lines[1]) > 80


def test_a_whole_table_that_fits_stays_within_the_width_its_names_taking_the_room_left():
    rows: list[list[object]] = [[KernelName("silu_kernel_non_strided_and_more"), "153 us", "DIFFERENT"]]
    lines = _printed(rows, ("kernel", "measured", "work"), 40, whole=True)
    assert len(lines) == 2 and max(map(len, lines)) == 40 and lines[1].endswith("153 us  DIFFERENT")


def test_without_whole_a_table_keeps_its_old_layout_for_the_other_callers():
    """The report's tables (whole=False) still wrap a number or a header rather than run past the terminal."""
    lines = _printed([WIDE_ROW], WIDE_HEADER, 80, whole=False)
    assert len(lines) > 2 and max(map(len, lines)) <= 80
