"""Device specs: schema errors, precedence, matching, ceilings, and the FP32 cross-check of every file."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from roofline.core.model import Device
from roofline.errors import SpecError
from roofline.specs.catalog import (
    ENV_VAR,
    SpecCatalog,
    builtin_folder,
    check_spec,
    derived_fp32,
    load_catalog,
    parse_spec_file,
    spec_ceilings,
    spec_remarks,
)

SPEC_DIR = Path(__file__).resolve().parents[2] / "device_specs"
BUILTIN = sorted(SPEC_DIR.glob("*.yaml"))
SRC = "test fixture"


def cited(value):
    return {"value": value, "source": SRC}


VALID = {
    "id": "test-gpu",
    "display_names": ["NVIDIA Test GPU"],
    "architecture": "Ampere",
    "compute_capability": "8.0",
    "sm_count": cited(100),
    "boost_clock_hz": cited(1.5e9),
    "fp32_lanes_per_sm": cited(64),
    "memory": {"type": "HBM2e", "bytes": cited(80 * 2**30), "bandwidth_bytes_per_s": cited(2.0e12)},
    "l2_bytes": cited(40 * 2**20),
    "peaks": {"fp64": cited(9.6e12), "fp32": cited(19.2e12), "tensor_fp16": cited(307e12),
              "tensor_bf16": cited(307e12)},
}


def write(tmp_path: Path, data: dict, name: str = "") -> Path:
    """The spec file of ``data``, named after its id (a spec's id is its file's name) unless ``name`` is given."""
    path = tmp_path / (name or f"{data.get('id', 'test-gpu')}.yaml")
    path.write_text(yaml.safe_dump(data))
    return path


def with_change(path: str, value):
    """VALID with one nested key replaced (value None deletes it)."""
    data = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    if value is None:
        del node[last]
    else:
        node[last] = value
    return data


def device(name="NVIDIA Test GPU", cc="8.0", sms=100, memory=80 * 2**30 * 0.98) -> Device:
    return Device(name=name, compute_capability=cc, sm_count=sms, total_memory_bytes=int(memory))


# --- schema ---------------------------------------------------------------------------------------------
def test_valid_spec_parses_with_sources(tmp_path):
    spec = parse_spec_file(write(tmp_path, VALID))
    assert spec.id == "test-gpu" and spec.sm_count == 100 and spec.peaks["fp32"] == 19.2e12
    assert spec.sources["peaks.fp32"] == SRC and spec.sources["memory.bandwidth_bytes_per_s"] == SRC


@pytest.mark.parametrize("change, value, key, words", [
    ("peaks.fp32", None, "peaks.fp32", "is missing"),
    ("peaks.fp32", {"value": 1e12}, "peaks.fp32.source", "every number needs a source"),
    ("peaks.fp32", 19.2e12, "peaks.fp32", "every number needs a source"),
    ("peaks.fp32", {"value": "fast", "source": SRC}, "peaks.fp32.value", "expected a number"),
    ("peaks.fp64", {"value": -1, "source": SRC}, "peaks.fp64.value", "expected 0 < value"),
    # issue 15: non-finite and impossible numbers that used to pass or end in a traceback
    ("peaks.fp32", cited(float("nan")), "peaks.fp32.value", "is nan, expected a finite number"),
    ("memory.bandwidth_bytes_per_s", cited(float("inf")), "memory.bandwidth_bytes_per_s.value",
     "is inf, expected a finite number"),
    ("sm_count", cited(float("inf")), "sm_count.value", "is inf, expected a finite number"),
    ("sm_count", cited(0.5), "sm_count.value", "is 0.5, expected a whole number"),
    ("sm_count", cited(0), "sm_count.value", "expected 0 < value < 10000"),
    ("fp32_lanes_per_sm", cited(0.25), "fp32_lanes_per_sm.value", "expected a whole number"),
    ("boost_clock_hz", cited(1.5), "boost_clock_hz.value", "expected 1e+08 <= value <= 1e+10"),
    ("l2_bytes", cited(10**400), "l2_bytes.value", "is out of the range of numbers"),
    ("peaks.fp65", cited(1.0), "peaks.fp65", "is not a known key"),
    ("sm_count", None, "sm_count", "is missing"),
    ("compute_capability", "eight", "compute_capability", "must look like"),
    ("display_names", [], "display_names", "non-empty list"),
    ("memory", None, "memory", "is missing"),
    ("frequency", 3, "frequency", "is not a known key"),
])
def test_schema_error_names_file_and_key(tmp_path, change, value, key, words):
    path = write(tmp_path, with_change(change, value))
    with pytest.raises(SpecError) as err:
        parse_spec_file(path)
    message = str(err.value)
    assert str(path) in message and f"key '{key}'" in message and words in message
    assert "\n" not in message


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("id: x\npeaks: {fp32: [1, 2\n")
    with pytest.raises(SpecError, match=r"broken.yaml: not valid YAML at line \d"):
        parse_spec_file(path)


def test_missing_user_spec_path_is_an_error(tmp_path):
    with pytest.raises(SpecError, match="no such spec file or folder"):
        load_catalog([tmp_path / "nope.yaml"])


def test_two_specs_of_one_folder_with_one_id_or_display_name_are_an_error(tmp_path):
    """Issue 37: which of them a GPU matched depended on the order of the file names, silently."""
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, VALID, "test-gpu.yaml")
    second = write(folder, VALID, "test-gpu.yml")  # an id is its file's name: only the suffix can differ
    with pytest.raises(SpecError, match=r"test-gpu\.yml: id 'test-gpu' is also the id of .*test-gpu\.yaml"):
        load_catalog([folder])
    second.unlink()
    write(folder, {**VALID, "id": "other-gpu"}, "other-gpu.yaml")
    with pytest.raises(SpecError, match=r"test-gpu\.yaml: display name '.*' is also one of .*other-gpu\.yaml "
                                        r"\(id 'other-gpu'\)"):
        load_catalog([folder])


def test_two_spec_files_of_one_id_given_apart_are_refused_as_in_one_folder(tmp_path, monkeypatch):
    """--specs a.yaml --specs b.yaml (one id) is refused with the line a folder of the two gives, not the last one
    taken silently; the same file named twice is read once, and $ROOFLINE_SPECS entries are checked together."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = write(tmp_path / "a", VALID), write(tmp_path / "b", VALID)
    with pytest.raises(SpecError, match=r"b/test-gpu\.yaml: id 'test-gpu' is also the id of .*a/test-gpu\.yaml: "
                                        "give each spec file"):
        load_catalog([first, second])
    assert load_catalog([first, first]).get("test-gpu").path == str(first)
    monkeypatch.setenv(ENV_VAR, os.pathsep.join([str(first), str(second)]))
    with pytest.raises(SpecError, match=r"b/test-gpu\.yaml: id 'test-gpu' is also the id of .*a/test-gpu\.yaml"):
        load_catalog()


def test_remarks_name_the_tensor_types_every_gpu_of_the_compute_capability_has_that_a_spec_omits(tmp_path):
    """VALID (CC 8.0, FP16 and BF16 Tensor figures) omits tensor_tf32, which every CC 8.0 GPU has (PTX ISA: .tf32
    mma from sm_80); FP8 is remarked from CC 8.9 only; a spec without any Tensor figure (a GTX 1660: no Tensor
    Cores) and every built-in spec get none."""
    (remark,) = spec_remarks(parse_spec_file(write(tmp_path, VALID)))
    assert "no peaks.tensor_tf32, which every GPU of compute capability 8.0 has" in remark
    ada = parse_spec_file(write(tmp_path, {**with_change("peaks.tensor_bf16", None), "compute_capability": "8.9"}))
    (remark,) = spec_remarks(ada)
    assert "no peaks.tensor_tf32, peaks.tensor_bf16, peaks.tensor_fp8, which every GPU of compute capability 8.9" \
        in remark
    assert spec_remarks(parse_spec_file(write(tmp_path, {**VALID, "compute_capability": "7.5"}))) == []
    bare = with_change("peaks", {"fp64": cited(9.6e12), "fp32": cited(19.2e12)})
    assert spec_remarks(parse_spec_file(write(tmp_path, bare))) == []
    assert [r for spec in load_catalog().specs for r in spec_remarks(spec)] == []


def test_a_calibration_roof_that_is_not_a_mapping_is_named(tmp_path):
    from roofline.specs.calibration import parse

    with pytest.raises(SpecError, match=r"c\.yaml: measured\.roofs\.fp32 is 3, expected a mapping"):
        parse({"id": "test-gpu", "measured": {"roofs": {"fp32": 3}}}, str(tmp_path / "c.yaml"))


# --- precedence and lookup ------------------------------------------------------------------------------
def test_user_spec_from_option_overrides_env_and_builtin(tmp_path, monkeypatch):
    env_dir = tmp_path / "env"
    env_dir.mkdir()
    write(env_dir, with_change("peaks.fp32", cited(19.0e12)))
    option = write(tmp_path, with_change("peaks.fp32", cited(19.1e12)))
    monkeypatch.setenv(ENV_VAR, str(env_dir))
    assert load_catalog().get("test-gpu").peaks["fp32"] == 19.0e12
    assert load_catalog([option]).get("test-gpu").peaks["fp32"] == 19.1e12


def test_user_spec_wins_display_name_match_over_builtin(tmp_path):
    if not any("NVIDIA A10G" in p.read_text() for p in BUILTIN):
        pytest.skip("no built-in A10G spec yet")
    mine = with_change("display_names", ["NVIDIA A10G"])
    catalog = load_catalog([write(tmp_path, {**mine, "id": "my-a10g"})])
    assert catalog.match(Device(name="NVIDIA A10G", compute_capability="8.6", sm_count=80)).spec.id == "my-a10g"


def test_unknown_id_suggests_close_ones(tmp_path):
    catalog = load_catalog([write(tmp_path, VALID)])
    with pytest.raises(SpecError, match="did you mean test-gpu"):
        catalog.get("test-gpux")


def test_an_id_that_starts_other_ids_suggests_them_all():
    """"h100" names no spec, but starts three: each is suggested, where close spellings missed two of them."""
    with pytest.raises(SpecError) as err:
        load_catalog().get("h100")
    assert err.value.hint == "did you mean h100-nvl, h100-pcie, h100-sxm5?"
    with pytest.raises(SpecError) as many:
        load_catalog().get("rtx")
    assert many.value.hint.count(",") == 4 and "more: roofline specs list)" in many.value.hint


def test_an_id_in_another_case_finds_its_spec_and_suggests_as_lowercase_does():
    """Ids are lowercase; "H100-SXM5" is read as h100-sxm5, and "H100" suggests what "h100" does."""
    assert load_catalog().get("H100-SXM5").id == "h100-sxm5"
    with pytest.raises(SpecError) as err:
        load_catalog().get("H100")
    assert err.value.hint == "did you mean h100-nvl, h100-pcie, h100-sxm5?"


# --- matching -------------------------------------------------------------------------------------------
@pytest.fixture
def two_a100s(tmp_path):
    sxm = {**with_change("display_names", ["NVIDIA A100-SXM4-80GB"]), "id": "a100-sxm"}
    pcie = {**with_change("display_names", ["NVIDIA A100 80GB PCIe"]), "id": "a100-pcie"}
    small = {**with_change("memory.bytes", cited(40 * 2**30)), "id": "a100-40", "display_names": ["NVIDIA A100 40"]}
    return SpecCatalog([parse_spec_file(write(tmp_path, d, d["id"] + ".yaml")) for d in (sxm, pcie, small)])


@pytest.mark.parametrize("name", ["NVIDIA A100-SXM4-80GB", "nvidia a100-sxm4-80gb", "NVIDIA  A100 SXM4 80GB"])
def test_display_name_match_ignores_case_spaces_and_dashes(two_a100s, name):
    m = two_a100s.match(device(name=name))
    assert m.spec.id == "a100-sxm" and "display name" in m.how


def test_near_miss_name_falls_back_on_cc_sms_memory_and_tokens(two_a100s):
    m = two_a100s.match(device(name="NVIDIA A100-SXM4-80GB-HGX"))
    assert m.spec.id == "a100-sxm" and m.how.startswith("fallback: CC 8.0, 100 SMs")
    assert two_a100s.match(device(name="NVIDIA A100 PCIe 80GB v2")).spec.id == "a100-pcie"


def test_fallback_uses_memory_size(two_a100s):
    assert two_a100s.match(device(name="Something 40", memory=40 * 2**30 * 0.97)).spec.id == "a100-40"


def test_ambiguous_or_unknown_gpu_is_not_matched(two_a100s):
    assert two_a100s.match(device(name="NVIDIA A100 80GB")) is None  # SXM and PCIe tie
    assert two_a100s.match(device(name="NVIDIA Mystery", sms=7)) is None


# --- ceilings -------------------------------------------------------------------------------------------
def test_spec_ceilings_use_datasheet_numbers_and_name_gaps(tmp_path):
    spec = parse_spec_file(write(tmp_path, VALID))
    c = spec_ceilings(spec, "bf16")
    assert c.source == "datasheet" and c.tensor_dtype == "bf16"
    assert c.flop_per_s == {"fp64": 9.6e12, "fp32": 19.2e12, "fp16": None, "tensor": 307e12}
    assert c.bytes_per_s["dram"] == 2.0e12 and c.bytes_per_s["l2"] is None
    assert "no documented L2 bandwidth" in c.missing["l2"] and "1.5 GHz boost" in c.clock_note
    assert spec_ceilings(spec, "fp8").flop_per_s["tensor"] is None


def test_cross_check_flags_fp32_off_by_more_than_two_percent(tmp_path):
    good = parse_spec_file(write(tmp_path, VALID))
    assert derived_fp32(good) == pytest.approx(100 * 64 * 2 * 1.5e9)
    assert check_spec(good) == []
    bad = parse_spec_file(write(tmp_path, {**with_change("peaks.fp32", cited(19.9e12)), "id": "bad"}))
    assert "differs by more than 2%" in check_spec(bad)[0]


# --- every shipped file ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", BUILTIN, ids=[p.stem for p in BUILTIN])
def test_builtin_spec_is_valid_and_fp32_agrees_within_2_percent(path):
    spec = parse_spec_file(path)
    assert spec.id == path.stem
    assert abs(spec.peaks["fp32"] / derived_fp32(spec) - 1) <= 0.02
    assert check_spec(spec) == []
    assert all(spec.sources[f"peaks.{k}"] for k in spec.peaks)


def test_builtin_specs_have_unique_ids_and_display_names():
    catalog = load_catalog()
    names = [n.lower() for s in catalog.specs for n in s.display_names]
    assert len(names) == len(set(names))
    assert len(BUILTIN) == len(catalog.specs)


def test_builtin_files_come_from_the_installed_package_else_the_checkout(monkeypatch):
    from roofline.specs import catalog as specs

    assert [p.name for p in specs._builtin_files()] == [p.name for p in BUILTIN]  # installed, or editable
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)  # a source checkout, not installed
    monkeypatch.setattr(specs, "__file__", str(SPEC_DIR.parent / "roofline" / "specs" / "catalog.py"))
    assert specs._builtin_files() == BUILTIN


def test_exponent_without_sign_is_read_as_a_number(tmp_path):
    path = tmp_path / "test-gpu.yaml"
    path.write_text(yaml.safe_dump(VALID).replace("19200000000000.0", "19.2e12"))
    assert "19.2e12" in path.read_text()
    assert parse_spec_file(path).peaks["fp32"] == 19.2e12


# --- hostile files (issue 15) -------------------------------------------------------------------------------------
def test_dotted_number_text_is_an_error_not_a_traceback(tmp_path):
    """'1..2e3' once matched the exponent pattern and then failed in float(); now it stays text: not a number."""
    path = tmp_path / "test-gpu.yaml"
    path.write_text(yaml.safe_dump(VALID).replace("19200000000000.0", "1..2e3"))
    with pytest.raises(SpecError, match=r"key 'peaks.fp32.value' is '1..2e3', expected a number"):
        parse_spec_file(path)


def test_non_utf8_file_is_one_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(yaml.safe_dump(VALID).encode().replace(b"Ampere", b"Amp\xe8re"))
    with pytest.raises(SpecError, match=r"latin1.yaml: not UTF-8 text \(byte \d+\): save the file as UTF-8"):
        parse_spec_file(path)


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))


def test_alias_bomb_is_refused_before_it_expands(tmp_path):
    """Nine levels of nine aliases (about 700 bytes) expand to 9^9 items; refused while parsing."""
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB + "id: bomb\n")
    assert len(path.read_bytes()) < 800
    with pytest.raises(SpecError, match=r"bomb.yaml: YAML alias '\*a' at line 2: write the value out"):
        parse_spec_file(path)


DEEP_YAML = {
    "flow-past-libyaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",  # libyaml 0.2.6 refuses 1000 levels itself
    "flow-17": "a: " + "[" * 16 + "]" * 16 + "\n",
    "block-past-libyaml": "".join(" " * i + "k:\n" for i in range(1200)) + " " * 1200 + "v\n",  # 0.7 MiB
    "block-17": "".join(" " * i + "k:\n" for i in range(16)) + " " * 16 + "v: 1\n",
    "sequences-17": "- " * 17 + "x\n",
}


@pytest.mark.parametrize("text", DEEP_YAML.values(), ids=DEEP_YAML)
def test_deep_nesting_is_refused_in_our_words_whatever_the_yaml_library(tmp_path, text):
    """Our depth check reads the text before YAML parses it, so the refusal is the same line with PyYAML 6.0.3 and
    6.0.4 (whose libyaml refuses 1000 levels with a message of its own): one line, the file, the line, the fix."""
    deep = tmp_path / "deep.yaml"
    deep.write_text(text)
    with pytest.raises(SpecError) as caught:
        parse_spec_file(deep)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{deep}: nested deeper than 16 levels at line ")
    assert message.endswith(": see device_specs/README.md")


def test_sixteen_levels_are_accepted_by_the_depth_check(tmp_path):
    """The limit is a budget, not a ban: 16 levels parse (and then fail the schema, which is another message)."""
    path = tmp_path / "sixteen.yaml"
    path.write_text("a: " + "[" * 15 + "]" * 15 + "\n")
    with pytest.raises(SpecError) as caught:
        parse_spec_file(path)
    assert "nested deeper" not in str(caught.value)


def test_huge_files_are_refused(tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(SpecError, match=f"^{huge}: larger than 1 MiB, not a device spec"):
        parse_spec_file(huge)


def test_the_a10g_tensor_cores_run_at_half_the_a10s_rate_per_sm_and_clock():
    # AWS's A10G figure (70 TF FP16) and a measured 69.47 TFLOPS FP16 GEMM: 512 FLOP per SM and clock, where the
    # A10 datasheet's 125 TF over 72 SMs at 1.695 GHz is 1024 (FP32 accumulate at half rate, as on GeForce GA102)
    catalog = load_catalog()
    a10g, a10 = catalog.get("a10g"), catalog.get("a10")
    per_sm_clock = {s.id: s.peaks["tensor_fp16"] / (s.sm_count * s.boost_clock_hz) for s in (a10g, a10)}
    assert per_sm_clock["a10g"] == pytest.approx(512, rel=2e-3)
    assert per_sm_clock["a10"] == pytest.approx(1024, rel=2e-3)
    assert a10g.peaks["tensor_bf16"] == a10g.peaks["tensor_fp16"] == 2 * a10g.peaks["tensor_tf32"]
    assert a10g.peaks["tensor_int8"] == pytest.approx(2 * a10g.peaks["tensor_fp16"], rel=2e-3)


def test_an_empty_specs_folder_is_refused_naming_it(tmp_path):
    """--specs naming a folder without a YAML file is a wrong path, not an empty choice: one line, not silence."""
    (tmp_path / "notes.txt").write_text("not a spec")
    with pytest.raises(SpecError, match=r"no spec file \(\*\.yaml, \*\.yml\) in the folder"):
        load_catalog([tmp_path])


def test_an_unclosed_quote_is_named_at_the_line_it_opens_not_past_the_end(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('id: x\nname: "oops\n')
    with pytest.raises(SpecError, match=r"bad.yaml: not valid YAML at line 2: fix the syntax$"):
        load_catalog([bad])


def test_an_unclosed_quote_in_a_file_without_a_final_newline_is_named_at_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('id: x\nname: "oops\nb: 1\nc: 2')
    with pytest.raises(SpecError, match=r"bad.yaml: not valid YAML at line 2: fix the syntax$"):
        load_catalog([bad])


@pytest.mark.parametrize(("text", "line"), [("id: [\n", 1), ("id: x\nlist: [1, 2\nother: 1\n", 2),
                                            ("id: x\nm: {a: 1,\n  b: 2\nc: 3\n", 2)])
def test_an_unclosed_bracket_is_named_at_the_line_it_opens(tmp_path, text, line):
    """They were named a line later: where the parser found the next key, or past the end."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(SpecError, match=rf"bad.yaml: not valid YAML at line {line}: fix the syntax$"):
        load_catalog([bad])


def test_remarks_take_the_tensor_types_from_the_tensor_core_table_and_skip_types_a_later_family_lacks(tmp_path):
    """One table (core.tensor_architectures) gives both the diagnosis's types and the remarks': a CC 8.6 spec with
    an INT8 figure alone lacks FP16, TF32 and BF16 figures (GA10x takes them, and so does every later family), never
    FP64 (GA100 and Hopper have FP64 Tensor Cores, GA10x and GB20x do not: the H800 spec may leave it out); a CC 7.5
    one lacks FP16 only (Turing's one float type)."""
    int8_only = with_change("peaks", {"fp64": cited(9.6e12), "fp32": cited(19.2e12), "tensor_int8": cited(600e12)})
    (remark,) = spec_remarks(parse_spec_file(write(tmp_path, {**int8_only, "compute_capability": "8.6"})))
    assert "no peaks.tensor_tf32, peaks.tensor_fp16, peaks.tensor_bf16, which every GPU" in remark
    (remark,) = spec_remarks(parse_spec_file(write(tmp_path, {**int8_only, "compute_capability": "7.5"})))
    assert "no peaks.tensor_fp16, which every GPU of compute capability 7.5 has" in remark
    h800 = next(spec for spec in load_catalog().specs if spec.id == "h800")
    assert "tensor_fp64" not in h800.peaks and spec_remarks(h800) == []


@pytest.mark.parametrize("text", ["485e+12", "485e12", "4.85e+14", "485E-0"])
def test_an_exponent_yaml_1_1_reads_as_text_is_taken_as_the_number(tmp_path, text):
    """YAML 1.1 reads an exponent without a decimal point or without a sign as text; the loader repairs both."""
    path = write(tmp_path, with_change("peaks.tensor_fp8", cited(0.0)))
    path.write_text(path.read_text().replace("value: 0.0", f"value: {text}"))
    assert f"value: {text}" in path.read_text()
    assert parse_spec_file(path).peaks["tensor_fp8"] == float(text)


def test_a_copy_of_a_shipped_spec_with_an_unsigned_point_free_exponent_loads(tmp_path):
    """The L4 spec's FP8 figure written 485e+12 (as the probe wrote it) in a copy given with --specs."""
    from typer.testing import CliRunner

    from roofline.cli.app import app

    text = (SPEC_DIR / "l4.yaml").read_text()
    assert "tensor_fp8: {value: 242.5e+12," in text
    (tmp_path / "l4.yaml").write_text(text.replace("tensor_fp8: {value: 242.5e+12,", "tensor_fp8: {value: 485e+12,"))
    result = CliRunner().invoke(app, ["specs", "show", "l4", "--specs", str(tmp_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert '"value": 485000000000000.0' in result.stdout


# --- ids (probe 3, finding 9) ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, spec_id, words", [
    ("up.yaml", "Upper Case", r"up\.yaml: key 'id' 'Upper Case' is not lowercase-dashes: set id: upper-case "
                              r"\(lowercase letters, digits and dashes\)$"),
    ("My GPU.yaml", "My GPU", r"My GPU\.yaml: key 'id' 'My GPU' is not lowercase-dashes: set id: my-gpu "),
    ("a,b.yaml", "a,b", r"key 'id' 'a,b' is not lowercase-dashes: set id: a-b"),
    ("x--y.yaml", "x--y", r"key 'id' 'x--y' is not lowercase-dashes"),
])
def test_an_id_not_in_lowercase_dashes_is_refused_naming_file_key_and_fix(tmp_path, name, spec_id, words):
    """An id with a comma or a space would not pass through `project --to a,b`: refused in one line."""
    path = write(tmp_path, {**VALID, "id": spec_id}, name)
    with pytest.raises(SpecError, match=words) as err:
        parse_spec_file(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


def test_an_id_other_than_its_file_name_is_valid_and_remarked(tmp_path):
    """A copy of t4.yaml kept as t4-lab.yaml with id: t4 overrides the built-in t4 (its calibration goes by the
    id): refusing it broke such folders, and its suggested fix (id: t4-lab) dropped the calibration silently. It
    loads, and specs check remarks that the id, not the file name, is what commands go by."""
    from roofline.specs.catalog import spec_remarks

    path = write(tmp_path, {**VALID, "id": "otherid"}, "fname.yaml")
    spec = parse_spec_file(path)
    assert spec.id == "otherid"
    (remark,) = [r for r in spec_remarks(spec) if "file's name" in r]
    assert remark.startswith(f"{path}: id 'otherid' is not its file's name") and "measured/otherid.yaml" in remark


def test_every_shipped_spec_id_is_its_lowercase_dashes_file_name():
    for path in BUILTIN:
        spec_id = yaml.safe_load(path.read_text())["id"]
        assert spec_id == path.stem and all(part.isalnum() and part == part.lower() for part in spec_id.split("-"))


# --- overrides (probe 3, finding 8) ---------------------------------------------------------------------------------
def test_overrides_name_the_spec_each_later_one_takes_a_gpu_from(tmp_path, monkeypatch):
    """A T4 spec in $ROOFLINE_SPECS (another id) overrides the built-in t4 for 'Tesla T4', and one given with --specs
    overrides that one: reports of a Tesla T4 get the last, as match() decides."""
    t4 = yaml.safe_load((SPEC_DIR / "t4.yaml").read_text())
    for folder, spec_id in (("env", "t4-env"), ("opt", "t4-opt")):
        (tmp_path / folder).mkdir()
        write(tmp_path / folder, {**t4, "id": spec_id})
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    catalog = load_catalog([tmp_path / "opt"])
    found = [(o.spec.id, o.over.id, o.name, o.over.path) for o in catalog.overrides()]
    assert found == [("t4-env", "t4", "Tesla T4", str(builtin_folder() / "t4.yaml")),
                     ("t4-opt", "t4-env", "Tesla T4", str(tmp_path / "env" / "t4-env.yaml"))]
    assert catalog.match(Device(name="Tesla T4", compute_capability="7.5", sm_count=40)).spec.id == "t4-opt"


def test_a_user_spec_of_a_builtin_id_is_an_override_of_that_file(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    mine = write(tmp_path, yaml.safe_load((SPEC_DIR / "t4.yaml").read_text()))
    (override,) = load_catalog([mine]).overrides()
    assert (override.spec.path, override.over.path, override.name) == (str(mine), str(builtin_folder() / "t4.yaml"),
                                                                        "")
    assert load_catalog([]).overrides() == []
