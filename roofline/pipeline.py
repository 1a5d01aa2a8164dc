"""The one analysis pipeline behind every command and the Python API.

For each report file (a file named twice is read once; one spec catalog per run), ``analyze_path`` calls the
stages in turn, each a function that returns a value the next one takes:

1. read: ``reader.ReportReading`` yields an ``.ncu-rep``'s launches batch by batch as its child process sends
   them, then the report, validated;
2. analyse and assemble (``analyze``): keep the launches the kernel filter selects, match the GPU's datasheet
   spec, choose the ceilings, analyse the roofline of every launch and group them
   (``roofline.analysis.roofline.analyze_report``);
3. diagnose and advise (``diagnose_all``): each launch's diagnostics (``roofline.analysis.diagnostics``) and advice
   (``roofline.analysis.advice``): every valid launch, whatever the output shows (the scope is the command's,
   ``diagnostics``, never the output format's).
4. build the view (``build_view``): what the renderers of the reports show (``roofline.analysis.view``).

Bad input raises ``RooflineError`` with a one-line message.

    import roofline
    analyses = roofline.analyze_files(["app.ncu-rep"], roofline.AnalysisOptions(ceilings="measured-clock"))

Only the option types are imported with this module; the analysis modules load on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import closing
from typing import TYPE_CHECKING, TypeVar

from msgspec import Struct
from msgspec.structs import force_setattr

from roofline.core import mechanisms
from roofline.core.choices import GroupBy, NameBase, a_bool, finite_at_least, one_of, path_list, text_tuple

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.analysis.results import LaunchAnalysis
    from roofline.analysis.view import LeftOut, ReportSetView
    from roofline.core.model import CeilingSet, Device, Report
    from roofline.errors import RooflineError, SpecError
    from roofline.ncu.reader import Batch
    from roofline.specs.catalog import DeviceSpec, SpecCatalog, SpecMatch

T = TypeVar("T")


class AnalysisOptions(Struct, frozen=True):
    """What to analyse and against which roofs: the kernel filters, OR-ed, and the name they read (the
    ``--kernel`` language of ``roofline.core.kernel_filter``), the ceiling set percent of roof uses, extra device
    spec files or folders (before the built-in ones), the time the native reader may take per .ncu-rep
    (None: scaled to the file's size, ``reader.read_time_limit``), whether every launch gets its diagnostics and
    advice (what ``report`` and ``summary`` show; comparisons read none of them; without them a recoverable time
    is the gap to the busiest unit's full peak, not held to the achievable peaks by each launch's time model),
    whether the SASS of the
    sampled instructions is read (``sass``: the hot spots show it; never without diagnostics), and what a group
    of launches is (``GroupBy``)."""

    kernel: tuple[str, ...] = ()
    kernel_name_base: NameBase = "function"
    ceilings: CeilingSet = "kernel-clock"
    specs: tuple[str | os.PathLike[str], ...] = ()
    time_limit_s: float | None = None
    diagnostics: bool = True
    group_by: GroupBy = "kernel"
    sass: bool = True

    def __post_init__(self) -> None:
        """A library caller's choices checked as the command line checks them (an unknown one was ignored, or a
        KeyError deep in the analysis)."""
        from roofline.core.model import CeilingSet

        one_of("kernel_name_base", self.kernel_name_base, NameBase)
        one_of("ceilings", self.ceilings, CeilingSet)
        one_of("group_by", self.group_by, GroupBy)
        force_setattr(self, "kernel", text_tuple("kernel", self.kernel))  # one filter alone: a tuple of one
        force_setattr(self, "specs", tuple(path_list("specs", self.specs)))
        finite_at_least("time_limit_s", self.time_limit_s)
        a_bool("diagnostics", self.diagnostics)
        a_bool("sass", self.sass)


DEFAULT_OPTIONS = AnalysisOptions()  # the options a call that gives none runs with


def analyze_files(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions = DEFAULT_OPTIONS,
                  catalog: SpecCatalog | None = None, jobs: int = 1,
                  done: Callable[[], None] | None = None) -> list[ReportAnalysis]:
    """Analyse report files (``.ncu-rep`` or ``.json`` report models), in the order given, up to ``jobs`` at once
    (``done`` is called after each); ``catalog`` defaults to the built-in specs plus ``options.specs``. The first
    bad file raises its RooflineError."""
    return analyze_each(paths, options, catalog, keep_going=False, jobs=jobs, done=done)[0]


def analyze_each(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions = DEFAULT_OPTIONS,
                 catalog: SpecCatalog | None = None, keep_going: bool = True, jobs: int = 1,
                 done: Callable[[], None] | None = None) -> tuple[list[ReportAnalysis], list[RooflineError]]:
    """``analyze_files`` that goes on past bad files: the analyses of the good ones in the order given, and the
    error of each bad one (a file named twice counts once); ``done`` is called after each file."""
    out = map_reports(paths, _as_is, options, catalog, keep_going, jobs, done=done)
    assert out is not None, "only a run over MPI ranks has no results"
    return out


def map_reports(paths: Sequence[str | os.PathLike[str]], then: Callable[[ReportAnalysis], T],
                options: AnalysisOptions = DEFAULT_OPTIONS, catalog: SpecCatalog | None = None,
                keep_going: bool = True, jobs: int = 1, mpi: bool = False,
                done: Callable[[], None] | None = None) -> tuple[list[T], list[RooflineError]] | None:
    """``then`` of the analysis of each good report file, in the order given, and the error of each bad one (a file
    named twice is analysed once). The files are analysed up to ``jobs`` at once in worker processes, or, with
    ``mpi``, spread over the ranks of an MPI job: the results are on rank 0 then, None on the other ranks. Only
    ``then``'s result comes back from a worker or rank, so it can be smaller than the analysis."""
    from roofline.core import kernel_filter, parallel
    from roofline.errors import RooflineError
    from roofline.ncu.child import stop_reading_ahead
    from roofline.specs.catalog import load_catalog

    kernel_filter.parse(options.kernel, options.kernel_name_base)  # a bad filter is refused before any file is read
    named: dict[str, str | os.PathLike[str]] = {}
    for path in paths:
        named.setdefault(_identity(path), path)  # a file named twice is read under its first name
    firsts = list(named.values())
    at_once = min(jobs, jobs_in_memory(firsts), len(firsts))
    try:
        specs = catalog or load_catalog(options.specs)

        def one(path: str | os.PathLike[str]) -> T | RooflineError:
            try:
                return then(analyze_path(path, options, specs))
            except RooflineError as err:
                return err

        results = parallel.over_ranks(one, firsts) if mpi else parallel.in_workers(one, firsts, at_once, done)
    finally:  # a read started ahead and not taken (a bad --specs, an error) must not be taken later, its time gone
        stop_reading_ahead()
    if results is None:
        return None
    by_file = dict(zip(named, results, strict=True))
    order = [by_file[_identity(path)] for path in paths]
    errors = list(dict.fromkeys(r for r in order if isinstance(r, RooflineError)))
    for path, result in zip(paths, order, strict=True):
        if isinstance(result, RooflineError) and not result.path:
            result.path = str(path)  # which file the documents leave out
    if errors and not keep_going:
        raise errors[0]
    return [r for r in order if not isinstance(r, RooflineError)], errors


def jobs_in_memory(paths: Sequence[str | os.PathLike[str]]) -> int:
    """How many of the files fit in the memory free now at once: a report model takes about
    ``reader.MODEL_PARSE_FACTOR`` times its size while parsed, and the largest sets the count (an ``.ncu-rep``'s
    model is a small part of its file)."""
    from roofline.ncu.reader import MODEL_PARSE_FACTOR, MODEL_SUFFIX

    largest = max((_size(p) for p in paths if str(p).endswith(MODEL_SUFFIX)), default=0)
    return max(1, free_memory() // (MODEL_PARSE_FACTOR * largest)) if largest else max(1, len(paths))


def free_memory() -> int:
    """Bytes of memory free now (the page cache not counted: a safe side), or the physical memory where the
    system does not tell."""
    from roofline.ncu.reader import physical_memory

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows), no such name (macOS)
        return physical_memory()


def _size(path: str | os.PathLike[str]) -> int:
    """A file's size, 0 when it cannot be told (the reader names the problem)."""
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _identity(path: str | os.PathLike[str]) -> str:
    """The file a path names, its links followed (a loop of links is left as it is: its read names the loop)."""
    return os.path.realpath(path)


def _as_is(analysis: ReportAnalysis) -> ReportAnalysis:
    return analysis


def analyze_loaded(report: Report, options: AnalysisOptions = DEFAULT_OPTIONS,
                   catalog: SpecCatalog | None = None) -> ReportAnalysis:
    """Analyse a report already in memory (from ``roofline.load`` or built by hand) as ``analyze_files`` does."""
    from roofline.specs.catalog import load_catalog

    return analyze(report, options, catalog or load_catalog(options.specs))


def analyze_path(path: str | os.PathLike[str], options: AnalysisOptions, catalog: SpecCatalog) -> ReportAnalysis:
    """One report file through every stage: read it, then analyse, assemble, diagnose and advise it."""
    from roofline.ncu.reader import ReportReading

    reading = ReportReading(path, options.time_limit_s, options.diagnostics and options.sass)
    import_analysis(options.diagnostics)
    early = EarlyDiagnoses(options, catalog) if options.diagnostics and mechanisms.on("early-diagnoses") else None
    with closing(reading.batches()) as batches:
        for batch in batches:
            if early is not None:
                early.take(batch)
    return analyze(reading.report(), options, catalog, early)


def import_analysis(diagnostics: bool) -> None:
    """Import what ``analyze`` (and, with ``diagnostics``, ``complete``) runs, numpy with it, before the report's
    data are waited for: a read started ahead (``cli.fast_start``, read-ahead) goes on in its child meanwhile."""
    import numpy  # noqa: F401  (the formulas run per cohort of launches over arrays)
    import yaml  # noqa: F401  (the spec of the report's GPU is parsed when it is matched)

    from roofline.analysis import roofline  # noqa: F401

    if diagnostics:
        from roofline.analysis import advice, hotspots, instructions, memory, reconcile, time_model  # noqa: F401
        from roofline.analysis.diagnostics import occupancy_curves, stalls, tensor_cores  # noqa: F401


def analyze(report: Report, options: AnalysisOptions, catalog: SpecCatalog,
            early: EarlyDiagnoses | None = None) -> ReportAnalysis:
    """A report's analysis: the launches the kernel filter selects against the spec and ceilings chosen, analysed
    and grouped, then (``options.diagnostics``) diagnosed and advised, taking the launches ``early`` diagnosed
    while the report was read."""
    from msgspec import structs

    from roofline.analysis.roofline import analyze_report
    from roofline.core import kernel_filter
    from roofline.specs.catalog import device_disagreements

    selected = kernel_filter.parse(options.kernel, options.kernel_name_base).select(report)
    match = spec_for(catalog, selected.device)
    spec = match.spec if match else None
    problem = _ceilings_problem(options.ceilings, selected.device, spec, selected.path)
    if problem is not None:
        raise problem
    if spec is not None and (disagreements := device_disagreements(spec, selected.device)):
        selected = structs.replace(selected, warnings=(*selected.warnings, *disagreements))
    analysis = analyze_report(selected, spec, match.how if match else "", options.ceilings, group_by=options.group_by)
    return diagnose_all(analysis, spec, early) if options.diagnostics else analysis


def spec_for(catalog: SpecCatalog, device: Device) -> SpecMatch | None:
    """The GPU's datasheet spec: a cited YAML file that matches it, else peaks derived from its device attributes
    (``roofline.specs.derived``); None when neither."""
    from roofline.specs.derived import derive

    return catalog.match(device) or derive(device)


def _ceilings_problem(ceilings: CeilingSet, device: Device, spec: DeviceSpec | None,
                      path: str = "") -> SpecError | None:
    """The error, naming the report's path, of a ceiling set the GPU has no roofs of: "datasheet" without a matching
    spec, "calibrated" without calibrated ceilings; None otherwise."""
    from roofline.errors import SpecError

    if ceilings == "datasheet" and spec is None:
        return SpecError(f"{path}: no device spec matches '{device.name}' (CC {device.compute_capability})",
                         "add a YAML with --specs (see device_specs/README.md) or use --ceilings measured-clock")
    if ceilings == "calibrated" and (spec is None or spec.measured is None):
        from roofline.specs.calibration import HINT

        name = spec.id if spec and spec.path else f"'{device.name}'"  # a derived spec has no file
        return SpecError(f"{path}: no calibrated ceilings for {name}", HINT + ", then pass it with --specs")
    return None


def diagnose_all(analysis: ReportAnalysis, spec: DeviceSpec | None,
                 early: EarlyDiagnoses | None = None) -> ReportAnalysis:
    """The analysis with every valid launch diagnosed and advised (``complete``), or taken from ``early`` where it
    diagnosed that launch against the same GPU, spec and ceilings."""
    from msgspec import structs

    from roofline.analysis.roofline import time_share

    found = early.found(analysis, spec) if early is not None else {}
    rows = []
    for i, launch in enumerate(analysis.report.launches):
        done = found.get(id(launch))
        if launch.invalid:
            rows.append(analysis.launches.table.row(i))
        elif done is not None and done.launch is launch:
            rows.append(structs.replace(done, time_share=time_share(done.duration_s.value, analysis.total_time_s)))
        else:
            rows.append(complete(analysis.launches.table.row(i), analysis.device, spec))
    return analysis.with_rows(rows)


class EarlyDiagnoses:
    """Launches analysed, diagnosed and advised batch by batch while the rest of their report is still being read
    (the reader's child sends a batch every few milliseconds, and the parent would otherwise wait): the same
    functions ``diagnose_all`` runs, on each launch that passes its own checks, without its time share (the one
    figure that needs the whole report, added by ``diagnose_all``). A launch the report's checks later mark invalid
    or the kernel filter leaves out is not taken; a batch of another GPU, a spec that differs or ceilings the GPU
    has none of stop the work. Listed in docs/benchmarks.md with what it saves."""

    def __init__(self, options: AnalysisOptions, catalog: SpecCatalog) -> None:
        from roofline.core import kernel_filter

        self.options = options
        self.catalog = catalog
        chosen = kernel_filter.parse(options.kernel, options.kernel_name_base)
        # a regular expression runs under a time limit on the whole report, not launch by launch here
        self.filter = None if any(t.kind == "regex" for t in chosen.terms) else chosen
        self.device: Device | None = None
        self.spec: DeviceSpec | None = None
        self.done: dict[int, LaunchAnalysis] = {}

    def take(self, batch: Batch) -> None:
        """Analyse, diagnose and advise the launches of ``batch`` that pass their own checks."""
        from roofline.analysis.roofline import analyze_launches
        from roofline.ncu import validation

        if self.filter is None or not self._same_gpu(batch.device):
            return
        try:
            problems = validation.launch_problems(batch.launches, batch.device)
            wanted = [k for i, k in enumerate(batch.launches)
                      if i not in problems and not validation.unmeasured(k) and self.filter.matches(k)]
            for row in analyze_launches(wanted, batch.device, self.spec, self.options.ceilings):
                self.done[id(row.launch)] = complete(row, batch.device, self.spec)
        except Exception:  # noqa: BLE001 (work ahead of the report's checks: the end redoes it, and says what is wrong)
            self.filter = None
            self.done.clear()

    def _same_gpu(self, device: Device) -> bool:
        """Whether batches of ``device`` can be diagnosed: the first batch's GPU, with roofs of the chosen ceilings."""
        if self.device is None:
            from roofline.ncu import validation

            if validation.device_problem(device) is not None:  # refused, in one line, once the report is read
                self.filter = None
                return False
            match = spec_for(self.catalog, device)
            self.spec = match.spec if match else None
            if _ceilings_problem(self.options.ceilings, device, self.spec) is not None:
                self.filter = None
                return False
            self.device = device
        return device is self.device

    def found(self, analysis: ReportAnalysis, spec: DeviceSpec | None) -> dict[int, LaunchAnalysis]:
        """The launches diagnosed early, by ``id`` of their launch, where ``analysis`` has their GPU and spec."""
        same = analysis.device == self.device and spec == self.spec
        return self.done if same and analysis.ceilings_used == self.options.ceilings else {}


def complete(launch_analysis: LaunchAnalysis, device: Device, spec: DeviceSpec | None = None) -> LaunchAnalysis:
    """A launch's roofline analysis with its occupancy, Tensor Core and warp-stall diagnostics, its instruction
    roofline, its hot spots and its advice."""
    from msgspec import structs

    from roofline.analysis.advice import advise
    from roofline.analysis.diagnostics import occupancy_curves, stalls, tensor_cores
    from roofline.analysis.hotspots import hotspots
    from roofline.analysis.instructions import instruction_roofline
    from roofline.analysis.memory import memory_picture
    from roofline.analysis.time_model import time_model

    diagnosed = structs.replace(
        launch_analysis,
        time_model=time_model(launch_analysis, device, spec),
        occupancy=occupancy_curves.diagnose(launch_analysis.launch, device),
        tensor_cores=tensor_cores.diagnose(launch_analysis, device, spec),
        stalls=stalls.diagnose(launch_analysis.launch),
        instruction_roofline=instruction_roofline(launch_analysis, device),
        memory=memory_picture(launch_analysis.launch),
        hotspots=hotspots(launch_analysis.launch),
    )
    advice, saved, floor = advise(diagnosed, device, spec)
    return structs.replace(diagnosed, advice=advice, combined_saved_s=saved, combined_floor_s=floor)


def build_view(analyses: Sequence[ReportAnalysis], spread_threshold_pct: float | None = None,
               left_out: Sequence[RooflineError] = ()) -> ReportSetView:
    """The last step: what the renderers of the reports show (``roofline.analysis.view``), with each kernel's spread
    across the reports when ``spread_threshold_pct`` is given and there are several, and the files ``left_out``
    (the errors of the bad ones, from ``analyze_each``)."""
    from roofline.analysis.view import report_set

    return report_set(analyses, spread_threshold_pct, files_left_out(left_out))


def files_left_out(errors: Sequence[RooflineError]) -> tuple[LeftOut, ...]:
    """The report files a command went on past (``map_reports``' errors), as its documents name them."""
    from roofline.analysis.view import LeftOut

    return tuple(LeftOut(e.path, str(e), e.left_out) for e in errors)
