"""Columnar evaluation of the per-launch formulas: the launches of a report in cohorts, each cohort's formulas
run once over numpy arrays (one element per launch), and single launches taken back out only where shown.

The contract, for whoever writes a formula (``roofline.ncu.metrics`` says it in full):
- A cohort is a set of launches that hold the same metrics (names in the same order, the same text values, the
  same NaN metrics) and each number whose sign a formula tests with the same sign (``cohorts``; which numbers:
  ``ncu.metrics.sign_tested``). ``Cohort`` stands in for a ``KernelLaunch``: ``value(name)`` is a float64 array.
  So a branch on whether a metric is there, or on whether a count is zero (``nonzero``, ``shared``), goes the same
  way for every launch of a cohort: a plain ``if``.
- A choice by the values themselves is made per launch: ``where``, ``is_none``, ``largest``, ``smallest``,
  ``argmax_key``, ``at_key`` (each also takes a single launch's numbers, and gives one value where a cohort's
  launches agree). A choice of which metrics to read is made before the formulas run, and the cohort split by it
  (``Cohort.split``).
- Nothing is re-run: ``shared`` on a value the launches do not share raises ``CohortMismatch``, a defect of the
  formula.
- A text holds no per-launch number made in a formula: what quotes a launch's numbers (a note with its clock) or
  only a shown launch needs (its busiest units in order) is made by the per-launch step, ``per_launch(make,
  *inputs)``: at once for one launch, and for a cohort when each launch is taken out (``take_launch``).
Array arithmetic is IEEE double arithmetic in the same order as the scalar formulas, so a launch's numbers equal
those of a scalar run.
"""

from __future__ import annotations

import dataclasses
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

from msgspec import Struct, field

from roofline.core.model import MetricTable, table_rows

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from typing_extensions import TypeIs

    from roofline.core.model import KernelLaunch

T = TypeVar("T")
PlanKind = Literal["make", "tuple", "named", "mapping", "struct", "record"]  # a PerLaunch, a tuple, ..., a dataclass
_PLAIN = (str, int, float, bool, type(None))  # a single launch's values: no numpy needed (the reader never loads it)


def _is_array(x: Any) -> bool:
    """Whether ``x`` is a numpy array or scalar (numpy is loaded only once a cohort made one)."""
    np_ = sys.modules.get("numpy")
    return np_ is not None and isinstance(x, np_.ndarray | np_.generic)


def shared(x: Any) -> Any:
    """The value every launch of a cohort holds (a single launch's value is its own). A formula calls it only on
    what the forming of cohorts makes common to their launches (``cohorts``: which metrics, their texts, the sign of
    each number) or on what the caller split the cohort by (``Cohort.split``); anything else is a defect in the
    formula, raised as ``CohortMismatch``."""
    if isinstance(x, _PLAIN) or not _is_array(x):
        return x
    if x.ndim == 0:
        return x.item()
    first = x[0]
    if bool((x == first).all()):
        return first.item() if hasattr(first, "item") else first
    raise CohortMismatch(f"the launches of a cohort differ in a value a formula branches on ({x[:4].tolist()})")


class CohortMismatch(AssertionError):
    """A formula branched on a value the launches of a cohort do not share: a defect of the formula, never data."""


def nonzero(x: Any) -> TypeIs[float]:
    """Whether a quantity is measured and not zero (a single launch's ``if x:``): the same for every launch of a
    cohort, which share the sign of each metric (``shared``)."""
    return x is not None and bool(shared(x != 0))


def where(condition: Any, if_true: Any, if_false: Any) -> Any:
    """Per launch, ``if_true`` where ``condition`` holds, else ``if_false`` (numpy's ``where``; texts, enums and
    None give an object array). For a single launch, or a cohort whose launches all agree, ``if_true if condition
    else if_false`` (one value every launch shares)."""
    if not _is_array(condition) or condition.ndim == 0:
        return if_true if condition else if_false
    if condition.all() or not condition.any():
        return if_true if condition[0] else if_false
    import numpy as np

    if all(isinstance(v, int | float) or _is_array(v) and v.dtype != object for v in (if_true, if_false)):
        return np.where(condition, if_true, if_false)
    out = np.empty(condition.shape, dtype=object)
    for mask, value in ((condition, if_true), (~condition, if_false)):
        out[mask] = value[mask] if _is_array(value) else value
    return out


def is_none(x: Any) -> Any:
    """Per launch, whether ``x`` is None (an element of an object array, or a single launch's value)."""
    if not _is_array(x):
        return x is None
    import numpy as np

    return np.array([value is None for value in x.tolist()], dtype=bool)


def largest(values: Sequence[Any]) -> Any:
    """Per launch, the maximum of numbers or arrays (Python's ``max`` for numbers)."""
    out = values[0]
    for v in values[1:]:
        if _is_array(out) or _is_array(v):
            import numpy as np

            out = np.maximum(out, v)
        else:
            out = max(out, v)
    return out


WHOLE_RELATIVE = 1e-9  # a count read back from a rate is a whole number within this share of float rounding


def whole(x: Any) -> Any:
    """Per launch, a count read back from a rate (rate x clock x duration) snapped to the whole number it is
    within float rounding of (767999.9999999999 -> 768000.0); any other value unchanged."""
    if _is_array(x):
        import numpy as np

        r = np.round(x)
        return np.where(np.abs(x - r) <= WHOLE_RELATIVE * np.abs(x), r, x)
    if x != x or x in (float("inf"), float("-inf")):  # NaN, an infinity: no whole number
        return x
    r = float(round(x))
    return r if abs(x - r) <= WHOLE_RELATIVE * abs(x) else x


def smallest(a: Any, b: Any) -> Any:
    """Per launch, the minimum of two numbers or arrays (Python's ``min`` for numbers)."""
    if _is_array(a) or _is_array(b):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)


def argmax_key(values: Mapping[str, Any]) -> Any:
    """Per launch, the key of the largest value, the first on ties (Python's ``max(d, key=d.get)``): a key for a
    single launch or a cohort whose launches agree, else an object array of keys."""
    keys = list(values)
    if not any(_is_array(v) for v in values.values()):
        return max(keys, key=lambda k: values[k])
    import numpy as np

    stacked = np.stack(np.broadcast_arrays(*(np.asarray(values[k], dtype=float) for k in keys)))
    chosen = np.argmax(stacked, axis=0)
    return keys[chosen[0]] if (chosen == chosen[0]).all() else np.array(keys, dtype=object)[chosen]


def at_key(values: Mapping[str, Any], key: Any) -> Any:
    """Per launch, the value under its key (``argmax_key``'s): ``values[key]`` for a single launch."""
    if not _is_array(key):
        return values[key]
    import numpy as np

    keys = list(values)
    stacked = np.stack(np.broadcast_arrays(*(np.asarray(values[k], dtype=float) for k in keys)))
    index = np.array([keys.index(k) for k in key.tolist()], dtype=np.intp)
    return stacked[index, np.arange(len(index))]


class PerLaunch(Struct, Generic[T], frozen=True):
    """What a cohort's result holds in place of a ``T`` each launch makes from its own values (a text quoting its
    clock, its busiest units in order): ``make(*inputs)``, run when that launch is taken out (``take_launch``) with
    each input that launch's element. In a cohort's result it stands in for the ``T``, as an array stands in for a
    number: the formulas are typed for one launch. Its ``plan`` (``launch_plan``) is made with it."""

    make: Callable[..., T]
    inputs: tuple[Any, ...]
    plan: Plan


def per_launch(make: Callable[..., T], *inputs: Any) -> T:
    """The per-launch step: ``make(*inputs)`` now for one launch; for a cohort (an array or a ``Cohort`` among the
    inputs), the ``PerLaunch`` that makes it for each launch taken out."""
    places = _places(inputs)
    if places:
        return cast("T", PerLaunch(make, inputs, Plan(places, kind="make")))
    return make(*inputs)


def _places(items: Sequence[Any]) -> dict[int, Plan | bool]:
    """The plan of each item that holds an array, ``PerLaunch`` or ``Cohort``, by position (a text or a number
    holds none)."""
    return {i: plan for i, v in enumerate(items) if not isinstance(v, _PLAIN) and (plan := launch_plan(v)) is not None}


class Plan(Struct, frozen=True):
    """Where a cohort's result differs between its launches: by key, position or field name, the plan of each part
    that does (``True`` for an array or a ``Cohort``: one element per launch); what it is (``kind``: a struct is
    copied with those parts replaced); for a dataclass record, its fields that every launch shares (``shared``)."""

    parts: Mapping[Any, Plan | bool]
    shared: Mapping[str, Any] = field(default_factory=dict)
    kind: PlanKind = "record"  # told once, not tested again for each launch taken out


def launch_plan(x: Any) -> Plan | bool | None:
    """The plan that takes a launch out of a cohort's result ``x`` (``take_launch``), made once for all its launches;
    None where ``x`` holds no array, ``PerLaunch`` or ``Cohort`` (every launch shares it as it is)."""
    if isinstance(x, _PLAIN):
        return None
    if _is_array(x) or isinstance(x, Cohort):
        return True
    if isinstance(x, PerLaunch):
        return x.plan
    if isinstance(x, tuple | list):
        places = _places(x)
        if isinstance(x, list) and places:
            raise TypeError("cannot take a launch out of a list")
        return Plan(places, kind="named" if hasattr(x, "_fields") else "tuple") if places else None
    if isinstance(x, Mapping):
        keys = {k: plan for k, v in x.items() if (plan := launch_plan(v)) is not None}
        return Plan(keys, kind="mapping") if keys else None
    names = _record_fields(x)
    if names:
        fields = {name: plan for name in names if (plan := launch_plan(getattr(x, name))) is not None}
        if not fields:
            return None
        if hasattr(type(x), "__struct_fields__"):  # a struct is copied with its planned fields replaced
            return Plan(fields, kind="struct")
        return Plan(fields, {name: getattr(x, name) for name in names if name not in fields})
    return None


def _record_fields(x: Any) -> tuple[str, ...]:
    """The fields of a result record (a msgspec struct, as the analysis results are, or a dataclass instance);
    none for anything else."""
    if isinstance(x, type):
        return ()
    if hasattr(type(x), "__struct_fields__"):
        names: tuple[str, ...] = type(x).__struct_fields__
        return names
    return tuple(f.name for f in dataclasses.fields(x) if f.init) if dataclasses.is_dataclass(x) else ()


def take_launch(x: Any, j: int, plan: Plan | bool | None) -> Any:
    """Launch ``j`` taken out of a cohort's result ``x`` along its ``launch_plan``: an array gives its element, a
    ``PerLaunch`` what it makes, a ``Cohort`` the launch; tuples, mappings and records that hold any of these
    are rebuilt around them, and whatever holds none is shared by every launch as it is."""
    if plan is None:
        return x
    if plan is True:
        if isinstance(x, Cohort):
            return x.launches[j]
        return x.item(j) if x.ndim == 1 else x[j].item() if x.ndim else x.item()  # a Python number
    assert isinstance(plan, Plan)
    kind, parts = plan.kind, plan.parts
    if kind == "struct":
        from msgspec.structs import replace  # loaded with the structs: a record of none is a dataclass

        return replace(x, **{name: take_launch(getattr(x, name), j, part) for name, part in parts.items()})
    if kind == "record":
        return type(x)(**plan.shared, **{name: take_launch(getattr(x, name), j, part) for name, part in parts.items()})
    if kind == "make":
        return x.make(*_taken_items(x.inputs, j, parts))
    if kind == "mapping":
        taken = dict(x)  # the keys in their order; only the planned ones change
        for key, part in parts.items():
            taken[key] = take_launch(x[key], j, part)
        return taken
    items = _taken_items(x, j, parts)
    return type(x)(*items) if kind == "named" else tuple(items)


def _taken_items(items: Sequence[Any], j: int, parts: Mapping[Any, Plan | bool]) -> list[Any]:
    """A sequence's items with launch ``j`` taken out of those its plan names (``parts``, by position)."""
    taken = list(items)
    for i, part in parts.items():
        taken[i] = take_launch(items[i], j, part)
    return taken


class Cohort:
    """Launches that hold the same metrics, standing in for one ``KernelLaunch`` in the formulas: ``value``
    gives an array with one element per launch. ``metrics`` has the shared metric names, with the text values
    (the same for every launch) and None for numbers, which are read with ``value``."""

    def __init__(self, launches: Sequence[KernelLaunch], rows: tuple[MetricTable, np.ndarray] | None = None) -> None:
        """``rows``: the table the launches read their metrics from and their rows in it, when the caller knows."""
        self.launches = tuple(launches)
        first = self.launches[0]
        self.metrics: Mapping[str, Any] = {k: (v if isinstance(v, str) else None) for k, v in first.metrics.items()}
        self.nan_metrics = first.nan_metrics
        self._columns: dict[str, np.ndarray | None] = {}
        self._metrics: list[Mapping[str, Any]] | None = None
        self._table = rows if rows is not None else _rows_of(self.launches)

    def value(self, name: str) -> np.ndarray | None:
        """The metric's values, one per launch; None when the cohort does not hold it as a number (the launches
        of a cohort hold each metric with the same type). Launches of one ``MetricTable`` take its column."""
        if name not in self._columns:
            import numpy as np

            numeric = self.launches[0].value(name) is not None
            if not numeric:
                self._columns[name] = None
            elif self._table is not None:
                table, rows = self._table
                self._columns[name] = table.floats(name)[rows]
            else:
                self._columns[name] = np.fromiter(map(operator.itemgetter(name), self._all_metrics()), dtype=float,
                                                  count=len(self.launches))
        return self._columns[name]

    def _all_metrics(self) -> list[Mapping[str, Any]]:
        if self._metrics is None:
            self._metrics = [launch.metrics for launch in self.launches]
        return self._metrics

    def part(self, rows: Sequence[int]) -> Cohort:
        """The cohort of some of its launches (by position), its columns taken along."""
        import numpy as np

        index = np.asarray(rows)
        out = Cohort([self.launches[i] for i in rows], None if self._table is None else
                     (self._table[0], self._table[1][index]))
        out._columns = {k: (None if v is None else v[index]) for k, v in self._columns.items()}
        return out

    def split(self, labels: Any) -> list[tuple[list[int], Cohort]]:
        """The cohort in parts of one label each (``labels``: one per launch, or one for all), with each part's
        positions in the cohort: where a formula must choose which metrics to read per launch, the caller splits
        the cohort by that choice first and runs the formula on each part."""
        if not _is_array(labels):
            return [(list(range(len(self.launches))), self)]
        parts: dict[Any, list[int]] = {}
        for i, label in enumerate(labels.tolist()):
            parts.setdefault(label, []).append(i)
        if len(parts) == 1:
            return [(next(iter(parts.values())), self)]
        return [(positions, self.part(positions)) for positions in parts.values()]


def _rows_of(launches: Sequence[KernelLaunch]) -> tuple[MetricTable, np.ndarray] | None:
    """``model.table_rows``, the rows as an index array."""
    found = table_rows(launches)
    if found is None:
        return None
    import numpy as np

    return found[0], np.array(found[1], dtype=np.intp)


def every_number(name: str) -> bool:
    """Every metric: the signs ``cohorts`` groups by unless told which metrics' signs the formulas test."""
    return True


def cohorts(launches: Sequence[KernelLaunch],
            signed: Callable[[str], bool] = every_number) -> list[tuple[list[int], Cohort]]:
    """The launches in cohorts, with each cohort's positions in ``launches``, in order of first appearance.
    Launches of one cohort hold the same metric names in the same order, each of the same type, the same NaN
    metrics, the same text values and each number of the metrics ``signed`` selects (those whose sign a formula
    tests) with the same sign: positive, zero or negative. Launches of one ``MetricTable`` hold a number as int or
    float alike."""
    table = _rows_of(launches)
    if table is not None:
        return _table_cohorts(launches, *table, signed)
    by_layout: dict[tuple[Any, ...], list[int]] = {}
    for i, launch in enumerate(launches):
        metrics = launch.metrics
        layout = (tuple(metrics), tuple(map(type, metrics.values())), launch.nan_metrics)
        by_layout.setdefault(layout, []).append(i)
    out = []
    for (names, types, _), rows in by_layout.items():
        texts = [name for name, kind in zip(names, types, strict=True) if kind is str]
        numbers = [name for name, kind in zip(names, types, strict=True) if kind is not str and signed(name)]
        by_text: dict[tuple[Any, ...], list[int]] = {}
        for i in rows:
            values = launches[i].metrics
            key = (tuple(values[name] for name in texts), tuple(_sign(values[name]) for name in numbers))
            by_text.setdefault(key, []).append(i)
        out += [(part, Cohort([launches[i] for i in part])) for part in by_text.values()]
    return out


def _sign(value: Any) -> int:
    """1, 0 or -1 (0 for NaN)."""
    sign: int = (value > 0) - (value < 0)
    return sign


def _table_cohorts(launches: Sequence[KernelLaunch], table: MetricTable, rows: np.ndarray,
                   signed: Callable[[str], bool]) -> list[tuple[list[int], Cohort]]:
    """``cohorts`` of launches that read their metrics from ``table`` (at ``rows``): grouped by its layouts and
    the signs of the numbers ``signed`` selects (``MetricTable.signs``)."""
    layouts, signs = table.layouts(), table.signs(signed)
    by_layout: dict[tuple[Any, ...], list[int]] = {}
    for i, (row, launch) in enumerate(zip(rows.tolist(), launches, strict=True)):
        by_layout.setdefault((layouts[row], signs[row], launch.nan_metrics), []).append(i)
    return [(part, Cohort([launches[i] for i in part], (table, rows[part]))) for part in by_layout.values()]
