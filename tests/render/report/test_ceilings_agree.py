"""A report's ceilings are one figure: the terminal table, Markdown, HTML and JSON show the same roofs on every
shared report, and those roofs are the time-weighted medians over the launches (of the measured roofs where any
launch has one), computed here from the JSON's per-launch ceilings (the terminal once said FP32 10.2 TFLOP/s and
Markdown 10.7 on the same report). Where a launch's own roof differs from the one shown, each output says the
roofs shown are medians over launches that ran at different clocks."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS
from roofline.core.units import si
from tests.render.report.time_weighted import weighted_median

ROOFS = (*PRECISIONS, *LEVELS)


def run(report: Path, tmp_path: Path, fmt: str) -> str:
    """The text of ``roofline report REPORT --format FMT``, written to a file."""
    out = tmp_path / f"out.{ {'table': 'txt', 'markdown': 'md'}.get(fmt, fmt) }"
    result = CliRunner().invoke(app, ["report", str(report), "--format", fmt, "--output", str(out), "--wide"])
    assert result.exit_code == 0, result.output
    return out.read_text()


def key_of(kernel: dict[str, Any], source: str, roof: str) -> float | None:
    sets = kernel["ceilings"]
    unit = "flop" if roof in PRECISIONS else "bytes"
    return sets[source][f"{roof}_{unit}_per_s"] if sets.get(source) else None


def expected_roofs(document: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per ceiling set, each roof's median over the launches that hold it; the tensor roof over the launches whose
    roof is for the Tensor Core type most launches with tensor FLOPs use (else the first launch's)."""
    kernels = document["kernels"]
    used = [k["ceilings"]["measured-clock"]["tensor_dtype"] for k in kernels if k["flops"]["tensor"]]
    used = [dtype for dtype in used if dtype]
    shown = Counter(used).most_common(1)[0][0] if used else kernels[0]["ceilings"]["measured-clock"]["tensor_dtype"]
    out: dict[str, dict[str, float | None]] = {}
    for source in ("datasheet", "kernel-clock", "measured-clock", "calibrated"):
        holding = [k for k in kernels if k["ceilings"].get(source)]
        if not holding:
            continue
        same = [k for k in holding if k["ceilings"][source]["tensor_dtype"] == shown] or holding
        out[source] = {}
        for roof in ROOFS:
            pool = same if roof == "tensor" else holding
            known = [(v, k["duration_s"] or 0.0, roof in k["ceilings"][source]["scaled"])
                     for k in pool if (v := key_of(k, source, roof)) is not None]
            measured = [(v, w) for v, w, fallback in known if not fallback]
            chosen = measured or [(v, w) for v, w, _ in known]
            out[source][roof] = weighted_median(chosen) if chosen else None
    return out


def shown_roofs(document: dict[str, Any]) -> tuple[str, ...]:
    """The roofs the ceilings tables list: each precision some valid launch ran FLOPs of or could not measure them
    (null), and every level; all of them when no launch is valid; never the Tensor roof on a GPU whose launches'
    Tensor Core diagnosis says it has none."""
    valid = [k for k in document["kernels"] if k["valid"]]
    none = all((k.get("tensor_cores") or {}).get("status") == "no Tensor Cores" for k in document["kernels"])
    possible = [p for p in PRECISIONS if p != "tensor" or not none]
    if not valid:
        return (*possible, *LEVELS)
    return (*(p for p in possible if any(k["flops"][p] is None or k["flops"][p] != 0 for k in valid)), *LEVELS)


def rows(text: str, fmt: str, count: int) -> dict[str, list[str]]:
    """The ceilings table of one output (``count`` rows): the first word of each roof's label -> its cells."""
    if fmt == "table":
        body = text.split("\nCeilings", 1)[1].split("\n")[2:2 + count]
        cells = [re.split(r"\s{2,}", line.strip()) for line in body]
    elif fmt == "markdown":
        body = text.split("### Ceilings", 1)[1].split("\n")[4:4 + count]
        cells = [[c.strip() for c in line.strip("|").split("|")] for line in body]
    else:
        table = text.split("<h3>Ceilings</h3>", 1)[1].split("</table>", 1)[0]
        cells = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in table.split("<tr>")[2:]]
    return {c[0].split()[0]: c[1:] for c in cells}


def shown(value: float | None, roof: str) -> str:
    return si(value, "FLOP/s" if roof in PRECISIONS else "B/s")


def roofs_differ(document: dict[str, Any]) -> bool:
    """Whether any launch's kernel-clock roof is off the report's by more than 1% (the Tensor
    roof of the launches of the Tensor Core type shown only: another type's roof is no other clock's)."""
    report = document["ceilings"]["kernel-clock"]
    return any(abs(mine - theirs) > 0.01 * theirs for k in document["kernels"] for roof in ROOFS
               if (mine := key_of(k, "kernel-clock", roof)) is not None
               and (theirs := report[f"{roof}_{'flop' if roof in PRECISIONS else 'bytes'}_per_s"]) is not None
               and (roof != "tensor" or k["ceilings"]["kernel-clock"]["tensor_dtype"] == report["tensor_dtype"]))


def test_the_ceilings_agree_across_table_markdown_html_and_json(shared_name: str, shared_report, tmp_path):
    report = shared_report(shared_name)
    document = json.loads(run(report, tmp_path, "json"))["reports"][0]
    expected = expected_roofs(document)
    for source, roofs in expected.items():
        for roof, value in roofs.items():
            assert key_of(document, source, roof) == value, (source, roof)
    listed = shown_roofs(document)
    pooled = f"median of {len(document['kernels'])} launches, which ran at different clocks"
    for fmt in ("table", "markdown", "html"):
        text = run(report, tmp_path, fmt)
        assert (pooled in " ".join(text.split())) == roofs_differ(document), fmt
        table = rows(text, fmt, len(listed))
        assert list(table) == [NAMES[roof].split()[0] for roof in listed], fmt  # what the launches ran, no more
        for roof in listed:
            sheet, clock = table[NAMES[roof].split()[0]][:2]
            assert sheet == shown(expected.get("datasheet", {}).get(roof), roof), (fmt, roof)
            scaled = clock.removesuffix("*").removesuffix("\\")  # Markdown escapes the star
            assert scaled == shown(expected["kernel-clock"][roof], roof), (fmt, roof)
