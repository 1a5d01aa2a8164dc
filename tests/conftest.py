"""Shared test fixtures: where the real reports live, and cached readers for them.

Real-report tests need the shared data folder ``../shared/ncu-reps`` beside the repository; without it
they skip with a clear reason, and every other test still runs.

Two independent ways of reading a real report are offered:

* ``roofline_report(name)``: through roofline's own reader (``roofline.ncu.reader.load_report``), parsed once
  per test session;
* ``raw_actions(name)``: straight through NVIDIA's ``ncu_report`` module, without any roofline code, so
  the formula tests can recompute every quantity from the raw metric values.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_REPORTS = Path(__file__).resolve().parents[1].parent / "shared" / "ncu-reps"
MISSING_SHARED = "../shared/ncu-reps not found: real-report tests need the shared data folder beside the repository"
SHARED_NSYS = SHARED_REPORTS.parent / "nsys-reps"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop before any test when the imported roofline is not the installed copy of this tree (tests/installed.py)."""
    import roofline
    from tests import installed

    why = installed.problem(Path(roofline.__file__).parent)
    if why:
        pytest.exit(f"roofline tests: {why}", returncode=2)


def find_shared_report(name: str) -> Path:
    """Path of one report in ../shared/ncu-reps (``name`` with or without ``.ncu-rep``); skips when absent."""
    if not SHARED_REPORTS.is_dir():
        pytest.skip(MISSING_SHARED)
    path = SHARED_REPORTS / (name if name.endswith(".ncu-rep") else f"{name}.ncu-rep")
    if not path.is_file():
        pytest.skip(f"{path.name} not found in ../shared/ncu-reps")
    return path


def find_shared_nsys(name: str) -> Path:
    """Path of one Nsight Systems file in ../shared/nsys-reps (name with its suffix); skips when absent."""
    path = SHARED_NSYS / name
    if not path.is_file():
        pytest.skip(f"{name} not found in ../shared/nsys-reps (the real Nsight Systems profiles)")
    return path


def shared_report_names() -> list[str]:
    """Every report name in ../shared/ncu-reps, for ``parametrize``; a single placeholder that skips
    (through ``find_shared_report``) when the folder is absent, so the skip reason stays readable."""
    if not SHARED_REPORTS.is_dir():
        return ["(shared folder missing)"]
    return sorted(p.name.removesuffix(".ncu-rep") for p in SHARED_REPORTS.glob("*.ncu-rep"))


@functools.cache
def _roofline_report(name: str):
    from roofline.ncu.reader import load_report

    return load_report(SHARED_REPORTS / f"{name}.ncu-rep")


def load_shared_report(name: str):
    """The report read by roofline's reader, parsed once per session (reports are frozen dataclasses)."""
    find_shared_report(name)
    return _roofline_report(name.removesuffix(".ncu-rep"))


class RawAction:
    """One action read with ncu_report directly: name, indices and every numeric/string metric value.

    ``value(name)`` returns None when the metric is absent, exactly as ``metric_by_name`` does.
    """

    def __init__(self, range_index: int, action_index: int, name: str, values: dict[str, Any],
                 units: dict[str, str], metric_names: tuple[str, ...] = (), demangled: str = "", mangled: str = "",
                 rules: tuple[dict[str, Any], ...] = ()) -> None:
        self.range_index, self.action_index, self.name = range_index, action_index, name
        self.values, self.units = values, units
        self.metric_names = metric_names  # every name the action lists, whatever its value type
        self.demangled, self.mangled = demangled, mangled
        self.rules = rules  # rule_results_as_dicts() as returned

    def __getitem__(self, metric: str) -> float:
        v = self.values[metric]
        assert isinstance(v, (int, float)), f"{metric} is not a number: {v!r}"
        return float(v)

    def value(self, metric: str) -> Any:
        return self.values.get(metric)

    def has(self, metric: str) -> bool:
        v = self.values.get(metric)
        return isinstance(v, (int, float)) and not math.isnan(v)


SM_THROUGHPUT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY_THROUGHPUT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"


def raw_whole_blocks_pct(raw: RawAction) -> float | None:
    """From the raw metrics: the busiest unit inside the SMs that ncu's two breakdowns list (``sm``, ``smsp``,
    ``l1tex``, ``idc``), its percent of peak x ceil(B / S) / (B / S) (B blocks, S SMs): the SM with the most blocks
    does its share in the launch's time. None without breakdowns, a grid size or the SM count."""
    local = []
    for side in (SM_THROUGHPUT, MEMORY_THROUGHPUT):
        for unit in str(raw.value("breakdown:" + side) or "").split(","):
            unit = unit.strip()
            if unit and "_internal_activity" not in unit and raw.has(unit) and \
                    unit.split("__")[0] in ("sm", "smsp", "l1tex", "idc"):
                local.append((raw[unit], unit.endswith(".avg.pct_of_peak_sustained_elapsed")))
    blocks, sms = raw.value("launch__grid_size"), raw.value("device__attribute_multiprocessor_count")
    if not local or not blocks or not sms:
        return None
    factor = math.ceil(blocks / sms) / (blocks / sms)  # an _active percent already leaves the idle SMs out
    return max(pct * factor if over_elapsed else pct for pct, over_elapsed in local)


def _raw_actions(name: str) -> tuple[RawAction, ...]:
    return raw_actions_at(SHARED_REPORTS / f"{name}.ncu-rep")


@functools.cache
def raw_actions_at(path: Path) -> tuple[RawAction, ...]:
    """Every action of the report at ``path`` read with ncu_report directly (no roofline code), cached."""
    ncu_report = pytest.importorskip("ncu_report")
    ctx = ncu_report.load_report(str(path))
    out = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            values, units = {}, {}
            for metric in action.metric_names():
                m = action.metric_by_name(metric)
                v = m.value()
                if isinstance(v, (int, float, str)):
                    values[metric] = v
                    units[metric] = m.unit()
            out.append(RawAction(r, a, action.name(), values, units, tuple(action.metric_names()),
                                 action.name(ncu_report.IAction.NameBase_DEMANGLED),
                                 action.name(ncu_report.IAction.NameBase_MANGLED),
                                 tuple(action.rule_results_as_dicts())))
    return tuple(out)


def read_raw_actions(name: str) -> tuple[RawAction, ...]:
    """Every action of a shared report read with ncu_report directly (no roofline code), cached."""
    find_shared_report(name)
    return _raw_actions(name.removesuffix(".ncu-rep"))


# --- Fixtures (use these from test modules; importing conftest directly is avoided) ----------------------
@pytest.fixture(scope="session")
def shared_report():
    """``shared_report(name) -> Path`` of a report in ../shared/ncu-reps; skips when the folder is absent."""
    return find_shared_report


@pytest.fixture(scope="session")
def roofline_report():
    """``roofline_report(name) -> Report`` read by roofline's reader, once per session."""
    return load_shared_report


@pytest.fixture(scope="session")
def raw_actions():
    """``raw_actions(name) -> tuple[RawAction, ...]`` read with ncu_report directly, once per session."""
    return read_raw_actions


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared report folder; skips when absent."""
    if not SHARED_REPORTS.is_dir():
        pytest.skip(MISSING_SHARED)
    return SHARED_REPORTS


# The renderer sweeps over every shared report (each report drawn and written in every format: 5 to 20 s a report
# on two cores) run on these five in the README's test command, one of each kind of report (ncu 2020.3 full set,
# 154-launch basic set, ncu 2025 full set, roofline set, hand-picked metrics); the other reports are marked slow
# and run in CI right after it (.ci/run).
RENDER_SWEEP = ("rtx3070_scan_full_ncu2020.3", "a100-40gb_selfjoin-cub-sort-154launches_basic",
                "h800_flash-attn-fwd_full", "gh200_silu_full-roofline", "rtx3070_daxpy-nvtx_custom")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test with a ``shared_name`` argument runs once per report in ../shared/ncu-reps (the renderer tests on the
    five of RENDER_SWEEP in the README's command, on the others when the slow tests run)."""
    if "shared_name" not in metafunc.fixturenames:
        return
    names: list[Any] = shared_report_names()
    if SHARED_REPORTS.is_dir() and "render" in metafunc.definition.path.relative_to(REPO).parts:
        names = [name if name in RENDER_SWEEP else pytest.param(name, marks=pytest.mark.slow) for name in names]
    metafunc.parametrize("shared_name", names)
