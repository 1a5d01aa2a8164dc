"""The facade (``roofline.facade.Roofline``): one spec catalog per facade, every command's typed document
(``roofline.documents.kinds``), the files a command goes on past, and the Python API's wrappers over it. Inputs are the
shipped report models under examples/ (no ncu needed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import roofline
from roofline.compare.pairing import parse_matcher
from roofline.compare.regression import Thresholds
from roofline.documents import kinds as documents
from roofline.errors import RooflineError
from roofline.facade import NoReportAnalysed, Roofline
from roofline.pipeline import AnalysisOptions
from roofline.specs import catalog as specs_catalog

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "h100-sxm_synthetic.roofline.json"
TRIAD = REPO / "examples" / "h100" / "triad-torch.roofline.json"
FP32 = REPO / "examples" / "h100" / "torch-fp32.roofline.json"
NSYS = REPO / "examples" / "nsys" / "h100-examples.sqlite"
BY_ORDER = parse_matcher("order")  # the triad and the GEMM share no kernel name


def test_the_catalog_is_loaded_once_for_every_document(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[tuple[object, ...]] = []
    real = specs_catalog.load_catalog

    def counted(extra: tuple[object, ...] = ()) -> specs_catalog.SpecCatalog:
        loads.append(tuple(extra))
        return real(extra)  # type: ignore[arg-type]

    monkeypatch.setattr(specs_catalog, "load_catalog", counted)
    facade = Roofline(AnalysisOptions(diagnostics=False))
    facade.report([TRIAD])
    facade.compare([TRIAD, FP32], BY_ORDER, project_to="h200")
    facade.project(TRIAD, "h200")
    facade.diff(TRIAD, TRIAD, Thresholds())
    facade.summary([TRIAD])
    assert loads == [()]


def test_each_command_answers_its_own_document_type() -> None:
    facade = Roofline(AnalysisOptions(diagnostics=False))
    assert isinstance(facade.report([TRIAD]), documents.ReportDocument)
    assert isinstance(facade.compare([TRIAD, FP32], BY_ORDER), documents.CompareDocument)
    assert isinstance(facade.project(TRIAD, "h200"), documents.ProjectDocument)
    assert isinstance(facade.diff(TRIAD, TRIAD, Thresholds()), documents.DiffDocument)
    assert isinstance(facade.summary([TRIAD]), documents.SummaryDocument)


def test_a_report_diagnoses_every_launch_whatever_the_output() -> None:
    document = Roofline().report([EXAMPLE])
    (analysis,) = document.analyses
    assert all(k.time_model is not None and k.advice for k in analysis.launches if not k.launch.invalid)


def test_the_files_a_report_goes_on_past_are_in_the_document_and_left_out(tmp_path: Path) -> None:
    bad = tmp_path / "bad.roofline.json"
    bad.write_text("{")
    facade = Roofline()
    document = facade.report([EXAMPLE, bad])
    assert [left.path for left in document.view.left_out] == [str(bad)]
    assert [e.path for e in facade.left_out] == [str(bad)] and len(document.analyses) == 1
    with pytest.raises(NoReportAnalysed) as every:
        facade.report([bad, bad])
    assert [str(e) for e in every.value.errors] == [str(facade.left_out[0])]
    with pytest.raises(RooflineError):
        facade.report([EXAMPLE, bad], keep_going=False)  # every report needed (the MCP tools)


def test_a_user_spec_is_the_source_spec_of_a_comparison(tmp_path: Path) -> None:
    """The spec the analysis matched from --specs is the one the pairing reads (not a built-in reloaded)."""
    spec = yaml.safe_load((REPO / "device_specs" / "h100-sxm5.yaml").read_text())
    spec["id"] = "user-h100"
    (tmp_path / "user-h100.yaml").write_text(yaml.safe_dump(spec))
    document = Roofline(AnalysisOptions(specs=(tmp_path,), diagnostics=False)).compare([TRIAD, FP32], BY_ORDER)
    assert [r.spec_id for r in document.comparison.reports] == ["user-h100", "user-h100"]


def test_the_api_wrappers_go_through_the_facade() -> None:
    options = AnalysisOptions(ceilings="measured-clock")
    (api,) = roofline.analyze_files([EXAMPLE], options)
    (direct,) = Roofline(options).analyses([EXAMPLE])
    assert api.launches == direct.launches and api.ceilings_used == "measured-clock"
    assert roofline.Roofline is Roofline and roofline.AnalysisOptions is AnalysisOptions


def test_project_reads_to_once_one_target_pairs_several_rank_the_workload() -> None:
    facade = Roofline(AnalysisOptions(diagnostics=False))
    one = facade.project(TRIAD, "h200").comparison
    several = facade.project(TRIAD, "h200, a100-sxm4-80gb").comparison
    chosen = facade.project(TRIAD, facade.targets("h200,a100-sxm4-80gb")).comparison
    assert one.project_to == "h200" and one.workload is not None and not one.everywhere
    assert {w.target for w in several.everywhere} == {"h200", "a100-sxm4-80gb"}
    assert [w.target for w in chosen.everywhere] == [w.target for w in several.everywhere]


def test_the_ncu_plan_of_a_profile_is_what_analyze_and_the_mcp_tool_run(tmp_path: Path) -> None:
    from tests.nsys.small_export import nsys_export

    plan = Roofline.ncu_plan(nsys_export(tmp_path / "p.sqlite"), 2)
    assert [t.names for t in plan.targets] == [("gemm",), ("triad",)] and plan.name_base == "function"
    assert plan.filters == ("regex:^(?:gemm)$", "regex:^(?:triad)$") and "top 2 of 3 kernels" in plan.summary
    runs = plan.runs()
    assert [r.kernels for r in runs] == [["gemm"], ["triad"]]
    assert all(r.launch_count == 1 and r.launch_skip is not None for r in runs)
    assert "-k regex:^(?:gemm)$" in runs[0].ncu.replace("'", "") and "-o NAME.top1.ncu-rep" in runs[0].ncu
    assert runs[0].ncu.endswith(" APP") and "APP." not in runs[0].ncu  # APP the application alone


def test_a_library_callers_unknown_clock_or_grouping_is_refused_not_computed_at_another() -> None:
    """An unknown clock was projected at the base clock and labelled with the unknown name."""
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match="clock='turbo'"):
        Roofline().project(EXAMPLE, "h200", clock="turbo")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="clock='turbo'"):
        Roofline().project(EXAMPLE, "all", clock="turbo")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="by='bogus'"):
        Roofline().summary([EXAMPLE], "bogus")  # type: ignore[arg-type]


def test_one_path_given_alone_is_one_report_and_a_path_to_analysis_is_refused() -> None:
    """A string was iterated as its characters ("n: no such file")."""
    from roofline.errors import UsageError

    (alone,) = roofline.analyze_files(str(TRIAD))
    assert alone.launches == roofline.analyze_files([TRIAD])[0].launches
    with pytest.raises(UsageError, match="roofline.load"):
        Roofline().analysis(str(TRIAD))


def test_an_unknown_timeline_grouping_is_refused_before_any_file_is_read(tmp_path: Path) -> None:
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match="group_by='bogus'"):
        Roofline().timeline([tmp_path / "none.sqlite"], group_by="bogus")
    with pytest.raises(UsageError, match="group_by='nvtx'"):  # the timeline has no per-launch range
        Roofline.ncu_plan(tmp_path / "none.sqlite", 3, group_by="nvtx")


def test_a_summary_with_no_valid_launch_is_refused_below_the_command_line(tmp_path: Path) -> None:
    """The 50-launch calibration model with every duration NaN: the Python API's summary (not only the command line)
    refuses it, one line in grade's words (the count and the first launch's problem); beside a valid report, that
    one is summarised and the bad one keeps its row of no group."""
    import json

    source = json.loads((REPO / "tests" / "data" / "calibration" / "h100-ncu.roofline.json").read_text())
    for launch in source["launches"]:
        launch["metrics"]["gpu__time_duration.sum"] = float("nan")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(source))
    with pytest.raises(NoReportAnalysed) as refused:
        Roofline(AnalysisOptions(diagnostics=False)).summary([bad])
    (error,) = refused.value.errors
    first = source["launches"][0]
    assert str(error).startswith(f"{bad}: nothing to summarise: none of its 50 launches is valid (first: "
                                 f"{first['range_index']}:{first['action_index']}, gpu__time_duration.sum is nan")
    assert refused.value.exit_code == 2
    mixed = Roofline(AnalysisOptions(diagnostics=False)).summary([bad, EXAMPLE])
    assert mixed is not None and [s.group_count for s in mixed.summaries] == [0, 3]


def test_one_kernel_filter_given_as_a_string_is_one_filter_not_its_characters() -> None:
    """grade(kernels="triad") keeps the triad alone; split into characters it would have kept every kernel whose
    name holds any of t, r, i, a or d."""
    kernels = REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep"
    graded = Roofline().grade(kernels, kernels="triad").grades.kernels
    assert [k.kernel for k in graded] == [k.kernel for k in Roofline().grade(kernels, ["triad"]).grades.kernels]
    assert [k.kernel for k in graded] == ["triad"]


def test_nsys_entry_points_take_str_paths() -> None:
    """timeline, summary --nsys (realtime) and the ncu plan take a path as a string, as the ncu entry points do."""
    sqlite = REPO / "examples" / "nsys" / "h100-examples.sqlite"
    reports = sorted(str(p) for p in (REPO / "examples" / "h100").glob("*.roofline.*"))
    assert Roofline().timeline(str(sqlite)).timelines.timelines[0].kernels
    assert Roofline().realtime(reports, str(sqlite)).view.kernels
    assert Roofline.ncu_plan(str(sqlite), 2).runs()


def test_compare_of_one_report_without_a_target_is_refused_as_the_cli_does() -> None:
    with pytest.raises(RooflineError, match="compare needs two or more reports"):
        Roofline().compare([TRIAD])


def test_project_takes_target_ids_as_a_list() -> None:
    """["h200", "b200"] is the same request as "h200,b200" (it raised AttributeError)."""
    listed = Roofline().project(TRIAD, ["h200", "b200"]).comparison
    joined = Roofline().project(TRIAD, "h200,b200").comparison
    assert [w.target for w in listed.everywhere] == [w.target for w in joined.everywhere]
    assert sorted(w.target for w in listed.everywhere) == ["b200", "h200"]


# (label, call, the argument its one line names): each raised AttributeError or TypeError, or ran; the facade is Any
# so that mypy lets the wrong arguments through
WRONG_ARGUMENTS: list[tuple[str, Callable[[Any], object], str]] = [
    ("analysis of a number", lambda f: f.analysis(3), "report=3"),
    ("top as text", lambda f: f.summary([TRIAD], top="10"), "top='10'"),
    ("top of none", lambda f: f.summary([TRIAD], top=0), "top=0"),
    ("width as text", lambda f: f.report([TRIAD], width="x"), "width='x'"),
    ("width of none", lambda f: f.compare([TRIAD, FP32], BY_ORDER, width=0), "width=0"),
    ("no thresholds", lambda f: f.diff(TRIAD, TRIAD, None), "thresholds=None"),
    ("paths as None", lambda f: f.report(None), "paths=None"),
    ("a number for paths", lambda f: f.timeline(3), "paths=3"),
    ("a number for a target", lambda f: f.project(TRIAD, 3), "to=3"),
    ("a number for kernels", lambda f: f.grade(TRIAD, kernels=3), "kernels=3"),
    ("a spread threshold as text", lambda f: f.report([TRIAD], spread_threshold_pct="5"), "spread_threshold_pct='5'"),
    ("a number for a profile", lambda f: f.realtime([TRIAD], 3), "profile=3"),
    ("a string for a matcher", lambda f: f.diff(TRIAD, TRIAD, Thresholds(), "order"), "matcher='order'"),
    ("a number for pairing options", lambda f: f.compare([TRIAD, FP32], options=3), "options=3"),
    ("a number for a projection target", lambda f: f.compare([TRIAD], project_to=3), "project_to=3"),
    ("a number for a comparison", lambda f: f.judge(3, Thresholds()), "comparison=3"),
    ("nvtx for the real-time grouping", lambda f: f.realtime([TRIAD], NSYS, by="nvtx"), "by='nvtx'"),
    ("an unknown real-time grouping", lambda f: f.realtime([TRIAD], NSYS, by="bogus"), "by='bogus'"),
    ("a NUL byte in a report path", lambda f: f.report(["a\0b.ncu-rep"]), "paths='a\\x00b.ncu-rep'"),
    ("a NUL byte in a projected path", lambda f: f.project("a\0b.ncu-rep", "h200"), "path='a\\x00b.ncu-rep'"),
    ("a NUL byte in a profile path", lambda f: f.realtime([TRIAD], "a\0b.sqlite"), "profile='a\\x00b.sqlite'"),
]


@pytest.mark.parametrize(("call", "named"), [case[1:] for case in WRONG_ARGUMENTS],
                         ids=[case[0] for case in WRONG_ARGUMENTS])
def test_a_wrong_argument_is_one_line_naming_it_before_any_file_is_read(call: Callable[[Any], object],
                                                                        named: str) -> None:
    from roofline.errors import UsageError

    with pytest.raises(UsageError) as refused:
        call(Roofline())
    assert str(refused.value).startswith(named) and "\n" not in str(refused.value)


@pytest.mark.parametrize("jobs", [0, -1, "2", 1.5, True])
def test_jobs_that_are_not_a_whole_number_of_at_least_one_are_refused(jobs: object) -> None:
    """jobs=0 and jobs=-1 ran one file at a time without a word; "2" raised TypeError."""
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match=r"^jobs=.*: not a whole number of at least 1: give e.g. jobs=2$"):
        Roofline(jobs=jobs)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^jobs="):
        roofline.analyze_files([TRIAD], jobs=jobs)  # type: ignore[arg-type]


def test_the_api_entry_points_refuse_what_is_not_their_input() -> None:
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match=r"^path=3: not a path"):
        roofline.load(3)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^analyses='.*triad-torch.roofline.json': not a ReportAnalysis"):
        roofline.to_dataframe(str(TRIAD))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^analyses=.*: not a ReportAnalysis"):
        roofline.to_dataframe([TRIAD])  # type: ignore[list-item]
    with pytest.raises(UsageError, match=r"^analyses=3: not a ReportAnalysis"):
        roofline.to_dataframe(3)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^options='kernel-clock': not an AnalysisOptions"):
        Roofline("kernel-clock")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^catalog=3: not a SpecCatalog"):
        Roofline(catalog=3)  # type: ignore[arg-type]
    for limit in (-1.0, float("nan")):  # a read was refused as "took longer than -1 s: the file may be corrupt"
        with pytest.raises(UsageError, match=r"^time_limit_s="):
            AnalysisOptions(time_limit_s=limit)


def test_a_nul_byte_in_a_path_is_one_line_naming_it_not_a_bare_value_error() -> None:
    """``os.stat`` raises ValueError("embedded null byte") for such a path: refused first, as a UsageError."""
    from roofline.errors import UsageError

    with pytest.raises(UsageError) as refused:
        roofline.load("a\0b.ncu-rep")
    assert str(refused.value) == "path='a\\x00b.ncu-rep': not a valid path (it holds a NUL byte): check the path"
    with pytest.raises(UsageError, match=r"^specs="):
        AnalysisOptions(specs=("my\0specs",))


@pytest.mark.parametrize("flag", ["diagnostics", "sass"])
@pytest.mark.parametrize("value", ["no", 0, None])
def test_an_analysis_flag_that_is_not_a_bool_is_refused(flag: str, value: object) -> None:
    """``diagnostics="no"`` counted as True: the launches still got advice."""
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match=rf"^{flag}=.*: not True or False: give {flag}=True or {flag}=False$"):
        AnalysisOptions(**{flag: value})  # type: ignore[arg-type]


def test_options_that_are_not_analysis_options_are_refused_an_empty_dict_too() -> None:
    """``options={}`` ran with the defaults (``options or AnalysisOptions()``) where ``{'kernel': 'x'}`` was
    refused."""
    from roofline.errors import UsageError

    for options in ({}, {"kernel": "x"}, 0):
        with pytest.raises(UsageError, match=r"^options=.*: not an AnalysisOptions"):
            roofline.analyze_files([TRIAD], options=options)  # type: ignore[arg-type]


def test_the_error_class_is_the_packages_own_name() -> None:
    """``except roofline.RooflineError`` catches what the API raises (it was reachable only as roofline.errors.*)."""
    from roofline import errors

    assert roofline.RooflineError is errors.RooflineError and "RooflineError" in roofline.__all__
    with pytest.raises(roofline.RooflineError):
        roofline.load(REPO / "no-such.ncu-rep")


def test_one_filter_or_spec_folder_given_as_a_string_is_one_not_its_characters() -> None:
    """AnalysisOptions(kernel="triad") held ("t", "r", "i", "a", "d"); specs="dir" five folders of one letter."""
    from msgspec.structs import replace

    options = AnalysisOptions(kernel="regex:tri", specs="my_specs")  # type: ignore[arg-type]
    assert (options.kernel, options.specs) == (("regex:tri",), ("my_specs",))
    assert AnalysisOptions(kernel=["a", "b"]).kernel == ("a", "b")  # type: ignore[arg-type]
    assert replace(options, kernel="copy").kernel == ("copy",)
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match=r"^kernel=3: not a string or a list of strings"):
        AnalysisOptions(kernel=3)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^specs=\[None\]: not a path or a list of paths"):
        AnalysisOptions(specs=[None])  # type: ignore[arg-type]


def test_every_document_pickles_and_comes_back_equal() -> None:
    """The report model's read-only mappings made every result refuse pickle (multiprocessing, Dask, a cache)."""
    import pickle

    facade, bf16 = Roofline(), REPO / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"
    documents_made = [facade.report([TRIAD]), facade.compare([TRIAD, FP32], BY_ORDER), facade.project(TRIAD, "h200"),
                      facade.project(TRIAD, "t4,l4"), facade.diff(TRIAD, TRIAD, Thresholds()),
                      facade.summary([TRIAD]), facade.grade(bf16), roofline.load(TRIAD)]
    for made in documents_made:
        again = pickle.loads(pickle.dumps(made))
        assert again == made, type(made).__name__


def test_a_launchs_mappings_are_read_only() -> None:
    """One caller's change to a launch's FLOP rates reached every view of it (and made to_dataframe fail)."""
    (launch, *_) = roofline.analyze_files([TRIAD])[0].launches
    for mapping in (launch.flops, launch.flop_per_s, launch.bytes, launch.intensity, launch.ceilings):
        with pytest.raises(TypeError):
            mapping["fp32"] = None  # type: ignore[index]
