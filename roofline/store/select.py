"""``compare --store STORE A B`` and ``diff --store STORE BASE NEW``: the reports named inside a store, found by the
path they were collected from (as given, relative to here, or any tail of it such as the file name) or by their
report id, each checked to be the file the store analysed (its content hash), then read again from that file.

Pairing kernels needs each report's analysis (every launch's counters, the device's attributes and clocks, which
the work match, the noise intervals and projections read), not the figures the store keeps per launch; so the
figures are those of ``compare`` and ``diff`` on the same files, and a report whose file is gone or changed since
it was collected is refused in one line."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from roofline.store.dataset import Store, StoreError, open_store

ID_PREFIX = 6  # the fewest hex digits of a report id that name a report
SHOWN = 3  # the candidates an ambiguous name lists


def store_reports(store: str | os.PathLike[str], names: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The report files ``names`` designate in ``store``, in order; StoreError (one line) for a name that matches
    no report or several, a report collect could not analyse, and a file gone or changed since it was collected."""
    st = open_store(store)
    return [_checked(st, _found(st, str(name))) for name in names]


def _found(st: Store, name: str) -> str:
    """The one report path of the store that ``name`` designates."""
    reports = st.reports
    matches = _matches(reports, name)
    if not matches:
        raise StoreError(f"{name}: not the name of a report in the store {st.root}",
                         "name it by its path as collected, a tail of it (the file name) or its report id: "
                         f"roofline query {st.root} \"SELECT path, report_id FROM reports\"")
    if len(matches) > 1:
        shown = ", ".join(matches[:SHOWN]) + (", ..." if len(matches) > SHOWN else "")
        raise StoreError(f"{name}: names {len(matches)} reports of the store ({shown})",
                         "give more of its path, or its report id")
    return matches[0]


def _matches(reports: Mapping[str, Mapping[str, Any]], name: str) -> list[str]:
    """The paths ``name`` designates: the path itself (as given, relative to here, or its links resolved: a store
    an older roofline collected holds link targets), else its report id (or at least ``ID_PREFIX`` leading digits
    of it), else the paths it is a tail of (whole components)."""
    for exact in (name, os.path.abspath(name), str(Path(name).resolve())):
        if exact in reports:
            return [exact]
    low = name.lower()
    if len(low) >= ID_PREFIX and all(c in "0123456789abcdef" for c in low):
        ids = [p for p, e in reports.items() if str(e.get("report_id", "")).startswith(low)]
        if ids:
            return sorted(ids)
    tail = "/" + name.removeprefix("./").lstrip("/")
    return sorted(p for p in reports if p.endswith(tail))


def _checked(st: Store, path: str) -> str:
    """``path`` once it is known to be a report the store analysed and the file it analysed."""
    from roofline.store.collect import content_hash

    entry = st.reports[path]
    if not entry.get("ok", False):
        raise StoreError(f"{path}: collect could not analyse this report (its line is in the store's errors)",
                         "fix the file and collect it again, or name another report")
    try:
        info = os.stat(path)
    except OSError:
        raise StoreError(f"{path}: collected, but the file is gone; compare and diff read each report's launches "
                         "from its file (the store keeps their figures, not the counters that pair them)",
                         "restore the file, or ask the stored figures: roofline query STORE \"SQL\"") from None
    same = (entry.get("size_bytes"), entry.get("mtime_ns")) == (info.st_size, info.st_mtime_ns)
    if not same and content_hash(path) != entry.get("content_hash"):
        raise StoreError(f"{path}: changed since it was collected (its content hash differs)",
                         f"collect it again (roofline collect {path} -o {st.root}), or give the file itself")
    return path
