"""Beside the kernels: where each GPU's idle time goes, the CUDA API summary, the memory transfers and the memory
in use, on every SQLite export of ../shared/nsys-reps and the shipped example; each figure against the same figure
computed here from plain queries (``check_activity``, also run on the reports exported with nsys in
test_export.py). The idle causes are checked with another method: every elementary segment between two event
boundaries is given to the first cause (in the documented order) whose intervals cover it."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from roofline.core.timeline import Timeline
from roofline.nsys.timeline import read_timeline
from tests.conftest import find_shared_nsys
from tests.nsys import independent

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nsys" / "h100-examples.sqlite"
SQLITE = ["gp100_miniweather-openacc_2021.2-export2022.2.sqlite", "h200_nvfuser-matmul-nvtx_2025.1.sqlite",
          "rtx3090_memfusion-conv-nvtx_2023.1.sqlite", "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite",
          "v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite"]
HOST_SIDE, KINDS, merged, strip, tables = (independent.HOST_SIDE, independent.KINDS, independent.merged,
                                           independent.strip, independent.tables)


def check_activity(path: Path, t: Timeline) -> None:
    """Every figure of the API summary, the transfers, the memory in use and the idle causes, independently."""
    have = tables(path)
    strings = dict(independent.rows(path, "SELECT id, value FROM StringIds"))
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in have:
        calls: dict[str, list[int]] = defaultdict(list)
        for name_id, d in independent.rows(path, 'SELECT nameId, "end" - start FROM CUPTI_ACTIVITY_KIND_RUNTIME'):
            calls[strip(strings[name_id])].append(d)
        assert {a.name for a in t.api} == set(calls)
        for a in t.api:
            d = calls[a.name]
            assert [a.calls, a.total_s, a.median_s, a.min_s, a.max_s] == pytest.approx(
                [len(d), sum(d) * 1e-9, statistics.median(d) * 1e-9, min(d) * 1e-9, max(d) * 1e-9], rel=1e-12)
    moved: dict[tuple[str, str], list[int]] = defaultdict(list)
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in have:
        for kind, src, dst, size, d in independent.rows(
                path, 'SELECT copyKind, srcKind, dstKind, bytes, "end" - start FROM CUPTI_ACTIVITY_KIND_MEMCPY'):
            side = {"src": src, "dst": dst}.get(HOST_SIDE.get(kind, ""))
            moved[(str(kind), KINDS.get(side, "") if side is not None else "")] += [size, d]
    if "CUPTI_ACTIVITY_KIND_MEMSET" in have:
        for size, d in independent.rows(path, 'SELECT bytes, "end" - start FROM CUPTI_ACTIVITY_KIND_MEMSET'):
            moved[("memset", "")] += [size, d]
    assert sorted((x.count, x.bytes, round(x.total_s * 1e9), x.memory) for x in t.transfers) == sorted(
        (len(v) // 2, sum(v[0::2]), sum(v[1::2]), memory) for (_, memory), v in moved.items())
    if "CUDA_GPU_MEMORY_USAGE_EVENTS" in have:
        rows = independent.rows(path, "SELECT deviceId, bytes, memoryOperationType FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
                                      "ORDER BY start, rowid")
        for m in t.memory:
            levels = [0]
            for dev, size, op in rows:
                if dev == m.device_id:
                    levels.append(levels[-1] + (size if op == 0 else -size))
            assert (m.peak_bytes, m.final_bytes) == (max(levels), levels[-1])
    for d in t.devices:
        assert math.isclose(sum(c.seconds for c in d.idle_causes), d.idle_s, rel_tol=1e-9, abs_tol=1e-12)
        expected = independent.segment_causes(path, d.device_id)  # to the bit: integer ns scaled once, both
        assert {(c.kind, c.detail): c.seconds for c in d.idle_causes} == {k: ns * 1e-9 for k, ns in expected.items()}


@pytest.mark.parametrize("name", SQLITE)
def test_every_figure_beside_the_kernels_matches_plain_queries(name: str) -> None:
    path = find_shared_nsys(name)
    check_activity(path, read_timeline(path))


def test_the_shipped_example_accounts_its_idle_time() -> None:
    """The SGEMM's three pageable copies (64 MiB each, in the GPU's idle time) are causes of their own; the memory
    in use peaks at the SGEMM's three 64 MiB buffers."""
    t = read_timeline(EXAMPLE)
    check_activity(EXAMPLE, t)
    [d] = t.devices
    causes = {(c.kind, c.detail): c.seconds for c in d.idle_causes}
    copies = independent.rows(EXAMPLE, 'SELECT copyKind, SUM("end" - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1')
    assert causes[("copy", "Host-to-Device (pageable)")] == pytest.approx(dict(copies)[1] * 1e-9, rel=1e-12)
    assert causes[("copy", "Device-to-Host (pageable)")] == pytest.approx(dict(copies)[2] * 1e-9, rel=1e-12)
    assert t.memory[0].peak_bytes == 3 * 4096 * 4096 * 4 and t.memory[0].final_bytes == 0
    assert {a.name for a in t.api} >= {"cudaLaunchKernel", "cudaDeviceSynchronize", "cudaMemcpy"}


def test_kernels_an_nvtx_filter_leaves_out_are_an_idle_cause_of_their_own() -> None:
    """Llama 3 on the RTX 4060 Ti, layer 0's kernels only: other kernels ran in the gaps between them (the GPU was
    busy, not idle). That cause is the time all kernels cover within the kept kernels' span, less the kept kernels'
    own busy time; the causes still sum to the idle time."""
    path = find_shared_nsys("rtx4060ti_llama3-inference-nvtx_2024.6.sqlite")
    t = read_timeline(path, nvtx="layer_0_computation")
    [d] = t.devices
    keep = independent.inside_nvtx(path, "layer_0_computation")
    every = independent.launches(path)
    kept = [(s, e) for _, s, e, dev, corr, pid in every if dev == d.device_id and (corr, pid) in keep]
    first, last = min(s for s, _ in kept), max(e for _, e in kept)
    covered = sum(min(e, last) - max(s, first)
                  for s, e in merged([(s, e) for _, s, e, dev, _, _ in every if dev == d.device_id])
                  if min(e, last) > max(s, first)) * 1e-9
    causes = {c.kind: c.seconds for c in d.idle_causes}
    assert causes["other_kernels"] == pytest.approx(covered - d.busy_s, rel=1e-9)
    assert 0 < causes["other_kernels"] < d.idle_s
    assert math.isclose(sum(c.seconds for c in d.idle_causes), d.idle_s, rel_tol=1e-9)
