"""A store collected once per session from a few shipped examples and, where the shared data folder is beside the
repository, a few real reports (several GPUs, ncu 2020.3 to 2025, a report of 154 launches, one with NVTX ranges)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED_REPORTS

pytest.importorskip("pyarrow", reason="pyarrow not installed (pip install 'roofline[store]')")
pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")

EXAMPLES = [REPO / "examples" / "h100" / "torch-fp16.full.json", REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep",
            REPO / "examples" / "h200" / "torch-fp32.roofline.json"]
SHARED = ["a10g_sgemm-progression_basic.ncu-rep", "a100-40gb_selfjoin-cub-sort-154launches_basic.ncu-rep",
          "rtx3070_daxpy-nvtx_custom.ncu-rep", "a100-40gb_tree-search_full_ncu2020.3.ncu-rep"]


def sources() -> list[Path]:
    """The reports of the session's store: the examples, and the shared reports where they are."""
    shared = [SHARED_REPORTS / name for name in SHARED if (SHARED_REPORTS / name).is_file()]
    return EXAMPLES + shared


@pytest.fixture(scope="session")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Path]]]:
    """(the store, its reports), collected once."""
    from roofline.store.collect import collect

    store = tmp_path_factory.mktemp("store") / "s"
    outcome = collect(sources(), store)
    assert outcome.analysed == len(sources()) and not outcome.errors
    yield store, sources()
