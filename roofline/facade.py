"""The one entry of the command line, the Python API and the MCP server: ``Roofline`` holds the analysis options and
the spec catalog (loaded once, ``--specs`` included, on first use) and answers each command with its one complete,
typed document (``roofline.documents.kinds``). Nothing else chains the stages (read, analyse, pair, judge, rank, weigh,
place nsys's kernels): the callers render the document and write it.

    import roofline
    facade = roofline.Roofline(roofline.AnalysisOptions(ceilings="measured-clock"))
    document = facade.report(["app.ncu-rep"])

How much is analysed is the command's choice (``AnalysisOptions.diagnostics`` and ``sass``), never the output
format's: a report's every launch is diagnosed whatever format shows it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

from roofline.core.choices import (
    GroupBy,
    KernelGroupBy,
    NameBase,
    TargetClock,
    a_path,
    finite_at_least,
    instance_of,
    one_of,
    path_list,
    refused,
    text_tuple,
    whole_at_least,
)
from roofline.core.thresholds import SPREAD_THRESHOLD_PCT
from roofline.documents.kinds import (
    CompareDocument,
    DiffDocument,
    GradeDocument,
    ProjectDocument,
    RealtimeDocument,
    ReportDocument,
    SummaryDocument,
    TimelineDocument,
)
from roofline.errors import (  # NoReportAnalysed: also imported from here
    REPROFILE_INVALID,
    NoReportAnalysed,
    RooflineError,
)
from roofline.pipeline import AnalysisOptions

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.analysis.timeline import NcuTarget, TimelineSet
    from roofline.compare.pairing import Comparison, Matcher, PairOptions
    from roofline.compare.realtime import RealTimeView
    from roofline.compare.regression import Thresholds
    from roofline.documents.tools import NcuRun
    from roofline.nsys.load import Loaded
    from roofline.specs.catalog import DeviceSpec, SpecCatalog, SpecMatch

Paths = Sequence[str | os.PathLike[str]]
Done = Callable[[], None]
Progress = Callable[[Paths, int], AbstractContextManager[Done | None]]  # (files, jobs) -> the call after each file
Analysed = Callable[[Sequence["ReportAnalysis"]], None]


def require_two(paths: Paths, project_to: object) -> None:
    """RooflineError (one line) for a comparison of fewer than two reports without a GPU to project onto."""
    if len(paths) < 2 and not project_to:
        raise RooflineError("compare needs two or more reports", "pass A B [...], or one report with --project-to ID")


def _refuse_unprojectable(path: str | os.PathLike[str], comparison: Comparison) -> None:
    """RooflineError where no launch of the report can be projected onto any target (none valid with both a time and
    a time model): the report lacks the metrics, whatever the target; a target without the clock asked for is that
    target's row, not this."""
    from roofline.compare.projection_launches import LEFT_OUT_WORDS, NOTHING_TO_PROJECT

    workloads = comparison.everywhere or ((comparison.workload,) if comparison.workload is not None else ())
    lacking = next((w for w in workloads if w.reason == NOTHING_TO_PROJECT), None)
    if lacking is None or any(w.launches for w in workloads):
        return
    causes = {k.cause for k in lacking.left_out_kernels}
    why = [words for cause, words in LEFT_OUT_WORDS.items() if cause in causes]
    what = f"{lacking.left_out} launches: {'; '.join(why)}" if why else "no valid launch"
    fix = ("re-profile with --set roofline or --set full (each collects the launch times and the units' throughputs)"
           if why else REPROFILE_INVALID)
    raise RooflineError(f"{path}: no launch can be projected ({what})", fix)


class NcuPlan(NamedTuple):
    """The ncu runs ``analyze --from-nsys`` plans for a profile's top kernels: what they are in a line, the
    --kernel-name-base the runs share, each run's target and its ncu -k (an anchored, escaped regex of its kernels'
    names, demangled where two instances share a function name)."""

    summary: str
    name_base: NameBase
    targets: tuple[NcuTarget, ...]
    filters: tuple[str, ...]

    def runs(self) -> list[NcuRun]:
        """Each run with its kernels, launches, why, and its ncu command, ``APP`` standing for the application and
        ``NAME`` for the name of the files it writes (``NAME.top1.ncu-rep``: substituting the application and its
        arguments for ``APP`` leaves them whole)."""
        from roofline.core import kernel_filter
        from roofline.documents.tools import APP, NAME, NcuRun
        from roofline.ncu import driver

        runs = []
        for i, (target, kernel) in enumerate(zip(self.targets, self.filters, strict=True)):
            options = driver.NcuOptions(section_set="roofline", kernel=kernel_filter.parse([kernel], self.name_base),
                                        launch_skip=target.launch_skip, launch_count=target.launch_count)
            report = driver.report_template(None, NAME, f".top{i + 1}" if len(self.targets) > 1 else "")
            log = report.removesuffix(driver.REPORT_SUFFIX) + driver.LOG_SUFFIX
            runs.append(NcuRun(list(target.names), target.launch_skip, target.launch_count, target.why,
                               driver.shell_command(driver.build_argv("ncu", options, report, log, [APP]))))
        return runs


class Roofline:
    """The analysis of report files under one set of options and one spec catalog (``catalog``, else the built-in
    specs and ``options.specs``), up to ``jobs`` files at once, ``progress`` shown around the reads, ``analysed``
    called with the analyses as soon as they are made (the command line prints their warnings). Each command's
    method returns its document; the errors of the files a command went on past are in ``left_out`` after it."""

    def __init__(self, options: AnalysisOptions | None = None, catalog: SpecCatalog | None = None,
                 jobs: int = 1, progress: Progress | None = None, analysed: Analysed | None = None) -> None:
        if options is not None:
            instance_of("options", options, AnalysisOptions, "roofline.AnalysisOptions(...)")
        whole_at_least("jobs", jobs, 1, 2)
        if catalog is not None:
            from roofline.specs.catalog import SpecCatalog

            instance_of("catalog", catalog, SpecCatalog, "roofline.specs.catalog.load_catalog()")
        self.options = options or AnalysisOptions()
        self.jobs, self._progress, self._catalog = jobs, progress, catalog
        self._analysed = analysed
        self.left_out: tuple[RooflineError, ...] = ()

    @property
    def catalog(self) -> SpecCatalog:
        """The spec catalog, loaded once: the built-in specs with ``options.specs`` before them."""
        if self._catalog is None:
            from roofline.specs.catalog import load_catalog

            self._catalog = load_catalog(self.options.specs)
        return self._catalog

    def target(self, spec_id: str, clock: TargetClock = "sustained") -> DeviceSpec:
        """The spec of a projection's target GPU; RooflineError for an unknown id or a clock it does not give."""
        from roofline.compare.projection import require_clock

        spec = self.catalog.get(spec_id)
        require_clock(spec, clock)
        return spec

    # --- The analyses ------------------------------------------------------------------------------------
    def analyses(self, paths: Paths, keep_going: bool = False) -> list[ReportAnalysis]:
        """The analyses of the report files, in the order given. The first bad file raises its error; with
        ``keep_going`` the bad ones are left out (``left_out``), and NoReportAnalysed is raised when none is good."""
        from roofline.pipeline import analyze_each

        paths = path_list("paths", paths)
        with self._ticking(paths) as done:
            analyses, errors = analyze_each(paths, self.options, self._loaded(), keep_going, self.jobs, done)
        self.left_out = tuple(errors)
        if keep_going and not analyses and errors:
            raise NoReportAnalysed(errors)
        if self._analysed is not None:
            self._analysed(analyses)
        return analyses

    def analysis(self, report: object) -> ReportAnalysis:
        """The analysis of a report already in memory (``roofline.load``, or built by hand)."""
        from roofline.core.model import Report
        from roofline.errors import UsageError
        from roofline.pipeline import analyze_loaded

        if isinstance(report, (str, os.PathLike)):
            raise UsageError(f"analysis({str(report)!r}): a path, where a loaded report is taken",
                             "give roofline.load(path), or call analyses([path]) for the file")
        instance_of("report", report, Report, "roofline.load(path)")
        return analyze_loaded(report, self.options, self.catalog)  # type: ignore[arg-type]

    # --- One document per command ----------------------------------------------------------------------
    def report(self, paths: Paths, spread_threshold_pct: float | None = SPREAD_THRESHOLD_PCT, width: int = 80,
               top: int = 0, keep_going: bool = True) -> ReportDocument:
        """``report``: the view of the reports, each kernel's spread across several (above the threshold), the files
        left out."""
        from roofline.pipeline import build_view

        _layout(width, top, 0)
        finite_at_least("spread_threshold_pct", spread_threshold_pct)
        analyses = self.analyses(paths, keep_going)
        return ReportDocument(build_view(analyses, spread_threshold_pct, self.left_out), width=width, top=top)

    def compare(self, paths: Paths, matcher: Matcher | None = None, project_to: str | None = None,
                options: PairOptions | None = None, width: int = 80, normalize: bool = False) -> CompareDocument:
        """``compare``: the reports' kernels paired (every report needed), projected onto ``project_to``'s spec
        when given; RooflineError when no kernel is in common."""
        from roofline.compare.pairing import require_common

        paths = path_list("paths", paths)
        _layout(width)
        _pairing_given(matcher, options, project_to)
        require_two(paths, project_to)
        comparison = self._comparison(paths, matcher, project_to, options)
        require_common(comparison)
        return CompareDocument(comparison, width=width, normalize=normalize)

    def project(self, path: str | os.PathLike[str], to: str | Sequence[str] | Sequence[DeviceSpec],
                clock: TargetClock = "sustained", width: int = 80) -> ProjectDocument:
        """``project``: one report's kernels projected onto the GPU of spec ``to`` at ``clock``; onto each of several
        (``to`` as ``targets`` reads it: ``all``, or ids separated by commas), the workload's total on each, fastest
        first."""
        from roofline.compare.pairing import PairOptions, project_onto_many

        one_of("clock", clock, TargetClock)
        a_path("path", path)
        _layout(width)
        _targets_given(to)
        if not isinstance(to, str) and all(isinstance(t, str) for t in to):  # ids given as a list
            to = ",".join(cast(Sequence[str], to))
        targets = self.targets(to, clock) if isinstance(to, str) else list(cast("Sequence[DeviceSpec]", to))
        if len(targets) == 1:
            comparison = self._comparison([path], None, targets[0], PairOptions(clock=clock))
        else:
            comparison = project_onto_many(self.analyses([path])[0], targets, clock, self._loaded())
        _refuse_unprojectable(path, comparison)
        return ProjectDocument(comparison, width=width)

    def targets(self, to: str, clock: TargetClock = "sustained") -> list[DeviceSpec]:
        """The specs ``--to`` names: ``all``, or ids separated by commas, each once; RooflineError for an unknown id,
        or for a clock that a single target does not give, or that none of several gives (of several, as of ``all``,
        one without the clock asked for gets a row that says so)."""
        if to.strip() == "all":
            return list(self.catalog.specs)
        from roofline.compare.projection import require_a_clock

        ids = list(dict.fromkeys(t.strip() for t in to.split(",")))
        if len(ids) == 1:
            return [self.target(ids[0], clock)]
        specs = [self.catalog.get(spec_id) for spec_id in ids]
        require_a_clock(specs, clock)
        return specs

    def diff(self, base: str | os.PathLike[str], new: str | os.PathLike[str], thresholds: Thresholds,
             matcher: Matcher | None = None, options: PairOptions | None = None, allow_different_gpu: bool = False,
             width: int = 80) -> DiffDocument:
        """``diff``: NEW judged against BASE kernel by kernel."""
        from roofline.compare.regression import Thresholds

        a_path("base", base), a_path("new", new)
        instance_of("thresholds", thresholds, Thresholds, "roofline.compare.regression.Thresholds(...)")
        _pairing_given(matcher, options)
        return self.judge(self._comparison([base, new], matcher, None, options), thresholds, allow_different_gpu,
                          width)

    @staticmethod
    def judge(comparison: Comparison, thresholds: Thresholds, allow_different_gpu: bool = False,
              width: int = 80) -> DiffDocument:
        """The regression gate over a comparison already made (``compare``'s), as ``diff`` judges its own."""
        from roofline.compare.pairing import Comparison
        from roofline.compare.regression import Thresholds, judge

        instance_of("comparison", comparison, Comparison, "Roofline().compare(paths).comparison")
        instance_of("thresholds", thresholds, Thresholds, "roofline.compare.regression.Thresholds(...)")
        return DiffDocument(judge(comparison, thresholds, allow_different_gpu), width=width)

    def summary(self, paths: Paths, by: GroupBy = "kernel", top: int = 10, width: int = 80, keep_going: bool = True,
                mpi: bool = False) -> SummaryDocument | None:
        """``summary``: each report's kernel groups ranked by time to gain (a group without one by its recoverable
        time); with ``mpi``, the files spread over the MPI ranks (None on the ranks other than 0). NoReportAnalysed
        (one line per report) where no report has a valid launch (``ranking.nothing_to_summarise``)."""
        from roofline.compare.places import gpu_panels
        from roofline.compare.ranking import AppSummary, labelled, nothing_to_summarise, summarize
        from roofline.pipeline import files_left_out, map_reports

        whole_at_least("top", top, 1, 10)
        _layout(width)
        one_of("by", by, GroupBy)
        paths = path_list("paths", paths)

        def summary_of(analysis: ReportAnalysis) -> AppSummary:
            return summarize(analysis, by, top)

        with (contextlib.nullcontext(None) if mpi else self._ticking(paths)) as done:
            out = map_reports(paths, summary_of, self.options, self._loaded(), keep_going, self.jobs, mpi, done)
        if out is None:
            return None
        summaries, errors = labelled(out[0]), out[1]
        self.left_out = tuple(errors)
        empty = nothing_to_summarise(summaries)
        if (not summaries and errors) or empty:
            raise NoReportAnalysed([*errors, *empty])
        return SummaryDocument(summaries, width=width, top=top, left_out=files_left_out(errors),
                               panels=gpu_panels(summaries))

    def realtime(self, paths: Paths, profile: str | os.PathLike[str], by: str = "kernel", top: int = 10,
                 width: int = 80) -> RealtimeDocument:
        """``summary --nsys``: the reports' kernels weighed by the profile's real GPU times, grouped by kernel or
        function (``KernelGroupBy``: nsys's launches carry no NVTX range here); RooflineError when no kernel is in
        both."""
        from roofline.compare.realtime import weigh
        from roofline.nsys.load import load_with_streams

        one_of("by", by, KernelGroupBy)
        whole_at_least("top", top, 1, 10)
        _layout(width)
        profile = Path(a_path("profile", profile))
        loaded = load_with_streams(profile, group_by=by, configs=True, streams=False)  # a bad profile: refused first
        analyses = self.analyses(paths, keep_going=True)
        view = weigh(analyses, loaded.timeline)
        if not view.kernels:
            from roofline.core.units import middle_cut

            ncu = ", ".join(middle_cut(n, 60) for n in view.unmatched_ncu[:5])
            nsys = ", ".join(middle_cut(k.name, 60) for k in view.unmatched_nsys[:5])
            raise RooflineError(f"no kernel of the ncu reports ({ncu}) is in {profile} ({nsys})",
                                "give ncu reports and an nsys profile of the same application")
        return RealtimeDocument(self._with_time_gaps(view, analyses, loaded), width=width, top=top)

    def timeline(self, paths: Paths | str | os.PathLike[str], nvtx: str | None = None, nsys: str | None = None,
                 group_by: str = "kernel", work: Paths = (), width: int = 80,
                 top: int = 0) -> TimelineDocument:
        """``timeline``: the Nsight Systems files' kernels; with ``work`` (ncu reports, one nsys file), each kernel
        placed on its GPU's roofline with the reports' work."""
        from roofline.analysis.streams import streams_view
        from roofline.analysis.timeline import rank_order, timeline_set
        from roofline.nsys.load import load_with_streams

        one_of("group_by", group_by, KernelGroupBy)
        _layout(width, top, 0)
        files = [Path(p) for p in path_list("paths", paths)]
        reports = [Path(p) for p in path_list("work", work)] if work else []
        if reports:
            timelines = self._with_work(files[0], reports, nsys, group_by)
        else:
            loaded = [load_with_streams(p, nvtx, nsys, group_by) for p in files]
            loaded = [loaded[i] for i in rank_order([str(x.timeline.path) for x in loaded],
                                                    [x.rank_variables for x in loaded])]  # every part by rank
            timelines = timeline_set([x.timeline for x in loaded],
                                     streams=streams_view([x.trace for x in loaded if x.trace is not None]),
                                     rank_variables=[x.rank_variables for x in loaded])
        return TimelineDocument(timelines, width=width, top=top)

    @staticmethod
    def ncu_plan(profile: str | os.PathLike[str], top: int, nsys: str | None = None,
                 group_by: str = "kernel") -> NcuPlan:
        """The ncu runs ``analyze --from-nsys PROFILE --top TOP`` plans for the profile's top kernels (a SQLite
        export, or a profile ``nsys`` exports), kernels told apart as ``group_by`` says."""
        from roofline.analysis.timeline import kernel_regex, name_base, ncu_targets, profiling_summary
        from roofline.nsys.load import load_for_profiling

        one_of("group_by", group_by, KernelGroupBy)
        whole_at_least("top", top, 1, 10)
        profiled, reps = load_for_profiling(Path(a_path("profile", profile)), top, nsys, group_by)
        base = name_base(profiled, top)  # demangled where two instances share a short name
        targets = ncu_targets(profiled, top, reps)
        return NcuPlan(profiling_summary(profiled, top), base, targets,
                       tuple(kernel_regex(target.kernels, base) for target in targets))

    def grade(self, path: str | os.PathLike[str], kernels: Sequence[str] | None = None,
              baseline: str | os.PathLike[str] | None = None, width: int = 80) -> GradeDocument:
        """``grade``: each kernel of the report (those ``kernels`` selects, else the options' --kernel) graded
        against the roof of its work at the matched spec's achievable peaks; with ``baseline``, its work checked
        against the baseline report's kernel of the same name, else its longest (every baseline kernel read)."""
        from msgspec.structs import replace

        from roofline.analysis.grade import grade_report
        from roofline.pipeline import analyze_each, spec_for

        a_path("path", path)
        if baseline is not None:
            a_path("baseline", baseline)
        _layout(width)
        picked = text_tuple("kernels", kernels) if kernels is not None else None  # one filter alone: a tuple of one
        chosen = replace(self.options, kernel=picked) if picked is not None else self.options
        files = [path] if baseline is None else [path, baseline]
        with self._ticking(files) as done:
            (analysis,), _ = analyze_each([path], chosen, self._loaded(), False, 1, done)
            base = None
            if baseline is not None:
                (base,), _ = analyze_each([baseline], replace(self.options, kernel=()), self._loaded(), False, 1,
                                          done)
        if self._analysed is not None:
            self._analysed([analysis] if base is None else [analysis, base])
        found = spec_for(self.catalog, analysis.device)
        return GradeDocument(grade_report(analysis, found.spec if found is not None else None, base), width=width)

    # --- Steps shared by the commands -------------------------------------------------------------------
    def _comparison(self, paths: Paths, matcher: Matcher | None, project_to: str | DeviceSpec | None,
                    options: PairOptions | None) -> Comparison:
        """The reports' kernels paired against the one catalog (every report needed), projected onto ``project_to``
        (a spec, or its id) where given."""
        from roofline.compare.pairing import Matcher, PairOptions, pair_reports

        options = options or PairOptions()
        target = project_to or None
        if isinstance(target, str):
            target = self.target(target, options.clock)
        return pair_reports(self.analyses(paths), matcher or Matcher(), target, options, self.catalog)

    def _with_work(self, profile: Path, reports: Sequence[Path], nsys: str | None, group_by: str) -> TimelineSet:
        """The profile's timeline with the reports' work placed on the roofs of the profile's GPU."""
        from roofline.analysis.borrowed import borrow_work
        from roofline.analysis.streams import streams_view
        from roofline.analysis.time_gap import time_gaps
        from roofline.analysis.timeline import timeline_set
        from roofline.nsys.load import load_with_streams

        loaded = load_with_streams(profile, None, nsys, group_by, configs=True)  # a bad profile is refused first
        timeline, analyses = loaded.timeline, self.analyses(reports)
        gpu = next((d for d in timeline.devices if d.name), None)
        found = self._nsys_spec(gpu.name if gpu else None, analyses)
        spec = found.spec if found else None
        work = borrow_work(timeline, loaded.configs, analyses, spec)
        boost = spec.boost_clock_hz if spec else next((a.device.max_clock_hz for a in analyses), None)
        gaps = time_gaps(work, analyses, loaded.migrations, boost,
                         (gpu.l2_bytes if gpu else None) or (spec.l2_bytes if spec else None), group_by)
        return timeline_set([timeline], work, streams_view([loaded.trace] if loaded.trace else []), gaps)

    def _with_time_gaps(self, view: RealTimeView, analyses: Sequence[ReportAnalysis], loaded: Loaded) -> RealTimeView:
        """The view with its kernels whose nsys and ncu times are over 2x apart, and why (``time_gap``)."""
        from msgspec import structs

        from roofline.analysis.time_gap import Paired, named_gaps

        gpu = next((d for d in loaded.timeline.devices if d.name), None)
        found = self._nsys_spec(gpu.name if gpu else None, analyses)
        spec = found.spec if found else None
        boost = spec.boost_clock_hz if spec else next((a.device.max_clock_hz for a in analyses), None)
        pairs = [Paired(k.nsys.name, k.nsys.function, None, None, k.nsys.count, k.nsys.median_s,
                        k.ncu_per_launch_s) for k in view.kernels]
        gaps = named_gaps(pairs, analyses, loaded.migrations, boost,
                          (gpu.l2_bytes if gpu else None) or (spec.l2_bytes if spec else None),
                          loaded.timeline.group_by)
        return structs.replace(view, time_gaps=gaps)

    def _nsys_spec(self, gpu: str | None, analyses: Sequence[ReportAnalysis]) -> SpecMatch | None:
        """The spec of the nsys GPU as ``report`` finds one (``pipeline.spec_for``): a YAML that names it, else, where
        a report ran on a GPU of that name, the peaks derived from that report's device attributes."""
        from roofline.core.model import Device
        from roofline.pipeline import spec_for

        if gpu is None:
            return None
        same = next((a.device for a in analyses if a.device.name == gpu), None)
        return spec_for(self.catalog, same or Device(gpu))

    def _loaded(self) -> SpecCatalog:
        """The catalog (loaded on first use; a bad --specs raises its RooflineError)."""
        return self.catalog

    @contextlib.contextmanager
    def _ticking(self, paths: Paths) -> Iterator[Done | None]:
        """The progress shown while ``paths`` are analysed, if any."""
        if self._progress is None:
            yield None
            return
        with self._progress(paths, self.jobs) as done:
            yield done


def _layout(width: object, top: object = 1, least_top: int = 1) -> None:
    """UsageError where a library caller's table width or ``top`` is not a whole number (width at least 1, top at
    least ``least_top``)."""
    whole_at_least("width", width, 1, 80)
    whole_at_least("top", top, least_top, 10)


def _targets_given(to: object) -> None:
    """UsageError where ``project``'s ``to`` is neither ids (a string, or a list of them) nor a list of specs."""
    from roofline.specs.catalog import DeviceSpec

    if isinstance(to, str):
        return
    if isinstance(to, Sequence) and to and (all(isinstance(t, str) for t in to)
                                            or all(isinstance(t, DeviceSpec) for t in to)):
        return
    raise refused("to", to, "a GPU id, a list of ids or a list of specs",
                  "give e.g. to='a100-sxm4-80gb', to='all' or to=['t4', 'l4'] (roofline specs list)")


def _pairing_given(matcher: object, options: object, project_to: object = None) -> None:
    """UsageError where a comparison's matcher, pairing options or target is not of its kind."""
    from roofline.compare.pairing import Matcher, PairOptions
    from roofline.specs.catalog import DeviceSpec

    if matcher is not None:
        instance_of("matcher", matcher, Matcher, "roofline.compare.pairing.parse_matcher('name')")
    if options is not None:
        instance_of("options", options, PairOptions, "roofline.compare.pairing.PairOptions(...)")
    if project_to is not None and not isinstance(project_to, (str, DeviceSpec)):
        raise refused("project_to", project_to, "a GPU id or a spec", "give e.g. project_to='h200'")
