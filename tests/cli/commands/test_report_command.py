"""`roofline report`: every shared report in table and JSON, options, and one-line errors (exit code 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.cli.workflow import report_files
from roofline.core.model import Device, KernelLaunch, Report
from roofline.pipeline import AnalysisOptions
from roofline.render.report.json import with_reasons
from tests import installed

REPO = Path(__file__).resolve().parents[3]
T4 = "t4_matrix-add-2d_full"
H100 = "h100-pcie_rmsnorm-float4_full-roofline"
RTX4070TI = "rtx4070ti_pytorch-sim_full"


def run(*args: str | Path):
    return CliRunner().invoke(app, ["report", *map(str, args)])


def strict_json(text: str):
    def reject(token):
        raise AssertionError(f"{token} in JSON output")

    return json.loads(text, parse_constant=reject)


def assert_one_line_error(result, *expected: str) -> str:
    """Exit code 2, exactly one line on stderr naming the problem, nothing on stdout, no traceback."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("roofline: error: ")
    assert "Traceback" not in result.output
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


# --- Every shared report ---------------------------------------------------------------------------------------
def test_json_on_every_shared_report(shared_name, shared_report):
    path = shared_report(shared_name)
    result = run(path, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = strict_json(result.stdout)
    (rep,) = doc["reports"]
    assert rep["path"] == str(path) and rep["kernels"]
    for k in (with_reasons(kernel, rep["reasons"]) for kernel in rep["kernels"]):
        where = f"{shared_name} {k['range']}:{k['action']}"
        # each launch gets a number or a named reason for its time and its position under the roof
        assert k["duration_s"] is not None or k["missing"]["duration_s"], where
        assert k["pct_of_roof"] is not None or k["missing"]["pct_of_roof"], where
        for group in ("flop_per_s", "bytes_per_s"):
            for key, value in k[group].items():
                assert value is not None or k["missing"][f"{group}.{key}"], f"{where} {group}.{key}"


def test_table_on_every_shared_report(shared_name, shared_report, roofline_report, monkeypatch):
    """The table of every report (parsed once per session: the JSON test above reads each file for real)."""
    path = shared_report(shared_name)
    import roofline.ncu.reader

    report = roofline_report(shared_name)
    monkeypatch.setattr(roofline.ncu.reader.ReportReading, "batches", lambda self: (b for b in ()))
    monkeypatch.setattr(roofline.ncu.reader.ReportReading, "report", lambda self: report)
    result = run(path)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert str(path) in text.replace("\n", "")
    launches = roofline_report(shared_name).launches
    keys = {k.key for k in launches}
    rows = [line for line in text.splitlines() if line.split(" ", 1)[0] in keys]
    assert len({row.split(" ", 1)[0] for row in rows}) == min(len(launches), 30)
    if any("n/a" in row for row in rows):
        assert "Why n/a (not measured, or no ceiling" in text  # every n/a of a launch has its reason printed below


# --- Options ---------------------------------------------------------------------------------------------------
def test_kernel_filter_name_exact_and_regex(shared_report):
    path = shared_report(RTX4070TI)
    exact = strict_json(run(path, "-f", "json", "--kernel", "exact:linspace").stdout)
    assert [k["name"] for k in exact["reports"][0]["kernels"]] == ["linspace"]
    part = strict_json(run(path, "-f", "json", "--kernel", "ScanInit", "-k", "linspace").stdout)
    assert [k["name"] for k in part["reports"][0]["kernels"]] == ["linspace", "DeviceScanInitKernel",
                                                                  "DeviceScanInitKernel"]
    rx = strict_json(run(path, "-f", "json", "--kernel", "regex:^Device").stdout)
    names = [k["name"] for k in rx["reports"][0]["kernels"]]
    assert names == ["DeviceScanInitKernel", "DeviceScanKernel", "DeviceScanInitKernel", "DeviceScanKernel"]
    demangled = strict_json(run(shared_report("rtx3070_daxpy-nvtx_custom"), "-f", "json", "-k",
                                "exact:daxpy_kernel(int, double, double *, double *)", "--kernel-name-base",
                                "demangled").stdout)
    assert [k["name"] for k in demangled["reports"][0]["kernels"]] == ["daxpy_kernel"]


def test_the_cublas_kernel_as_users_type_it(shared_report):
    """`roofline report rtx3080_sgemm-vs-cublas_full.ncu-rep --kernel ampere_sgemm` analyses ampere_sgemm_128x64_nn;
    exact:ampere_sgemm names no kernel and lists the nearest names."""
    path = shared_report("rtx3080_sgemm-vs-cublas_full")
    document = strict_json(run(path, "-f", "json", "--kernel", "ampere_sgemm").stdout)
    assert [k["name"] for k in document["reports"][0]["kernels"]] == ["ampere_sgemm_128x64_nn"]
    line = assert_one_line_error(run(path, "--kernel", "exact:ampere_sgemm"), str(path))
    assert line == (f"roofline: error: {path}: no kernel matches --kernel 'exact:ampere_sgemm': nearest function "
                    "names: ampere_sgemm_128x64_nn, gemm; a bare NAME matches part of a name, exact:NAME a whole name, "
                    "regex:PATTERN a match")


def test_kernel_filter_that_matches_nothing_lists_the_kernels(shared_report):
    path = shared_report(RTX4070TI)
    line = assert_one_line_error(run(path, "--kernel", "no_such_kernel"), str(path), "no kernel matches",
                                 "no_such_kernel")
    for name in ("linspace", "fill_vector", "_kernel_agent"):
        assert name in line
    assert_one_line_error(run(path, "--kernel", "regex:("), "--kernel regex '(': invalid regular expression")


def test_output_file(shared_report, tmp_path):
    out = tmp_path / "t4.json"
    result = run(shared_report(T4), "-f", "json", "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    assert f"wrote {out}" in result.stderr
    assert strict_json(out.read_text())["reports"][0]["kernels"][0]["name"] == "matrix_addition2D"


def test_ceilings_choice(shared_report):
    path = shared_report(H100)
    report_set = strict_json(run(path, "-f", "json", "--ceilings", "measured-clock").stdout)["reports"][0]
    assert report_set["ceilings_used"] == "measured-clock"
    assert report_set["kernels"][0]["ceilings_used"] == "measured-clock"
    auto = strict_json(run(path, "-f", "json").stdout)["reports"][0]
    if auto["device"]["spec_id"] is None:
        pytest.skip("no device spec for the H100 PCIe in device_specs/")
    # auto: the roofs at the clocks the kernel ran at; the H100 PCIe report holds every peak counter, so they are
    # its own, and the percent of roof is the report set's; the datasheet set stays beside them
    assert auto["ceilings_used"] == "kernel-clock" and auto["kernels"][0]["ceilings"]["datasheet"] is not None
    assert [k["pct_of_roof"] for k in auto["kernels"]] == [k["pct_of_roof"] for k in report_set["kernels"]]
    datasheet = strict_json(run(path, "-f", "json", "--ceilings", "datasheet").stdout)["reports"][0]
    assert datasheet["ceilings_used"] == "datasheet"


def test_several_reports_in_one_document(shared_report):
    doc = strict_json(run(shared_report(T4), shared_report(H100), "-f", "json").stdout)
    assert [r["device"]["name"] for r in doc["reports"]] == ["Tesla T4", "NVIDIA H100 PCIe"]


OP01 = REPO / "examples" / "h100" / "ops" / "op01-square-matrix-multiplication.json"  # one CUTLASS launch, H100


def rank_model(folder: Path, rank: int, scale: float = 1.0, name: str = "", gpu: str = "") -> Path:
    """The op01 model as one rank's report: its duration times ``scale``, its kernel renamed ``name``, its GPU
    ``gpu`` where given."""
    data = json.loads(OP01.read_text())
    launches = data["launches"]
    launches["metrics"]["gpu__time_duration.sum"] = [t * scale for t in launches["metrics"]["gpu__time_duration.sum"]]
    if name:
        launches.update(name=[name], demangled_name=[f"void {name}(int)"], mangled_name=[f"_Z{len(name)}{name}i"])
    if gpu:
        data["device"]["name"] = gpu
    out = folder / f"app.rank{rank}.json"
    out.write_text(json.dumps(data))
    return out


def across_in_every_format(tmp_path: Path, files: list[Path]) -> tuple[dict, str, str, str]:
    """The JSON document, the table (200 columns), the Markdown and the HTML of ``report`` on ``files``."""
    doc = strict_json(run(*files, "-f", "json").stdout)
    table = CliRunner().invoke(app, ["report", *map(str, files)], env={"COLUMNS": "200"}).stdout
    for fmt in ("md", "html"):
        assert run(*files, "-o", tmp_path / f"out.{fmt}").exit_code == 0
    return doc, table, (tmp_path / "out.md").read_text(), (tmp_path / "out.html").read_text()


def test_a_rank_that_shares_no_kernel_is_flagged_missing_in_every_format_and_the_others_compared(tmp_path):
    """Ranks 0 and 1 run op01's CUTLASS kernel (345 us, and 30% longer), rank 3 only OtherKernel: the table, the
    Markdown, the HTML and the JSON all give the 30.0% spread of ranks 0 and 1 flagged, the kernel "missing" from
    rank 3 and OtherKernel missing from ranks 0 and 1, as docs/mpi.md promises ("or are missing from a rank")."""
    files = [rank_model(tmp_path, 0), rank_model(tmp_path, 1, 1.3), rank_model(tmp_path, 3, name="OtherKernel")]
    paths = [str(f) for f in files]
    base = json.loads(OP01.read_text())["launches"]["metrics"]["gpu__time_duration.sum"][0] * 1e-9
    doc, table, markdown, html = across_in_every_format(tmp_path, files)
    cutlass, other = doc["across_reports"]
    assert cutlass["total_s"] == {paths[0]: pytest.approx(base), paths[1]: pytest.approx(1.3 * base), paths[2]: None}
    assert cutlass["spread_pct"] == pytest.approx(30.0) and cutlass["flagged"]
    assert cutlass["missing_from"] == [paths[2]]
    assert cutlass["missing"] == {f"total_s.{paths[2]}": "the report did not run the kernel"}
    assert (other["name"], other["spread_pct"], other["flagged"], other["missing_from"]) == \
        ("OtherKernel", None, True, paths[:2])
    assert "across_reports_note" not in doc
    assert "345 us 448 us missing 30.0% !" in " ".join(table.split())
    assert "OtherKernel missing missing 345 us n/a !" in " ".join(table.split())
    assert "| 345 us | 448 us | missing | 30.0% ! |" in markdown and "| `OtherKernel` | missing | missing |" in markdown
    assert ">448 us</td><td class=num>missing</td><td class=num>30.0% !</td>" in html
    for text in (table, markdown, html):
        assert "Across reports (e.g. MPI ranks)" in text and "is missing from some" in text


@pytest.mark.parametrize(("gpu", "note"), [
    ("NVIDIA GeForce RTX 2070 SUPER", "kernels not compared: they come from different GPUs (report 1: NVIDIA H100 "
                                      "80GB HBM3; report 2: NVIDIA GeForce RTX 2070 SUPER)")])
def test_reports_that_cannot_be_compared_say_why_in_every_format(tmp_path, gpu, note):
    """Two reports of the same kernel from different GPUs: no table, and one note saying why in the table, the
    Markdown, the HTML and the JSON (``across_reports_note``), not silence."""
    files = [rank_model(tmp_path, 0), rank_model(tmp_path, 1, name="" if gpu else "OtherKernel", gpu=gpu)]
    doc, table, markdown, html = across_in_every_format(tmp_path, files)
    assert "across_reports" not in doc and doc["across_reports_note"] == note
    assert f"Across reports (e.g. MPI ranks): {note}" in " ".join(table.split())
    assert f"## Across reports (e.g. MPI ranks)\n\n> {note}" in markdown
    assert note in html and "[1]" not in table and r"| \[1\]" not in markdown  # no table of the reports' kernels


def test_reports_with_no_kernel_in_common_get_no_across_section(tmp_path):
    """Two programs' reports (the README's example: a GEMM and a triad) are no ranks of one job: no table and no note
    under them, in any format."""
    files = [rank_model(tmp_path, 0), rank_model(tmp_path, 1, name="OtherKernel")]
    doc, table, markdown, html = across_in_every_format(tmp_path, files)
    assert "across_reports" not in doc and doc.get("across_reports_note", "") == ""
    assert all("Across reports" not in text for text in (table, markdown, html))


def test_in_process_report_files_writes_the_same_document(shared_report, tmp_path):
    out = tmp_path / "out.json"
    report_files([shared_report(T4)], AnalysisOptions(ceilings="measured-clock"), "json", out)
    cli = strict_json(run(shared_report(T4), "-f", "json", "--ceilings", "measured-clock").stdout)
    assert strict_json(out.read_text()) == cli


def test_csv_to_the_terminal_and_to_a_file(shared_report, tmp_path):
    result = run(shared_report(RTX4070TI), "-f", "csv")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("report.path,") and "quantity" in lines[0].split(",")
    assert len({line.split(",")[4] for line in lines[1:]} - {""}) == 14  # the launches' keys
    out = tmp_path / "k.csv"
    assert run(shared_report(T4), "-f", "csv", "-o", out).exit_code == 0
    assert ",duration_s," in out.read_text() and ",name,,,matrix_addition2D," in out.read_text()
    again = run(shared_report(T4), "-f", "csv", "-o", out)  # our own CSV, known by its header row: replaced
    assert again.exit_code == 0 and out.read_text().startswith("report.path,")
    foreign = tmp_path / "theirs.csv"
    foreign.write_text("kernel,time\nk,1\n")
    refused = run(shared_report(T4), "-f", "csv", "-o", foreign)
    assert refused.exit_code == 2 and foreign.read_text() == "kernel,time\nk,1\n"


def test_markdown_embeds_the_plot_written_beside_it(shared_report, tmp_path):
    out = tmp_path / "notes" / "t4.md"
    result = run(shared_report(T4), shared_report(H100), "-f", "markdown", "-o", out)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    for i, name in enumerate((T4, H100), 1):
        image = out.parent / f"t4-{i}.png"
        assert image.read_bytes()[:4] == b"\x89PNG" and f"wrote {image}" in result.stderr
        assert f"![Roofline plot of {name}.ncu-rep](t4-{i}.png)" in text
    assert text.index("t4-1.png") < text.index("## `" + H100) < text.index("t4-2.png")


def test_a_report_with_nothing_to_plot_gets_no_image_but_a_note(shared_report, tmp_path):
    """A basic-set report (no FLOP or byte counters) beside a full one: the full one's plot is written and
    embedded; the basic one gets no file and a note saying why, in Markdown and in HTML."""
    out = tmp_path / "two.md"
    basic = "a100-40gb_cublas-sgemm_basic"
    result = run(shared_report(T4), shared_report(basic), "-f", "markdown", "-o", out)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert (tmp_path / "two-1.png").exists() and not (tmp_path / "two-2.png").exists()
    section = text.split(f"## `{basic}.ncu-rep`")[1]
    assert "No roofline plot: no kernel has a duration with FLOPs or bytes measured" in section
    assert "![Roofline plot" not in section
    page = tmp_path / "basic.html"
    assert run(shared_report(basic), "-f", "html", "-o", page).exit_code == 0
    assert "No roofline plot" in page.read_text() and "<svg" not in page.read_text()


def test_markdown_never_replaces_a_foreign_image(shared_report, tmp_path):
    (tmp_path / "t4.png").write_bytes(b"a picture of mine")
    result = run(shared_report(T4), "-f", "markdown", "-o", tmp_path / "t4.md")
    assert result.exit_code == 2 and "not written by roofline" in result.stderr
    assert (tmp_path / "t4.png").read_bytes() == b"a picture of mine" and not (tmp_path / "t4.md").exists()


# --- Errors: one line naming the file and the fix, exit code 2 --------------------------------------------------
def test_missing_file(tmp_path):
    assert_one_line_error(run(tmp_path / "absent.ncu-rep"), "absent.ncu-rep", "no such file")


def test_empty_file(tmp_path):
    (tmp_path / "empty.ncu-rep").write_bytes(b"")
    assert_one_line_error(run(tmp_path / "empty.ncu-rep"), "empty.ncu-rep", "empty", "profile again")


def test_truncated_report(shared_report, tmp_path):
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(shared_report(T4).read_bytes()[:1024])
    assert_one_line_error(run(cut), "cut.ncu-rep", "truncated")


def test_non_ncu_file(tmp_path):
    (tmp_path / "notes.ncu-rep").write_text("hello\n")
    assert_one_line_error(run(tmp_path / "notes.ncu-rep"), "notes.ncu-rep", "not an Nsight Compute report")


def test_git_lfs_pointer(tmp_path):
    (tmp_path / "lfs.ncu-rep").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n")
    assert_one_line_error(run(tmp_path / "lfs.ncu-rep"), "lfs.ncu-rep", "git lfs pull")


def test_report_with_no_kernels(tmp_path):
    model = Report("x", Device("NVIDIA Test GPU"), ()).to_dict()
    (tmp_path / "none.json").write_text(json.dumps(model))
    assert_one_line_error(run(tmp_path / "none.json"), "none.json", "holds no kernel launches")


def test_folder_as_input(tmp_path):
    assert_one_line_error(run(tmp_path), str(tmp_path), "is a folder")


def cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``roofline`` in a subprocess with a time limit: a read that blocks fails the test instead of hanging it."""
    env = installed.child_env()
    return subprocess.run([sys.executable, "-m", "roofline", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=60)


def assert_one_line(proc: subprocess.CompletedProcess, *expected: str) -> None:
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("roofline: error: ") and all(text in line for text in expected), line


@pytest.mark.parametrize("links", [{"a.ncu-rep": "b.ncu-rep", "b.ncu-rep": "a.ncu-rep"}, {"a.ncu-rep": "a.ncu-rep"}])
def test_a_loop_of_symbolic_links_as_a_report_is_one_line(tmp_path, links):
    """Issue 37: ``RuntimeError: Symlink loop`` from the check for files named twice."""
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    assert_one_line(cli("report", "a.ncu-rep", cwd=tmp_path), "a.ncu-rep: a loop of symbolic links")
    assert_one_line(cli("diff", "a.ncu-rep", REPO / "examples" / "h100-sxm_synthetic.roofline.json", cwd=tmp_path),
                    "a.ncu-rep: a loop of symbolic links")


@pytest.mark.parametrize("name", ["x.ncu-rep", "x.json"])
def test_a_fifo_as_the_one_report_is_refused_without_blocking(tmp_path, name):
    """Issue 37: the read started ahead opened the FIFO and waited for a writer forever."""
    os.mkfifo(tmp_path / name)
    assert_one_line(cli("report", tmp_path / name), f"{name}: is a FIFO, not a regular file")


@pytest.mark.parametrize("inside", [True, False])
def test_a_fifo_among_the_spec_files_is_refused_without_blocking(tmp_path, inside):
    """Issue 37: a .yaml FIFO inside ``--specs DIR`` (or named itself) blocked the catalog's read."""
    (tmp_path / "specs").mkdir()
    os.mkfifo(tmp_path / "specs" / "f.yaml")
    specs = tmp_path / "specs" if inside else tmp_path / "specs" / "f.yaml"
    assert_one_line(cli("report", REPO / "examples" / "h100-sxm_synthetic.roofline.json", "--specs", specs),
                    "f.yaml: is a FIFO, not a regular file")


def test_unwritable_output(shared_report, tmp_path):
    path = shared_report(T4)
    (tmp_path / "plain-file").write_text("")  # a path beneath a regular file can never be created
    assert_one_line_error(run(path, "-o", tmp_path / "plain-file" / "x.txt"), "x.txt", "cannot write")
    assert_one_line_error(run(path, "-o", tmp_path), str(tmp_path), "is a folder")


def test_json_that_is_not_a_report_model(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "web-app", "version": "1.0.0"}')
    assert_one_line_error(run(tmp_path / "package.json"), "package.json", "not a roofline-report-model document")
    (tmp_path / "list.json").write_text("[1, 2, 3]")
    assert_one_line_error(run(tmp_path / "list.json"), "list.json", "a JSON object starts with")


def test_an_analysis_roofline_wrote_is_named_as_such_and_the_report_it_came_from_asked_for(tmp_path):
    """`report -f json`'s own output passed back as input: the error says what the file is and what to pass."""
    out = tmp_path / "analysis.json"
    assert run(REPO / "examples" / "h100-sxm_synthetic.roofline.json", "-f", "json", "-o", out).exit_code == 0
    result = run(out)
    assert_one_line_error(result, "analysis.json", "an analysis roofline wrote (generated by roofline")
    assert "not a report model: pass the .ncu-rep it was made from" in result.output


def test_unknown_gpu_with_spec_ceilings(tmp_path):
    launch = KernelLaunch(0, 0, "k", metrics={"gpu__time_duration.sum": 1000.0})
    model = Report("x", Device("NVIDIA Imaginary GPU", "8.0", 3), (launch,)).to_dict()
    (tmp_path / "imaginary.json").write_text(json.dumps(model))
    assert_one_line_error(run(tmp_path / "imaginary.json", "--ceilings", "datasheet"), "imaginary.json",
                          "no device spec matches", "--ceilings measured-clock")


def test_bad_option_values(shared_report):
    assert_one_line_error(run(shared_report(T4), "--plot", "out.txt"), "unknown plot format '.txt'")


# --- The same through a real process --------------------------------------------------------------------------
def python_m_roofline(*args: str) -> subprocess.CompletedProcess:
    env = installed.child_env()
    return subprocess.run([sys.executable, "-m", "roofline", "report", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=120)


def test_subprocess_errors_are_one_line_with_exit_code_2(shared_report, tmp_path):
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(shared_report(T4).read_bytes()[:8])  # the native reader logs to stderr on this one
    for path, expected in ((tmp_path / "absent.ncu-rep", "no such file"), (cut, "truncated")):
        proc = python_m_roofline(path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        assert proc.stderr.splitlines() == [proc.stderr.strip()], proc.stderr
        assert proc.stderr.startswith(f"roofline: error: {path}") and expected in proc.stderr


def test_subprocess_json_report(shared_report):
    proc = python_m_roofline(shared_report(T4), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    kernel = strict_json(proc.stdout)["reports"][0]["kernels"][0]
    assert kernel["name"] == "matrix_addition2D" and kernel["flops"]["fp32"] == pytest.approx(1e6, rel=1e-6)


# --- Several reports, some bad (issue 15: nothing was printed for the nine good ones) -------------------------------
EXAMPLE = REPO / "examples" / "h100-sxm_synthetic.roofline.json"


def test_good_reports_are_analysed_and_the_bad_listed_at_the_end(tmp_path):
    good = [tmp_path / f"good{i}.json" for i in range(9)]
    for path in good:
        path.write_bytes(EXAMPLE.read_bytes())
    bad, missing = tmp_path / "bad.json", tmp_path / "missing.ncu-rep"
    bad.write_text("{not json")
    result = run(good[0], bad, *good[1:], missing, "-f", "json")
    assert result.exit_code == 2
    doc = strict_json(result.stdout)
    assert [r["path"] for r in doc["reports"]] == [str(p) for p in good]
    # the document says which files it lacks, with the same lines
    assert [f["path"] for f in doc["left_out"]] == [str(bad), str(missing)]
    assert [f"roofline: error: {f['error']}" for f in doc["left_out"]] == result.stderr.splitlines()
    assert result.stderr.splitlines() == [
        f"roofline: error: {bad}: not a valid roofline report model (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)): pass a .ncu-rep file or a .json written by roofline",
        f"roofline: error: {missing}: no such file: check the path"]


def test_markdown_and_summary_of_good_and_bad_reports_name_the_bad(tmp_path):
    """A shared document must not pass for the whole set: Markdown warns under its title, summary's JSON lists the
    file left out, as report's JSON does."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_bytes(EXAMPLE.read_bytes())
    bad.write_text("{not json")
    markdown = tmp_path / "r.md"
    assert run(good, bad, "-f", "markdown", "-o", markdown).exit_code == 2
    assert f"**Warning:** Left out: {bad}: not a valid roofline report model" in markdown.read_text()
    summary = CliRunner().invoke(app, ["summary", str(good), str(bad), "-f", "json"])
    assert summary.exit_code == 2 and [f["path"] for f in strict_json(summary.stdout)["left_out"]] == [str(bad)]
    assert "left_out" not in strict_json(run(good, "-f", "json").stdout)  # only where a file was left out


def test_only_bad_reports_print_each_error_and_nothing_else(tmp_path):
    result = run(tmp_path / "a.ncu-rep", tmp_path / "b.json")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"roofline: error: {tmp_path / 'a.ncu-rep'}: no such file: check the path",
                                          f"roofline: error: {tmp_path / 'b.json'}: no such file: check the path"]


# --- Names that are not text (issue 37) --------------------------------------------------------------------------
HOSTILE_NAME = "k\x1b[2J\x1b[31mred\x00nul\rcr\nlf<script>x</script>$\\frac{$\u202e\ud800"


def hostile_model(tmp_path: Path) -> Path:
    """The synthetic example with a hostile kernel, device, label and rule name (valid JSON: "\\ud800" is legal)."""
    doc = json.loads((REPO / "examples" / "h100-sxm_synthetic.roofline.json").read_text())
    doc["label"] = doc["device"]["name"] = HOSTILE_NAME
    for launch in doc["launches"]:
        launch["name"] = launch["demangled_name"] = HOSTILE_NAME
        for rule in launch.get("rules", []):
            rule["rule"] = HOSTILE_NAME
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "html"])
def test_names_that_are_not_text_give_a_valid_output_in_every_format(tmp_path, fmt):
    """Issue 37: a lone surrogate ended in UnicodeEncodeError (table, CSV, Markdown, HTML) or a font traceback
    (plot); control characters reached the terminal raw."""
    model = hostile_model(tmp_path)
    out = tmp_path / f"out.{fmt}"
    to_file = fmt in ("markdown", "html")
    args = ["report", model, "-f", fmt, "--plot", tmp_path / "p.svg", *(["-o", out] if to_file else [])]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert {line.split(" ")[0] for line in proc.stderr.splitlines()} == {"wrote"}  # the plot, the document
    text = out.read_text() if to_file else proc.stdout
    text.encode("utf-8")  # nothing that cannot be written
    if fmt == "table":
        assert not {c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0}, text
        assert "k\\x1b[2J\\x1b[31mred\\x00nul\\rcr\\nlf" in text
    if fmt == "json":
        doc = json.loads(text)
        assert "\\ud800" not in text and doc["reports"][0]["kernels"][0]["name"].endswith("\u202e\ufffd")


def test_plots_of_compare_and_summary_draw_names_that_are_not_text(tmp_path):
    model = hostile_model(tmp_path)
    for command in (["compare", model, model], ["summary", model]):
        (tmp_path / "p.png").unlink(missing_ok=True)
        proc = cli(*command, "--plot", tmp_path / "p.png")
        assert proc.returncode == 0 and proc.stderr == f"wrote {tmp_path / 'p.png'}\n", proc.stderr


def test_markdown_of_one_launch_says_1_kernel_launch(tmp_path):
    result = run("examples/h100/triad-cupy.roofline.ncu-rep", "-f", "markdown", "-o", tmp_path / "one.md")
    assert result.exit_code == 0, result.stderr
    assert "`triad-cupy.roofline.ncu-rep`: 1 kernel launch. The bound" in (tmp_path / "one.md").read_text()


def test_a_plot_with_nothing_on_it_keeps_the_report(shared_report, tmp_path):
    """A basic set has nothing to plot: the plot is not written (one line, exit 2), but the report asked for with it
    is (it was dropped too, leaving neither file)."""
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    result = run(shared_report("a100-40gb_cublas-sgemm_basic"), "-f", "json", "-o", out, "--plot", png)
    assert result.exit_code == 2 and not png.exists()
    assert json.loads(out.read_text())["reports"][0]["kernels"]
    assert result.stderr.splitlines()[-1].startswith(f"roofline: error: {png}: not written, nothing to plot")


def test_measured_clock_ceilings_get_their_own_column_in_the_ceilings_table(shared_report, tmp_path):
    """--ceilings measured-clock: the roofs percent of roof uses are the report's peak counters alone, so the V100's
    FP16 (no counter) is n/a there where the kernel-clock column shows the datasheet's scaled in (starred)."""
    report = shared_report("v100_miniweather-openacc_full")
    result = CliRunner().invoke(app, ["report", str(report), "--ceilings", "measured-clock"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[:14] if line[:4] in ("roof", "FP16")}
    assert rows["roof"] == ["roof", "datasheet", "kernel-clock", "ratio", "measured-clock", "ratio"]
    assert rows["FP16"][-1] == "n/a" and rows["FP16"][4] == "TFLOP/s*"
    md = tmp_path / "r.md"
    written = CliRunner().invoke(app, ["report", str(report), "--ceilings", "measured-clock", "-o", str(md)])
    assert written.exit_code == 0, written.output
    assert "| measured-clock | measured-clock / datasheet |" in md.read_text()
