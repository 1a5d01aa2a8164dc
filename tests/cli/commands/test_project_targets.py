"""`roofline project`: how `--to` is read (all in any case, empty ids and all among ids refused with the value to
give, an id close to all offered all), the file a list of ids goes to, the notes of a ranking of GPUs (kernels that
cannot launch as built, another kernel likely), the report's own GPU alone, and every null of the document with its
reason. Expected values come from the report's own metrics and the cited YAML files."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

import roofline
from roofline.cli.app import app
from tests.conftest import REPO
from tests.null_reasons import unexplained_nulls

runner = CliRunner()
OPS = REPO / "examples" / "h100" / "ops"
OP01 = OPS / "op01-square-matrix-multiplication.json"
OP29 = next(OPS.glob("op29-*.json"))
TRIAD = REPO / "examples" / "h100" / "triad-torch.roofline.json"
BF16 = REPO / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"


def project(*args: object, code: int = 0, width: int = 80) -> str:
    result = runner.invoke(app, ["project", *map(str, args)], env={"COLUMNS": str(width)})
    assert result.exit_code == code, result.output
    return result.stdout if code == 0 else result.stderr


def as_json(*args: object) -> dict:
    return json.loads(project(*args, "-f", "json"))


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("to", ["ALL", "All", " all "])
def test_all_in_any_case_is_every_gpu(to):
    assert [w["target"] for w in as_json(TRIAD, "--to", to)["everywhere"]] == \
        [w["target"] for w in as_json(TRIAD, "--to", "all")["everywhere"]]


@pytest.mark.parametrize("to, error", [
    ("all,t4", "--to 'all,t4': all is every GPU, not an id among others: use --to all alone, or --to t4"),
    ("t4,", "--to 't4,': an empty spec id (a comma with none after or before it): use --to t4"),
    ("t4,,h200", "use --to t4,h200"),
    ("al", "--to 'al': unknown device spec id 'al': did you mean all (every GPU)?"),
])
def test_a_to_that_names_no_gpu_list_is_one_line_with_the_value_to_give(to, error):
    """`--to all,t4` and `--to al` were answered 'did you mean l4?', `--to t4,` 'unknown device spec id '''."""
    line = project(OP01, "--to", to, code=2)
    assert line.startswith("roofline: error: ") and error in line and len(line.splitlines()) == 1


def test_a_list_of_ids_goes_to_one_file_whatever_their_order(tmp_path, monkeypatch):
    """The rows are sorted fastest first whatever the order of the ids: one file, named by the sorted ids."""
    monkeypatch.chdir(tmp_path)
    for to in ("t4,h200", "h200,t4"):
        project(TRIAD, "--to", to, "-f", "markdown")
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["triad-torch-project-h200+t4.md"]


def test_the_ranking_marks_and_names_the_gpus_a_kernel_cannot_launch_on_as_built():
    """op29's cuDNN dgrad kernel asks for 231,424 B of shared memory per block (its launch's request less the
    driver's reserve): more than the 166,912 B a CC 8.0 block may have (device_specs/architecture/limits.yaml).
    Onto the A100 alone `project` said so; in the ranking of every GPU nothing did, and the JSON had no check."""
    launch = roofline.load(OP29).launches
    dgrad = next(k for k in launch if k.name.startswith("sm90_xmma_dgrad"))
    attributes = json.loads(OP29.read_text())["device"]["attributes"]
    need = int(dgrad.value("launch__shared_mem_per_block")) - attributes["reserved_shared_memory_per_block"]
    limits = yaml.safe_load((REPO / "device_specs" / "architecture" / "limits.yaml").read_text())
    limit = limits["shared_memory_per_block_optin_bytes"]["8.0"]["value"]
    assert need == 231_424 and limit == 166_912
    doc = as_json(OP29, "--to", "all")
    row = next(w for w in doc["everywhere"] if w["target"] == "a100-sxm4-80gb")
    kernel = next(k for k in row["kernels"] if k["name"] == dgrad.name)
    assert kernel["shared_memory"] == {"kernel_bytes": need, "limit_bytes": limit, "compute_capability": "8.0",
                                       "fits": False}
    assert kernel["shared_memory"] == next(k for k in as_json(OP29, "--to", "a100-sxm4-80gb")["kernels"]
                                           if k["name"] == dgrad.name)["shared_memory"]
    table = project(OP29, "--to", "all")
    a100 = next(line for line in table.splitlines() if line.startswith("a100-sxm4-80gb "))
    h200 = next(line for line in table.splitlines() if line.startswith("h200 "))
    h200_clock = next(w["clock_hz"] for w in doc["everywhere"] if w["target"] == "h200")
    assert a100.split()[-2:] == ["S", "L"] and h200.split()[-1] == f"{h200_clock / 1e9:.3g}"  # fits there: no note
    text = words(table)
    unfit = sum(not k["shared_memory"]["fits"] for w in doc["everywhere"] for k in w["kernels"]
                if k["name"] == dgrad.name)
    assert f"cannot launch as built on {unfit} GPUs: " in text and f"its blocks ask for {need:,} B of shared" in text
    assert "L = its library would likely run another kernel for some launches" in text
    csv = project(OP29, "--to", "a100-sxm4-80gb", "-f", "csv").splitlines()
    assert any(line.startswith(f"a100-sxm4-80gb,kernel,{dgrad.name},") and "cannot launch there as built" in line
               for line in csv)


def test_under_clock_base_the_caveat_counts_only_the_gpus_with_a_row():
    """At --clock base the GPUs whose spec gives no base clock have no projection and no row: the "cannot launch as
    built on N GPUs" line counts and names the rows marked S, not those (it said 7 GPUs beside 4 marks)."""
    doc = as_json(OP29, "--to", "all", "--clock", "base")
    rows = [w for w in doc["everywhere"] if w["projected_s"] is not None]
    unfit = [w["target"] for w in rows for k in w["kernels"]
             if k["shared_memory"] and k["shared_memory"].get("fits") is False]
    without = [w["target"] for w in doc["everywhere"] if w["projected_s"] is None]
    assert unfit and without
    table = project(OP29, "--to", "all", "--clock", "base")
    marked = [line.split()[0] for line in table.splitlines() if line.rstrip().endswith(("S L", " S"))]
    assert sorted(marked) == sorted(unfit)
    text = words(table)
    assert f"cannot launch as built on {len(unfit)} GPUs: " in text


def test_onto_its_own_gpu_alone_the_change_of_clock_is_said():
    """op01 ran unlocked at 1.96 GHz on its H100; onto the H100 alone it reads 1.10x slower at the sustained clock,
    which `--to t4,h100-sxm5` explained and `--to h100-sxm5` did not (own_gpu null without a reason)."""
    ran = roofline.load(OP01).launches[0].value("sm__cycles_elapsed.avg.per_second")
    doc = as_json(OP01, "--to", "h100-sxm5")
    own = doc["own_gpu"]
    assert own["target"] == "h100-sxm5" and own["source_clock"] == "above_base"
    assert own["source_clock_hz"] == pytest.approx(ran, rel=1e-12) and own["clock_hz"] == doc["workload"]["clock_hz"]
    assert (f"h100-sxm5 is the report's own GPU: the report ran at {ran / 1e9:.3g} GHz, above the"
            in words(project(OP01, "--to", "h100-sxm5")))
    assert as_json(OP01, "--to", "t4")["missing"]["own_gpu"] == "the report's own GPU (h100-sxm5) is not among " \
                                                                 "the targets"


@pytest.mark.parametrize("args", [
    [OP01, "--to", "h200"], [OP01, "--to", "h100-sxm5"], [TRIAD, "--to", "all", "--clock", "base"],
    [REPO / "examples" / "h100" / "torch-fp32.roofline.json", "--to", "t4,h200"]])
def test_every_null_of_the_project_document_has_its_reason(args):
    """Among them workload.dram_reached_bytes_per_s, top-level target and workload under --to all, own_gpu."""
    assert unexplained_nulls(as_json(*args)) == []


def test_a_gpu_without_a_projection_keeps_the_measured_total_and_the_title_counts_the_projected():
    """--to all --clock base: the GPUs whose spec gives no base clock have no projection; their rows had a null
    measured total, and the title counted them among the GPUs the workload was on."""
    doc = as_json(TRIAD, "--to", "all", "--clock", "base")
    rows = doc["everywhere"]
    projected = [w for w in rows if w["launches"]]
    assert 0 < len(projected) < len(rows)
    assert {w["measured_s"] for w in rows} == {projected[0]["measured_s"]}
    assert all("measured_s" not in w["missing"] and w["missing"]["projected_s"] == w["reason"]
               for w in rows if not w["launches"])
    assert (f"Workload on {len(projected)} GPUs ({len(rows) - len(projected)} more without a projection, below)"
            in words(project(TRIAD, "--to", "all", "--clock", "base")))


def test_left_out_kernels_say_why_in_words_in_json(shared_report):
    doc = as_json(shared_report("h800_flash-attn-fwd_full"), "--to", "all")
    assert all(w["left_out_kernels"] == [{"name": "flash_fwd_kernel", "launches": 1, "cause": "no_time",
                                          "reason": "no measured time (ncu stored none)"}]
               for w in doc["everywhere"] if w["launches"])
    assert unexplained_nulls(doc) == []


def test_a_launch_group_held_by_power_is_named_with_its_clock():
    """The BF16 GEMM of examples/h100 ran below the H100's base clock (power): onto the H200 it keeps that share of
    the sustained clock, and the line said "1 launch group" without naming it."""
    w = as_json(BF16, "--to", "h200")["workload"]
    (held,) = [x for x in w["launches"] if x["clock_hz"] < w["clock_hz"]]
    assert w["power_held"] == 1
    assert (f"but 1 launch group at a share of it ({held['name']} at {held['clock_hz'] / 1e9:.3g} GHz: each ran "
            "below the source's base clock") in words(project(BF16, "--to", "h200", width=300))


def test_the_boost_clock_is_not_called_the_clock_users_run():
    """The help calls the sustained clock the one a GPU holds under load; boost is the most it runs at."""
    text = words(project(TRIAD, "--to", "h200", "--clock", "boost"))
    assert "boost clock, the most it runs at" in text and "as users run it" not in text


def test_every_interval_of_a_projection_shares_its_unit_where_both_ends_do():
    """The kernel table wrote "3.76-5.75 ms", the launch table "3.76 ms-5.75 ms" for the same interval."""
    w = as_json(OP01, "--to", "t4")["workload"]
    low, high = w["low_s"] * 1e3, w["high_s"] * 1e3
    assert low >= 1 and high < 1000  # both in ms
    assert words(project(OP01, "--to", "t4", width=200)).count(f"{low:.3g}-{high:.3g} ms") >= 3  # kernel, launch, total
