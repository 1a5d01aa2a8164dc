"""Zero-product HFMA2 instructions (register moves) are left out of the FP16 FLOPs.

nvcc and NVRTC set registers with ``HFMA2.MMA Rd, -RZ, RZ, imm, imm`` (0 x 0 + imm, no arithmetic) and ncu
counts those in ``smsp__sass_thread_inst_executed_op_hfma_pred_on``. The expected values are computed here from
the raw report through ``ncu_report`` directly (per-instruction thread executions and SASS text, matched with a
pattern of this file), never through roofline's reader. The H100 reports in examples/h100 are in the repository,
so these tests run without ../shared.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.analysis.roofline import analyze_report
from roofline.core.model import Device, KernelLaunch, Report
from roofline.ncu import extract
from roofline.ncu import metrics as m
from roofline.ncu.extract import hfma2_zero_product
from roofline.ncu.reader import load_report
from roofline.render.report.prose import flop_note_text
from tests.conftest import REPO, SHARED_REPORTS

H100 = REPO / "examples" / "h100"
TRIAD_FULL = H100 / "triad-cupy.full.ncu-rep"  # CuPy FP32 triad a = b + s * c over 2^26 elements, --set full
TRIAD_ROOFLINE = H100 / "triad-cupy.roofline.ncu-rep"  # the same kernel, --set roofline (no SourceCounters)
ELEMENTS = 2**26
HFMA_RATE = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"
SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
# An HFMA2 (any modifiers, any predicate) whose first two sources are RZ or -RZ.
MOVE = re.compile(r"^\s*(?:@\S+\s+)?HFMA2(?:\.[A-Z0-9_]+)*\s+R\w+\s*,\s*-?RZ\s*,\s*-?RZ\s*,")
HFMA2 = re.compile(r"^\s*(?:@\S+\s+)?HFMA2[.\s]")


# --- The independent count --------------------------------------------------------------------------------------
# Run in a fresh interpreter: once ncu_report's disassembler has run in a process, a child forked from it (as
# roofline's reader forks) hangs in sass_by_pc, so this test process must never call it.
COUNT_SCRIPT = r"""
import json, re, sys
import ncu_report

MOVE = re.compile(sys.argv[2])
HFMA2 = re.compile(sys.argv[3])
ctx = ncu_report.load_report(sys.argv[1])
out = []
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        action = rng.action_by_idx(a)
        values = {}
        for name in action.metric_names():
            v = action.metric_by_name(name).value()
            if isinstance(v, (int, float)):
                values[name] = v
        per_pc = action.metric_by_name("thread_inst_executed_true")
        hfma2 = moves = None
        if per_pc is not None:
            ids, hfma2, moves = per_pc.correlation_ids(), 0.0, 0.0
            for i in range(per_pc.num_instances()):
                text = action.sass_by_pc(ids.as_uint64(i))
                hfma2 += per_pc.as_double(i) if HFMA2.match(text) else 0.0
                moves += per_pc.as_double(i) if MOVE.match(text) else 0.0
        out.append({"values": values, "hfma2": hfma2, "moves": moves})
print(json.dumps(out))
"""


class Raw:
    """One action read with ncu_report: its numeric metric values, and its HFMA2 thread executions from the
    per-PC counts (``hfma2``, all of them; ``moves``, the zero-product ones), None without per-PC counts."""

    def __init__(self, values: dict[str, float], hfma2: float | None, moves: float | None) -> None:
        self.values, self.hfma2, self.moves = values, hfma2, moves

    def count(self, rate: str) -> float:
        """A counter from its per-cycle rate: rate x SMSP clock x duration."""
        return self.values[rate] * self.values[SMSP_CLOCK] * self.values["gpu__time_duration.sum"] * 1e-9

    @property
    def counts_hfma(self) -> bool:
        return any(n.startswith(("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
                                 "sm__sass_thread_inst_executed_op_hfma_pred_on.sum")) for n in self.values)


@functools.cache
def raw_report(path: Path) -> tuple[Raw, ...]:
    pytest.importorskip("ncu_report")
    done = subprocess.run([sys.executable, "-c", COUNT_SCRIPT, str(path), MOVE.pattern, HFMA2.pattern],
                          capture_output=True, text=True, check=True)
    return tuple(Raw(**action) for action in json.loads(done.stdout))


# --- Which SASS is a move ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sass, expected", [
    ("      HFMA2.MMA R12, -RZ, RZ, 0, 0", True),  # the triad's move (nvcc/NVRTC, sm_90)
    ("HFMA2 R5, RZ, RZ, 1.875, 0", True),  # a constant loaded, no modifier
    ("HFMA2.MMA R3, -RZ, RZ, 1.625, 0", True),
    ("@P0 HFMA2.MMA R4, -RZ, RZ, 0, 0", True),  # predicated
    ("@!PT HFMA2.FTZ R4, RZ, -RZ.H0_H0, R7.H1_H1", True),  # a lane of RZ is still 0; the addend may be a register
    ("HFMA2 R4, R2, R3, R4", False),  # real packed FP16 FMA
    ("HFMA2.MMA R2, R3, -RZ, 0, 0", False),  # one multiplicand is a register: arithmetic
    ("HFMA2.MMA R2, -RZ, R3, 0, 0", False),
    ("HFMA2 R35, -R0.H0_H0, R34.H0_H0, R23.H1_H1", False),
    ("HFMA2 R0, R2, 0.5, 0.5, R3", False),  # immediate multiplicand
    ("HADD2 R4, -RZ, RZ", None),  # not an HFMA2
    ("FFMA R1, RZ, RZ, 1", None),
    ("HFMA2X R1, RZ, RZ, 0, 0", None),
    ("???", None),  # what ncu_report gives where it cannot disassemble (the V100 report)
    ("", None),
])
def test_zero_product_hfma2_is_told_from_real_fp16_math(sass, expected):
    assert hfma2_zero_product(sass) is expected


# --- The reader's count ------------------------------------------------------------------------------------------
def test_triad_moves_are_one_per_element_and_absent_without_source_counters():
    (raw,) = raw_report(TRIAD_FULL)
    (launch,) = load_report(TRIAD_FULL).launches
    assert launch.metrics[m.HFMA_MOVES] == raw.moves == raw.hfma2 == ELEMENTS  # every HFMA2 is a move
    assert raw.count(HFMA_RATE) == pytest.approx(ELEMENTS, rel=1e-12)  # ncu counts them as hfma
    (roofline_set,) = load_report(TRIAD_ROOFLINE).launches
    assert m.HFMA_MOVES not in roofline_set.metrics and roofline_set.value(HFMA_RATE) is not None  # absent, not 0


def _shared_full_reports() -> list[str]:
    names = sorted(p.name for p in SHARED_REPORTS.glob("*full*.ncu-rep")) if SHARED_REPORTS.is_dir() else []
    return names or ["(shared folder missing)"]


@pytest.mark.parametrize("name", _shared_full_reports())
def test_reader_count_equals_the_independent_count(name, roofline_report):
    report, raws = roofline_report(name), raw_report(SHARED_REPORTS / name)
    for launch, raw in zip(report.launches, raws, strict=True):
        where = f"{name} {launch.key}"
        if m.HFMA_MOVES in launch.metrics:
            assert launch.metrics[m.HFMA_MOVES] == raw.moves, where
        else:  # no per-instruction counts, no hfma counter to correct, or no HFMA2 executed
            assert raw.hfma2 is None or not raw.counts_hfma or raw.hfma2 == 0, where


class _Ids:
    def __init__(self, ids: list) -> None:
        self.ids = ids

    def as_string(self, i: int) -> str:
        return self.ids[i]

    def as_uint64(self, i: int) -> int:
        return self.ids[i]


class _Metric:
    """An instanced ncu_report metric: values by correlation id (opcode names or PCs)."""

    def __init__(self, values: dict) -> None:
        self.values = values

    def correlation_ids(self) -> _Ids:
        return _Ids(list(self.values))

    def num_instances(self) -> int:
        return len(self.values)

    def as_double(self, i: int) -> float:
        return list(self.values.values())[i]


class _Action:
    """Per-PC thread executions and SASS text of a made-up kernel, and the PCs whose SASS was asked for."""

    def __init__(self, program: list[tuple[str, float]], hfma2: float) -> None:
        self.sass = dict(enumerate(text for text, _ in program))
        self.metrics = {m.PER_PC_THREAD_INST: _Metric({pc: n for pc, (_, n) in enumerate(program)}),
                        m.PER_OPCODE_THREAD_INST: _Metric({"FFMA": 64.0, m.HFMA2_OPCODE: hfma2})}
        self.asked: list[int] = []

    def metric_by_name(self, name: str) -> _Metric | None:
        return self.metrics.get(name)

    def sass_by_pc(self, pc: int) -> str:
        self.asked.append(pc)
        return self.sass[pc]


PROGRAM = [("HFMA2.MMA R2, -RZ, RZ, 0, 0", 32.0), ("FFMA R1, R2, R3, R4", 64.0), ("HFMA2 R4, R2, R3, R4", 8.0),
           ("@P0 BRA 0x10", 0.0), ("EXIT", 32.0)]


def test_the_reader_counts_moves_until_every_hfma2_is_found():
    action = _Action(PROGRAM, hfma2=40.0)
    assert extract.hfma_moves(action) == 32.0
    assert action.asked == [0, 1, 2]  # no SASS read once the 40 HFMA2 executions are found, none for a PC not run


@pytest.mark.parametrize("program, hfma2", [
    ([("???", 32.0), *PROGRAM[1:]], 40.0),  # a SASS text ncu_report cannot give: the HFMA2s do not add up
    (PROGRAM, 50.0),  # ncu counted HFMA2s this launch's per-PC counts do not hold
    (PROGRAM, 0.0),  # no HFMA2 executed
])
def test_the_reader_gives_no_count_it_cannot_vouch_for(program, hfma2):
    assert extract.hfma_moves(_Action(program, hfma2)) is None


def test_no_count_without_per_instruction_counts():
    action = _Action(PROGRAM, 40.0)
    del action.metrics[m.PER_PC_THREAD_INST]
    assert extract.hfma_moves(action) is None and not action.asked


def test_the_count_survives_the_report_model(tmp_path, monkeypatch):
    report = load_report(TRIAD_FULL)
    path = tmp_path / "triad.roofline.json"
    path.write_text(json.dumps(report.to_dict()))
    monkeypatch.setitem(sys.modules, "ncu_report", None)
    loaded = load_report(path)
    assert loaded.launches == report.launches and loaded.launches[0].metrics[m.HFMA_MOVES] == ELEMENTS
    assert analyze_report(loaded).launches[0].flops["fp16"].value == 0.0


# --- The FLOPs ---------------------------------------------------------------------------------------------------
def hfma2_notes(notes: tuple[m.FlopNote, ...]) -> list[str]:
    """The sentences of the notes on HFMA2 register moves (left out, or counted as they could not be told)."""
    kinds = (m.FlopNoteKind.HFMA_MOVES_LEFT_OUT, m.FlopNoteKind.HFMA_MOVES_UNCOUNTED)
    return [flop_note_text(n) for n in notes if n.kind in kinds]


def test_triad_full_counts_its_fp32_math_and_no_fp16():
    (raw,) = raw_report(TRIAD_FULL)
    (k,) = analyze_report(load_report(TRIAD_FULL)).launches
    fp32 = sum(w * raw.count(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed")
               for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2)))
    assert round(fp32) == 2 * ELEMENTS  # one FFMA per element
    assert k.flops["fp32"].value == pytest.approx(fp32, rel=1e-12) and round(k.flops["fp32"].value) == 2 * ELEMENTS
    assert k.flops["fp16"].value == 0.0  # 4 x (hfma - moves), hfma rebuilt from its rate, rounded to whole ones
    assert k.flops["fp64"].value == 0.0 and k.flops["tensor"].value == 0.0
    dram = raw.values["dram__bytes.sum.per_second"] * raw.values["gpu__time_duration.sum"] * 1e-9
    assert k.intensity["dram"].value == pytest.approx(2 * ELEMENTS / dram, rel=1e-12)  # ~0.169 FLOP/byte
    excluded = 4 * raw.moves
    assert hfma2_notes(k.notes) == [
        f"FP16 FLOPs leave out {excluded:,.0f} FLOPs: {raw.moves:,.0f} zero-product HFMA2 thread instructions, "
        "register moves through the FMA pipe with no arithmetic"]


def test_triad_without_source_counters_keeps_its_hfma_count_and_says_so():
    (raw,) = raw_report(TRIAD_ROOFLINE)
    (k,) = analyze_report(load_report(TRIAD_ROOFLINE)).launches
    assert raw.hfma2 is None  # no per-instruction counts in --set roofline
    assert k.flops["fp16"].value == pytest.approx(4 * raw.count(HFMA_RATE), rel=1e-12)  # unchanged: 4 x hfma
    assert k.flops["fp16"].value == pytest.approx(4 * ELEMENTS, rel=1e-12)
    (note,) = hfma2_notes(k.notes)
    assert "register moves" in note and "--set full" in note and "SourceCounters" in note


def test_moves_counted_in_a_shared_report_leave_no_fp16_flops(roofline_report):
    """The H100 RMSNorm kernel (float4 FP32 math) runs 2,097,157 HFMA2s a launch, all zero-product moves."""
    name = "h100-pcie_rmsnorm-float4_full-roofline"
    report = roofline_report(name)  # skips without ../shared
    for k, raw in zip(analyze_report(report).launches, raw_report(SHARED_REPORTS / f"{name}.ncu-rep"), strict=True):
        assert raw.moves == raw.hfma2 > 0
        assert k.flops["fp16"].value == 4 * max(0.0, round(raw.count(HFMA_RATE) - raw.moves)) == 0.0
        assert hfma2_notes(k.notes) == [
            f"FP16 FLOPs leave out {4 * raw.moves:,.0f} FLOPs: {raw.moves:,.0f} zero-product HFMA2 thread "
            "instructions, register moves through the FMA pipe with no arithmetic"]


# --- The formula over a cohort (arrays) and one launch alone ---------------------------------------------------------
def _fp16_launch(i: int, hfma: float, hadd: float, moves: float | None) -> KernelLaunch:
    counters = {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": hfma,
                "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": hadd,
                "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 0.0, "gpu__time_duration.sum": 1e3}
    return KernelLaunch(0, i, "k", metrics={**counters, **({} if moves is None else {m.HFMA_MOVES: moves})})


CASES = [  # hfma, hadd, moves (None: not counted), FP16 FLOPs, the start of the note ("" for none)
    (1000.0, 0.0, 10.0, 4 * 990.0, "FP16 FLOPs leave out 40 FLOPs: 10 zero-product HFMA2"),
    (4194303.9999999995, 0.0, 4194304.0, 0.0, "FP16 FLOPs leave out 16,777,216 FLOPs: 4,194,304 "),  # a rate's error
    (100.0, 0.0, 101.0, 0.0, "FP16 FLOPs leave out 404 FLOPs: 101 "),  # never below 0
    (1000.0, 3.0, 0.0, 4 * 1000.0 + 2 * 3.0, ""),  # counted, none ran: no note
    (1000.0, 0.0, None, 4 * 1000.0, "FP16 FLOPs come from HFMA2 instructions alone"),  # not counted: kept, said so
    (1000.0, 3.0, None, 4 * 1000.0 + 2 * 3.0, ""),  # hadd FLOPs too: half-precision math, no note
    (0.0, 0.0, None, 0.0, ""),
]


@pytest.mark.parametrize("hfma, hadd, moves, fp16, note", CASES)
def test_fp16_flops_leave_out_the_moves(hfma, hadd, moves, fp16, note):
    got = m.cuda_core_flops(_fp16_launch(0, hfma, hadd, moves), "fp16")
    assert got.value == fp16
    notes = hfma2_notes(got.notes)
    assert (notes[0].startswith(note) and len(notes) == 1) if note else not notes


def test_a_cohort_gives_each_launch_what_it_gives_alone():
    """Launches holding the same metrics are analysed together over arrays; the moves, the FP16 FLOPs and the
    per-launch note come out as for each launch alone."""
    counted = [_fp16_launch(i, hfma, hadd, moves) for i, (hfma, hadd, moves, _, _) in enumerate(CASES)
               if moves is not None]
    together = analyze_report(Report("model.json", Device("GPU", "9.0"), tuple(counted))).launches
    assert len({tuple(k.metrics) for k in counted}) == 1  # one cohort
    for launch, k in zip(counted, together, strict=True):
        alone = m.cuda_core_flops(launch, "fp16")
        assert k.flops["fp16"].value == alone.value and hfma2_notes(k.notes) == hfma2_notes(alone.notes)
        # the intensity too, a value or "not measured" by whether the FLOPs left after the moves are zero
        (single,) = analyze_report(Report("model.json", Device("GPU", "9.0"), (launch,))).launches
        assert {lv: v.value for lv, v in k.intensity.items()} == {lv: v.value for lv, v in single.intensity.items()}
    assert len({k.flops["fp16"].value == 0 for k in together}) == 2  # zero in some launches, not in others


@pytest.mark.parametrize("hfma, hadd, moves, fp16, note", CASES)
def test_fma_instructions_are_the_fma_term_of_the_flops(hfma, hadd, moves, fp16, note):
    """The instruction-mix diagnostic's FMA count is the one the FP16 FLOPs use (moves left out), so its share
    of the FP16 FLOPs never exceeds 1."""
    launch = _fp16_launch(0, hfma, hadd, moves)
    fma = m.fma_instructions(launch, "fp16")
    assert fma is not None and 4 * fma + 2 * hadd == m.cuda_core_flops(launch, "fp16").value


def test_a_cohort_whose_fp16_flops_are_zero_in_one_launch_beside_tensor_work_gives_each_its_intensity():
    """Two launches holding the same metrics, FP64 not measured, FP32 counting none, Tensor FLOPs counted, and FP16
    FLOPs left after the HFMA2 moves in one launch only: each launch's intensity is a lower bound of its own
    (the Tensor FLOPs and its FP16 ones over its DRAM bytes), as for each alone; a formula that tested FP16's
    zero per cohort raised CohortMismatch here."""
    extra = {**{f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": 0.0 for op in ("fadd", "fmul", "ffma")},
             "sm__ops_path_tensor_src_fp16.sum": 1e9, "dram__bytes.sum": 1e6}
    launches = [KernelLaunch(0, i, "k", metrics={**_fp16_launch(i, hfma, 0.0, moves).metrics, **extra})
                for i, (hfma, moves) in enumerate(((1000.0, 10.0), (100.0, 101.0)))]
    together = analyze_report(Report("model.json", Device("GPU", "9.0"), tuple(launches))).launches
    assert [k.flops["fp16"].value for k in together] == [4 * 990.0, 0.0]
    for launch, k in zip(launches, together, strict=True):
        (alone,) = analyze_report(Report("model.json", Device("GPU", "9.0"), (launch,))).launches
        assert k.intensity["dram"].value == alone.intensity["dram"].value == \
            (1e9 + k.flops["fp16"].value) / 1e6
        assert k.intensity_leaves_out == ("fp64",)
