"""`roofline mcp` started as a subprocess and driven by the MCP SDK's own stdio client: the tools are listed with
typed input schemas and, as output schema, the schema generated from their result's type; each is called on the
shipped examples and the shared reports, its structured content validates against that schema and gives the numbers
of the command line it names (`--format json`), results keep to their size budget, errors name the tool's arguments,
and the server refuses paths outside its roots, symbolic links out of them, FIFOs and devices, with one line, and
goes on after a bad call."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.render.report.json import SCHEMA_VERSION, with_reasons
from tests import installed
from tests.conftest import find_shared_nsys, find_shared_report
from tests.nsys.small_export import nsys_export

mcp = pytest.importorskip("mcp", reason="the mcp package is not installed (pip install 'roofline[mcp]')")

REPO = Path(__file__).resolve().parents[2]
SGEMM = "examples/h200/sgemm-lineinfo.full.ncu-rep"
FP32 = "examples/h100/torch-fp32.roofline.json"
BASE, NEW = "examples/h100/sgemm-cuda.roofline.ncu-rep", "examples/h100/sgemm-cuda.full.json"
TOOLS = {"list_kernels", "analyse_kernel", "compare_reports", "project_report", "gpu_spec", "rank_nsys_kernels",
         "grade_kernel"}
BF16 = "examples/h100/torch-bf16.roofline.ncu-rep"
MAX = 1_000_000  # the largest budget a call may ask for
runner = CliRunner()


def environment() -> dict[str, str]:
    return installed.child_env()


async def session(roots: list[Path], calls: list[tuple[str, dict[str, Any]]],
                  options: tuple[str, ...] = ()) -> tuple[list[Any], list[Any]]:
    """Start `roofline mcp --root ... OPTIONS` in the repository, list its tools and make the calls, in order."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    args = ["-m", "roofline", "mcp", *(a for r in roots for a in ("--root", str(r))), *options]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO), env=environment())
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = (await client.list_tools()).tools
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def cli(command: str, codes: tuple[int, ...] = (0,)) -> Any:
    """The JSON document of the command line a result names (``command``), run here in the repository."""
    args = shlex.split(command)
    assert args[0] == "roofline"
    result = runner.invoke(app, args[1:])
    assert result.exit_code in codes, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One server session over the examples, a scratch root and /dev: every call the tests below check."""
    scratch = tmp_path_factory.mktemp("root")
    (scratch / "out").mkdir()
    (scratch / "link.json").symlink_to(REPO / "pyproject.toml")  # a link out of the roots
    os.mkfifo(scratch / "pipe.ncu-rep")
    (scratch / "mine.json").write_text("{}")  # a file roofline did not write
    invalid = json.loads((REPO / "tests" / "data" / "calibration" / "h100-ncu.roofline.json").read_text())
    for launch in invalid["launches"]:  # every duration NaN: no valid launch
        launch["metrics"]["gpu__time_duration.sum"] = float("nan")
    (scratch / "invalid.json").write_text(json.dumps(invalid))
    nsys = nsys_export(scratch / "app.sqlite")
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "list": ("list_kernels", {"reports": [FP32, SGEMM, BASE]}),
        "list_page": ("list_kernels", {"reports": ["examples/h200/intops.full.ncu-rep"], "offset": 1, "limit": 1}),
        "analyse": ("analyse_kernel", {"report": SGEMM, "kernel": "sgemm", "advice": 2, "hotspots": 3,
                                       "max_chars": 200_000}),
        "analyse_small": ("analyse_kernel", {"report": SGEMM, "kernel": "sgemm", "max_chars": 16_000}),
        "analyse_tiny": ("analyse_kernel", {"report": SGEMM, "kernel": "sgemm", "max_chars": 4000}),
        "compare": ("compare_reports", {"base": BASE, "new": NEW}),
        "compare_gpus": ("compare_reports", {"base": FP32, "new": "examples/h200/torch-fp32.roofline.json",
                                             "allow_different_gpu": True, "match": "order"}),
        "different_work": ("compare_reports", {"base": "examples/h100/triad-cupy.full.ncu-rep",
                                               "new": "examples/h100/triad-half2.full.ncu-rep",
                                               "maps": ["triad=triad_half2"], "gate_different_work": True}),
        "ungated_work": ("compare_reports", {"base": "examples/h100/triad-cupy.full.ncu-rep",
                                             "new": "examples/h100/triad-half2.full.ncu-rep",
                                             "maps": ["triad=triad_half2"]}),
        "project": ("project_report", {"report": FP32, "to": "h200"}),
        "project_own": ("project_report", {"report": FP32, "to": "h100-sxm5"}),
        "project_ALL": ("project_report", {"report": FP32, "to": "ALL"}),
        "spec": ("gpu_spec", {"spec_id": "h100-sxm5"}),
        "specs": ("gpu_spec", {}),
        "nsys": ("rank_nsys_kernels", {"profile": str(nsys), "top": 2}),
        "written": ("project_report", {"report": FP32, "to": "h200", "output": str(scratch / "out" / "p.json")}),
        "outside": ("list_kernels", {"reports": ["/etc/hostname"]}),
        "link_out": ("list_kernels", {"reports": [str(scratch / "link.json")]}),
        "fifo": ("list_kernels", {"reports": [str(scratch / "pipe.ncu-rep")]}),
        "device": ("list_kernels", {"reports": ["/dev/null"]}),
        "write_outside": ("project_report", {"report": FP32, "to": "h200", "output": "/tmp/roofline-mcp-test.json"}),
        "write_over": ("project_report", {"report": FP32, "to": "h200", "output": str(scratch / "mine.json")}),
        "write_csv": ("project_report", {"report": FP32, "to": "h200", "output": str(scratch / "out" / "p.csv")}),
        "bad_type": ("list_kernels", {"reports": FP32, "limit": "many"}),
        "gate_off": ("compare_reports", {"base": BASE, "new": NEW, "fail_if_slower": 1e308 * 10}),
        "gate_huge": ("compare_reports", {"base": BASE, "new": NEW, "fail_if_slower": 1e300,
                                          "fail_if_roof_drop": 150, "work_tolerance": 1e6}),
        "unknown_gpu": ("gpu_spec", {"spec_id": "h900"}),
        "spec_tiny": ("gpu_spec", {"spec_id": "h100-sxm5", "max_chars": 2000}),
        "no_tool": ("no_such_tool", {}),
        "after": ("gpu_spec", {"spec_id": "h200"}),
        "grade": ("grade_kernel", {"report": "examples/h100/triad-cupy.full.ncu-rep", "kernel": ["triad"]}),
        "grade_withheld": ("grade_kernel", {"report": BF16, "baseline": FP32}),
        "nsys_given_ncu": ("rank_nsys_kernels", {"profile": SGEMM}),
        "nsys_given_qdrep": ("rank_nsys_kernels", {"profile": str(scratch / "app.qdrep")}),
        "bad_map": ("compare_reports", {"base": BASE, "new": NEW, "maps": ["sgemm"]}),
        "project_page": ("project_report", {"report": "examples/h200/intops.full.ncu-rep", "to": "h100-sxm5",
                                            "limit": 1}),
        "unknown_arg": ("gpu_spec", {"spec_id": "h100-sxm5", "bogus": 1}),
        "unknown_args": ("list_kernels", {"reports": [FP32], "top": 3, "format": "json"}),
        "list_invalid": ("list_kernels", {"reports": [str(scratch / "invalid.json")]}),
        "nul_path": ("list_kernels", {"reports": ["examples/a\0b.ncu-rep"]}),
        "nul_baseline": ("grade_kernel", {"report": FP32, "baseline": "examples/a\0b.json"}),
        "nvtx_none": ("rank_nsys_kernels", {"profile": "examples/nsys/h100-examples.sqlite", "nvtx": "no-such-range"}),
        "gpus_differ": ("compare_reports", {"base": FP32, "new": "examples/h200/torch-fp32.roofline.json",
                                            "match": "order"}),
    }
    (scratch / "app.qdrep").write_bytes(b"")
    tools, results = asyncio.run(session([REPO / "examples", scratch, Path("/dev")], list(calls.values())))
    out = {key: r for key, r in zip(calls, results, strict=True)}
    return {"tools": tools, "scratch": scratch, "calls": calls, **out}


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    content: dict[str, Any] = result.structured_content
    assert content["schema_version"] == SCHEMA_VERSION
    assert json.loads(result.content[0].text) == content  # the text is the same JSON, compact
    return content


def refusal(result: Any) -> str:
    assert result.is_error
    (content,) = result.content
    assert "\n" not in content.text and "Traceback" not in content.text
    return str(content.text)


def test_the_tools_are_listed_with_typed_inputs_and_descriptions(served: dict[str, Any]) -> None:
    tools = {t.name: t for t in served["tools"]}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description) > 100, tool.name
        props = tool.input_schema["properties"]
        assert all("description" in p for name, p in props.items()), tool.name
    kernels = tools["list_kernels"].input_schema
    assert kernels["required"] == ["reports"] and kernels["properties"]["reports"]["type"] == "array"
    assert kernels["properties"]["by"]["enum"] == ["kernel", "function", "nvtx"]
    assert tools["analyse_kernel"].input_schema["properties"]["max_chars"]["maximum"] == 1_000_000


def as_summary(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """list_kernels' reports as ``summary -f json`` gives them: each row's reasons by path again."""
    return [{**r, "rows": [{**row, "missing": {path: reason for reason, paths in row["missing"].items()
                                               for path in paths}} for row in r["rows"]]} for r in reports]


def test_list_kernels_gives_the_summary_rows_of_the_cli(served: dict[str, Any]) -> None:
    result = ok(served["list"])
    assert result["command"].startswith("roofline summary examples/h100/torch-fp32.roofline.json")
    assert as_summary(result["reports"]) == cli(result["command"])["reports"]
    assert [len(r["rows"]) for r in result["reports"]] == [1, 1, 1]
    row = result["reports"][1]["rows"][0]
    assert {"name", "count", "time_share", "bound", "pct_of_roof", "recoverable_s"} <= set(row)


def test_list_kernels_and_the_instructions_say_the_ranking_the_result_has(served: dict[str, Any]) -> None:
    """The kernels come ranked by time to gain (``ranked_by``), the saving of their first advice item, not by
    recoverable time alone: the tool's description and the server's instructions say so."""
    from roofline.cli.mcp_server import INSTRUCTIONS

    assert {r["ranked_by"] for r in ok(served["list"])["reports"]} == {"time to gain"}
    description = next(t.description for t in served["tools"] if t.name == "list_kernels")
    assert "ranked by time to gain" in description and "ranked by recoverable time" not in description
    assert "'ranked_by'" in description and "placed by its recoverable time" in description
    assert "the most time to gain" in INSTRUCTIONS and "most recoverable time" not in INSTRUCTIONS


def test_list_kernels_pages(served: dict[str, Any]) -> None:
    result = ok(served["list_page"])
    assert result["page"] == {"offset": 1, "limit": 1, "total": 2, "next_offset": None}
    whole = cli("roofline summary examples/h200/intops.full.ncu-rep --top 2 -f json")
    assert as_summary(result["reports"])[0]["rows"] == whole["reports"][0]["rows"][1:]


def test_analyse_kernel_gives_the_cli_numbers_of_the_launch(served: dict[str, Any]) -> None:
    result = ok(served["analyse"])
    doc = cli(result["command"])
    (report,) = doc["reports"]
    expected = with_reasons(report["kernels"][result["launch"]], report["reasons"])
    kernel = result["kernel"]
    assert "cut" not in result
    used = expected["ceilings_used"]
    assert kernel["ceilings"] == {used: expected["ceilings"][used]}  # the roofs used alone
    assert kernel["advice"] == expected["advice"][:2] and kernel["hotspots"]["pcs"] == expected["hotspots"]["pcs"][:3]
    assert kernel["hotspots"]["lines"] == expected["hotspots"]["lines"][:3]
    for key in ("duration_s", "bound", "verdict", "pct_of_roof", "flop_per_s", "bytes_per_s", "intensity",
                "recoverable_s", "occupancy", "stalls"):
        assert kernel[key] == expected[key], key
    # each reason once, with the paths of the nulls it explains: those the result holds (not of advice items or hot
    # spots past the 2 and 3 asked for)
    shown = {path: reason for path, reason in expected["missing"].items()
             if not re.match(r"(advice\[([2-9]|\d\d)|hotspots\.(pcs|lines)\[([3-9]|\d\d))", path)}
    assert {path: reason for reason, paths in kernel["missing"].items() for path in paths} == shown
    assert "advice[2].est_saved_s" in set(expected["missing"]) - set(shown)  # the third advice item's
    assert kernel["verdict"]["busiest"]["name"] and "sgemm.cu:" in kernel["hotspots"]["lines"][0]["source"]


def test_a_result_over_its_budget_is_cut_and_says_how_to_get_the_rest(served: dict[str, Any]) -> None:
    result = ok(served["analyse_small"])
    assert len(served["analyse_small"].content[0].text) <= 16_000
    cut = result["cut"]
    assert cut["full_chars"] > 16_000 and "max_chars=" in cut["ask"]
    assert cut["lists"] and all(c.get("left_out") or c["kept"] < c["of"] for c in cut["lists"])
    assert result["kernel"]["name"] == "sgemm_tiled"  # the launch itself stays
    assert len(result["kernel"]["grid"]) == len(result["kernel"]["block"]) == 3  # a triple is never cut short
    # lists are halved first, never below one entry, and only then emptied; no object is left out, so a budget
    # below the launch's objects is refused, with the least that fits
    tiny = refusal(served["analyse_tiny"])
    assert "does not fit in max_chars 4000 even cut down" in tiny
    least = int(tiny.split("call again with max_chars=")[1].split()[0])
    assert 4000 < least <= 16_000  # the occupancy calculator's three curves (6k characters) are part of a launch
    assert any(c["kept"] >= 1 for c in cut["lists"]) and all(set(c) == {"path", "kept", "of"} for c in cut["lists"])


def test_a_result_no_shorter_cut_down_asks_for_its_full_size(served: dict[str, Any]) -> None:
    """A spec's fields are objects, not lists: cutting its few lists adds the list of cuts and leaves it longer than
    whole, so the least budget that fits is the whole result's size, and the refusal asks for that."""
    full = len(served["spec"].content[0].text)
    tiny = refusal(served["spec_tiny"])
    assert tiny.endswith(f"the result does not fit in max_chars 2000 ({full} characters, and no shorter cut down): "
                         f"call again with max_chars={full} or more for all of it")


def test_the_least_budget_asked_for_is_never_above_the_full_size() -> None:
    from roofline.cli.mcp_adapter import text
    from roofline.cli.mcp_server import fit
    from roofline.errors import RooflineError

    result = {"name": "x" * 3000, "ids": ["a", "b"]}
    full = len(text(result))
    with pytest.raises(RooflineError) as err:
        fit({"name": "x" * 3000, "ids": ["a", "b"]}, 1000, "ask")
    least = int(str(err.value).split("call again with max_chars=")[1].split()[0])
    assert least == full and f"({full} characters, and no shorter cut down)" in str(err.value)
    assert fit(result, least, "ask") == {"name": "x" * 3000, "ids": ["a", "b"]}  # and it does fit


def test_a_launchs_null_reasons_are_cut_least_telling_first_and_follow_the_entries_shown() -> None:
    """The map of null reasons is cut by whole reasons, those of the launch's last fields first; a reason whose nulls
    lie in list entries the result does not hold goes with them; the cut says how many reasons were kept."""
    from roofline.cli.mcp_server import fit

    launch = {"duration_s": None, "flops": {"fp32": None}, "memory": {"sol_pct": {"l1": None}},
              "advice": [{"text": "a", "est_saved_s": None}],
              "missing": {"m" * 900: ["memory.sol_pct.l1"], "t" * 900: ["duration_s"], "f" * 900: ["flops.fp32"],
                          "a" * 900: ["advice[0].est_saved_s"], "gone" * 300: ["advice[3].est_saved_s"]}}
    whole = fit({"kernel": json.loads(json.dumps(launch))}, 1_000_000, "ask")["kernel"]["missing"]
    assert "gone" * 300 not in whole and len(whole) == 4  # advice[3] is not in the result
    cut = fit({"kernel": launch}, 2000, "ask")
    assert list(cut["kernel"]["missing"]) == ["t" * 900]  # the launch's time before its FLOPs, memory and advice
    assert cut["cut"]["lists"] == [{"path": "kernel.missing", "kept": 1, "of": 4}]


def test_the_advice_is_halved_but_never_emptied() -> None:
    from roofline.cli.mcp_server import fit

    result = {"kernel": {"advice": [{"text": "a" * 1500}, {"text": "b" * 1500}], "stalls": [{"r": "s" * 400}] * 2}}
    cut = fit(result, 1900, "ask")
    assert cut["kernel"]["advice"] == [{"text": "a" * 1500}] and cut["kernel"]["stalls"] == []
    assert {c["path"]: c["kept"] for c in cut["cut"]["lists"]} == {"kernel.advice": 1, "kernel.stalls": 0}


def test_analyse_kernel_fits_the_default_budget_on_every_shared_report() -> None:
    """The first kernel ``list_kernels`` gives of each shared report, analysed with the default budget: a result
    within it that keeps the launch's verdict and its first advice item, the null reasons cut last (only once every
    other list is down to its last entry kept: the first advice item, the one matched launch)."""
    from tests.conftest import shared_report_names

    reports = [str(find_shared_report(name)) for name in shared_report_names()]
    roots = [Path(reports[0]).parent]
    _, listed = asyncio.run(session(roots, [("list_kernels", {"reports": reports, "limit": 1, "by": "function",
                                                              "max_chars": MAX})]))
    firsts = [r["rows"][0]["name"] for r in ok(listed[0])["reports"]]
    calls = [("analyse_kernel", {"report": r, "kernel": f"exact:{name}"}) for r, name in zip(reports, firsts,
                                                                                             strict=True)]
    tools, results = asyncio.run(session(roots, calls))
    for (_, arguments), result in zip(calls, results, strict=True):
        content = ok(result)
        assert len(result_text(result)) <= 20_000, arguments
        assert validator(tools, "analyse_kernel").is_valid(content), arguments
        assert content["kernel"]["verdict"] is not None and content["kernel"]["name"] in arguments["kernel"]
        cut = {c["path"]: c for c in content.get("cut", {}).get("lists", [])}
        assert cut.get("kernel.advice", {"kept": 1})["kept"] >= 1, arguments
        if "kernel.missing" in cut:
            others = [c for path, c in cut.items() if path not in ("kernel.missing", "kernel.advice")]
            assert all(c["kept"] == (1 if c["path"] == "matched" else 0) for c in others), arguments
            assert len(content["kernel"]["advice"]) <= 1 and len(content["matched"]) == 1, arguments


def test_compare_reports_gives_the_diff_verdict_and_the_compare_headline(served: dict[str, Any]) -> None:
    result = ok(served["compare"])
    judged, compared = cli(result["command"], (0, 1)), cli(result["also"])
    assert (result["exit_code"], result["meaning"]) == (judged["exit_code"], "no regression beyond the thresholds")
    (kernel,) = result["kernels"]
    (expected,) = judged["kernels"]
    for key in ("work", "change", "speedup", "regressed", "reasons", "hot_lines"):
        assert kernel[key] == expected[key], key
    assert kernel["headline"] == compared["kernels"][0]["headline"][1]
    assert kernel["work"]["different"] is False and kernel["headline"]["kind"] == "speedup"


def test_compare_across_gpus_states_the_work_check_first(served: dict[str, Any]) -> None:
    result = ok(served["compare_gpus"])
    judged = cli(result["command"], (0, 1))
    assert result["exit_code"] == judged["exit_code"] and result["total"] == judged["total"]
    assert result["kernels"][0]["work"] == judged["kernels"][0]["work"]


def test_where_the_work_differs_no_speed_up_is_given(served: dict[str, Any]) -> None:
    result = ok(served["different_work"])
    (kernel,) = result["kernels"]
    judged, compared = cli(result["command"], (0, 1)), cli(result["also"])
    assert kernel["work"] == judged["kernels"][0]["work"] and kernel["work"]["different"] is True
    assert "speedup" not in kernel and "slowdown_pct" not in kernel and "work differs" in kernel["left_out"]
    assert kernel["headline"] == compared["kernels"][0]["headline"][1] and kernel["headline"]["kind"] == "throughput"
    assert kernel["per_work_slowdown_pct"] == judged["kernels"][0]["per_work_slowdown_pct"]
    assert "pass gate_different_work=true" in refusal(served["ungated_work"])  # the argument, not the CLI's flag


def test_grade_kernel_declares_its_schema_and_its_result_is_valid_against_it(served: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")
    from roofline.documents.schemas import schema

    (tool,) = [t for t in served["tools"] if t.name == "grade_kernel"]
    assert tool.output_schema["$id"] == schema("grade_kernel")["$id"] and tool.output_schema["type"] == "object"
    validator = jsonschema.Draft202012Validator(tool.output_schema)
    for key in ("grade", "grade_withheld"):
        result = ok(served[key])
        validator.validate(result)
        assert len(result_text(served[key])) <= 2750  # one kernel, its launches left out
        assert all(k["per_launch"] == [] for k in result["kernels"]) and "per_launch" in result["left_out"]
        assert result["kind"] == "grade" and result["command"].startswith("roofline grade ")


def validator(tools: list[Any], name: str) -> Any:
    """A draft 2020-12 validator of the output schema a tool declares."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")
    (tool,) = [t for t in tools if t.name == name]
    return jsonschema.Draft202012Validator(tool.output_schema)


def test_every_tool_declares_the_schema_generated_from_its_result_type(served: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")

    tools = {t.name: t for t in served["tools"]}
    assert set(tools) == TOOLS
    for name in TOOLS:  # each tool's result is the kind of document named by the tool
        declared = tools[name].output_schema
        shipped = json.loads((REPO / "roofline" / "schemas" / f"{name}.schema.json").read_text())
        assert declared == {**shipped, "type": "object"}, name  # the shipped file, generated from the type
        jsonschema.Draft202012Validator.check_schema(declared)


def test_every_result_validates_against_its_tools_output_schema(served: dict[str, Any]) -> None:
    checked = set()
    for key, (name, _) in served["calls"].items():
        if name in TOOLS and not served[key].is_error:
            errors = [e.message[:200] for e in validator(served["tools"], name).iter_errors(ok(served[key]))]
            assert errors == [], (key, errors)
            checked.add(name)
    assert checked == TOOLS
    assert ok(served["analyse_small"])["cut"]["lists"]  # cut to fit: its lists only, so it keeps the schema


def test_every_result_starts_with_the_schema_version_the_tool_and_the_command(served: dict[str, Any]) -> None:
    checked = set()
    for key, (name, _) in served["calls"].items():
        if name in TOOLS and not served[key].is_error:
            assert list(ok(served[key]))[:3] == ["schema_version", "tool", "command"], key
            assert list(json.loads(result_text(served[key])))[:3] == ["schema_version", "tool", "command"], key
            checked.add(name)
    assert checked == TOOLS


def test_every_tools_command_runs_and_gives_its_numbers(served: dict[str, Any]) -> None:
    """Each result's ``command`` (and ``also``) is a command line that runs here, with ``--format json``."""
    commands = {}
    for key, (name, _) in served["calls"].items():
        if name in TOOLS and not served[key].is_error:
            result = ok(served[key])
            commands.update({result["command"]: name, **({result["also"]: name} if "also" in result else {})})
    assert set(commands.values()) == TOOLS
    for command in commands:
        assert "-f json" in command and isinstance(cli(command, (0, 1)), (dict, list)), command
    listed = ok(served["specs"])
    assert listed["command"] == "roofline specs list -f json" and listed["specs"] == cli(listed["command"])


def test_the_commands_name_the_servers_spec_files(tmp_path: Path) -> None:
    """A server started with --specs names them in each command, which then finds the same GPUs."""
    from tests.specs.test_catalog import VALID, write

    specs = write(tmp_path, VALID)
    _, results = asyncio.run(session([tmp_path], [("gpu_spec", {"spec_id": "test-gpu"}), ("gpu_spec", {})],
                                     ("--specs", str(specs))))
    spec, listed = (ok(r) for r in results)
    assert spec["command"] == f"roofline specs show test-gpu -f json --specs {specs}"
    assert spec["spec"] == cli(spec["command"]) and spec["spec"]["id"] == "test-gpu"
    assert listed["specs"] == cli(listed["command"]) and "test-gpu" in [s["id"] for s in listed["specs"]]
    from roofline.cli.mcp_server import command_line

    assert command_line(["analyze", "--top", "2", "--", "APP", "-x"], [Path("my.yaml")]) == (
        "roofline analyze --top 2 --specs my.yaml -- APP -x")  # before the application's arguments


def test_unknown_arguments_are_refused_in_one_line_with_the_ones_the_tool_takes(served: dict[str, Any]) -> None:
    assert refusal(served["unknown_arg"]) == "gpu_spec: unknown argument 'bogus': gpu_spec takes spec_id, max_chars"
    assert refusal(served["unknown_args"]).startswith(
        "list_kernels: unknown arguments 'top', 'format': list_kernels takes reports, by, offset, limit, kernel, ")
    assert all(t.input_schema["additionalProperties"] is False for t in served["tools"])


def test_the_output_schemas_reject_a_result_without_what_it_promises(served: dict[str, Any]) -> None:
    analysed = {k: v for k, v in ok(served["analyse"]).items() if k != "kernel"}
    assert not validator(served["tools"], "analyse_kernel").is_valid(analysed)
    judged = ok(served["compare"])
    assert not validator(served["tools"], "compare_reports").is_valid({**judged, "exit_code": 3})
    assert not validator(served["tools"], "compare_reports").is_valid({**judged, "not_judged": [{"kernel": "k"}]})
    ranked = ok(served["nsys"])
    assert not validator(served["tools"], "rank_nsys_kernels").is_valid({**ranked, "ncu_runs": [{"ncu": 1}]})


def test_project_report_pages_its_kernels_and_keeps_the_workload(served: dict[str, Any]) -> None:
    result = ok(served["project_page"])
    doc = cli(result["command"])
    assert result["page"]["total"] == len(doc["kernels"]) >= 2 and result["page"]["next_offset"] == 1
    assert result["kernels"] == doc["kernels"][:1] and result["workload"] == doc["workload"]
    assert result["clock"] == doc["clock"] == "sustained"


def test_project_report_onto_the_reports_own_gpu_says_the_change_of_clock_as_the_cli_does(
        served: dict[str, Any]) -> None:
    """Onto the report's own GPU alone, project_report gives the CLI's own_gpu (the row and both clocks), and
    "ALL" in any case is refused as the table of every GPU, one call per GPU, not "did you mean l4?"."""
    result = ok(served["project_own"])
    doc = cli(result["command"])
    assert doc["own_gpu"] is not None and result["own_gpu"] == doc["own_gpu"]
    assert "one call per GPU" in refusal(served["project_ALL"]) and "did you mean" not in refusal(served["project_ALL"])


def test_rank_nsys_kernels_given_another_file_says_what_it_is_and_what_to_call(served: dict[str, Any]) -> None:
    ncu = refusal(served["nsys_given_ncu"])
    assert "an Nsight Compute report (.ncu-rep), not an Nsight Systems profile" in ncu
    assert "call list_kernels" in ncu and "analyse_kernel" in ncu and "export it first" not in ncu
    assert "export it first: nsys export --type sqlite" in refusal(served["nsys_given_qdrep"])


def test_an_error_names_the_tools_arguments_not_the_command_lines_flags(served: dict[str, Any]) -> None:
    text = refusal(served["bad_map"])
    assert "compare_reports: maps 'sgemm': needs 2 non-empty names" in text and "e.g. maps 'ampere_sgemm_" in text
    assert "--map" not in text
    from roofline.cli.mcp_server import as_arguments

    assert as_arguments("pass --gate-different-work, or --match order; ncu --set full --clock-control base") == (
        "pass gate_different_work=true, or match order; ncu --set full --clock-control base")
    assert as_arguments("nsys export --type sqlite -o app.sqlite app.nsys-rep") == (
        "nsys export --type sqlite -o app.sqlite app.nsys-rep")  # another program's options stay
    assert "nsys export --type sqlite -o " in refusal(served["nsys_given_qdrep"])


def test_every_tool_on_the_shared_reports_gives_results_valid_against_its_schema() -> None:
    """Each tool on real reports of other projects (a full-set CUTLASS GEMM, a T4's, an nsys export of H200)."""
    cutlass = str(find_shared_report("a100-80gb_cutlass-gemm_full"))
    t4 = str(find_shared_report("t4_matrix-add-2d_full"))
    nsys = str(find_shared_nsys("h200_nvfuser-matmul-nvtx_2025.1.sqlite"))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("list_kernels", {"reports": [cutlass, t4]}),
        ("analyse_kernel", {"report": cutlass, "kernel": "regex:.", "hotspots": 3}),
        ("compare_reports", {"base": t4, "new": t4}),
        ("project_report", {"report": t4, "to": "h100-sxm5"}),
        ("grade_kernel", {"report": cutlass}),
        ("gpu_spec", {"spec_id": "a100-sxm4-80gb"}),
        ("rank_nsys_kernels", {"profile": nsys, "top": 2})]
    shared = Path(cutlass).parents[1]
    tools, results = asyncio.run(session([shared, REPO], calls))
    for (name, _), result in zip(calls, results, strict=True):
        content = ok(result)
        errors = [e.message[:200] for e in validator(tools, name).iter_errors(content)]
        assert errors == [], (name, errors)
        assert len(result_text(result)) <= 20_000, name  # the default budget
    graded = ok(results[4])["kernels"]  # a CUTLASS kernel's name alone is 4,806 characters long: cut to 160
    assert graded and all(len(k["kernel"]) <= 160 for k in graded) and "…" in graded[1]["kernel"]
    assert graded[1]["kernel"].startswith("cutlass::Kernel<") or graded[1]["kernel"].startswith("Kernel<")
    assert len(result_text(results[4])) <= 2500 * len(graded)  # each kernel within 2,500 characters


def test_grade_kernel_gives_the_cli_grade_and_withholds_another_precision(served: dict[str, Any]) -> None:
    result = ok(served["grade"])
    (k,) = result["kernels"]
    (expected,) = cli(result["command"])["kernels"]
    assert k["grade"] == expected["grade"] and k["conditions"] == expected["conditions"]
    assert result["command"].startswith("roofline grade examples/h100/triad-cupy.full.ncu-rep --kernel triad")
    (withheld,) = ok(served["grade_withheld"])["kernels"]
    assert withheld["grade"] is None and withheld["withheld"] == ["other_precision"]


def result_text(result: Any) -> str:
    return str(result.content[0].text)


def test_project_and_gpu_spec_give_the_cli_documents(served: dict[str, Any]) -> None:
    result = ok(served["project"])
    assert result["kernels"] == cli(result["command"])["kernels"]
    spec = ok(served["spec"])
    assert spec["spec"] == cli(spec["command"])
    ids = [s["id"] for s in ok(served["specs"])["specs"]]
    assert "h100-sxm5" in ids and "h200" in ids


def test_rank_nsys_kernels_gives_the_timeline_and_the_ncu_commands_of_analyze(served: dict[str, Any]) -> None:
    result = ok(served["nsys"])
    (timeline,) = cli(result["command"])["timelines"]
    assert [k["name"] for k in result["kernels"]] == ["gemm", "triad", "tiny"]
    assert result["kernels"] == timeline["kernels"]
    profile = str(served["scratch"] / "app.sqlite")
    assert result["analyze"] == f"roofline analyze --from-nsys {profile} --top 2 -- APP"
    dry = runner.invoke(app, ["analyze", "--from-nsys", profile, "--top", "2", "--dry-run",
                                 str(REPO / "examples" / "elementwise_triad.py")])
    assert dry.exit_code == 0, dry.output
    planned = [line.split() for line in dry.stdout.splitlines() if not line.startswith("#")]
    runs = [shlex.split(run["ncu"]) for run in result["ncu_runs"]]
    assert len(runs) == len(planned) == 2
    for run, line in zip(runs, planned, strict=True):  # the same options, from --set to the log file
        assert run[0] == "ncu" and run[-1] == "APP"
        assert run[1:run.index("--log-file")] == [a.strip("'") for a in line[1:line.index("--log-file")]]
    assert [r["launch_skip"] for r in result["ncu_runs"]] == [2, 2]  # launch 3 of 5 is the median one


def test_an_output_is_written_only_inside_a_root_and_never_over_a_file_of_another(served: dict[str, Any]) -> None:
    written = ok(served["written"])
    on_disk = json.loads((served["scratch"] / "out" / "p.json").read_text())
    assert on_disk["kind"] == "project" and on_disk["kernels"] == written["kernels"]
    assert "outside the roots" in refusal(served["write_outside"])
    assert not Path("/tmp/roofline-mcp-test.json").exists()
    assert "was not written by roofline" in refusal(served["write_over"])
    assert (served["scratch"] / "mine.json").read_text() == "{}"
    assert "p.csv: a .csv file, and the tools write JSON" in refusal(served["write_csv"])  # as -o with -f json
    assert not (served["scratch"] / "out" / "p.csv").exists()


@pytest.mark.parametrize("call, words", [
    ("outside", "/etc/hostname: outside the roots this server may use"),
    ("link_out", "link.json: a symbolic link to "),
    ("fifo", "pipe.ncu-rep: is a FIFO, not a regular file"),
    ("device", "/dev/null: is a character device, not a regular file"),
    ("unknown_gpu", "unknown device spec id 'h900'"),
])
def test_refusals_are_one_line(served: dict[str, Any], call: str, words: str) -> None:
    assert words in refusal(served[call])


def test_a_path_with_a_nul_byte_is_a_tool_error_naming_it_not_an_internal_error(served: dict[str, Any]) -> None:
    """os.stat's ValueError ("embedded null byte") was the server's "internal error" label for a defect."""
    for key, argument, path in (("nul_path", "reports", "examples/a\\x00b.ncu-rep"),
                                ("nul_baseline", "baseline", "examples/a\\x00b.json")):
        text = refusal(served[key])
        assert text.endswith(f": {argument}='{path}': not a valid path (it holds a NUL byte): check the path")
        assert "internal error" not in text


def test_hints_name_no_command_line_where_a_tool_or_its_arguments_do(served: dict[str, Any]) -> None:
    """docs/agents.md: a hint names the tool to call and its arguments, never ``roofline timeline``, ``roofline
    compare`` or the Python call."""
    nvtx = refusal(served["nvtx_none"])
    assert "no kernel was launched inside an NVTX range named 'no-such-range'" in nvtx
    assert "the ranges rank_nsys_kernels lists under profile.nvtx when called without nvtx" in nvtx
    work = refusal(served["ungated_work"])
    assert work.endswith("pass gate_different_work=true to gate them per unit of work")
    gpus = refusal(served["gpus_differ"])
    assert "come from different GPUs" in gpus and gpus.endswith("or pass allow_different_gpu=true to gate them anyway")
    for text in (nvtx, work, gpus):
        assert "roofline timeline" not in text and "roofline compare" not in text and "Python" not in text


def test_a_bad_call_is_an_error_and_the_server_goes_on(served: dict[str, Any]) -> None:
    assert served["bad_type"].is_error and served["no_tool"].is_error
    # arguments against their schema: one line naming each argument and what it must be, not pydantic's dump
    text = served["bad_type"].content[0].text
    assert "\n" not in text and text.startswith("list_kernels: argument '")
    assert "argument 'reports'" in text and "argument 'limit'" in text and "errors.pydantic.dev" not in text
    assert ok(served["after"])["spec"]["id"] == "h200"


def test_no_threshold_can_switch_the_gate_off(served: dict[str, Any]) -> None:
    """An infinite threshold is refused as the command line refuses ``--fail-if-slower inf``: through the SDK's
    client (which sends an infinity as null) and, as a server reads 1e999 from a client that sends it, by the
    parameters' type (``finite``)."""
    import pydantic

    from roofline.cli.mcp_server import finite

    assert "argument 'fail_if_slower'" in refusal(served["gate_off"])
    # a finite value past the command line's bound is refused as --fail-if-slower 1e300 is (core.thresholds)
    huge = refusal(served["gate_huge"])
    assert all(f"argument '{name}'" in huge for name in ("fail_if_slower", "fail_if_roof_drop", "work_tolerance"))
    adapter = pydantic.TypeAdapter(Annotated[float, finite(ge=0)])
    for raw in ("1e999", "-1e999", "NaN", '"inf"'):
        with pytest.raises(pydantic.ValidationError):
            adapter.validate_json(raw)
    assert adapter.validate_json("12.5") == 12.5


def test_each_report_is_read_within_the_time_limit_of_the_command_line() -> None:
    _, (slow, model) = asyncio.run(session([REPO], [("list_kernels", {"reports": [BASE]}),
                                                    ("list_kernels", {"reports": [FP32]})], ("--timeout", "0.001")))
    assert f"{BASE}: reading took longer than 0.001 s and was stopped" in refusal(slow)
    assert ok(model)["reports"][0]["rows"]  # a report model is not read by ncu_report: no limit to meet


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text("raise ImportError('no mcp here')\n")
    env = installed.child_env(PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "roofline", "mcp"], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr == ("roofline: error: roofline mcp needs the MCP Python SDK (the mcp package), which is not "
                           "installed: install it with: pip install 'roofline[mcp]'\n")


def test_bad_spec_files_stop_the_server_before_it_serves(tmp_path: Path) -> None:
    """A --specs path that is not there, or a spec file that is not YAML, is one line and exit 2 at start-up: no tool
    parameter could fix it once the server runs."""
    (tmp_path / "bad.yaml").write_text("id: [\n")
    for specs, words in ((tmp_path / "none", "none: no such spec file or folder"),
                         (tmp_path / "bad.yaml", "bad.yaml: not valid YAML at line 1: fix the syntax")):
        proc = subprocess.run([sys.executable, "-m", "roofline", "mcp", "--root", str(tmp_path), "--specs",
                               str(specs)], capture_output=True, text=True, env=environment(), cwd=tmp_path,
                              timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.startswith("roofline: error: ") and words in proc.stderr and proc.stderr.count("\n") == 1


def test_the_command_line_starts_without_the_sdk() -> None:
    code = "import sys; from roofline.cli.app import build_app; build_app(); assert 'mcp' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=environment(), cwd=REPO, timeout=60)


def test_list_kernels_of_a_report_with_no_valid_launch_is_an_error_result(served: dict[str, Any]) -> None:
    """The calibration model with every duration NaN: list_kernels answers summary's refusal as an error result
    (one line: the file, "nothing to summarise", the count and the first launch's problem), not an empty list."""
    text = refusal(served["list_invalid"])
    assert "invalid.json: nothing to summarise: none of its 50 launches is valid (first: " in text
    assert "gpu__time_duration.sum is nan" in text


# --- What a real client found on the shared reports (each call once, in one session) ------------------------------
@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One server session over the shared reports, the repository and a scratch root: the calls the tests below
    check."""
    scratch = tmp_path_factory.mktemp("probed")
    (scratch / "mine.json").write_text("{}")  # a file roofline did not write
    cutlass = str(find_shared_report("a100-80gb_cutlass-gemm_full"))
    sort = str(find_shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic"))
    alife = str(find_shared_report("rtx2070super_alife-143launches_basic"))
    conv = str(find_shared_nsys("rtx3090_memfusion-conv-nvtx_2023.1.sqlite"))
    silu = str(find_shared_report("gh200_silu_metrics"))
    copy = "Reformatting CopyNode for Input Tensor 0 to /conv1/Conv + /relu/Relu"
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "cutlass": ("analyse_kernel", {"report": cutlass, "kernel": "exact:Kernel"}),
        "radix": ("analyse_kernel", {"report": sort, "kernel": "Radix", "max_chars": 30_000}),
        "radix_default": ("analyse_kernel", {"report": sort, "kernel": "Radix"}),
        "sort_list": ("list_kernels", {"reports": [sort], "max_chars": MAX}),
        "sort_list_cut": ("list_kernels", {"reports": [sort], "max_chars": 4000}),
        "sort_list_tiny": ("list_kernels", {"reports": [sort], "max_chars": 3000}),
        "two_lists_tight": ("list_kernels", {"reports": [alife, sort], "offset": 2, "limit": 10, "max_chars": 4000}),
        "cutlass_list": ("list_kernels", {"reports": [cutlass], "max_chars": MAX}),
        "written_unfit": ("analyse_kernel", {"report": SGEMM, "kernel": "sgemm", "max_chars": 1000,
                                             "output": str(scratch / "whole.json")}),
        "conv_copy": ("rank_nsys_kernels", {"profile": conv, "nvtx": copy, "top": 2}),
        "silu": ("analyse_kernel", {"report": silu, "kernel": "silu_kernel_non_strided"}),
        "conv_all": ("rank_nsys_kernels", {"profile": conv, "top": 2}),
        "grade_tiny": ("grade_kernel", {"report": sort, "max_chars": 1000}),
        "specs_small": ("gpu_spec", {"max_chars": 1000}),
        "unknown_to": ("project_report", {"report": FP32, "to": "not-a-gpu"}),
        "unknown_spec": ("gpu_spec", {"spec_id": "not-a-gpu"}),
        "to_all": ("project_report", {"report": FP32, "to": "all"}),
        "foreign_output": ("list_kernels", {"reports": [FP32], "output": str(scratch / "mine.json")}),
        "gates_off": ("compare_reports", {"base": BASE, "new": NEW}),
        "output_stdout": ("list_kernels", {"reports": [FP32], "output": "-"}),
    }
    tools, results = asyncio.run(session([Path(cutlass).parents[1], REPO, scratch], list(calls.values())))
    out = {key: r for key, r in zip(calls, results, strict=True)}
    listed = [ok(out["sort_list"])["reports"][0]["rows"], ok(out["cutlass_list"])["reports"][0]["rows"]]
    again: list[tuple[str, dict[str, Any]]] = [("analyse_kernel", {"report": report, "kernel": f"exact:{row['name']}"})
             for report, rows in ((sort, listed[0]), (cutlass, listed[1])) for row in rows]
    again += [("grade_kernel", {"report": sort, "kernel": [f"exact:{row['name']}"]}) for row in listed[0]]
    next_page = ok(out["sort_list_cut"])["page"]["next_offset"]
    again.append(("list_kernels", {"reports": [sort], "offset": next_page, "limit": 1, "max_chars": MAX}))
    least = int(refusal(out["sort_list_tiny"]).split("call again with max_chars=")[1].split()[0])
    again.append(("list_kernels", {"reports": [sort], "max_chars": least}))
    _, followed = asyncio.run(session([Path(cutlass).parents[1], REPO], again))
    return {"tools": tools, "scratch": scratch, "sort": sort, "cutlass_report": cutlass, "conv": conv, "copy": copy,
            "silu_report": silu,
            "again": list(zip(again, followed, strict=True)), **out}


def test_analyse_kernel_answers_a_cutlass_kernel_at_the_default_budget_its_long_name_cut(
        probed: dict[str, Any]) -> None:
    """The CUTLASS kernel's demangled name (4,806 characters) and the texts of how each number was obtained
    (``via``) were never cut, so no default call answered: the name is cut in its middle to 160 characters, said
    under ``left_out``, and the result fits the default budget."""
    result = ok(probed["cutlass"])
    assert len(result_text(probed["cutlass"])) <= 20_000
    command = ["roofline", "report", probed["cutlass_report"], "--kernel", "exact:Kernel", "-f", "json"]
    (whole,) = cli(shlex.join(command))["reports"]
    full = whole["kernels"][result["launch"]]["demangled_name"]
    shown = result["kernel"]["demangled_name"]
    assert len(full) > 4000 and len(shown) == 160 and shown.count("…") == 1
    head, tail = shown.split("…")
    assert full.startswith(head) and full.endswith(tail) and len(head) == 80
    assert result["left_out"].startswith(f"kernel.demangled_name: cut in its middle to 160 of its {len(full)} ")


def test_null_reasons_are_cut_only_after_every_list_the_matched_launches_first(probed: dict[str, Any]) -> None:
    """132 launches match 'Radix': the matched launches are cut to one before a single reason of a null goes (at
    the default budget); given room for the launch, every null of its own figures keeps its reason."""
    cut = {c["path"]: c for c in ok(probed["radix_default"])["cut"]["lists"]}
    assert cut["matched"] == {"path": "matched", "kept": 1, "of": 132}
    assert list(cut)[-1] == "kernel.missing"  # the last cut made
    result = ok(probed["radix"])
    assert "kernel.missing" not in {c["path"] for c in result["cut"]["lists"]}
    (whole,) = cli(result["command"])["reports"]
    launch = whole["kernels"][result["launch"]]
    shown = {path for paths in result["kernel"]["missing"].values() for path in paths}
    held = {path for path in launch["missing"] if not re.match(r"(advice|hotspots|time_model|occupancy|memory\.via|"
                                                               r"instruction_roofline\.via)", path)}
    assert held <= shown  # every null of the launch's own figures keeps its reason


def test_exact_takes_the_names_list_kernels_gives_back(probed: dict[str, Any]) -> None:
    """Each row name of list_kernels (a template instance's ``scope::function<arguments>``: CUB's, CUTLASS's) passed
    back as exact:NAME selects that kernel in analyse_kernel and grade_kernel, and on the command line."""
    rows = ok(probed["sort_list"])["reports"][0]["rows"]
    assert any("<" in row["name"] for row in rows)
    analysed = [ok(result) for (name, _), result in probed["again"] if name == "analyse_kernel"]
    graded = [ok(result) for (name, _), result in probed["again"] if name == "grade_kernel"]
    assert len(analysed) == len(rows) + len(ok(probed["cutlass_list"])["reports"][0]["rows"])
    for row, result in zip(rows, graded, strict=True):
        assert len(result["kernels"]) == 1 and result["kernels"][0]["launches"] == row["count"]
    key = next(row["name"] for row in rows if "<" in row["name"])
    (report,) = cli(shlex.join(["roofline", "report", probed["sort"], "--kernel", f"exact:{key}", "-f", "json"]))[
        "reports"]
    assert report["kernels"] and all(k["demangled_name"].startswith(f"void {key}(") for k in report["kernels"])


def test_list_kernels_cut_for_size_pages_on_from_the_first_row_left_out(probed: dict[str, Any]) -> None:
    """Rows cut to fit: page.next_offset points at the first row left out, the cut says so, and that page starts
    with the next row of the command's summary; each reason of a row is written once with its paths."""
    result = ok(probed["sort_list_cut"])
    (rows_cut,) = [c for c in result["cut"]["lists"] if c["path"] == "reports[0].rows"]
    assert result["page"]["next_offset"] == rows_cut["kept"] == len(result["reports"][0]["rows"])
    assert f"page.next_offset={rows_cut['kept']}" in result["cut"]["ask"]
    (_, page), = [(a, r) for (name, a), r in probed["again"] if name == "list_kernels" and a.get("offset")]
    whole = cli(ok(probed["sort_list"])["command"])["reports"][0]["rows"]
    assert as_summary(ok(page)["reports"])[0]["rows"] == whole[rows_cut["kept"]:rows_cut["kept"] + 1]
    full = ok(probed["sort_list"])["reports"][0]["rows"]
    for row, expected in zip(full, whole, strict=True):
        reasons = list(row["missing"])
        assert len(reasons) == len(set(reasons)) == len(set(expected["missing"].values()))


def test_a_budget_too_small_is_refused_never_answered_with_no_rows_or_stale_cuts(probed: dict[str, Any]) -> None:
    """list_kernels at 3,000 characters once answered no report at all: it is refused with the least budget that
    fits, and that budget answers; a cut of a list entry cut away since is not listed."""
    assert "does not fit in max_chars 3000 even cut down" in refusal(probed["sort_list_tiny"])
    (_, least), = [(a, r) for (name, a), r in probed["again"] if name == "list_kernels" and "offset" not in a]
    assert ok(least)["reports"][0]["rows"]
    for key in ("grade_tiny", "specs_small"):
        if probed[key].is_error:
            continue
        result = ok(probed[key])
        for c in result["cut"]["lists"]:
            for index in re.findall(r"^(\w+)\[(\d+)\]", c["path"]):
                assert int(index[1]) < len(result[index[0]]), (key, c)
    from roofline.cli.mcp_server import fit

    cut = fit({"rows": [{"names": ["a" * 300] * 4}] * 4}, 700, "ask")
    assert len(cut["rows"]) == 1 and [c["path"] for c in cut["cut"]["lists"]] == ["rows[0].names", "rows"]
    with pytest.raises(Exception, match="does not fit in max_chars 1000"):
        fit({"rows": ["a" * 1200]}, 1000, "ask")  # once answered as no rows at all


def test_a_result_refused_for_its_budget_says_its_output_was_written(probed: dict[str, Any]) -> None:
    text = refusal(probed["written_unfit"])
    whole = probed["scratch"] / "whole.json"
    assert f"the whole document was written to {whole}" in text and "does not fit in max_chars 1000" in text
    written = json.loads(whole.read_text())
    assert written["reports"][0]["kernels"][0]["name"] == "sgemm_tiled"  # the whole document, every launch


def test_a_list_of_several_reports_is_never_cut_to_fewer_reports(probed: dict[str, Any]) -> None:
    """Two reports' rows from offset 2 in 4,000 characters: a report cut out of the answer would leave its rows on
    no page, so the answer keeps both reports (its rows cut and paged on) or is refused with a budget that fits."""
    result = probed["two_lists_tight"]
    if result.is_error:
        assert "call again with max_chars=" in refusal(result)
        return
    answer = ok(result)
    assert len(answer["reports"]) == 2 and all(r["rows"] for r in answer["reports"])
    kept = min(len(r["rows"]) for r in answer["reports"])
    assert answer["page"]["next_offset"] in (None, 2 + kept)


def test_rank_nsys_kernels_in_an_nvtx_range_plans_no_run_aimed_outside_it(probed: dict[str, Any]) -> None:
    """The copy node's range launches one cuTENSOR kernel; analyze --from-nsys plans over the whole profile (its
    top kernels are convolutions outside the range, and a run's -s/-c count the whole profile's launches), so within
    a range no run is planned and ``left_out`` says how to profile the range's kernels instead."""
    inside = ok(probed["conv_copy"])
    names = {k["name"] for k in inside["kernels"]}
    assert names and all("permutationKernel" in n for n in names)
    everywhere = ok(probed["conv_all"])
    assert everywhere["ncu_runs"] and inside["ncu_runs"] == [] and "left_out" not in everywhere
    assert probed["copy"] in inside["left_out"] and "--nvtx-include written in ncu's NVTX syntax" in inside["left_out"]
    assert inside["analyze"] is None and "plans over the whole profile" in inside["missing"]["analyze"]
    assert everywhere["analyze"].startswith("roofline analyze --from-nsys ") and "missing" not in everywhere
    assert f"'{probed['copy']}/'" not in inside["left_out"]  # the range's / and + are ncu's operators: no line


def test_hints_name_the_tools_and_their_arguments_not_the_command_line(probed: dict[str, Any]) -> None:
    for key in ("unknown_to", "unknown_spec"):
        text = refusal(probed[key])
        assert "call gpu_spec without spec_id for the ids" in text and "roofline specs list" not in text
    to_all = refusal(probed["to_all"])
    assert "projects onto one GPU" in to_all and "did you mean" not in to_all
    foreign = refusal(probed["foreign_output"])
    assert "exists and was not written by roofline" in foreign and " -o " not in foreign and "(output)" in foreign
    missing = ok(probed["gates_off"])["missing"]
    assert missing["thresholds.roof_drop_pct"] == "fail_if_roof_drop not given: that gate is off"
    assert "--" not in json.dumps(missing)
    assert "output '-': the server's standard output carries" in refusal(probed["output_stdout"])
    from pydantic import TypeAdapter, ValidationError

    from roofline.cli.mcp_server import argument_problems

    with pytest.raises(ValidationError) as err:
        TypeAdapter(float).validate_python(None)
    assert "given null, as a client sends an infinite or NaN number" in argument_problems(err.value)


def test_analyse_kernel_of_a_report_without_times_gives_every_nulls_reason_within_its_budget(
        probed: dict[str, Any]) -> None:
    """The GH200 metrics-only report: the report's null total time and each matched launch's null duration and
    bound have the reasons ``report -f json`` gives; the launch's reasons are cut only as far as the default budget
    needs (once halved, 31 of 62 with 5,000 characters unused)."""
    result = ok(probed["silu"])
    (whole,) = cli(result["command"])["reports"]
    assert result["report"]["missing"] == {whole["reasons"][whole["missing"]["total_time_s"]]: ["total_time_s"]}
    for shown in result["matched"]:
        k = whole["kernels"][shown["launch"]]
        assert {p: why for why, paths in shown["missing"].items() for p in paths} == {
            field: whole["reasons"][k["missing"][field]] for field in ("duration_s", "bound")}
    size = len(result_text(probed["silu"]))
    (reasons,) = [c for c in result["cut"]["lists"] if c["path"] == "kernel.missing"]
    assert size <= 20_000 and reasons["kept"] > reasons["of"] // 2  # kept as far as the budget holds: fit's test


def test_a_map_of_reasons_keeps_as_many_reasons_as_the_budget_holds() -> None:
    """Six reasons of 300 characters, room for four: four are kept (halving kept three), the most telling first."""
    from roofline.cli.mcp_adapter import text
    from roofline.cli.mcp_server import fit

    fields = [f"f{i}" for i in range(6)]
    launch: dict[str, Any] = {**dict.fromkeys(fields), "missing": {str(i) * 300: [f] for i, f in enumerate(fields)}}
    four = {"kernel": {**launch, "missing": dict(list(launch["missing"].items())[:4])}}
    budget = len(text({**four, "cut": {"lists": [{"path": "kernel.missing", "kept": 4, "of": 6}],
                                       "full_chars": len(text({"kernel": launch})), "ask": "x" * 200}}))
    cut = fit({"kernel": json.loads(json.dumps(launch))}, budget, "ask")
    assert list(cut["kernel"]["missing"]) == [str(i) * 300 for i in range(4)]
    assert cut["cut"]["lists"] == [{"path": "kernel.missing", "kept": 4, "of": 6}] and len(text(cut)) <= budget


def test_a_cuts_ask_gives_the_hints_of_the_lists_cut_alone() -> None:
    """rank_nsys_kernels' NVTX ranges cut: offset/limit page the kernels, not the ranges, so the ask does not name
    them; a cut of the kernels does."""
    from roofline.cli.mcp_server import HINTS, fit

    hints = HINTS["rank_nsys_kernels"]
    ranges = fit({"profile": {"nvtx": [{"name": "r" * 100}] * 40}, "kernels": [{"n": 1}]}, 2000, "whole", hints)
    assert [c["path"] for c in ranges["cut"]["lists"]] == ["profile.nvtx"]
    assert "offset/limit" not in ranges["cut"]["ask"] and ranges["cut"]["ask"].startswith("whole; or call again")
    kernels = fit({"page": {"offset": 0, "limit": 40, "total": 40, "next_offset": None},
                   "kernels": [{"name": "k" * 100}] * 40}, 2000, "whole", hints)
    assert kernels["cut"]["ask"].startswith("narrow with offset/limit; or whole; the entries left out start at")
