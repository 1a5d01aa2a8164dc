"""Columnar evaluation of the per-launch formulas: the launches of a report in cohorts, each cohort's formulas
run once over numpy arrays (one element per launch), and single launches taken back out only where shown.

A cohort is a set of launches that hold the same metrics (names in the same order, the same text values and
the same NaN metrics), so every "is it in the report?" branch of ``roofline.ncu.metrics`` goes the same way for all
of them. ``Cohort`` stands in for a ``KernelLaunch``: ``value(name)`` is a float64 array. The formulas are the
scalar ones, unchanged; where a branch or a text depends on the values themselves they call ``same``, which
gives the one value the whole cohort shares or raises ``Split`` with a label per launch, and ``evaluate`` runs
the formula again on each part. Per-launch detail that only a shown launch needs (the busiest units in order)
is ``per_row``: a function applied when that launch is taken out (``take_launch``). Array arithmetic is IEEE double
arithmetic in the same order as the scalar formulas, so a launch's numbers equal those of a scalar run.
"""

from __future__ import annotations

import dataclasses
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from roofline.core.model import MetricTable, table_rows

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from typing_extensions import TypeIs

    from roofline.core.model import KernelLaunch

T = TypeVar("T")
_PLAIN = (str, int, float, bool, type(None))  # a single launch's values: no numpy needed (the reader never loads it)


def _is_array(x: Any) -> bool:
    """Whether ``x`` is a numpy array or scalar (numpy is loaded only once a cohort made one)."""
    np_ = sys.modules.get("numpy")
    return np_ is not None and isinstance(x, np_.ndarray | np_.generic)


class Split(Exception):
    """A branch or text of a formula differs between the launches of a cohort: ``labels`` has one per launch."""

    def __init__(self, labels: np.ndarray) -> None:
        super().__init__("cohort splits")
        self.labels = labels


def same(x: Any) -> Any:
    """The value every launch of a cohort shares (a scalar is its own), else ``Split`` by value."""
    if isinstance(x, _PLAIN) or not _is_array(x):
        return x
    if x.ndim == 0:
        return x.item()
    first = x[0]
    if bool((x == first).all()):
        return first.item() if hasattr(first, "item") else first
    raise Split(x)


def truth(x: Any) -> TypeIs[float]:
    """Whether a measured value is there and not zero (the scalar ``if value:``), the same for a whole cohort."""
    return x is not None and bool(same(x != 0))


def fmt(x: Any, spec: str) -> str:
    """``format(x, spec)``; a cohort splits where its launches' texts differ."""
    if _is_array(x) and x.ndim:
        import numpy as np

        return str(same(np.array([format(v, spec) for v in x.tolist()], dtype=object)))
    return format(float(x), spec)


def largest(values: Sequence[Any]) -> Any:
    """The element-wise maximum of numbers or arrays (Python's ``max`` for numbers)."""
    out = values[0]
    for v in values[1:]:
        if _is_array(out) or _is_array(v):
            import numpy as np

            out = np.maximum(out, v)
        else:
            out = max(out, v)
    return out


def smallest(a: Any, b: Any) -> Any:
    """The element-wise minimum of two numbers or arrays (Python's ``min`` for numbers)."""
    if _is_array(a) or _is_array(b):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)


def argmax_key(values: Mapping[str, Any]) -> str:
    """The key of the largest value, the first on ties (Python's ``max(d, key=d.get)``), shared by a cohort."""
    keys = list(values)
    if not any(_is_array(v) for v in values.values()):
        return max(keys, key=lambda k: values[k])
    import numpy as np

    stacked = np.stack(np.broadcast_arrays(*(np.asarray(values[k], dtype=float) for k in keys)))
    return str(same(np.array(keys, dtype=object)[np.argmax(stacked, axis=0)]))


@dataclasses.dataclass(frozen=True)
class RowFn:
    """``fn`` of its arguments taken out for one launch: per-launch detail computed only for launches shown."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]


def per_row(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` now for one launch, or, for a cohort, when a launch is taken out (``take_launch``)."""
    if any(launch_plan(a) is not None for a in args):  # any array among them
        return RowFn(fn, args)  # type: ignore[return-value]
    return fn(*args)


@dataclasses.dataclass(frozen=True)
class Plan:
    """Where a cohort's result differs between its launches: by key, position or field name, the plan of each part
    that does (``True`` for an array or a ``Cohort``: one element per launch); for a dataclass, its fields that every
    launch shares (``shared``)."""

    parts: Mapping[Any, Plan | bool]
    shared: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def launch_plan(x: Any) -> Plan | bool | None:
    """The plan that takes a launch out of a cohort's result ``x`` (``take_launch``), made once for all its launches;
    None where ``x`` holds no array, ``RowFn`` or ``Cohort`` (every launch shares it as it is)."""
    if isinstance(x, _PLAIN):
        return None
    if _is_array(x) or isinstance(x, Cohort):
        return True
    if isinstance(x, RowFn | tuple | list):
        values = x.args if isinstance(x, RowFn) else x
        places = {i: plan for i, v in enumerate(values) if (plan := launch_plan(v)) is not None}
        if isinstance(x, list) and places:
            raise TypeError("cannot take a launch out of a list")
        return Plan(places) if places or isinstance(x, RowFn) else None
    if isinstance(x, Mapping):
        keys = {k: plan for k, v in x.items() if (plan := launch_plan(v)) is not None}
        return Plan(keys) if keys else None
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        names = [f.name for f in dataclasses.fields(x) if f.init]
        fields = {name: plan for name in names if (plan := launch_plan(getattr(x, name))) is not None}
        return Plan(fields, {name: getattr(x, name) for name in names if name not in fields}) if fields else None
    return None


def take_launch(x: Any, j: int, plan: Plan | bool | None) -> Any:
    """Launch ``j`` taken out of a cohort's result ``x`` along its ``launch_plan``: an array gives its element, a
    ``RowFn`` its value, a ``Cohort`` the launch; tuples, mappings and dataclasses that hold any of these are rebuilt
    around them, and whatever holds none is shared by every launch as it is."""
    if plan is None:
        return x
    if plan is True:
        if isinstance(x, Cohort):
            return x.launches[j]
        return x.item(j) if x.ndim == 1 else x[j].item() if x.ndim else x.item()  # a Python number
    assert isinstance(plan, Plan)
    parts = plan.parts
    if isinstance(x, RowFn):
        return x.fn(*[take_launch(a, j, parts.get(i)) for i, a in enumerate(x.args)])
    if isinstance(x, tuple):
        items = [take_launch(v, j, parts.get(i)) for i, v in enumerate(x)]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, Mapping):
        return {k: take_launch(v, j, parts.get(k)) for k, v in x.items()}
    return type(x)(**plan.shared, **{name: take_launch(getattr(x, name), j, part) for name, part in parts.items()})


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


def _rows_of(launches: Sequence[KernelLaunch]) -> tuple[MetricTable, np.ndarray] | None:
    """``model.table_rows``, the rows as an index array."""
    found = table_rows(launches)
    if found is None:
        return None
    import numpy as np

    return found[0], np.array(found[1], dtype=np.intp)


def cohorts(launches: Sequence[KernelLaunch]) -> list[tuple[list[int], Cohort]]:
    """The launches in cohorts, with each cohort's positions in ``launches``, in order of first appearance.
    Launches of one cohort hold the same metric names in the same order, each of the same type, the same NaN
    metrics and the same text values. Launches of one ``MetricTable`` hold a number as int or float alike."""
    table = _rows_of(launches)
    if table is not None:
        return _table_cohorts(launches, *table)
    by_layout: dict[tuple[Any, ...], list[int]] = {}
    for i, launch in enumerate(launches):
        metrics = launch.metrics
        layout = (tuple(metrics), tuple(map(type, metrics.values())), launch.nan_metrics)
        by_layout.setdefault(layout, []).append(i)
    out = []
    for (names, types, _), rows in by_layout.items():
        texts = [name for name, kind in zip(names, types, strict=True) if kind is str]
        by_text: dict[tuple[Any, ...], list[int]] = {}
        for i in rows:
            by_text.setdefault(tuple(launches[i].metrics[name] for name in texts), []).append(i)
        out += [(part, Cohort([launches[i] for i in part])) for part in by_text.values()]
    return out


def _table_cohorts(launches: Sequence[KernelLaunch], table: MetricTable,
                   rows: np.ndarray) -> list[tuple[list[int], Cohort]]:
    """``cohorts`` of launches that read their metrics from ``table`` (at ``rows``): grouped by its layouts."""
    layouts = table.layouts()
    by_layout: dict[tuple[Any, ...], list[int]] = {}
    for i, (row, launch) in enumerate(zip(rows.tolist(), launches, strict=True)):
        by_layout.setdefault((layouts[row], launch.nan_metrics), []).append(i)
    return [(part, Cohort([launches[i] for i in part], (table, rows[part]))) for part in by_layout.values()]


def evaluate(fn: Callable[[Cohort], T], cohort: Cohort, rows: list[int]) -> list[tuple[list[int], T]]:
    """``fn`` over the cohort, split and run again where its launches take different branches: the parts'
    results, each with its launches' positions (``rows``, in the cohort's order)."""
    import numpy as np

    try:
        with np.errstate(all="ignore"):  # overflow to inf and 0/0 to NaN, silently, as with Python's floats
            return [(rows, fn(cohort))]
    except Split as split:
        parts: dict[Any, list[int]] = {}
        for i, label in enumerate(split.labels.tolist()):
            parts.setdefault(label, []).append(i)
        if len(parts) < 2:
            raise RuntimeError("a cohort split without a difference") from None
        return [r for positions in parts.values()
                for r in evaluate(fn, cohort.part(positions), [rows[i] for i in positions])]
