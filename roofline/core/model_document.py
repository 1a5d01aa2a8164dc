"""The report model's serialized form (``Report.to_dict``) as msgspec types, generated from the structs of
``roofline.core.model``: a field is required where the struct gives it no default, and each type is the JSON
form of the struct field's type (a tuple or a frozenset is a list, a whole number is 0 or more). Only what
JSON holds differently is written here (``_FORM``); ``ncu.validation`` checks documents against these types.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Union

import msgspec
from msgspec import Meta

from roofline.core import model

Whole = Annotated[int, Meta(ge=0)]  # counts, indices, sizes, launch dimensions: no model holds a negative one
LineNumber = Annotated[str, Meta(pattern=r"^\d+$")]  # a source line number as a JSON key
METRIC = float | int | str  # a metric's value held by a launch: a number (int or float) or a text
# Where the document holds a field otherwise than the JSON form of its type: the metrics of a launch (each value
# checked on its own as METRIC, so that a problem names the metric; a version-1 launch leaves out a metric it does
# not hold, never null), and the line numbers of the source text and the addresses of the preceding instructions
# (JSON keys are texts).
_FORM: dict[tuple[type, str], Any] = {
    (model.KernelLaunch, "metrics"): dict[str, Any],
    (model.PcSampling, "source_text"): dict[str, dict[LineNumber, str]],
    (model.PcSampling, "preceding"): dict[LineNumber, tuple[str, str | None, Whole | None]],  # keyed by address
}


def json_form(hint: Any) -> Any:
    """The msgspec type of a value of type ``hint`` in JSON."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is int:
        return Whole
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis or origin is frozenset:
        return list[json_form(args[0])]  # type: ignore[misc]
    if origin is tuple:
        return tuple[tuple(json_form(a) for a in args)]  # type: ignore[misc]
    if origin in (Mapping, dict):
        return dict[args[0], json_form(args[1])]  # type: ignore[misc,valid-type]
    if origin in (Union, types.UnionType):
        return functools.reduce(lambda a, b: a | b, [json_form(a) for a in args])
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        return document_type(hint)
    return hint


@functools.cache
def document_type(cls: type, fields: tuple[str, ...] | None = None) -> type[msgspec.Struct]:
    """The document form of model struct ``cls`` (its ``fields`` only, when given): a struct that refuses unknown
    fields, with the model's defaults."""
    hints = typing.get_type_hints(cls)
    out: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(cls):
        if fields is not None and f.name not in fields:
            continue
        kind = _FORM.get((cls, f.name)) or json_form(hints[f.name])
        if f.default is not msgspec.NODEFAULT:
            out.append((f.name, kind, f.default))
        elif f.default_factory is not msgspec.NODEFAULT:
            out.append((f.name, kind, msgspec.field(default_factory=f.default_factory)))
        else:
            out.append((f.name, kind))
    return msgspec.defstruct(f"{cls.__name__}Document", out, forbid_unknown_fields=True, kw_only=True)


def head_type() -> type[msgspec.Struct]:
    """The document's top level: the report's fields a model holds, beside its format and version (checked once,
    before, by ``ncu.validation.check_model_document`` for the messages they have), and the launches (checked per
    version)."""
    return msgspec.defstruct("ReportDocument", [
        ("format", Any), ("version", Any),
        ("label", str, ""), ("ncu_version", str, ""), ("incomplete", bool, False),
        ("device", document_type(model.Device)), ("launches", None)],
        forbid_unknown_fields=True, kw_only=True)


def launch_type() -> type[msgspec.Struct]:
    """A version-1 launch: an object with the fields of ``KernelLaunch`` the model holds."""
    return document_type(model.KernelLaunch, model.LAUNCH_FIELDS)


@functools.cache
def columns_type() -> type[msgspec.Struct]:
    """Version 2's launches: ``count``, then one list per launch field (the launch's field the element), and the
    metric columns (each checked on its own, as ``METRIC_COLUMN``)."""
    out: list[tuple[str, Any] | tuple[str, Any, Any]] = [("count", Whole)]
    for f in msgspec.structs.fields(launch_type()):
        column = dict[str, Any] if f.name == "metrics" else list[f.type]  # type: ignore[name-defined]
        out.append((f.name, column) if f.required else (f.name, column, None))
    return msgspec.defstruct("LaunchColumnsDocument", out, forbid_unknown_fields=True, kw_only=True)


METRIC_COLUMN = list[METRIC | None]  # one metric of every launch of a version-2 model (null: not held)
