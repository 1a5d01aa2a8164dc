"""`roofline timeline`: every format on real nsys exports, the figures checked against tests/nsys/independent.py,
ranks for several files, and one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render.report.json import SCHEMA_VERSION
from tests.conftest import find_shared_nsys
from tests.nsys import independent

runner = CliRunner()
ENV = {"COLUMNS": "100"}
CONV = "rtx3090_memfusion-conv-nvtx_2023.1.sqlite"
LLAMA = "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite"
MINIWEATHER = "gp100_miniweather-openacc_2021.2-export2022.2.sqlite"


def invoke(*args: object):
    return runner.invoke(app, ["timeline", *map(str, args)], env=ENV)


def test_json_holds_every_kernel_with_name_count_and_total() -> None:
    path = find_shared_nsys(CONV)
    result = invoke(path, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert (doc["kind"], doc["schema_version"]) == ("timeline", SCHEMA_VERSION)
    (t,) = doc["timelines"]
    expected = independent.per_kernel(path)
    independent.assert_same({k["name"]: (k["count"], k["total_s"]) for k in t["kernels"]},
                            {n: (e["count"], e["total_s"]) for n, e in expected.items()})
    (busy,) = independent.busy(path).values()
    assert t["devices"][0]["busy_s"] == pytest.approx(busy, rel=1e-12)
    assert t["kernels"][0]["share"] == pytest.approx(t["kernels"][0]["total_s"] / busy)
    assert "ranks" not in doc


def test_the_table_ranks_kernels_and_states_where_the_times_come_from() -> None:
    result = invoke(find_shared_nsys(MINIWEATHER), "--top", "3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith("GPU 0 Quadro GP100: 2596 launches, busy 60.3 ms of a 274 ms span")
    rows = [ln.split() for ln in lines if ln[:2] in ("1 ", "2 ", "3 ")]
    assert [r[1] for r in rows] == ["compute_tendencies_z_334_gpu", "compute_tendencies_x_278_gpu",
                                    "compute_tendencies_z_369_gpu"]
    assert rows[0][2:6] == ["288", "24.5", "ms", "40.5%"]
    assert "7 more kernels (--top 0 shows all)" in result.output
    assert "no replay" in result.output


def test_csv_has_one_row_per_kernel_at_full_precision() -> None:
    path = find_shared_nsys(LLAMA)
    result = invoke(path, "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    expected = independent.per_kernel(path)
    independent.assert_same({r["name"]: (int(r["count"]), float(r["median_s"])) for r in rows},
                            {n: (e["count"], e["median_s"]) for n, e in expected.items()})


def test_nvtx_option_keeps_the_range_kernels() -> None:
    path = find_shared_nsys(LLAMA)
    doc = json.loads(invoke(path, "--nvtx", "layer_0_computation", "-f", "json").output)
    assert doc["timelines"][0]["nvtx_filter"] == "layer_0_computation"
    assert sum(k["count"] for k in doc["timelines"][0]["kernels"]) == 192  # 64 GEMMs + 128 elementwise


def test_several_files_are_ranks_with_totals_and_outliers() -> None:
    files = [find_shared_nsys(n) for n in (CONV, LLAMA, MINIWEATHER)]
    doc = json.loads(invoke(*files, "-f", "json").output)
    busy = [t["busy_s"] for t in doc["timelines"]]
    median = sorted(busy)[1]
    assert [r["off_median_pct"] for r in doc["ranks"]] == pytest.approx([(b / median - 1) * 100 for b in busy])
    assert [r["outlier"] for r in doc["ranks"]] == [True, False, True]  # 6.4 ms and 60 ms around 18.6 ms
    table = invoke(*files).output
    assert "outlier: busy time more than 10% from the ranks' median" in table


def test_markdown_html_and_plot_are_written(tmp_path: Path) -> None:
    path = find_shared_nsys(CONV)
    md, page, png = tmp_path / "t.md", tmp_path / "t.html", tmp_path / "t.png"
    assert invoke(path, "-f", "markdown", "-o", md).exit_code == 0
    assert "| 1 | sm80\\_xmma\\_fprop" in md.read_text()
    assert invoke(path, "-f", "html", "-o", page, "--plot", png).exit_code == 0
    text = page.read_text()
    assert text.count("<table>") == text.count("</table>") == 2 and "<svg" in text
    assert png.read_bytes().startswith(b"\x89PNG")


def test_a_bad_file_is_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "x.sqlite"
    bad.write_text("not sqlite")
    result = runner.invoke(app, ["timeline", str(bad)], env=ENV)
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        f"roofline: error: {bad}: not an SQLite file: give nsys's SQLite export (nsys export --type sqlite FILE, "
        "or nsys profile --export sqlite)")
