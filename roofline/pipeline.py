"""The one analysis pipeline behind every command and the Python API.

For each report: load and validate it (a file named twice is read once), keep the launches the kernel filter selects,
match the GPU's datasheet spec (one spec catalog per run), choose the ceilings, analyse the roofline
(``roofline.analysis.roofline``), then add the diagnostics (``roofline.analysis.diagnostics``) and the advice
(``roofline.analysis.advice``) to every launch. Bad input raises ``RooflineError`` with a one-line message.

    import roofline
    analyses = roofline.analyze_files(["app.ncu-rep"], roofline.AnalysisOptions(ceilings="measured-clock"))

While an ``.ncu-rep`` is read in its child process, each batch of launches it sends is analysed, diagnosed and
advised at once (``EarlyDiagnoses``), so that little is left to do once the last launch arrives.

Only the option types are imported with this module; the analysis modules load on first use.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from roofline.core.choices import GroupBy, NameBase

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import ReportAnalysis
    from roofline.analysis.results import LaunchAnalysis
    from roofline.core.model import CeilingSet, Device, KernelLaunch, Report
    from roofline.errors import RooflineError, SpecError
    from roofline.specs.catalog import DeviceSpec, SpecCatalog, SpecMatch

T = TypeVar("T")


@dataclass(frozen=True)
class AnalysisOptions:
    """What to analyse and against which roofs: the kernel filters, OR-ed, and the name they read (the
    ``--kernel`` language of ``roofline.core.kernel_filter``), the ceiling set percent of roof uses, extra device
    spec files or folders (before the built-in ones), the time the native reader may take per .ncu-rep
    (None: scaled to the file's size, ``reader.read_time_limit``), and whether every launch gets its diagnostics and
    advice (``complete``: what ``report`` shows; the rankings and comparisons read none of them, nor the SASS of the
    sampled instructions, which is then not read), and what a group of launches is (``GroupBy``)."""

    kernel: tuple[str, ...] = ()
    kernel_name_base: NameBase = "function"
    ceilings: CeilingSet = "kernel-clock"
    specs: tuple[str | os.PathLike[str], ...] = ()
    time_limit_s: float | None = None
    diagnostics: bool = True
    group_by: GroupBy = "kernel"


def analyze_files(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions = AnalysisOptions(),
                  catalog: SpecCatalog | None = None, jobs: int = 1,
                  done: Callable[[], None] | None = None) -> list[ReportAnalysis]:
    """Analyse report files (``.ncu-rep`` or ``.json`` report models), in the order given, up to ``jobs`` at once
    (``done`` is called after each); ``catalog`` defaults to the built-in specs plus ``options.specs``. The first
    bad file raises its RooflineError."""
    return analyze_each(paths, options, catalog, keep_going=False, jobs=jobs, done=done)[0]


def analyze_each(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions = AnalysisOptions(),
                 catalog: SpecCatalog | None = None, keep_going: bool = True, jobs: int = 1,
                 done: Callable[[], None] | None = None) -> tuple[list[ReportAnalysis], list[RooflineError]]:
    """``analyze_files`` that goes on past bad files: the analyses of the good ones in the order given, and the
    error of each bad one (a file named twice counts once); ``done`` is called after each file."""
    out = map_reports(paths, _same, options, catalog, keep_going, jobs, done=done)
    assert out is not None, "only a run over MPI ranks has no results"
    return out


def map_reports(paths: Sequence[str | os.PathLike[str]], then: Callable[[ReportAnalysis], T],
                options: AnalysisOptions = AnalysisOptions(), catalog: SpecCatalog | None = None,
                keep_going: bool = True, jobs: int = 1, mpi: bool = False,
                done: Callable[[], None] | None = None) -> tuple[list[T], list[RooflineError]] | None:
    """``then`` of the analysis of each good report file, in the order given, and the error of each bad one (a file
    named twice is analysed once). The files are analysed up to ``jobs`` at once in worker processes, or, with
    ``mpi``, spread over the ranks of an MPI job: the results are on rank 0 then, None on the other ranks. Only
    ``then``'s result comes back from a worker or rank, so it can be smaller than the analysis."""
    from roofline.core import kernel_filter, parallel
    from roofline.errors import RooflineError
    from roofline.ncu.child import read_ahead, stop_reading_ahead
    from roofline.ncu.reader import load_report
    from roofline.specs.catalog import load_catalog

    kernel_filter.parse(options.kernel, options.kernel_name_base)  # a bad filter is refused before any file is read
    named: dict[str, str | os.PathLike[str]] = {}
    for path in paths:
        named.setdefault(_identity(path), path)  # a file named twice is read under its first name
    firsts = list(named.values())
    at_once = min(jobs, jobs_in_memory(firsts), len(firsts))
    if firsts and not mpi and at_once <= 1:
        # unless the CLI started it already: read while the catalog and the analysis load
        read_ahead(firsts[0], options.diagnostics)
    early_work = EarlyDiagnoses.pays(options, at_once, mpi)
    try:
        specs = catalog or load_catalog(options.specs)
        _preload()

        def one(path: str | os.PathLike[str]) -> T | RooflineError:
            try:
                with _collector_paused():
                    early = EarlyDiagnoses(options, specs) if early_work else None
                    report = load_report(path, options.time_limit_s, early.take if early else None,
                                         options.diagnostics)
                    return then(_analyze(report, options, specs, early))
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


def _same(analysis: ReportAnalysis) -> ReportAnalysis:
    return analysis


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a report is loaded and analysed, then as it was. Every object
    of a report model stays alive to the end, and each full collection walks them all again: a tenth of the time
    at 100,000 launches. Reference counting still frees what is dropped; the analysis makes no cycles to collect."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _preload() -> None:
    """Import what the analysis of a report needs now, while the first report is read in a child process on
    another core, rather than after its data arrive."""
    import numpy  # noqa: F401  (the checks and the analysis run per cohort of launches over arrays)
    import yaml  # noqa: F401  (the spec match parses a device spec)

    from roofline.analysis import advice, hotspots, instructions  # noqa: F401
    from roofline.analysis.diagnostics import occupancy, stalls, tensor_cores  # noqa: F401
    from roofline.ncu import validation  # noqa: F401


def analyze_loaded(report: Report, options: AnalysisOptions = AnalysisOptions(),
                   catalog: SpecCatalog | None = None) -> ReportAnalysis:
    """Analyse a report already in memory (from ``roofline.load`` or built by hand) as ``analyze_files`` does."""
    from roofline.specs.catalog import load_catalog

    return _analyze(report, options, catalog or load_catalog(options.specs))


def _analyze(report: Report, options: AnalysisOptions, catalog: SpecCatalog,
             early: EarlyDiagnoses | None = None) -> ReportAnalysis:
    """``analyze_loaded``, taking the diagnoses ``early`` worked out while the report was read."""
    from roofline.analysis.roofline import analyze_report
    from roofline.core import kernel_filter

    selected = kernel_filter.parse(options.kernel, options.kernel_name_base).select(report)
    match = early.match if early is not None and early.device is selected.device else spec_for(catalog, selected.device)
    spec = match.spec if match else None
    problem = _ceilings_problem(options.ceilings, selected.device, spec, selected.path)
    if problem is not None:
        raise problem
    if not options.diagnostics:
        return analyze_report(selected, spec, match.how if match else "", options.ceilings, group_by=options.group_by)
    return analyze_report(selected, spec, match.how if match else "", options.ceilings,
                          finish=lambda a: complete(a, selected.device, spec),
                          finished=early.finished(selected, spec) if early is not None else None,
                          group_by=options.group_by)


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


def complete(a: LaunchAnalysis, device: Device, spec: DeviceSpec | None = None) -> LaunchAnalysis:
    """A launch's roofline analysis with its occupancy, Tensor Core and warp-stall diagnostics, its instruction
    roofline, its hot spots and its advice."""
    from roofline.analysis.advice import advise
    from roofline.analysis.diagnostics import occupancy, stalls, tensor_cores
    from roofline.analysis.hotspots import hotspots
    from roofline.analysis.instructions import instruction_roofline
    from roofline.analysis.time_model import time_model

    diagnosed = replace(a, time_model=time_model(a, device), occupancy=occupancy.diagnose(a.launch, device),
                        tensor_cores=tensor_cores.diagnose(a, device, spec), stalls=stalls.diagnose(a.launch),
                        instruction_roofline=instruction_roofline(a, device), hotspots=hotspots(a.launch))
    return replace(diagnosed, advice=advise(diagnosed, device, spec))


class EarlyDiagnoses:
    """The analyses of an ``.ncu-rep``'s launches, with their diagnoses and advice, worked out batch by batch as the
    reader brings them, while the rest of the file is still being read (this process would only wait on the reader
    then). A launch's analysis made without the rest of its report (``analysis.analyze_launches``) is the one its
    report's analysis makes but for the time share, which none of the diagnoses and advice reads: the report's
    analysis takes them for the very launch objects they were made for, against the same spec, and adds the
    share."""

    def __init__(self, options: AnalysisOptions, catalog: SpecCatalog) -> None:
        self.options = options
        self.catalog = catalog
        self.device: Device | None = None
        self.match: SpecMatch | None = None
        self.spec: DeviceSpec | None = None
        self.on = False
        self.done: dict[int, LaunchAnalysis] = {}  # by id(launch); each analysis keeps its launch alive

    @staticmethod
    def pays(options: AnalysisOptions, at_once: int, mpi: bool) -> bool:
        """Whether early work pays: the analysis uses it (every launch is completed, no kernel filter picks some),
        and each of the ``at_once`` reports analysed at once has a core for it beside the one its reader's child
        runs on. Where not (as many workers as cores, MPI ranks), the work would only take CPU from the readers:
        it repeats the roofline maths of every batch for the report's columns (50 reports with ``--jobs 2`` on 2
        cores: 6.22 s with it, 6.05 s without, medians of 5 alternating runs)."""
        from roofline.core.parallel import cores

        return options.diagnostics and not options.kernel and not mpi and cores() >= 2 * at_once

    def take(self, device: Device, launches: Sequence[KernelLaunch]) -> None:
        """Work out the diagnoses of a batch of launches (the device is the report's, from its first batch on)."""
        from roofline.analysis.roofline import analyze_launches
        from roofline.ncu import validation

        if self.device is None:
            self.device, self.match = device, spec_for(self.catalog, device)
            self.spec = self.match.spec if self.match else None
            self.on = (validation.device_problem(device) is None
                       and _ceilings_problem(self.options.ceilings, device, self.spec) is None)
        if not self.on or device is not self.device:
            return
        valid = [launch for launch in launches if validation.launch_problem(launch, device) is None]
        for a in analyze_launches(valid, device, self.spec, self.options.ceilings):
            self.done[id(a.launch)] = complete(a, device, self.spec)

    def finished(self, report: Report, spec: DeviceSpec | None) -> dict[int, LaunchAnalysis]:
        """By position in ``report``, the launches analysed and completed early, where the report's device and spec
        are the ones they were analysed against (a launch validation marked invalid is another object)."""
        if report.device is not self.device or spec is not self.spec:
            return {}
        done = self.done
        return {i: done[id(launch)] for i, launch in enumerate(report.launches)
                if id(launch) in done and done[id(launch)].launch is launch}
