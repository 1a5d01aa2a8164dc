"""The one door from the MCP server (``roofline.cli.mcp_server``) to the analysis and its renderers: each function
returns, as plain data, the document that the matching command's ``--format json`` writes for the same input, asked
of the same facade (``roofline.facade.Roofline``), as plain data (``roofline.render.data``: no text written and
parsed back). The server cuts and joins these documents; it computes no number itself.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from roofline.core.choices import GroupBy, TargetClock
from roofline.documents.kinds import Document
from roofline.facade import Roofline
from roofline.pipeline import AnalysisOptions
from roofline.render.base import Kind
from roofline.render.data import data

Paths = Sequence[str | os.PathLike[str]]


def _json(kind: Kind, document: Document) -> dict[str, Any]:
    """The document as ``--format json`` writes it, as plain data (no text written nor parsed)."""
    return data(document)


def report(paths: Paths, options: AnalysisOptions) -> dict[str, Any]:
    """``roofline report FILES -f json``: every launch of the reports (every report is needed here)."""
    return _json("report", Roofline(options).report(paths, keep_going=False))


def summary(paths: Paths, options: AnalysisOptions, by: GroupBy, top: int) -> dict[str, Any]:
    """``roofline summary FILES --by BY --top TOP -f json``: per report, its kernel groups by recoverable time."""
    document = Roofline(options).summary(paths, by, top, keep_going=False)
    assert document is not None, "only a run over MPI ranks has no document"
    return _json("summary", document)


def compare_and_diff(base: str | os.PathLike[str], new: str | os.PathLike[str], options: AnalysisOptions,
                     match: str, maps: Sequence[str], work_tolerance_pct: float, alpha: float, slower_pct: float,
                     min_share_pct: float, total_slower_pct: float, roof_drop_pct: float | None,
                     gate_different_work: bool, allow_different_gpu: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """``roofline compare BASE NEW -f json`` and ``roofline diff BASE NEW -f json`` with these options, from one
    analysis of the two reports."""
    from roofline.compare.pairing import pair_options, parse_matcher
    from roofline.compare.regression import Thresholds

    matcher = parse_matcher(match, maps, 2)
    judged = pair_options(work_tolerance_pct, alpha)
    compared = Roofline(options).compare([base, new], matcher, None, judged)
    thresholds = Thresholds(slower_pct, min_share_pct, total_slower_pct, roof_drop_pct, gate_different_work)
    judgement = Roofline.judge(compared.comparison, thresholds, allow_different_gpu)
    return _json("compare", compared), _json("diff", judgement)


def project(path: str | os.PathLike[str], to: str, options: AnalysisOptions,
            clock: TargetClock = "sustained") -> dict[str, Any]:
    """``roofline project FILE --to SPEC --clock CLOCK -f json``."""
    return _json("project", Roofline(options).project(path, to, clock))


def grade(path: str | os.PathLike[str], options: AnalysisOptions,
          baseline: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """``roofline grade FILE [--kernel K] [--baseline BASE] -f json``: each kernel's grade, its conditions and work
    checks."""
    return _json("grade", Roofline(options).grade(path, None, baseline))


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a kind of document (``roofline/schemas/KIND.schema.json``, generated from its type): a
    command's, or an MCP tool's result (``roofline.documents.tools``)."""
    from roofline.documents.schemas import schema as generated

    return generated(kind)


def conform(kind: str, result: dict[str, Any]) -> None:
    """Check that ``result`` is a document of ``kind``'s type (the one its schema is generated from):
    ``msgspec.ValidationError`` where it is not (a defect)."""
    import msgspec

    from roofline.documents.schemas import GENERATED

    msgspec.convert(result, GENERATED[kind][0])


def spec(spec_id: str, specs: Paths = ()) -> dict[str, Any]:
    """``roofline specs show ID -f json``: every number of one device spec with its source."""
    from roofline.cli.commands.specs import spec_dict

    return spec_dict(Roofline(AnalysisOptions(specs=tuple(specs))).catalog.get(spec_id))


def spec_ids(specs: Paths = ()) -> list[dict[str, Any]]:
    """The known device specs (``roofline specs list``): id and display names."""
    catalog = Roofline(AnalysisOptions(specs=tuple(specs))).catalog
    return [{"id": s.id, "display_names": list(s.display_names)} for s in sorted(catalog.specs, key=lambda s: s.id)]


def timeline(path: Path, nvtx: str | None, top: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``roofline timeline FILE -f json`` of one Nsight Systems SQLite export, and the ncu runs that
    ``roofline analyze --from-nsys FILE --top TOP`` plans for its top kernels (each: the kernels, the launches,
    why, and the ncu command with ``APP`` for the application)."""
    from roofline.analysis.timeline import kernel_regex, name_base, ncu_targets
    from roofline.core import kernel_filter
    from roofline.ncu import driver
    from roofline.nsys.load import load_for_profiling

    doc = _json("timeline", Roofline().timeline([path], nvtx))
    profiled, reps = load_for_profiling(path, top)
    runs = []
    targets = ncu_targets(profiled, top, reps)
    base = name_base(profiled, top)  # demangled where two instances share a short name, as analyze plans it
    for i, target in enumerate(targets):
        filters = [kernel_regex(target.kernels, base)]
        options = driver.NcuOptions(section_set="roofline", kernel=kernel_filter.parse(filters, base),
                                    launch_skip=target.launch_skip, launch_count=target.launch_count)
        report = driver.report_template(None, "APP", f".top{i + 1}" if len(targets) > 1 else "")
        argv = driver.build_argv("ncu", options, report, report.removesuffix(driver.REPORT_SUFFIX) +
                                 driver.LOG_SUFFIX, ["APP"])
        runs.append({"kernels": list(target.names), "launch_skip": target.launch_skip,
                     "launch_count": target.launch_count, "why": target.why, "ncu": driver.shell_command(argv)})
    return doc, runs


def with_reasons(kernel: dict[str, Any], reasons: Sequence[str]) -> dict[str, Any]:
    """A kernel of the report document with the texts of its reasons (the report's ``reasons``) in place of their
    indices, as a reader of the document looks them up."""
    from roofline.render.report.json import with_reasons as resolved

    return resolved(kernel, reasons)


def by_reason(missing: dict[str, str]) -> dict[str, list[str]]:
    """The reasons of the nulls, each once, with the paths of the values it explains (a few reasons explain dozens
    of values: each written once, the result stays small)."""
    out: dict[str, list[str]] = {}
    for path, reason in missing.items():
        out.setdefault(reason, []).append(path)
    return out


def schema_version() -> int:
    """The ``schema_version`` every ``--format json`` document carries."""
    from roofline.render.report.json import SCHEMA_VERSION

    return SCHEMA_VERSION


def text(doc: Any) -> str:
    """JSON text as ``--format json`` writes it (compact, never NaN)."""
    from roofline.render.names import json_text

    return json_text(doc)


JSON_SUFFIX = ".json"


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write a document as ``--format json`` does to ``-o PATH`` (the one writer: never over a file of another),
    refusing a name whose extension says another format (``report.csv``), as ``-o`` with ``--format json`` does."""
    from roofline.cli.output import write_output
    from roofline.errors import UsageError
    from roofline.render.base import extension, known_extensions

    ext = extension(path.name)
    if ext in known_extensions() and ext != JSON_SUFFIX:
        raise UsageError(f"output {path}: a {ext} file, and the tools write JSON", f"end the name with {JSON_SUFFIX}")
    write_output(path, text(doc), announce=False)

