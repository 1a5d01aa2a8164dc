"""roofline.core.model_document: the report model's JSON form, generated from the model's structs."""

from __future__ import annotations

import json

import msgspec
import pytest

from roofline.core import model, model_document
from roofline.core.model import MODEL_VERSION, Device, KernelLaunch, PcCounters, PcSampling, Report, RuleResult
from roofline.errors import ReportError
from roofline.ncu.validation import check_model_document


def sample() -> Report:
    rule = RuleResult("CPIStall", "WarpStateStats", "Wait Stalls", "Waits.", "optimization", (), 23.2, "global")
    pcs = PcSampling(10, (PcCounters(16, 10, {"long_scoreboard": 7}, 4.0, 128.0, {}, "FFMA R1, R2", "k.cu", 3),),
                     "", {"k.cu": {3: "a = b * c;"}})
    launch = KernelLaunch(0, 1, "k", "k()", "_Z1kv", (4, 1, 1), (256, 1, 1), 32, 0, ("step",),
                          {"gpu__time_duration.sum": 1000.0, "launch__grid_size": 4, "device__name": "x"},
                          frozenset({"dram__bytes.sum"}), (rule,), pc_sampling=pcs)
    return Report("r.json", Device("GPU", "8.0", 108, attributes={"max_warps_per_multiprocessor": 64}), (launch,))


def test_every_document_field_is_a_model_field_required_where_it_has_no_default():
    launch = {f.name: f for f in msgspec.structs.fields(model_document.launch_type())}
    assert list(launch) == list(model.LAUNCH_FIELDS)
    for f in msgspec.structs.fields(KernelLaunch):
        if f.name in launch:
            assert launch[f.name].required == f.required, f.name
    device = [f.name for f in msgspec.structs.fields(model_document.document_type(Device))]
    assert device == [f.name for f in msgspec.structs.fields(Device)]


@pytest.mark.parametrize("version", [1, 2])
def test_a_written_model_passes_in_both_versions(version):
    data = json.loads(json.dumps(sample().to_dict()))
    if version == 1:
        columns = data["launches"]
        data["version"] = 1
        data["launches"] = [{key: columns[key][0] for key in model.LAUNCH_FIELDS if key != "metrics"}
                            | {"metrics": {k: v[0] for k, v in columns["metrics"].items() if v[0] is not None}}]
    assert check_model_document(data, "m.json") == set()
    assert Report.from_dict(data, "m.json").launches[0].pc_sampling == sample().launches[0].pc_sampling


def test_the_json_forms_of_the_model_types():
    whole = model_document.Whole
    assert model_document.json_form(int) == whole
    assert model_document.json_form(tuple[int, int, int] | None) == tuple[whole, whole, whole] | None
    assert model_document.json_form(frozenset[str]) == list[str]
    assert model_document.json_form(tuple[str, ...]) == list[str]


@pytest.mark.parametrize(("change", "words"), [
    ({"format": "something-else"}, "not a roofline-report-model document (its format is 'something-else')"),
    ({"version": MODEL_VERSION + 1}, f"unsupported model version {MODEL_VERSION + 1}, expected 1 or 2"),
    ({"version": True}, "unsupported model version True"),
])
def test_the_format_and_version_are_checked_once_before_the_types(change, words):
    with pytest.raises(ReportError) as info:
        check_model_document({**sample().to_dict(), **change}, "m.json")
    assert str(info.value).startswith(f"m.json: {words}")


def test_a_source_line_number_must_be_digits():
    data = json.loads(json.dumps(sample().to_dict()))
    data["launches"]["pc_sampling"][0]["source_text"]["k.cu"] = {"three": "a = b * c;"}
    words = r"a key of launches.pc_sampling\[0\].source_text\[...\]: expected `str` matching regex"
    with pytest.raises(ReportError, match=words):
        check_model_document(data, "m.json")
