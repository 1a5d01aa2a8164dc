"""Read an nsys SQLite export into a ``Timeline``: the kernel launches come out of SQLite as numpy columns and are
aggregated there (``roofline.nsys.launches``), so a profile of a million kernel launches never becomes a million
Python objects; the smaller tables (NVTX, CUDA API, copies) are aggregated by SQLite or read row by row.

Facts of the export this relies on (nsys 2020.3 to 2025.1): kernels are rows of ``CUPTI_ACTIVITY_KIND_KERNEL``
(``start``/``end`` in ns, ``deviceId``, ``globalPid``, ``correlationId``; ``shortName`` an id into
``StringIds``), a profile without kernels has no such table; NVTX ranges are rows of ``NVTX_EVENTS`` with their
name in ``text`` or, by id, in ``textId``; the GPUs are in ``TARGET_INFO_GPU`` (``id``) or, in 2020.3 exports, in
``TARGET_INFO_CUDA_GPU`` (``deviceId``); columns differ between versions, so they are looked up by name. The
environment nsys was started with is the ``DeviceEnvironment`` row of ``TARGET_INFO_SYSTEM_ENV``, its variables
separated by ``;`` (2023 captures on) or, in 2021 captures, by NUL bytes (the ``sqlite3`` shell prints only the text
before the first).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path

from roofline.core.files import EMPTY_FILE, open_regular
from roofline.core.kernel_names import kernel_key
from roofline.core.mpi import RANK_VARS
from roofline.core.timeline import (
    DeviceTime,
    KernelTime,
    LaunchConfigTime,
    NvtxRange,
    Representative,
    Timeline,
)
from roofline.errors import ReportError
from roofline.ncu.container import MAGIC as NCU_MAGIC
from roofline.nsys import activity
from roofline.nsys.launches import (
    DeviceFigures,
    LaunchError,
    Launches,
    pairs,
    per_device,
    per_group,
    read_columns,
    read_launches,
    unions,
)

KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
NVTX = "NVTX_EVENTS"
SQLITE_MAGIC = b"SQLite format 3\x00"
NS = 1e-9
PID_MASK = ~0xFFFFFF  # globalTid = globalPid + thread id in the low 24 bits
SYSTEM_ENV = "TARGET_INFO_SYSTEM_ENV"
RANK_VARIABLES = RANK_VARS  # the MPI launchers' rank variables, most specific first
_ENV_ENTRY = re.compile(r"([A-Z_][A-Z0-9_]*)=(\d+)")
NVTX_RANGES_LISTED = "against the ranges `roofline timeline` lists"  # the MCP server names its tool instead
EXPORT_HINT = "give nsys's SQLite export (nsys export --type sqlite FILE, or nsys profile --export sqlite)"


def read_timeline(path: Path, nvtx: str | None = None, group_by: str = "kernel", name: Path | None = None) -> Timeline:
    """The timeline of one SQLite export; ``nvtx``: keep only the kernels launched inside ranges of that name;
    ``group_by``: "kernel" (instances apart, as ``report``) or "function" (pooled by short name); ``name``: the file
    the errors name (the report a temporary export was made from; ``path`` itself by default)."""
    shown = name or path
    with _export(path, shown) as db:
        tables = _tables(db)
        if KERNELS not in tables:
            raise ReportError(f"{shown}: the profile holds no GPU kernels (no {KERNELS} table)",
                              "profile with CUDA tracing on (nsys profile --trace cuda)")
        source = _kernel_source(db, shown, tables, nvtx)
        launches = read_launches(db, source, _demangled(db))
        if not len(launches) and nvtx is None:
            raise ReportError(f"{shown}: the profile holds no GPU kernels (an empty {KERNELS} table)",
                              "profile with CUDA tracing on (nsys profile --trace cuda)")
        if not len(launches):
            raise ReportError(f"{shown}: no kernel was launched inside an NVTX range named {nvtx!r}",
                              f"check the name {NVTX_RANGES_LISTED}")
        kernels = _kernels(db, launches, group_by)
        figures = per_device(launches)
        every = unions(*read_columns(db, KERNELS, ("start", '"end"', "deviceId"))) if nvtx is not None else {}
        pids = activity.launching_processes(db, tables, source)
        devices = tuple(replace(d, idle_causes=activity.idle_causes(db, tables, f.device, f.busy, pids.get(f.device),
                                                                     every.get(f.device)))
                        for d, f in zip(_devices(db, tables, figures), figures, strict=True))
        return Timeline(path=str(path), kernels=kernels, devices=devices, nvtx=_nvtx_ranges(db, tables),
                        nvtx_filter=nvtx, group_by=group_by, api=activity.api_summary(db, tables),
                        transfers=activity.transfers(db, tables), memory=activity.memory_use(db, tables))


def representatives(path: Path, names: Sequence[str], group_by: str = "kernel",
                    name: Path | None = None) -> dict[str, Representative]:
    """The median-duration launch of each kernel named (a ``KernelTime.name`` of the same ``group_by``), by its
    index among that kernel's launches in launch order (correlationId: the order of the CUDA API calls), which is
    what ncu's --launch-skip counts in a one-process application when its -k selects that kernel alone (``name``:
    as ``read_timeline``)."""
    with _export(path, name or path) as db:
        if KERNELS not in _tables(db) or not names:
            return {}
        groups = _group_table(db, KERNELS, group_by)
        wanted = [gid for gid, (key, _, _) in groups.items() if key in set(names)]
        rows = db.execute(f"""
            WITH a AS (SELECT g.gid AS gid, k."end" - k.start AS d,
                              ROW_NUMBER() OVER (PARTITION BY g.gid ORDER BY k.correlationId, k.start) - 1 AS ix
                       FROM {KERNELS} k JOIN temp.kgroup g ON g.short = k.shortName AND g.dem = k.{_demangled(db)}
                       WHERE g.gid IN ({_marks(wanted)})),
                 r AS (SELECT gid, ix, d, ROW_NUMBER() OVER (PARTITION BY gid ORDER BY d, ix) AS rn,
                              COUNT(*) OVER (PARTITION BY gid) AS n FROM a)
            SELECT gid, ix, d FROM r WHERE rn = (n + 1) / 2""", wanted)
        return {groups[gid][0]: Representative(groups[gid][0], ix, d * NS) for gid, ix, d in rows}


def launch_configs(path: Path, group_by: str = "kernel", name: Path | None = None) -> tuple[LaunchConfigTime, ...]:
    """Per kernel (as ``read_timeline`` groups them) and launch configuration (grid, block): launches, total and
    median duration; most total time first (``name``: as ``read_timeline``)."""
    with _export(path, name or path) as db:
        if KERNELS not in _tables(db):
            return ()
        groups = _group_table(db, KERNELS, group_by)
        dims = "k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ"
        rows = db.execute(f"""
            WITH a AS (SELECT g.gid AS gid, {dims}, k."end" - k.start AS d,
                              ROW_NUMBER() OVER (PARTITION BY g.gid, {dims} ORDER BY k."end" - k.start) AS rn,
                              COUNT(*) OVER (PARTITION BY g.gid, {dims}) AS n
                       FROM {KERNELS} k JOIN temp.kgroup g ON g.short = k.shortName AND g.dem = k.{_demangled(db)})
            SELECT gid, gridX, gridY, gridZ, blockX, blockY, blockZ, COUNT(*), SUM(d),
                   AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN d END)
            FROM a GROUP BY gid, gridX, gridY, gridZ, blockX, blockY, blockZ""").fetchall()
    configs = [LaunchConfigTime(groups[gid][0], groups[gid][1], groups[gid][2], (gx, gy, gz), (bx, by, bz), n,
                                total * NS, median * NS)
               for gid, gx, gy, gz, bx, by, bz, n, total, median in rows]
    return tuple(sorted(configs, key=lambda c: (-c.total_s, c.name, c.grid, c.block)))


def rank_variables(path: Path, name: Path | None = None) -> dict[str, int]:
    """The MPI launcher's rank variables (``RANK_VARIABLES``, in that order) in the environment nsys ran with, as
    the export records it; empty where it records none (``name``: as ``read_timeline``)."""
    with _export(path, name or path) as db:
        if SYSTEM_ENV not in _tables(db):
            return {}
        found: dict[str, int] = {}
        for (value,) in db.execute(f"SELECT value FROM {SYSTEM_ENV} WHERE name = 'DeviceEnvironment'"):
            for entry in re.split(r"[;\x00]", str(value)):
                match = _ENV_ENTRY.fullmatch(entry.strip())
                if match and match[1] in RANK_VARIABLES:
                    found.setdefault(match[1], int(match[2]))
        return {v: found[v] for v in RANK_VARIABLES if v in found}


@contextmanager
def _export(path: Path, shown: Path) -> Iterator[sqlite3.Connection]:
    """The export, open read-only; a query that meets a table or column it lacks (a truncated or hand-made file) or
    a damaged page, or a value that is not what the schema declares (a NULL or a text where an integer belongs, a
    name that is not UTF-8: SQLite checks neither on reading), is a ReportError naming the file (``shown``), not a
    traceback."""
    with closing(_connect(path, shown)) as db:
        try:
            yield db
        except (sqlite3.DatabaseError, LaunchError, UnicodeDecodeError, TypeError) as err:
            raise ReportError(f"{shown}: not an nsys export this reader knows ({_said(err)})", EXPORT_HINT) from None


def _connect(path: Path, shown: Path) -> sqlite3.Connection:
    """The export opened read-only, after checking it is a regular file in SQLite's format (errors name ``shown``)."""
    with open_regular(path, ReportError, EXPORT_HINT) as f:
        head = f.read(len(SQLITE_MAGIC))
    if head.startswith(NCU_MAGIC):
        raise ReportError(f"{shown}: an Nsight Compute report, not an Nsight Systems profile",
                          "read it with roofline report; this reads .nsys-rep, .qdrep and their .sqlite exports")
    if head != SQLITE_MAGIC:
        what = ("a Git LFS pointer, not the file" if head.startswith(b"version https") else
                EMPTY_FILE if not head else "not an SQLite file")
        raise ReportError(f"{shown}: {what}", EXPORT_HINT)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        names = _tables(db)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # a damaged schema's message may not be UTF-8
        raise ReportError(f"{shown}: cannot be read as SQLite ({_said(err)})", EXPORT_HINT) from None
    if "StringIds" not in names:
        db.close()
        raise ReportError(f"{shown}: an SQLite file but not an nsys export (no StringIds table)", EXPORT_HINT)
    return db


def _said(err: Exception) -> str:
    """An error's text on one line, cut to 200 characters (SQLite quotes a damaged schema's lines in its message)."""
    text = " ".join(str(err).split())
    return text if len(text) <= 200 else text[:199] + "…"


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _kernel_source(db: sqlite3.Connection, path: Path, tables: set[str], nvtx: str | None) -> str:
    """The kernel rows to aggregate, as a FROM clause: the table, or a temporary one of the launches in ``nvtx``."""
    if nvtx is None:
        return KERNELS
    _check_nvtx(tables, path)
    db.execute(f"CREATE TEMP TABLE inside AS SELECT k.* FROM {KERNELS} k WHERE EXISTS ({_inside_sql(db)})", (nvtx,))
    return "temp.inside"


def _check_nvtx(tables: set[str], path: Path) -> None:
    """ReportError when the export has no NVTX or no CUDA API trace, without which --nvtx cannot be answered."""
    for table, option in ((NVTX, "nvtx"), (RUNTIME, "cuda")):
        if table not in tables:
            raise ReportError(f"{path}: --nvtx needs the {table} table, which this export lacks",
                              f"profile with nsys profile --trace cuda,nvtx (it lacks the {option} trace)")


def _inside_sql(db: sqlite3.Connection) -> str:
    """Whether kernel row ``k`` was launched inside a range named by the query's parameter: its launch call (same
    process, same correlationId) started inside the range, on the range's thread. Exports whose NVTX names are
    only in ``text`` (no ``textId`` column) are read too."""
    name = ("COALESCE(v.text, (SELECT value FROM StringIds WHERE id = v.textId))" if "textId" in _columns(db, NVTX)
            else "v.text")
    return f"""SELECT 1 FROM {RUNTIME} r JOIN {NVTX} v ON v.globalTid = r.globalTid AND r.start >= v.start
                                                     AND r.start <= v."end"
               WHERE r.correlationId = k.correlationId AND (r.globalTid & {PID_MASK}) = k.globalPid AND {name} = ?"""


def _demangled(db: sqlite3.Connection) -> str:
    """The kernel table's demangled-name column (every export seen has one; else the short name stands in)."""
    return "demangledName" if "demangledName" in _columns(db, KERNELS) else "shortName"


def _group_table(db: sqlite3.Connection, source: str, group_by: str) -> dict[int, tuple[str, str, str]]:
    """The kernel groups, as a temporary table ``kgroup(short, dem, gid)`` mapping each (shortName, demangledName)
    id pair to its group (``_grouping``); returns gid -> (group name, short name, one demangled name)."""
    pairs = db.execute(f"""SELECT DISTINCT k.shortName, k.{_demangled(db)}, s.value, d.value FROM {source} k
                           LEFT JOIN StringIds s ON s.id = k.shortName
                           LEFT JOIN StringIds d ON d.id = k.{_demangled(db)}""").fetchall()
    gids, groups = _grouping(pairs, group_by)
    db.execute("DROP TABLE IF EXISTS temp.kgroup")
    db.execute("CREATE TEMP TABLE kgroup (short INTEGER, dem INTEGER, gid INTEGER, PRIMARY KEY (short, dem))")
    db.executemany("INSERT INTO temp.kgroup VALUES (?, ?, ?)", [(p[0], p[1], g) for p, g in zip(pairs, gids,
                                                                                              strict=True)])
    return groups


def _grouping(pairs: Sequence[tuple[int, int, object, object]],
              group_by: str) -> tuple[list[int], dict[int, tuple[str, str, str]]]:
    """The group of each (short name id, demangled name id, short name, demangled name), and gid -> (group name,
    short name, one demangled name). Grouped by "kernel", the name is ``kernel_key`` (two instances of one template
    apart, overloads of one function pooled, as ``report``); by "function", the short name. Groups are numbered in
    name order, each named from its first pair in that order."""
    gids: dict[str, int] = {}
    groups: dict[int, tuple[str, str, str]] = {}
    of_pair = [0] * len(pairs)
    for i in sorted(range(len(pairs)), key=lambda i: (str(pairs[i][2]), str(pairs[i][3]))):
        sid, _, short_value, demangled_value = pairs[i]
        short = str(short_value) if short_value is not None else f"(string id {sid})"
        demangled = str(demangled_value) if demangled_value is not None else ""
        key = kernel_key(short, demangled) if group_by == "kernel" else short
        gid = of_pair[i] = gids.setdefault(key, len(gids))
        groups.setdefault(gid, (key, short, demangled))
    return of_pair, groups


def _kernels(db: sqlite3.Connection, launches: Launches, group_by: str) -> tuple[KernelTime, ...]:
    """Count, total, median, min, max and GPUs per kernel, most total time first."""
    ids, launch_pair = pairs(launches)
    strings = _strings(db, sorted(set(ids.ravel().tolist())))
    gids, groups = _grouping([(s, d, strings.get(s), strings.get(d)) for s, d in ids.tolist()], group_by)
    kernels = [KernelTime(groups[g][0], f.count, f.total * NS, (f.middle[0] + f.middle[1]) / 2 * NS, f.low * NS,
                          f.high * NS, f.devices, groups[g][1], groups[g][2])
               for g, f in enumerate(per_group(launches, launch_pair, gids, len(groups)))]
    return tuple(sorted(kernels, key=lambda k: (-k.total_s, k.name)))


def _strings(db: sqlite3.Connection, ids: Sequence[int]) -> dict[int, object]:
    """StringIds' values of these ids (those it lacks left out)."""
    out: dict[int, object] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        out.update(db.execute(f"SELECT id, value FROM StringIds WHERE id IN ({_marks(chunk)})", chunk))
    return out


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


def _devices(db: sqlite3.Connection, tables: set[str], figures: Sequence[DeviceFigures]) -> tuple[DeviceTime, ...]:
    """Per GPU: launches, busy time (the union of the launches' intervals) and span, named from the export."""
    names, l2 = _gpu_info(db, tables)
    return tuple(DeviceTime(f.device, names.get(f.device), f.launches, f.busy.total * NS, f.span * NS,
                            l2.get(f.device)) for f in figures)


def _gpu_info(db: sqlite3.Connection, tables: set[str]) -> tuple[dict[int, str], dict[int, int]]:
    """GPU names and L2 sizes by device id: TARGET_INFO_GPU.id, else (2020.3 exports) TARGET_INFO_CUDA_GPU.deviceId."""
    for table, key in (("TARGET_INFO_GPU", "id"), ("TARGET_INFO_CUDA_GPU", "deviceId")):
        columns = _columns(db, table) if table in tables else set()
        if {key, "name"} <= columns:
            l2 = "l2CacheSize" if "l2CacheSize" in columns else "NULL"
            rows = db.execute(f"SELECT {key}, name, {l2} FROM {table}").fetchall()
            return ({int(dev): str(name) for dev, name, _ in rows},
                    {int(dev): int(size) for dev, _, size in rows if size})
    return {}, {}


def _nvtx_ranges(db: sqlite3.Connection, tables: set[str]) -> tuple[NvtxRange, ...]:
    """NVTX ranges (rows with an end; instant markers have none) grouped by name, longest total first."""
    if NVTX not in tables:
        return ()
    name = ("COALESCE(text, (SELECT value FROM StringIds WHERE id = textId))" if "textId" in _columns(db, NVTX)
            else "text")
    rows = db.execute(f"""SELECT {name} AS n, COUNT(*), SUM("end" - start) FROM {NVTX}
                          WHERE "end" IS NOT NULL AND n IS NOT NULL GROUP BY n ORDER BY 3 DESC, n""").fetchall()
    return tuple(NvtxRange(str(n), count, total * NS) for n, count, total in rows)
