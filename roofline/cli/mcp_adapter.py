"""The one door from the MCP server (``roofline.cli.mcp_server``) to the analysis: each tool's result, a type of
``roofline.documents.tools`` built from the typed document (``roofline.render.data.typed``) that the facade
(``roofline.facade.Roofline``) answers for the equivalent command, beside that whole document (what ``output``
writes). The server encodes them (``plain``: no text written and parsed back), cuts them to its budget and writes them;
it computes no number, and adds to a result only the command line, what it cut and the file it wrote.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from msgspec import Struct

from roofline.core.choices import GroupBy, TargetClock
from roofline.documents import tools
from roofline.documents.kinds import Document
from roofline.facade import Roofline
from roofline.pipeline import AnalysisOptions
from roofline.render.compare.json import WORDS as COMPARE_WORDS
from roofline.render.data import data, plain, typed

Paths = Sequence[str | os.PathLike[str]]

__all__ = ["Answer", "analyse_kernel", "compare_reports", "conform", "grade_kernel", "list_kernels", "plain",
           "project_report", "rank_nsys_kernels", "schema", "spec", "spec_ids", "text", "whole", "write_json"]


class Answer(NamedTuple):
    """A tool's result, and the whole document of the equivalent command it is cut from."""

    result: Struct
    whole: Document


def list_kernels(paths: Paths, options: AnalysisOptions, by: GroupBy, offset: int, limit: int,
                 command: str) -> Answer:
    """``list_kernels``: ``roofline summary FILES --by BY --top OFFSET+LIMIT -f json``, from group ``offset`` on."""
    document = Roofline(options).summary(paths, by, offset + limit, keep_going=False)
    assert document is not None, "only a run over MPI ranks has no document"
    return Answer(tools.kernel_list(typed(document), command, offset, limit), document)  # type: ignore[arg-type]


def analyse_kernel(path: str | os.PathLike[str], options: AnalysisOptions, launch: int | None, advice: int,
                   hotspots: int, kernel: str, shown: str, command: str, name_chars: int) -> Answer:
    """``analyse_kernel``: one launch of ``roofline report FILE --kernel K -f json`` (every report needed), its
    demangled name past ``name_chars`` cut in its middle."""
    document = Roofline(options).report([path], keep_going=False)
    result = tools.kernel_analysis(typed(document), command, launch, advice, hotspots,  # type: ignore[arg-type]
                                   kernel, shown, name_chars)
    return Answer(result, document)


def compare_reports(base: str | os.PathLike[str], new: str | os.PathLike[str], options: AnalysisOptions,
                    match: str, maps: Sequence[str], work_tolerance_pct: float, alpha: float, slower_pct: float,
                    min_share_pct: float, total_slower_pct: float, roof_drop_pct: float | None,
                    gate_different_work: bool, allow_different_gpu: bool, command: str, also: str,
                    new_share_pct: float | None = None) -> Answer:
    """``compare_reports``: ``roofline diff BASE NEW -f json`` with each pair's headline of ``roofline compare BASE
    NEW -f json`` (``also``), from one analysis of the two reports; the whole document is the diff's."""
    from roofline.compare.pairing import pair_options, parse_matcher
    from roofline.compare.regression import Thresholds

    thresholds = Thresholds(slower_pct, min_share_pct, total_slower_pct, roof_drop_pct, gate_different_work,
                            new_share_pct)
    judged = Roofline(options).diff(base, new, thresholds, parse_matcher(match, maps, 2),
                                    pair_options(work_tolerance_pct, alpha), allow_different_gpu)
    return Answer(tools.judgement(judged.result, COMPARE_WORDS, command, also), judged)


def project_report(path: str | os.PathLike[str], to: str, options: AnalysisOptions, clock: TargetClock,
                   offset: int, limit: int, command: str) -> Answer:
    """``project_report``: ``roofline project FILE --to SPEC --clock CLOCK -f json`` (one target), a page of its
    kernels."""
    facade = Roofline(options)
    document = facade.project(path, [facade.target(to, clock)], clock)
    return Answer(tools.projection_page(typed(document), command, offset, limit), document)  # type: ignore[arg-type]


def rank_nsys_kernels(path: Path, nvtx: str | None, top: int, offset: int, limit: int, command: str,
                      analyze: str) -> Answer:
    """``rank_nsys_kernels``: ``roofline timeline FILE -f json`` of one Nsight Systems SQLite export, a page of its
    kernels, and the ncu runs that ``roofline analyze --from-nsys FILE --top TOP`` (``analyze``) plans (over the
    whole profile: within NVTX range ``nvtx``, those of kernels launched inside it alone)."""
    document = Roofline().timeline([path], nvtx)
    runs = Roofline.ncu_plan(path, top).runs()
    return Answer(tools.nsys_ranking(typed(document), command, offset, limit, analyze, runs,  # type: ignore[arg-type]
                                     nvtx), document)


def grade_kernel(path: str | os.PathLike[str], options: AnalysisOptions, baseline: str | os.PathLike[str] | None,
                 name_chars: int, command: str) -> Answer:
    """``grade_kernel``: ``roofline grade FILE [--kernel K] [--baseline BASE] -f json`` without each kernel's
    launches, kernel names past ``name_chars`` cut."""
    document = Roofline(options).grade(path, None, baseline)
    return Answer(tools.graded(typed(document), name_chars, command), document)  # type: ignore[arg-type]


def whole(document: Document) -> dict[str, Any]:
    """A command's whole document as plain data, as its ``--format json`` text reads back."""
    return data(document)


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


def spec(spec_id: str, command: str, specs: Paths = ()) -> Struct:
    """``gpu_spec`` of one id: ``roofline specs show ID -f json``, every number of the spec with its source."""
    return tools.spec_result(tools.spec_doc(Roofline(AnalysisOptions(specs=tuple(specs))).catalog.get(spec_id)),
                             command)


def spec_ids(command: str, specs: Paths = ()) -> Struct:
    """``gpu_spec`` without an id: the known device specs (``roofline specs list -f json``), id and display names."""
    return tools.spec_list(tools.spec_refs(Roofline(AnalysisOptions(specs=tuple(specs))).catalog.specs), command)


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

    if str(path) == "-":  # standard output carries the protocol
        raise UsageError("output '-': the server's standard output carries its messages to the client",
                         "name a file (inside a root) to write the whole document to")
    ext = extension(path.name)
    if ext in known_extensions() and ext != JSON_SUFFIX:
        raise UsageError(f"output {path}: a {ext} file, and the tools write JSON", f"end the name with {JSON_SUFFIX}")
    write_output(path, text(doc), announce=False)
