"""`roofline specs list|show|check` through the CLI: output, formats and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.units import si
from roofline.specs.catalog import load_catalog
from tests.specs.test_catalog import VALID, with_change, write

runner = CliRunner()


def test_list_shows_user_spec(tmp_path):
    result = runner.invoke(app, ["specs", "list", "--specs", str(write(tmp_path, VALID))])
    assert result.exit_code == 0
    assert "test-gpu" in result.output and "19.2 TF" in result.output


def test_list_fits_80_columns_abbreviating_names_never_numbers():
    result = runner.invoke(app, ["specs", "list"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80
    for spec in load_catalog(()).specs:  # every figure whole, on the line of its spec
        line = next(line for line in lines if line.split()[0] == spec.id)  # ids fit at 80 columns
        for figure in (si(spec.peaks["fp32"], "F"), si(spec.memory_bandwidth_bytes_per_s, "B/s")):
            assert figure in line, (spec.id, figure, line)
    assert any(line.startswith("rtx-4070-ti ") and " RTX 4070 Ti " in line for line in lines)


def test_list_escapes_display_names_from_spec_files(tmp_path):
    """An id is lowercase-dashes (refused otherwise); a display name may hold anything and is shown escaped."""
    hostile = {**VALID, "display_names": ["GPU\x1b[31m red\x1b]0;title\x07"]}
    result = runner.invoke(app, ["specs", "list", "--specs", str(write(tmp_path, hostile))], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    line = next(line for line in result.output.splitlines() if line.startswith("test-gpu"))
    assert "GPU\\x1b[31m red" in line


def test_list_json_and_yaml_give_each_spec_by_id_with_the_tables_figures(tmp_path):
    """The JSON holds what the table shows (CC, SMs, FP32, dense FP16 Tensor, DRAM), each null with its reason."""
    write(tmp_path, VALID)
    no_tensor = with_change("peaks.tensor_fp16", None)
    no_tensor["id"], no_tensor["display_names"] = "test-gpu-2", ["NVIDIA Test GPU 2"]
    write(tmp_path, no_tensor, "test-gpu-2.yaml")
    listed = runner.invoke(app, ["specs", "list", "--format", "json", "--specs", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    assert {"id": "test-gpu", "display_names": ["NVIDIA Test GPU"], "compute_capability": "8.0", "sm_count": 100,
            "fp32_flop_per_s": 19.2e12, "tensor_fp16_flop_per_s": 307e12, "dram_bytes_per_s": 2.0e12,
            "missing": {}} in data
    (second,) = [d for d in data if d["id"] == "test-gpu-2"]
    assert second["tensor_fp16_flop_per_s"] is None and "FP16 Tensor" in second["missing"]["tensor_fp16_flop_per_s"]
    assert [d["id"] for d in data] == sorted(s.id for s in load_catalog([tmp_path]).specs)
    assert all(set(d["missing"]) == {k for k, v in d.items() if v is None} for d in data)
    as_yaml = runner.invoke(app, ["specs", "list", "-f", "yaml", "--specs", str(tmp_path)])
    assert as_yaml.exit_code == 0 and yaml.safe_load(as_yaml.output) == data


def test_show_json_keeps_each_number_beside_its_source(tmp_path):
    specs = str(write(tmp_path, VALID))
    result = runner.invoke(app, ["specs", "show", "test-gpu", "--format", "json", "--specs", specs])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["peaks"]["fp32"] == {"value": 19.2e12, "source": "test fixture"}
    assert data["memory"]["bandwidth_bytes_per_s"]["value"] == 2.0e12


def test_show_yaml_round_trips(tmp_path):
    result = runner.invoke(app, ["specs", "show", "test-gpu", "-f", "yaml", "--specs", str(write(tmp_path, VALID))])
    assert result.exit_code == 0 and yaml.safe_load(result.output)["sm_count"]["value"] == 100


def test_show_unknown_id_is_one_line_exit_2(tmp_path):
    result = runner.invoke(app, ["specs", "show", "no-such-gpu"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "unknown device spec id 'no-such-gpu'" in result.output


def test_check_passes_on_valid_specs(tmp_path):
    result = runner.invoke(app, ["specs", "check", "--specs", str(write(tmp_path, VALID))])
    assert result.exit_code == 0 and "valid" in result.output


def test_check_remarks_on_an_omitted_tensor_type_and_passes(tmp_path):
    """VALID (CC 8.0) gives FP16 and BF16 Tensor figures but no TF32 one: a note, exit 0."""
    result = runner.invoke(app, ["specs", "check", "--specs", str(write(tmp_path, VALID))])
    assert result.exit_code == 0 and "valid" in result.output
    assert "note: " in result.stdout and "no peaks.tensor_tf32, which every GPU of compute capability 8.0" in \
        " ".join(result.stdout.split())


def test_check_fails_on_fp32_mismatch(tmp_path):
    bad = write(tmp_path, {**with_change("peaks.fp32", {"value": 25e12, "source": "x"}), "id": "bad"})
    result = runner.invoke(app, ["specs", "check", "--specs", str(bad)])
    assert result.exit_code == 1 and "differs by more than 2%" in result.output


def test_malformed_user_spec_is_one_line_exit_2(tmp_path):
    bad = write(tmp_path, {**with_change("peaks.fp32", 19.2e12), "id": "bad"})
    result = runner.invoke(app, ["specs", "list", "--specs", str(bad)])
    assert result.exit_code == 2
    assert "bad.yaml: key 'peaks.fp32'" in result.output and result.output.count("\n") == 1


def test_show_includes_the_calibration_of_a_calibrated_gpu():
    path = Path(__file__).resolve().parents[3] / "device_specs" / "measured" / "h100-sxm5.yaml"
    shipped = yaml.safe_load(path.read_text(encoding="utf-8"))["measured"]
    data = json.loads(runner.invoke(app, ["specs", "show", "h100-sxm5", "--format", "json"]).output)
    assert data["measured"]["file"].endswith("h100-sxm5.yaml")
    assert data["measured"]["roofs"]["tensor_bf16"] == shipped["roofs"]["tensor_bf16"]
    table = runner.invoke(app, ["specs", "show", "h100-sxm5"], env={"COLUMNS": "160"}).output
    assert f"calibrated {shipped['date']}" in table and "STREAM copy of 1024 MiB" in table
    assert "measured" not in json.loads(runner.invoke(app, ["specs", "show", "a10g", "-f", "json"]).output)


def test_show_table_gives_the_board_power_with_its_source():
    """The board power the projection's clock rule reads is in the table, in watts, beside its source."""
    shipped = yaml.safe_load((Path(__file__).resolve().parents[3] / "device_specs" / "t4.yaml").read_text())
    table = runner.invoke(app, ["specs", "show", "t4"], env={"COLUMNS": "200"}).output
    row = next(line for line in table.splitlines() if line.startswith("board_power_w"))
    assert f"{shipped['board_power_w']['value']:.0f} W" in row and shipped["board_power_w"]["source"][:20] in row


def test_check_names_every_malformed_file_not_only_the_first(tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "a-broken.yaml").write_text("id: [\n")
    write(folder, {**VALID, "name": 3}, "b-unknown-key.yaml")
    write(folder, {**VALID, "id": "c-fine", "display_names": ["Fine GPU"]})
    result = runner.invoke(app, ["specs", "check", "--specs", str(folder)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 2 and "spec files valid" not in result.output
    assert lines[0].startswith(str(folder / "a-broken.yaml")) and "not valid YAML" in lines[0]
    assert lines[1].startswith(str(folder / "b-unknown-key.yaml")) and "'name' is not a known key" in lines[1]


def test_check_of_a_path_that_names_no_file_is_a_usage_error_exit_2(tmp_path):
    """A wrong --specs path is a usage error as in every other command (probe-errors 10), not a problem of a file."""
    (tmp_path / "empty").mkdir()
    for missing, said in ((tmp_path / "none.yaml", "no such spec file or folder"),
                          (tmp_path / "empty", "no spec file (*.yaml, *.yml) in the folder")):
        result = runner.invoke(app, ["specs", "check", "--specs", str(write(tmp_path, VALID)), "--specs", str(missing)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"roofline: error: {missing}: {said}: ") and result.output.count("\n") == 1


def test_show_gives_integer_tensor_peaks_in_operations_not_flops():
    """INT8 Tensor Core figures count integer operations (the H100 SXM5's 1978.9 TOPS): OP/s, not FLOP/s."""
    result = runner.invoke(app, ["specs", "show", "h100-sxm5"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.startswith("peaks.")}
    assert "1.9789 POP/s" in rows["peaks.tensor_int8"] and "FLOP/s" not in rows["peaks.tensor_int8"]
    assert "1.9789 PFLOP/s" in rows["peaks.tensor_fp8"]


# --- probe 3 --------------------------------------------------------------------------------------------------------
SHIPPED = Path(__file__).resolve().parents[3] / "device_specs"
HOSTILE_SOURCE = "evil \x1b[2J cleared [bold]x[/bold]"  # a screen clear, and rich markup that must print as written


@pytest.mark.parametrize("columns", ["200", "80", "40"])
def test_show_escapes_every_text_from_the_spec_file(tmp_path, columns):
    """Display names, chip, sources and notes reach the terminal with control characters as escapes (docs/errors.md,
    "The terminal"), as `specs list` has them; brackets print as written, not as styles."""
    hostile = {**VALID, "display_names": ["GPU\x1b[31m red"], "chip": "TU\x1b]0;pwned\x07104",
               "notes": "\x1b[5mblink [red]notes"}
    hostile["peaks"] = {**VALID["peaks"], "fp32": {"value": 19.2e12, "source": HOSTILE_SOURCE}}
    result = runner.invoke(app, ["specs", "show", "test-gpu", "--specs", str(write(tmp_path, hostile))],
                           env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    shown = " ".join(result.output.split())  # the lines as one: a narrow terminal wraps the first
    assert shown.startswith("test-gpu GPU\\x1b[31m red (Ampere TU\\x1b]0;pwned\\x07104, CC 8.0)")
    assert "evil \\x1b[2J cleared [bold]x[/bold]" in shown
    assert "notes: \\x1b[5mblink [red]notes" in result.output


def _squeezed(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("columns", [None, "40", "100", "250"])
@pytest.mark.parametrize("spec_id", ["t4", "h100-sxm5"])
def test_show_gives_every_source_whole_at_any_width_and_when_piped(spec_id, columns):
    """No source is cut with an ellipsis, at the 80 columns of a pipe (no COLUMNS) or at 40 where the sources go
    under their rows; a derived value's formula is there too. Each source (from the YAML file) is found whole in the
    output with the spaces and line ends that wrapping adds left out."""
    result = runner.invoke(app, ["specs", "show", spec_id], env={"COLUMNS": columns} if columns else {})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert max(map(len, result.output.splitlines())) <= int(columns or 80)
    shipped = yaml.safe_load((SHIPPED / f"{spec_id}.yaml").read_text())
    cited = [(f"{section}.{key}" if section else key, item) for section, items in
             [("", shipped), ("memory", shipped["memory"]), ("peaks", shipped["peaks"]),
              ("bandwidth", shipped.get("bandwidth", {}))]
             for key, item in items.items() if isinstance(item, dict) and "source" in item]
    assert len(cited) > 15
    out = _squeezed(result.output)
    for key, item in cited:
        whole = item["source"] + (f" [derived: {item['derived']}]" if "derived" in item else "")
        assert _squeezed(whole) in out, key


def test_list_and_check_note_the_builtin_spec_a_user_spec_overrides(tmp_path):
    """A Tesla T4 spec of another id overrides the built-in t4: `specs list` and `specs check` say so and which one a
    T4 report gets (grade's "(spec t4mine)"); the JSON list stays the same document."""
    t4 = yaml.safe_load((SHIPPED / "t4.yaml").read_text())
    mine = write(tmp_path, {**t4, "id": "t4mine"})
    note = "note: t4mine overrides t4 for 'Tesla T4': reports of that GPU get t4mine"
    listed = runner.invoke(app, ["specs", "list", "--specs", str(mine)], env={"COLUMNS": "100"})
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines()[-1] == note
    checked = runner.invoke(app, ["specs", "check", "--specs", str(mine)])
    assert checked.exit_code == 0 and note in checked.output.splitlines()
    (tmp_path / "same").mkdir()
    same = write(tmp_path / "same", t4)  # the id of a built-in file: it replaces that file
    replaced = runner.invoke(app, ["specs", "list", "--specs", str(same)], env={"COLUMNS": "100"})
    assert replaced.output.splitlines()[-1] == f"note: {same} replaces device_specs/t4.yaml (id 't4')"
    assert "note:" not in runner.invoke(app, ["specs", "list"]).output
    as_json = json.loads(runner.invoke(app, ["specs", "list", "-f", "json", "--specs", str(mine)]).output)
    assert {"t4", "t4mine"} <= {d["id"] for d in as_json} and all(set(d) == set(as_json[0]) for d in as_json)


def test_check_remarks_an_id_that_is_not_the_file_name_and_refuses_one_not_in_lowercase_dashes(tmp_path):
    other = write(tmp_path, {**VALID, "id": "otherid"}, "fname.yaml")
    result = runner.invoke(app, ["specs", "check", "--specs", str(other)])
    assert result.exit_code == 0, result.output
    assert f"note: {other}: id 'otherid' is not its file's name" in result.output
    bad = write(tmp_path, {**VALID, "id": "Other Id"}, "spaced.yaml")
    refused = runner.invoke(app, ["specs", "check", "--specs", str(bad)])
    assert refused.exit_code == 1 and f"{bad}: key 'id' 'Other Id' is not lowercase-dashes" in refused.output


def test_a_malformed_roofline_specs_file_fails_a_run_given_good_specs_and_says_where_it_was_named(tmp_path):
    """Both $ROOFLINE_SPECS and --specs are read (device_specs/README.md): a malformed file named by the variable is
    an error even beside good --specs files, and its line says the variable named it."""
    (tmp_path / "env").mkdir()
    bad = write(tmp_path / "env", {**with_change("sm_count", 40), "id": "nocite"})
    good = write(tmp_path, VALID)
    env = {"ROOFLINE_SPECS": str(tmp_path / "env")}
    result = runner.invoke(app, ["specs", "list", "--specs", str(good)], env=env)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith(f"roofline: error: {bad}: key 'sm_count' must be a mapping")
    assert "(named by $ROOFLINE_SPECS: fix the file, or leave it out of $ROOFLINE_SPECS)" in result.output
    checked = runner.invoke(app, ["specs", "check", "--specs", str(good)], env=env)
    assert checked.exit_code == 1 and checked.output.startswith(f"{bad}: key 'sm_count'")
    assert "named by $ROOFLINE_SPECS" in checked.output
    assert runner.invoke(app, ["specs", "list", "--specs", str(good)], env={"ROOFLINE_SPECS": ""}).exit_code == 0


def test_specs_help_lists_each_command_on_one_line():
    """The command list shows each command's one-line summary, not its docstring's line breaks."""
    result = runner.invoke(app, ["specs", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    panel = [line for line in result.output.split("Commands")[1].splitlines() if line.startswith("│")]
    assert [line.split()[1] for line in panel] == ["list", "show", "check"]


# --- probe-specs fixes ----------------------------------------------------------------------------------------------
def test_show_takes_a_display_name_as_reports_print_it():
    """The header of every report prints "NVIDIA H100 80GB HBM3": `specs show` took it for an id and suggested A100s."""
    for given in ("NVIDIA H100 80GB HBM3", "nvidia h100 80gb hbm3"):
        result = runner.invoke(app, ["specs", "show", given, "-f", "json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["id"] == "h100-sxm5"


def test_show_path_prints_the_file_to_copy_and_that_file_loads_as_a_spec(tmp_path):
    result = runner.invoke(app, ["specs", "show", "t4", "--path"])
    assert result.exit_code == 0
    path = Path(result.output.strip())
    from roofline.specs.catalog import builtin_folder

    assert path.resolve() == (builtin_folder() / "t4.yaml").resolve()  # the installed package's, or the source's
    copy = tmp_path / "my-t4.yaml"
    copy.write_text(path.read_text().replace("id: t4", "id: my-t4").replace("Tesla T4", "My T4"))
    assert runner.invoke(app, ["specs", "check", "--specs", str(copy)]).exit_code == 0


def test_show_help_says_yaml_is_a_document_not_a_spec_file():
    result = runner.invoke(app, ["specs", "show", "--help"], env={"COLUMNS": "200"})
    assert "not a spec file" in " ".join(result.output.split()) and "--path" in result.output


@pytest.mark.parametrize(("spec_id", "key", "shown"), [
    ("h100-pcie", "boost_clock_hz", "1.755 GHz"), ("a10", "boost_clock_hz", "1.695 GHz"),
    ("rtx-3060-laptop", "boost_clock_hz", "1.703 GHz"), ("h100-nvl", "tensor_clock_hz", "1.545 GHz"),
    ("h100-pcie", "memory.bytes", "80 GiB"), ("h100-pcie", "l2_bytes", "50 MiB"), ("mx450", "l2_bytes", "512 KiB"),
    ("h100-pcie", "memory.bus_width_bits", "5120 bit"), ("h100-pcie", "peaks.fp16", "102.4 TFLOP/s")])
def test_show_gives_each_value_with_the_digits_of_its_file(spec_id, key, shown):
    """1755 MHz read "1.75 GHz" beside its source, 80 GB (GiB) "85.9 GB": each value as its file and source give it."""
    result = runner.invoke(app, ["specs", "show", spec_id], env={"COLUMNS": "250"})
    row = next(line for line in result.stdout.splitlines() if line.split()[:1] == [key])
    assert f" {shown} " in row, row


def test_a_report_matched_to_a_user_spec_says_so_in_its_spec_line(tmp_path):
    """A copy of a built-in spec under its id (a user's edited figures): before, the report said only "spec h100-sxm5"
    and the same display name, whatever the file held."""
    example = SHIPPED.parent / "examples" / "h100" / "ops" / "op01-square-matrix-multiplication.json"
    replaced = write(tmp_path, yaml.safe_load((SHIPPED / "h100-sxm5.yaml").read_text()))
    result = runner.invoke(app, ["report", str(example), "-f", "json", "--specs", str(replaced)])
    assert result.exit_code == 0, result.output
    device = json.loads(result.stdout)["reports"][0]["device"]
    assert device["spec_match"] == (f"display name 'NVIDIA H100 80GB HBM3'; your spec {replaced}, over the built-in "
                                    "h100-sxm5")
    table = runner.invoke(app, ["report", str(example), "--specs", str(replaced)], env={"COLUMNS": "250"})
    assert f"spec h100-sxm5 (display name 'NVIDIA H100 80GB HBM3'; your spec {replaced}" in table.stdout
