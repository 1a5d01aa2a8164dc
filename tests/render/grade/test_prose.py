"""The grade's sentences, written by the renderers from the document's reasons: a grade withheld for no time model
says the kernel's reason, also where no launch has a time (no launch of its own to take it from)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from tests.conftest import find_shared_report

runner = CliRunner()
SILU = "gh200_silu_metrics"


def test_a_kernel_no_launch_of_which_has_a_time_says_why_its_grade_is_withheld(raw_actions) -> None:
    """GH200 SiLU metrics: no launch has gpu__time_duration.sum (read with ncu_report), so no launch is listed
    under per_launch; each kernel's withheld line in the table and in Markdown still says the kernel's reason, the
    one its JSON gives under missing.grade (the missing duration metric), not "(no measured time or unit term)"."""
    assert not any(a.has("gpu__time_duration.sum") for a in raw_actions(SILU))
    report = str(find_shared_report(SILU))
    doc = json.loads(runner.invoke(app, ["grade", report, "-f", "json"]).stdout)
    assert doc["kernels"] and all(k["per_launch"] == [] and k["withheld"] == ["no_time_model"]
                                  for k in doc["kernels"])
    reasons = {k["missing"]["grade"] for k in doc["kernels"]}
    assert all("gpu__time_duration.sum" in why for why in reasons)
    table = " ".join(runner.invoke(app, ["grade", report], env={"COLUMNS": "200"}).stdout.split())
    markdown = runner.invoke(app, ["grade", report, "-f", "markdown"]).stdout
    for why in reasons:
        assert f"no time model to grade against: {why}" in table
        assert f"- withheld: no time model to grade against: {why}" in markdown
    assert "no measured time or unit term" not in table + markdown


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_another_withheld_reason_is_said_from_the_documents_work(fmt: str) -> None:
    """The BF16 example graded against the FP32 one: withheld as another precision, said with the precisions of
    the document's work (tensor:bf16 against fp32)."""
    from tests.conftest import REPO

    h100 = REPO / "examples" / "h100"
    args = ["grade", str(h100 / "torch-bf16.roofline.ncu-rep"), "--baseline", str(h100 / "torch-fp32.roofline.json")]
    text = " ".join(runner.invoke(app, [*args, "-f", fmt], env={"COLUMNS": "200"}).stdout.split())
    assert "computes in tensor:bf16, a less precise type than the baseline's fp32" in text
