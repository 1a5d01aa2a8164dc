"""``roofline collect``: report files analysed by the facade (``Roofline.report``, the document ``report -f json``
writes) and their rows added to a store, batch by batch, each batch committed at once (``dataset.Store.commit``).

A report already in the store is not read again when its size and modification time are those recorded, or else
its content hash is, with the same roofline version, spec catalog and ceiling set; a report whose content changed
replaces its rows; rows written by another roofline version, spec catalog or ceiling set are analysed again. A file
that cannot be analysed is one row of the ``errors`` table (its one-line error) and never stops the others; left
unchanged, it is among the collect's errors again (``still_failed``), so a run again fails as the first did, unless
the read time limit (``--timeout``) changed: then it is read again. The
reports whose rows a lost file held (``dataset.Store.repair``) are analysed again, named or not.

The batches run here, one after another, or on the workers of a Dask cluster (``cluster``): each worker reads its
batch's reports and writes their Parquet files itself; this process commits each batch as it ends."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline.core.model import INCOMPLETE_FILE
from roofline.core.version import __version__
from roofline.errors import ReportError, RooflineError
from roofline.facade import Roofline
from roofline.pipeline import AnalysisOptions
from roofline.render.report.json import typed
from roofline.store.dataset import MANIFEST, Store, Written, open_store, write_rows
from roofline.store.rows import Row, Stamp, error_row, report_rows
from roofline.store.schema import TABLES

if TYPE_CHECKING:  # pragma: no cover
    from roofline.core.model import Report

BATCH = 32  # reports per batch: what one commit adds, and what a worker holds in memory at once
SUFFIXES = (".ncu-rep", ".json")  # the files a folder given to collect contributes
Job = tuple[str, str | None]  # a report path, and its content hash in the store where the rest of its key matches
Done = Callable[[Written], None]


@dataclass(frozen=True)
class Outcome:
    """What a collect did: reports analysed, left as they were, failed (with their errors: those failed before and
    left unchanged too, ``still_failed`` of them), stray files removed, reports analysed again because a file that
    held their rows was lost (``dataset.Store.repair``)."""

    analysed: int
    unchanged: int
    errors: tuple[tuple[str, str], ...]
    strays: int = 0
    still_failed: int = 0
    repaired: int = 0
    kept_gone: int = 0  # reports whose files are gone, their rows kept as they were
    forgotten: int = 0  # failures whose files are gone, their error rows dropped


def report_paths(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The report files named, each folder replaced by the .ncu-rep files and the report models (.json) under it
    (other JSON files in a folder, an index or a config, are not reports); absolute paths, as given: a symbolic link
    is the link's path, not its target's (the store names a report by the path it was collected from), and ``..``
    stays for the file system to follow (``far/..`` through a linked folder is not ``.``); a file named twice (also
    through a link) once, by its first path. ReportError (one line) for a folder that holds no report: a wrong path,
    not an empty choice."""
    out: list[str] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            found = sorted(str(f.absolute()) for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file()
                           and (f.suffix != ".json" or _is_report_model(f)))
            if not found:
                raise ReportError(f"{p}: a folder that holds no report (no .ncu-rep file nor report model .json, "
                                  "at any depth)", "give the folder of the Nsight Compute reports, or their files")
            out += found
        else:
            out.append(str(p.absolute()))
    first: dict[str, str] = {}
    for f in out:
        first.setdefault(os.path.realpath(f), f)
    return list(first.values())


def _is_report_model(path: Path) -> bool:
    """Whether a JSON file found in a folder is a report model: its opening names the format."""
    from roofline.core.model import MODEL_FORMAT

    with path.open("rb") as f:
        return MODEL_FORMAT.encode() in f.read(4096)


def catalog_hash(roofline: Roofline) -> str:
    """The key of the analysis beside roofline's version: the spec catalog (every spec, --specs included), the
    built-in spec folder's files (the per-architecture ceilings too), the ceiling set percent of roof uses and the
    rows' format (``rows.ROWS_FORMAT``)."""
    from roofline.specs.catalog import builtin_folder
    from roofline.store.rows import ROWS_FORMAT

    digest = hashlib.sha256(repr((roofline.catalog.specs, roofline.options.ceilings, ROWS_FORMAT)).encode())
    folder = builtin_folder()
    for f in sorted(folder.rglob("*.yaml")):
        digest.update(f"{f.relative_to(folder)}\0".encode() + f.read_bytes())
    return digest.hexdigest()[:16]


def content_hash(path: str) -> str:
    """The SHA-256 of a file's bytes; ReportError (one line, before any read that could wait) for anything but a
    regular file: a FIFO, a device, a folder (``core.files.open_regular``)."""
    from roofline.core.files import open_regular

    digest = hashlib.sha256()
    with open_regular(Path(path), ReportError, "give the report file itself") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def jobs_for(store: Store, paths: Sequence[str], key: str, time_limit_s: float | None = None) -> tuple[list[Job], int]:
    """The reports to read (with the hash the store knows where only the file's time or size may differ), and how
    many are left alone: same size, time, roofline version and analysis key. A failure recorded under another read
    time limit (``--timeout``) is read again: raising the limit is what a read that ran out of time asks."""
    todo: list[Job] = []
    same = 0
    for path in paths:
        entry = store.reports.get(path)
        current = entry is not None and entry["roofline_version"] == __version__ and entry["catalog_hash"] == key \
            and (entry.get("ok", True) or entry.get("time_limit_s") == time_limit_s)
        try:
            st = os.stat(path)
        except OSError:
            todo.append((path, None))
            continue
        if current and entry is not None and (entry["size_bytes"], entry["mtime_ns"]) == (st.st_size, st.st_mtime_ns):
            same += 1
        else:
            todo.append((path, entry["content_hash"] if current and entry is not None else None))
    return todo, same


def batches(jobs: Sequence[Job], size: int) -> Iterator[list[Job]]:
    for i in range(0, len(jobs), size):
        yield list(jobs[i:i + size])


_FACADES: dict[AnalysisOptions, Roofline] = {}  # per process (a worker's too): the catalog loaded once


def _facade(options: AnalysisOptions) -> Roofline:
    if options not in _FACADES:
        _FACADES[options] = Roofline(options)
    return _FACADES[options]


def collect_batch(jobs: Sequence[Job], options: AnalysisOptions, root: str, key: str) -> Written:
    """Read one batch of reports (here or on a worker) and write its rows into the store's folder, under new file
    names; what was written, for the commit."""
    facade = _facade(options)
    rows: dict[str, list[Row]] = {t: [] for t in TABLES}
    out = Written()
    now = datetime.now(timezone.utc)
    for path, known in jobs:
        stamp, entry = _stamp(path, key, now, options.time_limit_s)
        if known is not None and stamp.content_hash == known:
            out.entries[path] = {**entry, "files": None}
            out.unchanged += 1
            continue
        try:
            view = facade.report([path], keep_going=False).view
            refuse_incomplete(path, view.reports[0].analysis.report)
            found = report_rows(typed(view).reports[0], view.reports[0], stamp)
            unfit_rows(path, found)
            entry["ok"] = True
            out.analysed += 1
        except RooflineError as e:
            found, entry["ok"] = {"errors": [error_row(stamp, str(e), e.exit_code)]}, False
            out.errors.append((path, str(e)))
        except Exception as e:  # noqa: BLE001  # a defect met on one strange file must not stop the others
            line = f"{path}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            found, entry["ok"] = {"errors": [error_row(stamp, line, 1)]}, False
            out.errors.append((path, line))
        for t, r in found.items():
            rows[t] += r
        out.entries[path] = entry
    tag = uuid.uuid4().hex
    for t in TABLES:
        for name, held in write_rows(Path(root), t, rows[t], tag):
            out.files[t].append(name)
            for p in held:
                out.entries[p]["files"].append(name)
    return out


INCOMPLETE = INCOMPLETE_FILE  # as diff says it (compare.regression)


def refuse_incomplete(path: str, report: Report) -> None:
    """ReportError (one line) for a report read from a file cut short or missing records (``Report.incomplete``):
    rows of the launches it still holds would under-count the report's launches and time without a sign, so it is a
    row of errors, as ``diff`` refuses it, and ``report`` warns of it."""
    if report.incomplete:
        read = len(report.launches)
        raise ReportError(f"{path}: {INCOMPLETE}: {read} launch{'' if read == 1 else 'es'} read and the others lost, "
                          "so its rows would under-count its launches and time", "copy the file again, or re-profile")


def unfit_rows(path: str, found: dict[str, list[Row]]) -> None:
    """StoreError (one line) where a report's rows do not fit the store's columns (a launch value past 64 bits, from
    a damaged file the report still reads): the report becomes a row of errors, the batch goes on."""
    from roofline.store.dataset import StoreError, unfit

    for table, rows in found.items():
        problem = unfit(table, rows)
        if problem is not None:
            raise StoreError(f"{path}: its {table} rows do not fit the store's columns ({problem})",
                             "the report holds a value no launch can have (a damaged file?): check it with roofline "
                             "report, or re-profile")


def _stamp(path: str, key: str, now: datetime, time_limit_s: float | None) -> tuple[Stamp, dict[str, Any]]:
    """The stamp of a report file's rows and its index entry (no files yet; the read time limit it was read under,
    None for the default); a file that cannot be read, or is no regular file (a FIFO is never read here), has no
    content hash (its one-line error comes from the analysis, which refuses it before reading)."""
    try:
        st = os.stat(path)
        size, mtime, digest = st.st_size, st.st_mtime_ns, content_hash(path)
    except (OSError, RooflineError):
        size, mtime, digest = 0, 0, ""
    stamp = Stamp(path, digest, size, __version__, key, now)
    return stamp, {"content_hash": digest, "size_bytes": size, "mtime_ns": mtime, "roofline_version": __version__,
                   "catalog_hash": key, "report_id": stamp.report_id, "time_limit_s": time_limit_s, "files": []}


def _refuse_nothing_to_start(asked: Sequence[str], store: str | os.PathLike[str]) -> None:
    """ReportError (one line) where a new store would start from reports none of which exists: a wrong path, not a
    store to make empty. A store already there keeps its rule: a named file gone is one error, the others go on."""
    if asked and not (Path(store) / MANIFEST).exists() and not any(Path(p).exists() for p in asked):
        shown = asked[0] if len(asked) == 1 else f"{asked[0]} and the {len(asked) - 1} other paths"
        raise ReportError(f"{shown}: no such file or folder, so no store is made at {store}",
                          "check the paths of the reports")


def collect(paths: Sequence[str | os.PathLike[str]], store: str | os.PathLike[str],
            options: AnalysisOptions | None = None, workers: int | None = None, scheduler: str | None = None,
            batch: int = BATCH, done: Done | None = None) -> Outcome:
    """Collect report files (folders: their .ncu-rep and .json files; none: every report the store holds) into the
    store (a new one where there is none), here or on a Dask cluster: ``workers`` local worker processes, or the
    scheduler at ``scheduler``. ``done`` is called after each batch is committed. An argument of the wrong kind is
    a UsageError (``checked_arguments``) before any store is made."""
    paths, options = checked_arguments(paths, store, options, workers, scheduler, batch)
    asked = report_paths(paths) if paths else []  # a folder of no report refused before a store is made
    _refuse_nothing_to_start(asked, store)
    st = open_store(store, create=bool(asked))  # no report named: the store's own reports, so it must be there
    with st.lock():
        strays = st.remove_strays()
        repaired = st.repair()
        named = asked or sorted(st.reports)
        named += sorted(set(repaired) - set(named))
        named, gone = sort_gone(st, named, set(asked))
        st.forget(gone.forgotten)
        key = catalog_hash(_facade(options))
        todo, unchanged = jobs_for(st, named, key, options.time_limit_s)
        work = list(batches(todo, batch))
        analysed, errors = 0, list(gone.errors)

        def commit(written: Written) -> None:
            nonlocal analysed, unchanged
            st.commit(written)
            analysed, unchanged = analysed + written.analysed, unchanged + written.unchanged
            errors.extend(written.errors)
            if done is not None:
                done(written)

        if workers is not None or scheduler is not None:
            from roofline.store.cluster import run_on_cluster

            run_on_cluster(collect_batch, work, (options, str(st.root), key), commit, workers, scheduler)
        else:
            for jobs in work:
                commit(collect_batch(jobs, options, str(st.root), key))
        st.compact()
        st.fold()
        still = still_failed(st, named, {path for path, _ in errors})
    return Outcome(analysed, unchanged, tuple(errors + still), strays, len(still), len(repaired), len(gone.kept),
                   len(gone.forgotten))


def checked_arguments(paths: object, store: object, options: object, workers: object, scheduler: object,
                      batch: object) -> tuple[list[str | os.PathLike[str]], AnalysisOptions]:
    """The paths (one alone: a list of one, not its characters) and the options (None: the defaults) of a collect;
    UsageError (one line, named as the call spells it) for an argument of the wrong kind, before any store is made
    (``workers=-1`` would wait for a cluster of no worker)."""
    from roofline.core.choices import a_path, instance_of, path_list, refused, whole_at_least
    from roofline.errors import UsageError

    named = path_list("paths", paths)
    a_path("store", store, "roofline-store")
    if options is not None:
        instance_of("options", options, AnalysisOptions, "roofline.AnalysisOptions(...)")
    if workers is not None:
        whole_at_least("workers", workers, 1, 8)
    if scheduler is not None and not (isinstance(scheduler, str) and scheduler.strip()):
        raise refused("scheduler", scheduler, "a scheduler's address", "give e.g. scheduler='tcp://head:8786'")
    if workers is not None and scheduler is not None:
        raise UsageError(f"workers={workers!r} with scheduler={scheduler!r}: choose one",
                         "workers starts a local cluster; scheduler uses a running one")
    whole_at_least("batch", batch, 1, BATCH)
    return named, options if isinstance(options, AnalysisOptions) else AnalysisOptions()


@dataclass(frozen=True)
class Gone:
    """The reports of a collect whose files are gone: those collected whole (their rows kept: the store is their
    record), those recorded as failed or with rows lost (forgotten: nothing is left to analyse), and the one-line
    errors of the files asked for by name that are gone with nothing kept."""

    kept: tuple[str, ...]
    forgotten: tuple[str, ...]
    errors: tuple[tuple[str, str], ...]


def sort_gone(st: Store, named: Sequence[str], asked: set[str]) -> tuple[list[str], Gone]:
    """The named reports whose files are there (to collect), and what becomes of those whose files are gone."""
    from roofline.core.files import regular_file
    from roofline.store.dataset import DAMAGED

    there: list[str] = []
    kept: list[str] = []
    forgotten: list[str] = []
    errors: list[tuple[str, str]] = []
    for path in named:
        entry = st.reports.get(path)
        if os.path.exists(path):
            there.append(path)
        elif entry is not None and entry.get("ok", True) and entry["catalog_hash"] != DAMAGED:
            kept.append(path)
        else:
            forgotten += [path] if entry is not None else []
            if path in asked or entry is not None and entry.get("ok", True):  # asked for, or its rows were lost
                try:
                    regular_file(Path(path), ReportError, "check the path")
                    line = f"{path}: gone while collect ran"  # back since: collect it again
                except RooflineError as e:
                    line = str(e) + ("; rows of it were lost from the store, so it is dropped from the store"
                                     if entry is not None else "")
                errors.append((path, line))
    return there, Gone(tuple(kept), tuple(forgotten), tuple(errors))


def still_failed(st: Store, named: Sequence[str], failed: set[str]) -> list[tuple[str, str]]:
    """The reports named, left unchanged, that the store records as failed (not failed again in this collect), each
    with its recorded one-line error: a run again must not hide them."""
    return [(path, recorded_error(st, path)) for path in named
            if path not in failed and not st.reports.get(path, {}).get("ok", True)]


def recorded_error(st: Store, path: str) -> str:
    """The one-line error the store's errors table holds for a report, or a line that says where to find it."""
    import pyarrow.parquet as pq

    for name in st.reports[path].get("files", []):
        if not name.startswith("data/errors/"):
            continue
        try:
            table = pq.read_table(st.root / name, columns=["path", "error"], filters=[("path", "==", path)],
                                  partitioning=None)
        except (OSError, ValueError):  # unreadable (ArrowInvalid is a ValueError): the line is not known
            continue
        if table.num_rows:
            return str(table.column("error")[0].as_py())
    return f"{path}: collect could not analyse this report (unchanged since; its line is in the store's errors)"
