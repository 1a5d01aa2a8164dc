"""A small nsys export built in a test's tmp_path: three instances of one template (``_kernel_agent``, one per
lambda, as ICON's OpenACC-to-CUDA port launches them) beside a plain kernel, in the columns of a real export."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SHORT = "_kernel_agent"
PLAIN = "update_halo"
# one lambda per instance; the template arguments are all that tell them apart
INSTANCES = {tag: f"void _kernel_agent<__nv_dl_wrapper_t<__nv_dl_tag<void (*)(int), &velocity_tendencies, {tag}u>>>"
                  "(__nv_dl_wrapper_t<__nv_dl_tag<void (*)(int), &velocity_tendencies, " f"{tag}u>>)"
             for tag in (1, 2, 3)}
# launch order (correlationId) and duration in ns: instance 1 is the longest; its median launch is its third
LAUNCHES = [(2, 6_670_000), (1, 9_660_000), (3, 1_660_000), (0, 8_000_000), (1, 9_500_000), (0, 8_100_000),
            (1, 9_580_000), (0, 8_200_000)]  # tag 0: the plain kernel
GAP_NS = 10_000


def write(path: Path) -> Path:
    """The export at ``path``: StringIds and CUPTI_ACTIVITY_KIND_KERNEL with short and demangled names."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, correlationId INT, '
               "globalPid INT, demangledName INT, shortName INT, gridX INT, gridY INT, gridZ INT, blockX INT, "
               "blockY INT, blockZ INT)")
    names = [SHORT, PLAIN, f"{PLAIN}(double *, int)", *INSTANCES.values()]
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(names)))
    ids = {name: i for i, name in enumerate(names)}
    now = 1_000_000
    for corr, (tag, duration) in enumerate(LAUNCHES, 1):
        short, demangled = (PLAIN, f"{PLAIN}(double *, int)") if tag == 0 else (SHORT, INSTANCES[tag])
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, ?, 1, ?, ?, 128, 1, 1, 256, 1, 1)",
                   (now, now + duration, corr, ids[demangled], ids[short]))
        now += duration + GAP_NS
    db.commit()
    db.close()
    return path


def durations(tag: int) -> list[int]:
    """The durations of one instance's launches, in launch order."""
    return [d for t, d in LAUNCHES if t == tag]
