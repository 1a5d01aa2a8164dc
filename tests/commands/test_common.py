"""Output files: every command writes through one rule, so no report or hand-written file is overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from roofline.cli import app
from roofline.render import GENERATED_BY

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


def test_table_written_to_a_file_ends_with_the_mark(tmp_path):
    out = tmp_path / "t.txt"
    assert runner.invoke(app, ["report", EXAMPLE, "-o", str(out)]).exit_code == 0
    assert out.read_text().rstrip().splitlines()[-1].startswith(GENERATED_BY)
    assert "sgemm_fp32_4096" in out.read_text()


def test_missing_folders_of_an_output_are_created(tmp_path):
    out = tmp_path / "new" / "dir" / "r.json"
    assert runner.invoke(app, ["report", EXAMPLE, "-f", "json", "-o", str(out)]).exit_code == 0
    assert json.loads(out.read_text())["schema_version"] == 1
