"""The per-PC counters of the SourceCounters section (``model.PcSampling``), against an independent read.

The expected values come from ``ncu_report`` directly, in a fresh interpreter (once its disassembler ran in a
process, a child forked from it hangs in ``sass_by_pc``, and roofline's reader forks): each launch's total of warp
samples (the plain value of ``smsp__pcsamp_sample_count``), the instruction with the most samples, its samples per
stall reason, its SASS text and its source line. The H100 and H200 reports are in the repository (the H200 SGEMM and
integer kernels built with -lineinfo, their source imported); the others are in ../shared/ncu-reps and skip without
it.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.core.model import PcCounters, PcSampling, Report
from roofline.errors import ReportError
from roofline.ncu.reader import load_report
from tests.conftest import REPO, SHARED_REPORTS

H100 = REPO / "examples" / "h100"
H200 = REPO / "examples" / "h200"
SGEMM_LINEINFO = H200 / "sgemm-lineinfo.full.ncu-rep"  # examples/sgemm built with -lineinfo, source imported
INTOPS = H200 / "intops.full.ncu-rep"  # examples/intops: hash_rounds and gather_strided, -lineinfo
IN_REPO = [H100 / "triad-cupy.full.ncu-rep", H100 / "torch-bf16.full.ncu-rep", SGEMM_LINEINFO, INTOPS,
           H200 / "triad-cupy.full.ncu-rep"]
SHARED = ["v100_miniweather-openacc_full", "rtx4090_smem-transpose_full", "a100-80gb_cutlass-gemm_full",
          "rtx3060-laptop_reductions_full", "h800_flash-attn-fwd_full", "rtx3080_sgemm-vs-cublas_full"]

READ_SCRIPT = r"""
import json, sys
import ncu_report

ctx = ncu_report.load_report(sys.argv[1])
out = []
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        action = rng.action_by_idx(a)
        count = action.metric_by_name("smsp__pcsamp_sample_count")
        if count is None:
            out.append(None)
            continue
        ids = count.correlation_ids()
        per_pc = {ids.as_uint64(i): count.as_uint64(i) for i in range(count.num_instances())}
        top = max(per_pc, key=lambda pc: (per_pc[pc], -pc)) if per_pc else None
        stalls = {}
        for name in action.metric_names():
            if name.startswith("smsp__pcsamp_warps_issue_stalled_") and not name.endswith("_not_issued"):
                metric = action.metric_by_name(name)
                rids = metric.correlation_ids()
                for i in range(metric.num_instances()):
                    if rids.as_uint64(i) == top and metric.as_uint64(i) > 0:
                        stalls[name[len("smsp__pcsamp_warps_issue_stalled_"):]] = metric.as_uint64(i)
        starts = action.metric_by_name("launch__function_pcs")
        start = max(s for s in (starts.as_uint64(i) for i in range(starts.num_instances())) if s <= top) \
            if top is not None else None
        info = action.source_info(top) if top is not None else None
        out.append({"total": count.as_uint64(), "per_pc_sum": sum(per_pc.values()),
                    "top_samples": per_pc[top] if top is not None else None,
                    "top_offset": top - start if top is not None else None, "top_stalls": stalls,
                    "top_sass": action.sass_by_pc(top).strip() if top is not None else None,
                    "top_source": [info.file_name(), info.line()] if info is not None else None})
print(json.dumps(out))
"""


@functools.cache
def independent(path: Path) -> list[dict | None]:
    """Each launch's warp samples read with ncu_report alone, in a fresh interpreter."""
    pytest.importorskip("ncu_report")
    run = subprocess.run([sys.executable, "-c", READ_SCRIPT, str(path)], capture_output=True, text=True, timeout=300,
                         check=True)
    return json.loads(run.stdout)


def _path(name: str | Path) -> Path:
    if isinstance(name, Path):
        return name
    path = SHARED_REPORTS / f"{name}.ncu-rep"
    if not path.is_file():
        pytest.skip(f"{path.name} not found: real-report tests need ../shared/ncu-reps beside the repository")
    return path


@functools.cache
def _report(path: Path) -> Report:
    return load_report(path)


@pytest.mark.parametrize("name", [*IN_REPO, *SHARED], ids=lambda n: Path(n).stem if isinstance(n, Path) else n)
def test_per_pc_samples_match_an_independent_read(name: str | Path) -> None:
    path = _path(name)
    expected, report = independent(path), _report(path)
    assert len(expected) == len(report.launches)
    checked = 0
    for launch, want in zip(report.launches, expected, strict=True):
        sampling = launch.pc_sampling
        if want is None:
            assert sampling is None
            continue
        assert sampling is not None
        assert sampling.total_samples == want["total"] == want["per_pc_sum"]
        assert sum(pc.samples for pc in sampling.pcs) == want["total"]  # every sampled PC is kept
        if want["top_samples"] is None or not want["total"]:
            continue
        top = max(sampling.pcs, key=lambda pc: pc.samples)
        assert (top.samples, top.pc_offset) == (want["top_samples"], want["top_offset"])
        assert dict(top.stalls) == want["top_stalls"]
        assert sum(n for reason, n in top.stalls.items()) == top.samples  # the reasons partition the samples
        assert top.sass == (None if want["top_sass"] in ("", "???") else want["top_sass"])
        assert ([top.file, top.line] if top.file is not None else None) == want["top_source"]
        checked += 1
    assert checked


def test_the_v100_stencil_step_is_one_long_scoreboard_instruction() -> None:
    """The issue's example: one instruction of the miniWeather step holds 85% of the samples, nearly all of them
    waiting on long-scoreboard (global loads); the report has no SASS this ncu_report can decode."""
    report = _report(_path("v100_miniweather-openacc_full"))
    sampling = report.launches[4].pc_sampling
    assert sampling is not None
    top = max(sampling.pcs, key=lambda pc: pc.samples)
    assert top.samples / sampling.total_samples == pytest.approx(239764 / 282580)
    assert top.stalls["long_scoreboard"] / top.samples > 0.99
    assert top.sass is None and "???" in sampling.sass_missing
    assert (Path(top.file or "").name, top.line) == ("miniWeather_mpi_openacc.F90", 257)


def test_lineinfo_maps_shared_memory_instructions_to_their_lines() -> None:
    """In the shared-memory transposes (built with line information, source imported), each shared store maps to
    a line that writes the tile, and each shared load to a line that reads it."""
    report = _report(_path("rtx4090_smem-transpose_full"))
    seen = 0
    for launch in report.launches[2:]:
        sampling = launch.pc_sampling
        assert sampling is not None
        for pc in sampling.pcs:
            opcode = (pc.sass or "").split()[0] if pc.sass else ""
            if opcode in ("STS", "LDS"):
                assert pc.file is not None and pc.line is not None
                text = sampling.source_text[pc.file][pc.line]
                left, _, right = text.partition("=")
                assert "tile[" in (left if opcode == "STS" else right), (opcode, text)
                seen += 1
    assert seen >= 6


def test_lineinfo_maps_the_tiled_sgemm_to_its_lines() -> None:
    """examples/sgemm/sgemm.cu: every FFMA is the inner product's line (45, fmaf over the shared tiles), every
    shared store one of the two tile loads (40, 41), every shared load the inner product; the text is the file's."""
    sampling = _report(SGEMM_LINEINFO).launches[0].pc_sampling
    assert sampling is not None
    source = (REPO / "examples" / "sgemm" / "sgemm.cu").read_text().splitlines()
    lines: dict[str, set[int]] = {}
    for pc in sampling.pcs:
        opcode = (pc.sass or "").split()[0]
        if opcode in ("FFMA", "STS", "LDS") and pc.samples:
            assert pc.file is not None and pc.file.endswith("sgemm.cu") and pc.line is not None
            lines.setdefault(opcode, set()).add(pc.line)
            assert sampling.source_text[pc.file][pc.line] == source[pc.line - 1]
    assert lines == {"FFMA": {45}, "STS": {40, 41}, "LDS": {45}}
    assert "fmaf(a_tile[threadIdx.y][k], b_tile[k][threadIdx.x], sum)" in source[44]


def test_lineinfo_maps_the_strided_gather_to_its_load() -> None:
    """examples/intops: the gather's global load and store are line 63 (out[i] = in[j]), which holds 88% of the
    launch's samples, nearly all waiting on the load (long scoreboard)."""
    sampling = _report(INTOPS).launches[1].pc_sampling
    assert sampling is not None
    memory = [pc for pc in sampling.pcs if (pc.sass or "").split()[0].startswith(("LDG", "STG"))]
    assert memory and {pc.line for pc in memory} == {63}
    on_line = [pc for pc in sampling.pcs if pc.line == 63]
    assert sum(pc.samples for pc in on_line) / sampling.total_samples > 0.85
    assert sum(pc.stalls.get("long_scoreboard", 0) for pc in on_line) / sum(pc.samples for pc in on_line) > 0.9


def test_source_text_holds_context_around_sampled_lines() -> None:
    report = _report(_path("rtx4090_smem-transpose_full"))
    sampling = report.launches[1].pc_sampling
    assert sampling is not None
    top = max(sampling.pcs, key=lambda pc: pc.samples)
    assert top.file is not None and top.line is not None
    lines = sampling.source_text[top.file]
    assert {top.line - 3, top.line, top.line + 3} <= set(lines)
    assert "C[iy * innerDim + ix] = A[iy * innerDim + ix];" in lines[top.line]


def test_a_report_without_line_information_keeps_pcs_without_source() -> None:
    sampling = _report(IN_REPO[0]).launches[0].pc_sampling
    assert sampling is not None and sampling.pcs
    assert all(pc.file is None and pc.line is None for pc in sampling.pcs)
    assert sampling.source_text == {}
    assert all(pc.sass for pc in sampling.pcs)


def test_pc_sampling_round_trips_through_a_report_model(tmp_path: Path) -> None:
    report = _report(_path("rtx4090_smem-transpose_full"))
    model = tmp_path / "smem.json"
    model.write_text(json.dumps(report.to_dict()))
    again = load_report(model)
    assert [launch.pc_sampling for launch in again.launches] == [launch.pc_sampling for launch in report.launches]


def test_a_model_without_pc_sampling_loads_with_none() -> None:
    again = load_report(H100 / "torch-fp16.full.json")
    assert all(launch.pc_sampling is None for launch in again.launches)


@pytest.mark.parametrize(("bad", "named"), [
    ({"total_samples": -1}, "total_samples:"),
    ({"total_samples": 1, "pcs": [{"pc_offset": 0, "samples": 1.5}]}, "pcs[0].samples:"),
    ({"total_samples": 1, "pcs": [{"pc_offset": 0, "samples": 1, "stalls": {"wait": "x"}}]}, "pcs[0].stalls[...]:"),
    ({"total_samples": 1, "source_text": {"a.cu": {"x": "int i;"}}}, "source_text[...]:"),
    ({"total_samples": 1, "pcs": [{"pc_offset": 0, "samples": 1, "sass": 3}]}, "pcs[0].sass:"),
])
def test_a_malformed_pc_sampling_is_refused_by_name(tmp_path: Path, bad: dict, named: str) -> None:
    launch = {"range_index": 0, "action_index": 0, "name": "k", "pc_sampling": bad}
    model = tmp_path / "bad.json"
    model.write_text(json.dumps({"format": "roofline-report-model", "version": 1, "device": {"name": "gpu"},
                                 "launches": [launch]}))
    with pytest.raises(ReportError, match=re.escape(f"launches[0].pc_sampling.{named}")):
        load_report(model)


def test_pc_sampling_from_dict_inverts_to_dict() -> None:
    sampling = PcSampling(10, (PcCounters(16, 7, {"wait": 7}, 4.0, 128.0, {}, "FFMA R1, R2, R3, R4", "k.cu", 12),
                               PcCounters(32, 3, {"selected": 3})), "", {"k.cu": {12: "a = b * c + d;"}})
    assert PcSampling.from_dict(json.loads(json.dumps(sampling.to_dict()))) == sampling
