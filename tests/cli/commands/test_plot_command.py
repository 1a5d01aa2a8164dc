"""`roofline plot` and the report files (`--plot`, `--format markdown|html`) through the CLI: default names under
reports/, the generator mark that lets roofline replace only its own files, and user errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render import GENERATED_BY

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
runner = CliRunner()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_plot_default_name_under_reports(in_tmp):
    result = runner.invoke(app, ["plot", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    out = in_tmp / "reports" / "h100-sxm_synthetic.png"
    assert out.read_bytes().startswith(b"\x89PNG")
    assert f"wrote {Path('reports') / 'h100-sxm_synthetic.png'}" in result.output


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plot_format_from_the_extension(in_tmp, suffix, magic):
    out = in_tmp / f"x{suffix}"
    result = runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(out), "--top", "1", "-k", "regex:gemm"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(magic)


def test_plot_of_a_real_report_with_measured_clock_ceilings(in_tmp, shared_report):
    out = in_tmp / "a.svg"
    result = runner.invoke(app, ["plot", str(shared_report("gh200_silu_full-roofline")), "-o", str(out),
                                 "--ceilings", "measured-clock"])
    assert result.exit_code == 0, result.output
    assert "measured-clock ceilings" in out.read_text()


def test_unknown_plot_format_is_refused_before_any_work(in_tmp):
    result = runner.invoke(app, ["plot", "no-such-file.ncu-rep", "-o", "x.gif"])
    assert result.exit_code != 0 and "unknown plot format '.gif'" in result.output


def test_replaces_its_own_file_but_never_a_foreign_one(in_tmp):
    out = in_tmp / "p.png"
    assert runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(out)]).exit_code == 0
    assert runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(out)]).exit_code == 0  # ours: replaced
    foreign = in_tmp / "mine.png"
    foreign.write_bytes(b"\x89PNG not from roofline")
    result = runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(foreign)])
    assert result.exit_code != 0 and "was not written by roofline" in result.output
    assert foreign.read_bytes() == b"\x89PNG not from roofline"


@pytest.mark.parametrize("fmt, suffix", [("markdown", ".md"), ("html", ".html")])
def test_report_files_default_to_reports_folder(in_tmp, fmt, suffix):
    result = runner.invoke(app, ["report", str(EXAMPLE), "--format", fmt])
    assert result.exit_code == 0, result.output
    out = in_tmp / "reports" / f"h100-sxm_synthetic{suffix}"
    assert GENERATED_BY in out.read_text() and f"wrote {Path('reports') / out.name}" in result.output


def test_report_never_overwrites_a_foreign_file(in_tmp):
    target = in_tmp / "notes.md"
    target.write_text("my notes\n")
    result = runner.invoke(app, ["report", str(EXAMPLE), "-f", "markdown", "-o", str(target)])
    assert result.exit_code != 0 and target.read_text() == "my notes\n"


def test_report_with_plot(in_tmp):
    result = runner.invoke(app, ["report", str(EXAMPLE), "--plot", "r.png"])
    assert result.exit_code == 0, result.output
    assert (in_tmp / "r.png").read_bytes().startswith(b"\x89PNG") and "sgemm_fp32_4096" in result.output


def test_help_does_not_import_matplotlib():
    code = ("import sys\nfrom typer.testing import CliRunner\nfrom roofline.cli.app import app\n"
            "CliRunner().invoke(app, ['--help'])\nprint('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plot_of_the_good_reports_is_written_and_the_bad_named(in_tmp):
    result = runner.invoke(app, ["plot", str(EXAMPLE), "gone.ncu-rep", "-o", "p.svg"])
    assert result.exit_code == 2
    assert (in_tmp / "p.svg").read_text().count(GENERATED_BY) == 1
    assert result.stderr.splitlines() == ["wrote p.svg", "roofline: error: gone.ncu-rep: no such file: check the path"]


def test_a_plot_with_nothing_on_it_is_not_written(shared_report, tmp_path):
    """A basic-set report has no FLOPs and no bytes: no point to draw, so no file, one line and exit 2; the
    report's own --plot says the same."""
    report = shared_report("a100-40gb_cublas-sgemm_basic")
    for args in (["plot", str(report), "-o"], ["report", str(report), "--plot"]):
        out = tmp_path / "empty.png"
        result = runner.invoke(app, [*args, str(out)])
        assert result.exit_code == 2 and not out.exists(), result.output
        assert result.stderr.startswith(f"roofline: error: {out}: not written, nothing to plot: no kernel of ")
        assert result.stderr.count("\n") == 1


INTOPS = Path(__file__).resolve().parents[3] / "examples" / "h200" / "intops.full.ncu-rep"


def test_instruction_plot_of_a_full_set_report(in_tmp):
    """plot --kind instruction: the H200 intops report (with integer counters) in three panels, as PNG and SVG."""
    for name, magic in (("i.png", b"\x89PNG"), ("i.svg", b"<?xml")):
        result = runner.invoke(app, ["plot", "--kind", "instruction", str(INTOPS), "-o", name])
        assert result.exit_code == 0, result.output
        assert (in_tmp / name).read_bytes().startswith(magic)
    svg = (in_tmp / "i.svg").read_text()
    for text in ("instruction roofline", "memory walls", "unit stride, 4 B", "integer roofline", "hash_rounds",
                 "gather_strided", "issue peak 789", "ALU (integer) pipe peak 12632"):
        assert text in svg, text


def test_instruction_plot_of_a_basic_set_is_not_written(shared_report, tmp_path):
    """A basic set counts no instructions: no file, one line naming the sections to collect, exit 2."""
    out = tmp_path / "i.png"
    report = shared_report("a10g_sgemm-progression_basic")
    result = runner.invoke(app, ["plot", "--kind", "instruction", str(report), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists(), result.output
    assert result.stderr == (f"roofline: error: {out}: not written, nothing to plot: no kernel of {report} has a "
                             "warp instruction rate with an intensity at a memory level or a wall: re-profile with "
                             "--set full (InstructionStats and MemoryWorkloadAnalysis_Tables sections), or plot "
                             "--kind roofline\n")


def test_an_instruction_plot_with_rates_but_no_intensity_is_not_written(shared_report, tmp_path):
    """The RTX 3070 daxpy report (custom metrics) gives each kernel's warp instruction rate but no transaction at
    any level: every panel would be empty, so no file, exit 2, as for the roofline kind."""
    out = tmp_path / "i.png"
    report = shared_report("rtx3070_daxpy-nvtx_custom")
    result = runner.invoke(app, ["plot", "--kind", "instruction", str(report), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists(), result.output
    assert "not written, nothing to plot" in result.stderr


def test_occupancy_plot_is_written_and_one_without_launch_shapes_is_not(in_tmp):
    """plot --kind occupancy: the H200 intops report draws its calculators; the synthetic example model holds no
    launch__* shape, so no file, one line naming the sections to collect, exit 2."""
    result = runner.invoke(app, ["plot", "--kind", "occupancy", str(INTOPS), "-o", "o.svg"])
    assert result.exit_code == 0, result.output
    svg = (in_tmp / "o.svg").read_text()
    for text in ("threads per block", "registers per thread", "shared memory per block (KiB)", "this launch"):
        assert text in svg, text
    result = runner.invoke(app, ["plot", "--kind", "occupancy", str(EXAMPLE), "-o", "none.png"])
    assert result.exit_code == 2 and not (in_tmp / "none.png").exists()
    assert "nothing to plot" in result.stderr and "--section LaunchStats --section Occupancy" in result.stderr


def test_a_bad_report_is_named_when_another_has_nothing_to_plot(shared_report, tmp_path):
    """The good report of a basic set has nothing to plot: the bad report beside it is named too (before the plot's
    line), not left for a second run to find."""
    out, bad = tmp_path / "p.png", tmp_path / "random.ncu-rep"
    bad.write_bytes(b"\x00garbage" * 64)
    report = shared_report("a100-40gb_cublas-sgemm_basic")
    result = runner.invoke(app, ["plot", str(report), str(bad), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists(), result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0] == (f"roofline: error: {bad}: not an Nsight Compute report (no NVR header): pass a .ncu-rep "
                        "file written by ncu, or a .json report model")
    assert lines[1].startswith(f"roofline: error: {out}: not written, nothing to plot: no kernel of {report} ")


def test_a_bad_report_is_named_when_the_plot_cannot_be_written(tmp_path):
    """A plot file that is the user's is not replaced: that line and the bad report's, exit 2."""
    out, bad = tmp_path / "mine.png", tmp_path / "empty.ncu-rep"
    out.write_bytes(b"\x89PNG\r\n\x1a\nthe user's")
    bad.write_bytes(b"")
    result = runner.invoke(app, ["plot", str(EXAMPLE), str(bad), "-o", str(out)])
    assert result.exit_code == 2 and out.read_bytes() == b"\x89PNG\r\n\x1a\nthe user's"
    assert result.stderr.splitlines() == [
        f"roofline: error: {bad}: file is empty: the profiling run did not finish; profile again",
        f"roofline: error: {out}: exists and was not written by roofline; not replacing it: remove it, or choose "
        "another file name (the option that named it, or -o for the files beside a report)"]
