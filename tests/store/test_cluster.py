"""collect on a real Dask LocalCluster of two worker processes: the workers read the reports and write their own
Parquet files (one set per batch), and the store holds the same rows as a collect in this process."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline.store.collect import collect
from roofline.store.dataset import StoreError, open_store
from roofline.store.query import query
from tests.conftest import REPO

pytest.importorskip("distributed", reason="dask.distributed not installed (pip install 'roofline[store]')")

REPORTS = [REPO / "examples" / "h100" / name for name in ("torch-fp16.full.json", "triad-cupy.full.ncu-rep",
                                                           "torch-fp32.roofline.json")]
SQL = "SELECT path, launch, duration_s, pct_of_roof, time_to_gain_s FROM launches ORDER BY path, launch"


def test_a_local_cluster_of_worker_processes_collects_the_same_rows(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    collect(REPORTS, here)
    outcome = collect(REPORTS, there, workers=2, batch=1)
    assert outcome.analysed == len(REPORTS) and not outcome.errors
    assert query(there, SQL).to_pylist() == query(here, SQL).to_pylist()
    tags = {f.name for f in open_store(there).files("launches")}
    assert len(tags) == len(REPORTS)  # one file per batch: each written by the worker that read it


def test_a_scheduler_address_that_is_not_one_is_one_line_and_the_store_stays_empty(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no Dask scheduler answers") as refused:
        collect(REPORTS[:1], tmp_path / "s", scheduler="foo://nowhere")
    assert "\n" not in str(refused.value)
    assert not open_store(tmp_path / "s").reports


@pytest.mark.slow
def test_collect_on_a_running_schedulers_workers(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome = collect(REPORTS, tmp_path / "s", scheduler=cluster.scheduler_address, batch=2)
    assert outcome.analysed == len(REPORTS)
    assert query(tmp_path / "s", "SELECT count(DISTINCT path) AS n FROM launches").column("n").to_pylist() == [3]
