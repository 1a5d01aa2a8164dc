"""``collect --workers N`` and ``--scheduler ADDRESS``: the batches run on the workers of a Dask cluster
(``dask.distributed``), a ``LocalCluster`` of N worker processes or the cluster a running scheduler serves. Each
worker reads its batch's reports and writes their Parquet files into the store's folder itself (so the workers
must see the store and the reports at the same paths); this process commits each batch as it ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from roofline.store.dataset import StoreError, Written


def run_on_cluster(task: Callable[..., Written], work: Sequence[Sequence[Any]], args: Sequence[Any],
                   commit: Callable[[Written], None], workers: int | None, scheduler: str | None) -> None:
    """``task(batch, *args)`` run on the cluster for every batch of ``work``, each result committed as it ends (in
    the order they end)."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise StoreError("collect --workers/--scheduler needs dask.distributed",
                         "pip install 'roofline[store]'") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:  # refused, silent, or not an address
            raise StoreError(f"--scheduler {scheduler}: no Dask scheduler answers ({e})",
                             "start one (dask scheduler) or give --workers N") from None
        cluster = None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(task, list(jobs), *args, pure=False) for jobs in work]
        for future in as_completed(futures):
            commit(future.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
