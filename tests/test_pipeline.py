"""roofline.pipeline: the one analysis path of every command and of the Python API (roofline.analyze_files)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import structs

import roofline
from roofline import pipeline
from roofline.analysis.roofline import analyze_report
from roofline.core import parallel
from roofline.core.model import Device, KernelLaunch, Report
from roofline.errors import NoKernelMatched, RooflineError, SpecError
from roofline.ncu import reader
from roofline.pipeline import AnalysisOptions, analyze_files, analyze_loaded
from roofline.specs import catalog as specs
from roofline.specs.catalog import SpecCatalog

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "h100-sxm_synthetic.roofline.json"


def test_a_file_named_twice_is_read_once_with_one_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    catalogs: list[object] = []
    opened, catalog = reader.ReportReading.__init__, specs.load_catalog

    def counted_open(self: reader.ReportReading, path: str | os.PathLike[str], time_limit_s: float | None = None,
                     sass: bool = True) -> None:
        reads.append(str(path))
        opened(self, path, time_limit_s, sass)

    def counted_catalog(extra: Sequence[str | os.PathLike[str]] = ()) -> SpecCatalog:
        catalogs.append(extra)
        return catalog(extra)

    monkeypatch.setattr(reader.ReportReading, "__init__", counted_open)
    monkeypatch.setattr(specs, "load_catalog", counted_catalog)
    first, again = analyze_files([EXAMPLE, REPO / "examples" / ".." / "examples" / EXAMPLE.name])
    assert first is again and reads == [str(EXAMPLE)] and len(catalogs) == 1


def test_as_many_models_are_parsed_at_once_as_fit_in_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each job parses a model at about MODEL_PARSE_FACTOR times its size: --jobs is cut to what free memory holds."""
    size = EXAMPLE.stat().st_size * reader.MODEL_PARSE_FACTOR
    monkeypatch.setattr(pipeline, "free_memory", lambda: 2 * size + 1)  # two of the example fit, not three
    assert pipeline.jobs_in_memory([EXAMPLE] * 5) == 2
    assert pipeline.jobs_in_memory([REPO / "x.ncu-rep"] * 3) == 3  # an .ncu-rep's model is a small part of it
    jobs: list[int] = []

    def serial(work: Callable[[Any], Any], items: Sequence[Any], n: int, done: Any) -> list[Any]:
        jobs.append(n)
        return [work(item) for item in items]

    monkeypatch.setattr(parallel, "in_workers", serial)
    monkeypatch.setattr(pipeline, "free_memory", lambda: size + 1)  # one at a time
    (tmp_path / "copy.json").write_bytes(EXAMPLE.read_bytes())
    analyze_files([EXAMPLE, tmp_path / "copy.json"], jobs=4)
    assert jobs == [1]


def test_every_launch_gets_diagnostics_and_advice():
    (a,) = analyze_files([EXAMPLE])
    assert a.spec_id == "h100-sxm5" and a.ceilings_used == "kernel-clock"
    for k in a.launches:
        assert k.occupancy is not None and k.tensor_cores is not None and k.advice
    for group in a.groups:  # groups hold the completed launches, not the bare roofline ones
        assert all(k.advice for k in group.launches)
    bare = analyze_report(roofline.load(EXAMPLE))  # the roofline maths alone
    assert all(k.occupancy is None and k.tensor_cores is None and not k.advice for k in bare.launches)
    assert [k.roof for k in bare.launches] == [k.roof for k in a.launches]  # kernel-clock ceilings in both
    datasheet = analyze_files([EXAMPLE], AnalysisOptions(ceilings="datasheet"))[0]
    assert [k.roof for k in datasheet.launches] != [k.roof for k in a.launches]


def test_without_diagnostics_the_launches_keep_their_roofline_figures_only():
    (full,) = analyze_files([EXAMPLE])
    (lean,) = analyze_files([EXAMPLE], AnalysisOptions(diagnostics=False))  # as summary, compare and diff ask
    assert all(k.occupancy is None and k.tensor_cores is None and k.stalls is None and k.instruction_roofline is None
               and not k.advice for k in lean.launches)
    assert all(k.instruction_roofline is not None for k in full.launches)
    assert all(k.time_model is None for k in lean.launches) and all(k.time_model for k in full.launches)
    assert all(k.memory is None for k in lean.launches)
    assert [structs.replace(k, occupancy=None, tensor_cores=None, stalls=None, instruction_roofline=None, advice=(),
                            time_model=None, memory=None, combined_saved_s=None, combined_floor_s=None)
            for k in full.launches] == list(lean.launches)
    assert [(g.name, g.total_s) for g in full.groups] == [(g.name, g.total_s) for g in lean.groups]
    for whole, bare in zip(full.groups, lean.groups, strict=True):  # the time models hold it to the achievable
        gaps = [k.time_model.reach_gap_s for k in whole.launches]
        assert whole.recoverable_s <= bare.recoverable_s * (1 + 1e-12)
        assert whole.recoverable_s <= sum(gaps) * (1 + 1e-12)


def test_options_select_kernels_and_ceilings():
    (a,) = analyze_files([EXAMPLE], AnalysisOptions(kernel=("regex:^gemm",), ceilings="measured-clock"))
    assert [k.launch.name for k in a.launches] == ["gemm_bf16_tensor_4096"]
    assert a.ceilings_used == "measured-clock" and a.launches[0].roof.ceilings == "measured-clock"
    assert "datasheet" in a.launches[0].ceilings  # the datasheet set stays side by side
    (both,) = analyze_files([EXAMPLE], AnalysisOptions(kernel=("triad", "exact:sgemm_fp32_4096")))
    assert [k.launch.name for k in both.launches] == ["sgemm_fp32_4096", "triad_fp32"]  # OR-ed, report order
    with pytest.raises(NoKernelMatched, match="no kernel matches --kernel 'absent': nearest function names: "):
        analyze_files([EXAMPLE], AnalysisOptions(kernel=("absent",)))


def test_a_bad_filter_is_refused_before_any_file_is_read(tmp_path):
    with pytest.raises(RooflineError, match=r"--kernel regex '\\<x': "):
        analyze_files([tmp_path / "missing.ncu-rep"], AnalysisOptions(kernel=(r"regex:\<x",)))


def test_spec_ceilings_for_an_unknown_gpu_is_a_one_line_error():
    launch = KernelLaunch(0, 0, "k", metrics={"gpu__time_duration.sum": 1000.0})
    report = Report("imaginary.json", Device("NVIDIA Imaginary GPU", "8.0", 3), (launch,), source="model")
    assert analyze_loaded(report).ceilings_used == "kernel-clock"  # auto: no spec, the report's own roofs at its clocks
    with pytest.raises(SpecError, match="imaginary.json: no device spec matches 'NVIDIA Imaginary GPU'"):
        analyze_loaded(report, AnalysisOptions(ceilings="datasheet"))


def test_loaded_and_file_analyses_agree():
    (from_file,) = analyze_files([EXAMPLE])
    assert analyze_loaded(roofline.load(EXAMPLE)) == from_file


def test_public_api_is_exported_lazily():
    from roofline.facade import Roofline

    assert roofline.AnalysisOptions is AnalysisOptions and roofline.Roofline is Roofline
    code = ("import sys, roofline; assert 'roofline.pipeline' not in sys.modules; "
            "roofline.AnalysisOptions; assert 'roofline.analysis.roofline' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# --- The analysis scope ---------------------------------------------------------------------------------------------
def test_the_analysis_scope_is_the_commands_not_the_output_formats():
    """No format steers how much is analysed: the registry names none, and the options hold only what the command
    asks (diagnostics, SASS), not an output's reach."""
    from msgspec.structs import fields

    from roofline.render.base import Format

    assert "every_launch" not in {f.name for f in fields(Format)}
    assert "every_launch" not in AnalysisOptions.__struct_fields__


def test_a_read_started_ahead_is_stopped_when_the_run_fails_before_taking_it(tmp_path):
    """A bad --specs ends the run after the report's read was started (by the command line, before it was parsed):
    that read is stopped, so a later run reads the file afresh (a read taken later would carry a time limit
    counted from its old start)."""
    from roofline.ncu import child

    path = REPO / "examples" / "h100" / "sgemm-cuda.roofline.ncu-rep"
    assert child.read_ahead(path)
    with pytest.raises(SpecError):
        analyze_files([path], AnalysisOptions(specs=(tmp_path / "absent.yaml",)))
    assert not child._AHEAD
    assert analyze_files([path], AnalysisOptions(time_limit_s=30))[0].launches


def _json_with_and_without_early_diagnoses(path: Path, options: AnalysisOptions,
                                           monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    """The report JSON of ``path`` with early diagnoses and without, and how many launches were diagnosed early."""
    from roofline.core import mechanisms
    from roofline.render.report import json as json_render

    taken: list[int] = []
    found = pipeline.EarlyDiagnoses.found

    def counted(self: pipeline.EarlyDiagnoses, *args: Any) -> dict[int, Any]:
        kept = found(self, *args)
        taken.append(len(kept))
        return kept

    monkeypatch.setattr(pipeline.EarlyDiagnoses, "found", counted)
    texts = []
    for switch in ("", "early-diagnoses"):
        monkeypatch.setenv(mechanisms.SWITCH, switch)
        texts.append(json_render.render(pipeline.build_view([analyze_files([path], options)[0]])))
    return texts[0], texts[1], sum(taken)


@pytest.mark.parametrize("name, kernel", [("a100-40gb_selfjoin-cub-sort-154launches_basic", ()),
                                          ("rtx2070super_alife-143launches_basic", ("exact:render_kernel",)),
                                          ("h800_flash-attn-fwd_full", ()),
                                          ("gh200_silu_metrics", ())])
def test_launches_diagnosed_while_the_report_is_read_give_the_same_document(name, kernel, shared_report,
                                                                              monkeypatch):
    """Each batch diagnosed as it arrives gives the JSON the whole report diagnosed at the end gives, byte for byte,
    and every selected valid launch was taken from the early work."""
    options = AnalysisOptions(kernel=kernel, time_limit_s=120)
    early, plain, taken = _json_with_and_without_early_diagnoses(shared_report(name), options, monkeypatch)
    assert early == plain
    analysis = analyze_files([shared_report(name)], options)[0]
    assert taken == len(analysis.valid_launches.indices) > 0


def test_a_regex_filter_or_missing_ceilings_leave_the_work_to_the_end(shared_report, monkeypatch):
    """A regular expression is matched under its time limit on the whole report, and a GPU without the chosen
    ceilings is refused as before: neither is diagnosed early, and the documents do not change."""
    path = shared_report("rtx2070super_alife-143launches_basic")
    regex = AnalysisOptions(kernel=("regex:^render_kernel$",), time_limit_s=120)
    early, plain, taken = _json_with_and_without_early_diagnoses(path, regex, monkeypatch)
    assert early == plain and taken == 0
    with pytest.raises(SpecError):
        analyze_files([path], AnalysisOptions(ceilings="calibrated", time_limit_s=120))


def test_a_bad_device_or_a_failure_ahead_of_the_checks_leaves_the_work_to_the_end(shared_report, monkeypatch):
    """A device the report's checks will refuse is not analysed ahead (the end says what is wrong, in one line), and
    work ahead that fails is dropped, not raised: the plain path redoes it."""
    from roofline.ncu.reader import ReportReading
    from roofline.specs.catalog import load_catalog

    batches = list(ReportReading(shared_report("t4_matrix-add-2d_full")).batches())
    catalog = load_catalog(())
    bad = pipeline.EarlyDiagnoses(AnalysisOptions(), catalog)
    broken = msgspec.structs.replace(batches[0].device, compute_capability="x.y")  # Device is a dataclass
    bad.take(reader.Batch(broken, batches[0].launches))
    assert bad.filter is None and not bad.done

    def fails(*args: Any) -> Any:
        raise ValueError("ahead of the checks")

    failing = pipeline.EarlyDiagnoses(AnalysisOptions(), catalog)
    monkeypatch.setattr(pipeline, "complete", fails)
    for batch in batches:
        failing.take(batch)
    assert failing.filter is None and not failing.done


@pytest.mark.parametrize(("field", "value"), [("ceilings", "bogus"), ("group_by", "kernels"),
                                              ("kernel_name_base", "short")])
def test_analysis_options_refuse_an_unknown_choice_in_one_line(field: str, value: str) -> None:
    """An unknown ceiling set was a KeyError deep in the analysis; an unknown grouping or name base was ignored."""
    from roofline.errors import UsageError
    from roofline.pipeline import AnalysisOptions

    with pytest.raises(UsageError, match=f"{field}='{value}'"):
        AnalysisOptions(**{field: value})  # type: ignore[arg-type]
