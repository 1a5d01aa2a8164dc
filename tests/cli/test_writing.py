"""Output files: every command writes through one rule, so no report or hand-written file is overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render import GENERATED_BY, GENERATOR
from roofline.render.report import json as json_render

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "h100-sxm_synthetic.roofline.json")
runner = CliRunner()


def test_json_output_carries_the_mark_and_replaces_its_own_file(tmp_path):
    out = tmp_path / "a.json"
    for _ in range(2):  # the second run replaces the file the first one wrote
        result = runner.invoke(app, ["report", EXAMPLE, "-f", "json", "-o", str(out)])
        assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["generator"].startswith(GENERATED_BY)


def test_a_file_roofline_did_not_write_is_never_replaced(tmp_path):
    out = tmp_path / "notes.json"
    out.write_text('{"mine": true}\n')
    for command in (["report", EXAMPLE, "-f", "json"], ["summary", EXAMPLE, "-f", "json"],
                    ["compare", EXAMPLE, EXAMPLE, "-f", "json"]):
        result = runner.invoke(app, [*command, "-o", str(out)])
        assert result.exit_code == 2 and "was not written by roofline; not replacing it" in result.output
    assert out.read_text() == '{"mine": true}\n'


def test_table_written_to_a_file_starts_with_the_mark(tmp_path):
    out = tmp_path / "t.txt"
    assert runner.invoke(app, ["report", EXAMPLE, "-o", str(out)]).exit_code == 0
    assert out.read_text().splitlines()[0] == GENERATOR
    assert "sgemm_fp32_4096" in out.read_text()


def test_missing_folders_of_an_output_are_created(tmp_path):
    out = tmp_path / "new" / "dir" / "r.json"
    assert runner.invoke(app, ["report", EXAMPLE, "-f", "json", "-o", str(out)]).exit_code == 0
    assert json.loads(out.read_text())["schema_version"] == json_render.SCHEMA_VERSION


FOREIGN = b"written by hand\n"


@pytest.mark.parametrize("args, target", [
    (["report", EXAMPLE, "-o", "out.txt"], "out.txt"),
    (["report", EXAMPLE, "-f", "json", "-o", "out.json"], "out.json"),
    (["report", EXAMPLE, "-f", "markdown"], "reports/h100-sxm_synthetic.md"),
    (["report", EXAMPLE, "-f", "html"], "reports/h100-sxm_synthetic.html"),
    (["report", EXAMPLE, "-f", "html", "-o", "page.html"], "page.html"),
    (["report", EXAMPLE, "--plot", "mine.png"], "mine.png"),
    (["plot", EXAMPLE], "reports/h100-sxm_synthetic.png"),
    (["plot", EXAMPLE, "-o", "mine.svg"], "mine.svg"),
    (["compare", EXAMPLE, EXAMPLE, "-o", "cmp.txt"], "cmp.txt"),
    (["compare", EXAMPLE, EXAMPLE, "--plot", "mine.png"], "mine.png"),
    (["compare", EXAMPLE, EXAMPLE, "--normalize", "--plot", "mine.pdf"], "mine.pdf"),
    (["diff", EXAMPLE, EXAMPLE, "-f", "markdown", "-o", "comment.md"], "comment.md"),
    (["summary", EXAMPLE, "-o", "summary.json", "-f", "json"], "summary.json"),
    (["summary", EXAMPLE, "--plot", "mine.png"], "mine.png"),
])
def test_no_command_overwrites_a_file_roofline_did_not_write(args, target, tmp_path, monkeypatch):
    """Every file a command writes goes through the one writer: a foreign file is refused, exit 2, untouched."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / target
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(FOREIGN)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"roofline: error: {Path(target)}: exists and was not written by roofline; not replacing it" \
        in result.stderr
    assert path.read_bytes() == FOREIGN


@pytest.mark.parametrize("args, target", [
    (["report", EXAMPLE, "--plot", "p.png"], "p.png"),
    (["plot", EXAMPLE, "-o", "p.svg"], "p.svg"),
    (["compare", EXAMPLE, EXAMPLE, "--plot", "c.pdf"], "c.pdf"),
    (["summary", EXAMPLE, "--plot", "s.png"], "s.png"),
])
def test_plots_carry_the_mark_and_replace_their_own_file(args, target, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # the second run replaces the plot the first one wrote
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert f"wrote {target}" in result.stderr
    assert GENERATED_BY.encode() in (tmp_path / target).read_bytes()


# --- A failed run leaves no new file; two outputs never share a path (issue 37) ----------------------------------
def test_markdown_to_standard_output_writes_no_plot_file(tmp_path, monkeypatch):
    """``-f markdown -o -`` created a file named ``-.png`` in the working folder."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", EXAMPLE, "-f", "markdown", "-o", "-"])
    assert result.exit_code == 0, result.output
    assert "# " in result.stdout and ".png" not in result.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt, extra", [("markdown", []), ("markdown", ["--plot", "p.svg"]),
                                        ("html", ["--plot", "p.svg"]), ("json", ["--plot", "p.svg"])])
def test_a_document_that_cannot_be_written_leaves_none_of_its_plots(tmp_path, monkeypatch, fmt, extra):
    """The plot beside a Markdown document, or the --plot, stayed when the document failed (here: a folder)."""
    monkeypatch.chdir(tmp_path)
    name = {"markdown": "doc.md", "html": "doc.html", "json": "doc.json"}[fmt]
    (tmp_path / name).mkdir()
    result = runner.invoke(app, ["report", EXAMPLE, "-f", fmt, "-o", name, *extra])
    assert result.exit_code == 2 and result.stderr.splitlines() == [
        f"roofline: error: {name}: is a folder: name a file inside it"]  # no 'wrote' line for a file that is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_plot_of_ours_replaced_by_a_failed_run_is_kept(tmp_path, monkeypatch):
    """Only files the failed run created are removed: one that existed (ours, replaced) stays."""
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["report", EXAMPLE, "-f", "json", "-o", "r.json", "--plot", "p.svg"]).exit_code == 0
    (tmp_path / "doc.md").mkdir()
    assert runner.invoke(app, ["report", EXAMPLE, "-f", "markdown", "-o", "doc.md", "--plot", "p.svg"]).exit_code == 2
    assert (tmp_path / "p.svg").is_file() and not (tmp_path / "doc.png").exists()


@pytest.mark.parametrize("args", [
    ["report", EXAMPLE, "-f", "markdown", "-o", "x.md", "--plot", "x.png"],
    ["report", EXAMPLE, EXAMPLE + "/../h100-sxm_synthetic.roofline.json", "-f", "markdown", "-o", "x.md", "--plot",
     "x-2.png"],
    ["compare", EXAMPLE, EXAMPLE, "-f", "markdown", "-o", "c.md", "--plot", "c.png"],
])
def test_two_outputs_on_one_path_are_refused_before_any_work(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.startswith(f"roofline: error: --plot {Path(args[-1])}: the ")
    assert result.stderr.count("\n") == 1 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["report", EXAMPLE, "-f", "json", "-o", "same.png", "--plot", "same.png"],
    ["summary", EXAMPLE, "-f", "json", "-o", "s.svg", "--plot", "./s.svg"],
])
def test_a_document_named_as_an_image_is_refused_before_any_work(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    ext = Path(args[args.index("-o") + 1]).suffix
    assert result.exit_code == 2 and result.stderr.startswith(
        f"roofline: error: --output {args[args.index('-o') + 1]}: a {ext} file, and --format json writes json: ")
    assert result.stderr.endswith("; --plot writes an image\n")
    assert result.stderr.count("\n") == 1 and list(tmp_path.iterdir()) == []


# --- The output file's name chooses the format where --format is not given ---------------------------------
@pytest.mark.parametrize("args, name, starts", [
    (["report", EXAMPLE], "doc.html", "<!DOCTYPE html>"),
    (["report", EXAMPLE], "doc.CSV", "report.path,"),
    (["report", EXAMPLE], "doc.json", '{"generator":'),
    (["compare", EXAMPLE, EXAMPLE], "c.json", '{"generator":'),
    (["report", EXAMPLE, "-f", "table"], "doc.log", EXAMPLE),  # an extension no format has, --format given
    (["report", EXAMPLE], "doc.htm", "<!DOCTYPE html>"),  # another name of .html
    (["report", EXAMPLE, "-f", "json"], "doc.txt", '{"generator":'),  # .txt holds any text
])
def test_the_output_name_chooses_the_format_unless_given(tmp_path, monkeypatch, args, name, starts):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*args, "-o", name])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / name).read_text().splitlines()
    assert (lines[1] if lines[0].startswith(("<!--", GENERATED_BY)) else lines[0]).startswith(starts)


@pytest.mark.parametrize("args, name", [
    (["report", EXAMPLE], "doc.xyz"), (["report", EXAMPLE], "doc"), (["grade", EXAMPLE], "g.log"),
    (["summary", EXAMPLE], "s.out"), (["compare", EXAMPLE, EXAMPLE], "c.data"), (["diff", EXAMPLE, EXAMPLE], "d.x"),
    (["timeline", EXAMPLE], "t.tsv"), (["project", EXAMPLE, "--to", "h200-sxm"], "p.yaml"),
])
def test_an_output_name_whose_extension_chooses_no_format_is_refused_naming_the_known_ones(tmp_path, monkeypatch,
                                                                                          args, name):
    """Without --format the output's extension chooses the format: one that names none (or none at all) was written
    as the default table with exit 0; now one line names the known extensions of that command, exit 2, no file."""
    from roofline.cli.options import by_extension

    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*args, "-o", name])
    assert result.exit_code == 2, result.output
    kind = args[0]
    ext = Path(name).suffix
    what = f"a {ext} file" if ext else "a name without an extension"
    assert result.stderr == (f"roofline: error: --output {name}: {what}, and without --format the extension chooses "
                             f"the format: end the name with one of {by_extension(kind)}, or give --format\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command, module, function", [
    (["report", EXAMPLE], "roofline.render.report.plot", "draw"),
    (["compare", EXAMPLE, EXAMPLE], "roofline.render.compare.plot", "comparison_figure"),
])
def test_a_markdown_plot_and_the_same_plot_png_are_drawn_once(tmp_path, monkeypatch, command, module, function):
    """``-f markdown --plot p.png`` of one report drew the same figure twice: beside the document and as --plot."""
    import importlib

    monkeypatch.chdir(tmp_path)
    target = importlib.import_module(module)
    calls = []
    original = getattr(target, function)
    monkeypatch.setattr(target, function, lambda *a, **k: calls.append(1) or original(*a, **k))
    result = runner.invoke(app, [*command, "-f", "markdown", "-o", "doc.md", "--plot", "p.png"])
    assert result.exit_code == 0, result.output
    assert len(calls) == 1
    assert (tmp_path / "doc.png").read_bytes() == (tmp_path / "p.png").read_bytes()
    assert "](doc.png)" in (tmp_path / "doc.md").read_text()


def test_a_markdown_plot_beside_an_svg_plot_is_drawn_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", EXAMPLE, "-f", "markdown", "-o", "doc.md", "--plot", "p.svg"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "doc.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "p.svg").read_bytes()


@pytest.mark.parametrize("name, image", [("doc.md", "doc.png"), ("DOC.MD", "DOC.png"), ("doc.markdown",
                                                                                          "doc.markdown.png")])
def test_markdown_named_by_its_extension_has_its_plot_beside(tmp_path, monkeypatch, name, image):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", EXAMPLE, "-o", name])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, image])
    text = (tmp_path / name).read_text()
    assert text.startswith(f"<!-- {GENERATED_BY}") and f"]({image})" in text


@pytest.mark.parametrize("args, error", [
    (["report", EXAMPLE, "-f", "table", "-o", "x.html"],
     "--output x.html: a .html file, and --format table writes table: give --format html, or end the name with .txt"),
    (["summary", EXAMPLE, "-o", "s.html"],
     "--output s.html: a .html file, and this command writes table, json: end the name with one of .txt (table), "
     ".json (json)"),
    (["summary", EXAMPLE, "-f", "table", "-o", "s.csv"],
     "--output s.csv: a .csv file, and --format table writes table: end the name with .txt"),
    (["project", EXAMPLE, "--to", "h100-sxm5", "-o", "p.png"],  # no image to point to: project draws none
     "--output p.png: a .png file, and this command writes table, json, markdown, html, csv: end the name with one "
     "of .txt (table), .json (json), .md (markdown), .html (html), .csv (csv)"),
])
def test_an_output_named_for_another_format_is_refused_before_any_work(tmp_path, monkeypatch, args, error):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr == f"roofline: error: {error}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["diff", EXAMPLE, EXAMPLE, "-o", "mine.json"],
    ["project", EXAMPLE, "--to", "h100-sxm5", "-o", "mine.json"],
    ["compare", EXAMPLE, EXAMPLE, "-o", "mine.md"],  # the plot beside: mine.png, one for the comparison
])
def test_a_foreign_output_is_refused_before_the_reports_are_read(tmp_path, monkeypatch, args):
    """Every command that writes a document checks it before reading: the reports are never read (an
    unreadable one would otherwise be the error)."""
    monkeypatch.chdir(tmp_path)
    foreign = "mine.png" if args[0] == "compare" else "mine.json"
    (tmp_path / foreign).write_text("mine\n")
    (tmp_path / "mine-1.png").write_text("mine\n")  # not a name compare writes: never in the way
    broken = tmp_path / "broken.ncu-rep"
    broken.write_bytes(b"NVR\0 not a report")
    result = runner.invoke(app, [args[0], str(broken), *args[2:]])
    assert result.exit_code == 2 and result.stderr == (
        f"roofline: error: {foreign}: exists and was not written by roofline; not replacing it: remove it, or choose "
        "another file name (the option that named it, or -o for the files beside a report)\n")


def test_the_default_file_of_several_reports_names_them_all_so_other_sets_go_elsewhere(tmp_path):
    """Comparing the H100 triad with the H200's, then with the H100's full-set report, wrote both to
    reports/triad-torch+1-compare.md: the second replaced the first."""
    from roofline.cli.writing import DEFAULT_NAME_CHARS, REPORTS_DIR, default_output

    h100, h200 = tmp_path / "h100" / "triad-torch.roofline.json", tmp_path / "h200" / "triad-torch.roofline.json"
    full = tmp_path / "h100" / "triad-torch.full.json"
    assert default_output([h100, h200], "-compare.md") == REPORTS_DIR / "h100.triad-torch+h200.triad-torch-compare.md"
    assert default_output([h100, full], "-compare.md") == REPORTS_DIR / "triad-torch+triad-torch.full-compare.md"
    assert default_output([h100], ".md") == REPORTS_DIR / "triad-torch.md"
    many = [tmp_path / f"{'x' * 30}{i}.ncu-rep" for i in range(5)]
    assert len("+".join(p.stem for p in many)) > DEFAULT_NAME_CHARS
    assert default_output(many, ".md") == REPORTS_DIR / f"{'x' * 30}0+4.md"


@pytest.mark.parametrize(("command", "module"), [("report", "roofline.cli.workflow"),
                                                 ("summary", "roofline.cli.commands.summary")])
def test_a_document_that_cannot_be_written_names_the_bad_reports_too(tmp_path, monkeypatch, command, module):
    """The document's write fails after the reports were read: the bad report's line comes first, then the
    write's, exit 2 (the write's line alone hid it)."""
    import importlib

    from roofline.errors import RooflineError

    def full_disk(*args: object, **kwargs: object) -> None:
        raise RooflineError("d.json: cannot write (No space left on device)", "choose a writable path with free space")

    monkeypatch.setattr(importlib.import_module(module), "write_document", full_disk)
    good = Path(__file__).resolve().parents[2] / "examples" / "h100-sxm_synthetic.roofline.json"
    bad = tmp_path / "empty.ncu-rep"
    bad.write_bytes(b"")
    result = runner.invoke(app, [command, str(good), str(bad), "-f", "json", "-o", str(tmp_path / "d.json")])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-2:] == [
        f"roofline: error: {bad}: file is empty: the profiling run did not finish; profile again",
        "roofline: error: d.json: cannot write (No space left on device): choose a writable path with free space"]
