"""`roofline timeline PROFILE --work REPORT...`: the kernels on the profile GPU's roofline with the reports' work;
the shipped pair (everything matched), a real pair of ../shared whose runs differ (nothing matched, both sides
listed, the L2 sizes named), and the plot."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from roofline.cli.app import app
from tests.conftest import find_shared_nsys, find_shared_report

REPO = Path(__file__).resolve().parents[3]
EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"
H100 = REPO / "examples" / "h100"


def invoke(*args: object) -> Result:
    return CliRunner().invoke(app, ["timeline", *map(str, args)])


def test_the_shipped_pair_is_matched_and_drawn(tmp_path: Path) -> None:
    reports = sorted(H100.glob("*.roofline.*"))
    plot = tmp_path / "work.png"
    result = invoke(EXPORT, *[a for r in reports for a in ("--work", r)], "--plot", plot)
    assert result.exit_code == 0, result.output
    assert ("On the roofline of NVIDIA H100 80GB HBM3 (device_specs h100-sxm5): work measured by ncu on NVIDIA H100 "
            "80GB HBM3, time by nsys on NVIDIA H100 80GB HBM3") in " ".join(result.stdout.split())
    assert "9 kernels matched by instance and launch configuration, 100.0% of the profile's kernel time" in \
        " ".join(result.stdout.split())
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_report_of_other_launches_matches_nothing_and_says_so() -> None:
    """miniWeather: the V100 ncu report ran other problem sizes (grids of 65535 blocks) and source lines than the
    GP100 profile (1 to 32 blocks): no kernel matches; both sides are listed, with the L2 sizes (6 and 4 MiB). The
    timeline is written, then one line says --work placed nothing (exit 2)."""
    result = invoke(find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite"), "--work",
                    find_shared_report("v100_miniweather-openacc_full.ncu-rep"), "--format", "json")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "no kernel of the reports launched as in" in result.stderr
    w = json.loads(result.stdout)["work"]
    assert w["kernels"] == [] and len(w["unmatched_nsys"]) == 10 and len(w["unmatched_ncu"]) == 5
    assert w["nsys_gpu"] == "Quadro GP100" and w["spec"] is None
    assert any("holds 6 MiB, that of Quadro GP100 4 MiB" in n for n in w["notes"])
    assert any("no device spec matches Quadro GP100" in n for n in w["notes"])


def test_work_needs_one_profile() -> None:
    result = invoke(EXPORT, EXPORT, "--work", H100 / "torch-bf16.roofline.ncu-rep")
    assert result.exit_code == 2 and "--work with several nsys files" in result.stderr


def test_nothing_matched_prints_no_empty_table() -> None:
    result = invoke(find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite"), "--work",
                    find_shared_report("v100_miniweather-openacc_full.ncu-rep"))
    assert result.exit_code == 2
    text = " ".join(result.stdout.split())
    assert "no kernel matched by instance and launch configuration: nothing to place on the roofline" in text
    assert "FLOP/B roof % roof limiter" not in text and "no work in the report for (nsys)" in text


def test_the_table_notes_the_fp16_register_moves_of_a_roofline_set_report() -> None:
    """The CuPy FP32 triad's --set roofline report counts its HFMA2 register moves as FP16 FLOPs: the table says so
    under the kernels, and the JSON labels the kernel fp32 with the same note in work.notes."""
    report = H100 / "triad-cupy.roofline.ncu-rep"
    text = " ".join(invoke(EXPORT, "--work", report).stdout.split())
    assert "triad: its FP16 FLOPs (268 M per launch) come from HFMA2 instructions alone" in text
    w = json.loads(invoke(EXPORT, "--work", report, "--format", "json").stdout)["work"]
    (triad,) = [k for k in w["kernels"] if k["short_name"] == "triad"]
    assert triad["precision"] == "fp32" and any(n.startswith("triad: its FP16 FLOPs") for n in w["notes"])
