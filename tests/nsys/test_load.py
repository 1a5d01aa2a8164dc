"""roofline.nsys.load: a path given as a str or a Path (docs/python-api.md: "One path ... as a string")."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline.errors import RooflineError
from roofline.nsys import load

REPO = Path(__file__).resolve().parents[2]
EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"


def test_load_timeline_takes_a_str_path_as_it_takes_a_path() -> None:
    """A str path raised AttributeError ('str' object has no attribute 'stat') from deep in the export step."""
    from_str, from_path = load.load_timeline(str(EXPORT)), load.load_timeline(EXPORT)
    assert from_str == from_path and from_str.path == str(EXPORT)
    assert [k.name for k in from_str.kernels] == [k.name for k in from_path.kernels] and from_str.kernels


def test_the_other_loaders_take_a_str_path_too() -> None:
    timeline, _ = load.load_with_configs(str(EXPORT))
    assert timeline == load.load_timeline(EXPORT)
    assert load.load_with_streams(str(EXPORT)).timeline == timeline
    assert load.load_for_profiling(str(EXPORT), 2)[0] == timeline


def test_a_missing_str_path_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(RooflineError) as err:
        load.load_timeline(str(tmp_path / "missing.sqlite"))
    assert "\n" not in str(err.value) and "missing.sqlite" in str(err.value)


def test_the_streams_loader_carries_the_launchers_rank_variables(tmp_path: Path) -> None:
    """What ``timeline`` reads per file carries the rank variables nsys ran with, for the ranks table."""
    from tests.nsys.test_timeline import with_environment

    ranked = with_environment(EXPORT, tmp_path / "x.sqlite", "HOME=/root;OMPI_COMM_WORLD_RANK=4;SLURM_PROCID=0")
    assert load.load_with_streams(ranked).rank_variables == {"OMPI_COMM_WORLD_RANK": 4, "SLURM_PROCID": 0}
    assert load.load_with_streams(EXPORT, streams=False).rank_variables == {}
