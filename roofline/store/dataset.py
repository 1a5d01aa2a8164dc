"""The store on disk: a folder of Parquet files (``data/<table>/gpu=<slug>/date=<YYYY-MM-DD>/part-*.parquet``),
``manifest.json``, the list of the files that are in the store and of the reports they hold, and ``journal/``, the
batches committed since the manifest was last written, one small record each (the files a batch added or replaced,
its reports' entries), applied in order on top of it.

A batch is committed by one record, written beside its place and renamed into it: the files a batch writes have new
names and are part of the store only once a record names them, so a batch stopped halfway (Ctrl-C, a crash) leaves
the store as it was, and its files are removed by the next ``collect``. A commit writes what the batch changed, not
the whole index, so it costs the same in a store of ten reports and of a million; at the end of a collect the
records are folded into the manifest (written beside it, renamed over it, then the records removed: a record the
manifest already holds, by its number, is not applied again). Writers take the lock file ``.lock`` (``flock``) for
the whole collect, so two collects on one store run one after the other.

A file the manifest names that is gone or cut short (``Store.lost``) makes the store damaged: a query refuses it in
one line (``Store.damaged``), and the next collect drops the file and marks the reports whose rows it held to be
analysed again (``Store.repair``)."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from msgspec import MsgspecError, Struct, convert
from msgspec.json import decode

from roofline.core.version import __version__
from roofline.errors import RooflineError
from roofline.store.rows import Row, gpu_slug
from roofline.store.schema import STORE_SCHEMA, TABLES, arrow_schema

MANIFEST = "manifest.json"
JOURNAL = "journal"  # the folder of the commit records not yet folded into the manifest
LOCK = ".lock"
FORMAT = "roofline-store"
COMPACT_FILES = 4  # a partition with this many files is merged at the end of a collect ...
COMPACT_ROWS = 1_000_000  # ... into files of up to this many rows
MERGE_BYTES = 8 << 20  # the size in memory of one row group of a merged file: what a merge holds at once
PARQUET_MAGIC = b"PAR1"  # the first and last bytes of a whole Parquet file
DAMAGED = "damaged"  # the catalog hash of an entry whose rows were partly lost: no analysis key matches it


class StoreError(RooflineError):
    """A store that is missing, is not a store, or was written by a newer roofline; a query that fails."""


class _Entry(Struct, kw_only=True):
    """The shape of a report's entry in the index (its other keys are kept as they are)."""

    content_hash: str
    size_bytes: int
    mtime_ns: int
    roofline_version: str
    catalog_hash: str
    files: list[str] = []
    ok: bool = True
    report_id: str = ""
    time_limit_s: float | None = None  # the read time limit (--timeout) it was read under; None: the default


class _Head(Struct, kw_only=True):
    """The opening of a manifest: what store it is and which version of the tables it holds."""

    format: str = ""
    store_schema: int = 0


class _Manifest(_Head, kw_only=True):
    """The shape of a manifest, checked before it is used."""

    files: dict[str, list[str]]
    reports: dict[str, _Entry]
    journal: int = 0
    old_files: list[str] = []


class _Record(Struct, kw_only=True):
    """The shape of a record of the journal, checked before it is applied."""

    seq: int
    renamed: dict[str, str]
    added: dict[str, list[str]]
    reports: dict[str, _Entry]
    written_by: str
    updated_at: str
    forgotten: list[str] = []


_Shape = TypeVar("_Shape", bound=Struct)


@dataclass
class Written:
    """What a batch wrote: per table its new files, per report file its entry in the manifest's index."""

    files: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TABLES})
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # report path -> its index entry
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line error) of the failed reports
    analysed: int = 0
    unchanged: int = 0


class Store:
    """A store folder and its manifest, as last read."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root, self.manifest = root, manifest

    @property
    def reports(self) -> dict[str, dict[str, Any]]:
        """The index: per report path, its content hash, size, time, roofline version, catalog hash, files."""
        out: dict[str, dict[str, Any]] = self.manifest["reports"]
        return out

    def files(self, table: str) -> list[Path]:
        """The files of one table that are in the store."""
        return [self.root / f for f in self.manifest["files"].get(table, [])]

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The store to this process alone (another collect waits), the manifest read again once it is."""
        import fcntl

        with open(self.root / LOCK, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                self.manifest = read_manifest(self.root)
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def remove_strays(self) -> int:
        """Remove the Parquet files no manifest names (a batch stopped before its commit); their number."""
        kept = {str(f) for t in TABLES for f in self.files(t)}
        stray = [p for p in (self.root / "data").rglob("*.parquet") if str(p) not in kept]
        for p in stray:
            p.unlink(missing_ok=True)
        return len(stray)

    def lost(self) -> list[str]:
        """The files the manifest names that are gone or cut short (no Parquet footer): rows the store has lost."""
        return [f for t in TABLES for f in self.manifest["files"].get(t, []) if not _intact(self.root / f)]

    def repair(self) -> list[str]:
        """The lost files (``lost``) out of the manifest, and the reports whose rows they held marked to be analysed
        again (their other rows are replaced then); those reports' paths."""
        gone = set(self.lost())
        if not gone:
            return []
        hit = {p: {**e, "catalog_hash": DAMAGED} for p, e in self.reports.items() if gone & set(e.get("files", []))}
        self._publish(dict.fromkeys(sorted(gone), ""), {t: [] for t in TABLES}, hit)
        return sorted(hit)

    def forget(self, paths: Sequence[str]) -> None:
        """The reports at ``paths`` out of the store: their rows (their files written again without them) and their
        index entries."""
        if paths:
            renamed = _without(self.root, self.reports, set(paths))
            self._publish(renamed, {t: [] for t in TABLES}, {}, forgotten=sorted(paths))

    def unreadable(self) -> str | None:
        """The first file the manifest names whose Parquet footer cannot be read, None where every one can: the
        check after a query failed (it reads every footer, ``lost`` only each file's ends)."""
        import pyarrow.parquet as pq

        for f in (f for t in TABLES for f in self.manifest["files"].get(t, [])):
            try:
                pq.read_metadata(self.root / f)
            except (OSError, ValueError):  # pyarrow's ArrowIOError and ArrowInvalid
                return str(f)
        return None

    def damaged(self) -> StoreError | None:
        """The one-line error of a store with lost files (``lost``), None for a whole one."""
        gone = self.lost()
        if not gone:
            return None
        some = f"{len(gone)} of the Parquet files its manifest names are" if len(gone) > 1 else "a Parquet file is"
        return StoreError(f"{self.root}: damaged store: {some} gone or cut short ({gone[0]})",
                          f"repair it with roofline collect -o {self.root} (it analyses again the reports whose rows "
                          "were lost), or delete the store and collect again")

    def commit(self, batch: Written) -> None:
        """Add a batch: its files and index entries; the rows an earlier collect wrote for the same report files
        removed (their files written again without them). One record of the journal makes it all visible."""
        reports = self.reports
        replaced = {p for p, e in batch.entries.items() if p in reports and e.get("files") is not None}
        renamed = _without(self.root, reports, replaced)  # old file -> new file, "" where no row is left
        entries = {path: entry if entry.get("files") is not None else  # unchanged content: its new size and time
                   {**reports[path], **{k: v for k, v in entry.items() if k != "files"}}
                   for path, entry in batch.entries.items()}
        self._publish(renamed, batch.files, entries)

    def compact(self, most_rows: int = COMPACT_ROWS, fewest: int = COMPACT_FILES) -> int:
        """Merge the files of each partition that holds ``fewest`` or more into files of up to ``most_rows`` rows
        (a query opens each file: fewer files, faster queries), and write an older roofline's files in the current
        schema; how many files were merged or written again."""
        import pyarrow.parquet as pq

        renamed: dict[str, str] = {}
        older = set(self.manifest.get("old_files", []))
        for table in TABLES:
            folders: dict[str, list[str]] = {}
            for f in self.manifest["files"].get(table, []):
                folders.setdefault(str(Path(f).parent), []).append(f)
            for names in folders.values():
                if len(names) < fewest and not older & set(names):
                    continue
                chunk: list[str] = []
                rows = 0
                for f in [*names, ""]:
                    n = pq.ParquetFile(self.root / f).metadata.num_rows if f else most_rows
                    if chunk and rows + n > most_rows:
                        renamed |= _merged(self.root, table, chunk, older)
                        chunk, rows = [], 0
                    if f:
                        chunk, rows = chunk + [f], rows + n
        if renamed:
            self._publish(renamed, {t: [] for t in TABLES}, {})
        return len(renamed)

    def fold(self) -> None:
        """The journal's records written into the manifest (replaced at once), then removed."""
        records = _records(self.root)
        if not records:
            return
        write_manifest(self.root, self.manifest)
        done = int(self.manifest.get("journal", 0))
        for seq, path in records:
            if seq <= done:
                path.unlink(missing_ok=True)

    def _publish(self, renamed: Mapping[str, str], added: Mapping[str, list[str]],
                 entries: Mapping[str, dict[str, Any]], forgotten: Sequence[str] = ()) -> None:
        """One record of the journal: ``renamed`` files in place of the old (several old may become one new; ""
        for none), ``added`` files, the index entries ``entries`` (each naming its files) and the reports
        ``forgotten`` (out of the index); written at once, applied to the manifest held here, then the old files
        removed."""
        record = {"seq": int(self.manifest.get("journal", 0)) + 1, "renamed": dict(renamed),
                  "added": {t: list(added[t]) for t in TABLES}, "reports": dict(entries), "written_by": __version__,
                  "updated_at": datetime.now(timezone.utc).isoformat()}
        if forgotten:
            record["forgotten"] = list(forgotten)
        write_record(self.root, record)
        self.manifest = applied(self.manifest, record)
        for f in renamed:
            (self.root / f).unlink(missing_ok=True)


def _intact(path: Path) -> bool:
    """Whether a Parquet file is there whole: its first and last bytes are the format's magic (a file cut short
    lacks its footer)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(PARQUET_MAGIC))
            fh.seek(-len(PARQUET_MAGIC), os.SEEK_END)
            return head == PARQUET_MAGIC and fh.read() == PARQUET_MAGIC
    except OSError:  # gone, unreadable, or shorter than its magic
        return False


def applied(manifest: dict[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest with one record of the journal applied (its index taken over, not copied)."""
    renamed: Mapping[str, str] = record["renamed"]

    def moved(names: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(new for f in names if (new := renamed.get(f, f)))) if renamed else list(names)

    older = manifest.get("old_files", [])
    if int(manifest.get("store_schema", STORE_SCHEMA)) < STORE_SCHEMA:  # an older roofline's files
        older = [f for t in TABLES for f in manifest["files"].get(t, [])]
    files = {t: moved(manifest["files"].get(t, [])) + list(record["added"].get(t, [])) for t in TABLES}
    reports: dict[str, dict[str, Any]] = manifest["reports"]
    reports.update(record["reports"])
    for path in record.get("forgotten", []):
        reports.pop(path, None)
    if renamed:
        for entry in reports.values():
            entry["files"] = moved(entry.get("files", []))
    return {**manifest, "files": files, "reports": reports, "written_by": record["written_by"],
            "store_schema": STORE_SCHEMA, "old_files": [f for f in older if f not in renamed],
            "updated_at": record["updated_at"], "journal": record["seq"]}


def _without(root: Path, reports: Mapping[str, Mapping[str, Any]], paths: set[str]) -> dict[str, str]:
    """The files holding rows of ``paths`` written again without them (in the current schema): old name -> new
    name ("" when no row is left); the old files stay until the manifest no longer names them."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    touched = {f for p in paths for f in reports[p].get("files", [])}
    renamed: dict[str, str] = {}
    drop = _strings(sorted(paths))
    for f in sorted(touched):
        table = pq.read_table(root / f, partitioning=None)
        kept = table.filter(pc.invert(pc.is_in(table["path"], value_set=drop)))
        renamed[f] = ""
        if kept.num_rows:
            renamed[f] = str(Path(f).with_name(f"part-{uuid.uuid4().hex}.parquet"))
            pq.write_table(current(Path(f).parts[1], kept), root / renamed[f])
    return renamed


def _merged(root: Path, table: str, names: Sequence[str], older: set[str]) -> dict[str, str]:
    """Files of one partition written as one (in the current schema), read one at a time and written in row groups
    of about MERGE_BYTES, so a merge holds one group in memory, not the partition: each old name -> the new name; a
    file alone only where an older roofline wrote it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if len(names) < 2 and not older & set(names):
        return {}
    new = str(Path(names[0]).with_name(f"part-{uuid.uuid4().hex}.parquet"))
    with pq.ParquetWriter(root / new, arrow_schema(table)) as writer:
        held: list[Any] = []
        for i, f in enumerate(names, start=1):
            held.append(current(table, pq.ParquetFile(root / f).read(use_threads=False)))
            if i == len(names) or sum(t.nbytes for t in held) >= MERGE_BYTES:
                writer.write_table(pa.concat_tables(held))
                held = []
    return {f: new for f in names}


def current(table: str, data: Any) -> Any:
    """Rows read from a file in the table's current schema: a column an older roofline did not write is null."""
    import pyarrow as pa

    schema = arrow_schema(table)
    if data.schema.equals(schema):
        return data
    names = set(data.column_names)
    columns = [data[f.name] if f.name in names else pa.nulls(data.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _strings(values: Sequence[str]) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.string())


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of a store folder with its journal applied; StoreError for a folder that is no store or a store
    of a newer roofline."""
    for _ in range(8):  # a collect that folds the journal meanwhile removes records: read again
        manifest = _base(root)
        try:
            for seq, path in _records(root):
                if seq > int(manifest.get("journal", 0)):
                    manifest = applied(manifest, _record(path))
        except FileNotFoundError:
            continue
        return manifest
    raise StoreError(f"{root}: the store kept changing while it was read", "read it again")


def _base(root: Path) -> dict[str, Any]:
    """The manifest file alone, checked: JSON, a roofline store's, of a schema this roofline reads, of the shape it
    writes."""
    path, fix = root / MANIFEST, "collect into a new store"
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root}: a file, not a roofline store (a store is a folder)",
                         "name the store's folder, or a new folder: roofline collect REPORTS -o STORE")
    try:
        manifest = _decoded(path, fix)
    except FileNotFoundError:
        raise StoreError(f"{root}: not a roofline store (no {MANIFEST})",
                         "collect reports into a new folder: roofline collect REPORTS -o STORE") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise StoreError(f"{path}: not a roofline store's manifest", fix)
    head = _checked(path, manifest, _Head, fix)
    if head.store_schema > STORE_SCHEMA:
        raise StoreError(f"{root}: written by a newer roofline (store schema {head.store_schema}, this one "
                         f"reads up to {STORE_SCHEMA})", "upgrade roofline: pip install -U roofline")
    _checked(path, manifest, _Manifest, fix)
    return manifest


def _record(path: Path) -> dict[str, Any]:
    """One record of the journal, checked."""
    fix = "collect into a new store, or remove the record (the store forgets its batch's reports: collect them again)"
    record = _decoded(path, fix)
    _checked(path, record, _Record, fix)
    return dict(record)


def _decoded(path: Path, fix: str) -> Any:
    """The JSON value read from ``path``; StoreError (one line) where it is unreadable or no JSON
    (FileNotFoundError where it is gone)."""
    try:
        return decode(path.read_bytes())
    except FileNotFoundError:
        raise  # a record folded meanwhile: read_manifest reads again
    except (OSError, MsgspecError) as e:
        raise StoreError(f"{path}: unreadable ({_line(e)})", fix) from None


def _checked(path: Path, data: Any, shape: type[_Shape], fix: str) -> _Shape:
    """``data`` once it has ``shape`` (a key missing or of another type: StoreError naming it, in one line)."""
    try:
        return convert(data, shape)
    except MsgspecError as e:
        raise StoreError(f"{path}: not of the shape roofline writes ({_line(e)})", fix) from None


def _line(err: Exception) -> str:
    """An error's first line."""
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


def _records(root: Path) -> list[tuple[int, Path]]:
    """The journal's records, by number."""
    folder = root / JOURNAL
    if not folder.is_dir():
        return []
    return sorted((int(p.stem), p) for p in folder.glob("*.json") if p.stem.isdigit())


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    """A JSON file replaced at once: written beside it, synced, renamed over it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w") as fh:
        fh.write(json.dumps(data, separators=(",", ":")))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_manifest(root: Path, manifest: Mapping[str, Any]) -> None:
    """The manifest replaced at once."""
    _write_json(root / MANIFEST, manifest)


def write_record(root: Path, record: Mapping[str, Any]) -> None:
    """One record of the journal, in place at once: the commit of a batch."""
    (root / JOURNAL).mkdir(exist_ok=True)
    _write_json(root / JOURNAL / f"{record['seq']:012d}.json", record)


def open_store(root: str | os.PathLike[str], create: bool = False) -> Store:
    """The store at ``root``; with ``create``, a new empty one where there is none (an empty or new folder)."""
    path = Path(root)
    if create and not (path / MANIFEST).exists():
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise StoreError(f"{path}: not a roofline store and not an empty folder",
                             "name a new folder, or a store that collect wrote")
        _create(path)
    elif not path.exists():
        raise StoreError(f"{path}: no such store", "collect reports into it first: roofline collect REPORTS -o STORE")
    return Store(path, read_manifest(path))


def _create(path: Path) -> None:
    """A new empty store at ``path`` (its missing folders made); StoreError (one line) where the folder cannot be
    made or written (under a file, on a read-only or virtual file system, without permission)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        write_manifest(path, {"format": FORMAT, "store_schema": STORE_SCHEMA, "written_by": __version__,
                              "created_at": datetime.now(timezone.utc).isoformat(),
                              "files": {t: [] for t in TABLES}, "reports": {}})
    except OSError as err:
        raise StoreError(f"{path}: cannot create the store ({err.strerror or type(err).__name__})",
                         "choose a writable folder for -o STORE") from None


def unfit(table: str, rows: Sequence[Row]) -> str | None:
    """Why ``rows`` do not fit ``table``'s columns (a number past its type, a value of another type), in one line;
    None where they fit."""
    import pyarrow as pa

    try:
        pa.Table.from_pylist(list(rows), schema=arrow_schema(table))
    except (OverflowError, TypeError, ValueError, pa.ArrowException) as err:  # ArrowInvalid is a ValueError
        return (str(err).strip().splitlines() or [type(err).__name__])[0]
    return None


def write_rows(root: Path, table: str, rows: Sequence[Row], tag: str) -> list[tuple[str, list[str]]]:
    """Write a table's rows, one file per partition (gpu, date; errors by date alone), named with ``tag``; per
    file, its name relative to the store and the report paths it holds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts: dict[str, list[Row]] = {}
    for row in rows:
        date = row["collected_at"].strftime("%Y-%m-%d")
        folder = f"date={date}" if table == "errors" else f"gpu={gpu_slug(row['device'] or '')}/date={date}"
        parts.setdefault(folder, []).append(row)
    out = []
    schema = arrow_schema(table)
    for folder, part in sorted(parts.items()):
        name = f"data/{table}/{folder}/part-{tag}.parquet"
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(part, schema=schema), root / name)
        out.append((name, sorted({r["path"] for r in part})))
    return out
