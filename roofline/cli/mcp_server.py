"""`roofline mcp`: the analyses as Model Context Protocol tools over stdio, for coding agents (docs/agents.md).

Each tool reads only files under the roots the user named (a path outside them, a symbolic link out of them, a FIFO
or a device is refused with one line), writes nothing unless asked for an ``output`` file inside a root, and reads
each report with the command line's time and memory limits. Its result is the ``--format json`` document of the
equivalent command (named under ``command``), through ``roofline.cli.mcp_adapter`` alone, cut to the call's size
budget; what was cut is listed under ``cut`` with how to ask for the rest. A bad call is a tool error of one
line; the server goes on. Imported only by the ``mcp`` command: it needs the ``mcp`` package (``roofline[mcp]``).
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from roofline import __version__
from roofline.cli import mcp_adapter as adapter
from roofline.cli.output import DOCUMENT_OPTION, named_by
from roofline.compare.regression import COMPARE_INSTEAD, GENERATIONS, IN_PYTHON
from roofline.core.choices import TargetClock, without_nul
from roofline.core.files import file_kind
from roofline.core.model import CeilingSet
from roofline.core.thresholds import (
    ALPHA,
    MAX_ALPHA,
    MAX_ROOF_DROP_PTS,
    MAX_SLOWER_PCT,
    MAX_WORK_TOLERANCE_PCT,
    MIN_SHARE_PCT,
    SLOWER_PCT,
    TOTAL_SLOWER_PCT,
    WORK_TOLERANCE,
)
from roofline.errors import RooflineError
from roofline.nsys.timeline import NVTX_RANGES_LISTED
from roofline.pipeline import AnalysisOptions
from roofline.specs.catalog import LIST_IDS

DEFAULT_CHARS = 20_000  # a result's size budget by default: about 5k tokens
NAME_CHARS = 160  # kernel names past this are cut in their middle (grade_kernel, analyse_kernel; the command: whole)
MAX_CHARS = 1_000_000
INSTRUCTIONS = ("Roofline analyses of NVIDIA Nsight Compute reports (.ncu-rep, or roofline's .json report models) and "
                "Nsight Systems SQLite exports. Start with list_kernels on a report, then analyse_kernel on its first "
                "kernel, the one with the most time to gain (what its first advice item would save; a kernel "
                "without an estimate is placed by its recoverable time); after changing the kernel and "
                "re-profiling, compare_reports judges the change and grade_kernel says how close the kernel is to "
                "its roof (against a baseline report: the same work, in the same precision). Paths are relative to "
                "the server's folder and must lie under its roots.")

MaxChars = Annotated[int, Field(ge=1000, le=MAX_CHARS, description="Size budget of the result in characters of "
                                "JSON; longer lists are cut and the cut is listed under 'cut'.")]
Offset = Annotated[int, Field(ge=0, description="Skip this many entries (pagination: 'page.next_offset').")]
Limit = Annotated[int, Field(ge=1, le=1000, description="At most this many entries.")]
Filters = Annotated[list[str] | None, Field(description="Only kernels a filter selects: NAME (name contains it), "
                                            "exact:NAME or regex:PATTERN, as roofline's --kernel.")]


def finite(**constraints: Any) -> Any:
    """A number parameter's Field: finite (``inf``, ``1e999`` and NaN refused, as the command line's ``Number``
    refuses them, so no threshold can switch the gate off) within ``constraints``."""
    return Field(allow_inf_nan=False, **constraints)


Ceilings = Annotated[CeilingSet, Field(description="Roofs for percent of roof: kernel-clock (at the clocks the kernel "
                                       "ran), measured-clock, datasheet or calibrated.")]
Clock = Annotated[TargetClock, Field(description="The target's clock: sustained (the clock it holds under load, the "
                                      "default), boost, or base (the clock ncu locks while profiling: the time ncu "
                                      "would measure there).")]
Output = Annotated[str | None, Field(description="Also write the whole, uncut JSON document of the equivalent command "
                                     "to this file (inside a root; a file roofline did not write is never replaced).")]


class Roots:
    """The folders the server reads and writes under (their real paths), and the checks of every path a call names."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(os.path.realpath(r)) for r in roots]

    def _inside(self, real: str) -> bool:
        return any(Path(real) == r or Path(real).is_relative_to(r) for r in self.roots)

    def _refuse_outside(self, path: str, name: str) -> None:
        without_nul(name, path)  # no file system takes one: one line, not os.stat's ValueError
        absolute = os.path.abspath(path)
        real = os.path.realpath(path)
        shown = ", ".join(map(str, self.roots))
        if self._inside(absolute) and not self._inside(real):
            raise RooflineError(f"{path}: a symbolic link to {real}, outside the roots this server may use ({shown})",
                                "name a file under a root, or start the server with --root for that folder")
        if not self._inside(real):
            raise RooflineError(f"{path}: outside the roots this server may use ({shown})",
                                "name a file under a root, or start the server with --root for that folder")

    def readable(self, path: str, name: str) -> Path:
        """``path`` (the tool's argument ``name``) when it is a regular file under a root (a symbolic link followed
        only within the roots)."""
        self._refuse_outside(path, name)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise RooflineError(f"{path}: no such file", "check the path (relative to the server's folder)") from None
        except OSError as err:
            raise RooflineError(f"{path}: cannot read ({err.strerror})", "name a readable file") from None
        if not stat.S_ISREG(info.st_mode):
            raise RooflineError(f"{path}: is {file_kind(info.st_mode)}, not a regular file; this server reads only "
                                "files", "name a report file")
        return Path(path)

    def writable(self, path: str, name: str = "output") -> Path:
        """``path`` (the tool's argument ``name``) when the file it names (a link's target) lies under a root; the
        writer checks the rest."""
        self._refuse_outside(path, name)
        return Path(path)


# Never cut: the reasons of the nulls (a map of reasons with their paths alone is cut, by whole reasons and only
# once nothing else can be: ``_reasons``), the verdict, the work check and headline of a pair, the page, the report,
# and a launch's grid and block (a triple cut short reads as another launch configuration).
KEPT = frozenset({"missing", "verdict", "work", "headline", "page", "report", "grid", "block"})
# Halved but never emptied: a launch's first advice item, the change that saves most, is what an agent acts on.
SPARED = frozenset({"advice"})
# Maps of texts cut like lists, by whole entries, the first kept: how each number was obtained (``via``).
TEXTS = frozenset({"via"})
# The lists a page holds (list_kernels' rows, project_report's and rank_nsys_kernels' kernels): cut, the page's
# next offset points at the first entry left out.
PAGED = re.compile(r"(reports\[\d+\]\.)?(rows|kernels)")


def fit(result: dict[str, Any], budget: int, ask: str, hints: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``result`` within ``budget`` characters of JSON: the list of two or more entries (or map of texts: ``TEXTS``)
    that weighs most is halved, never to nothing, until it fits, the lists at the top level (the reports, the
    matched launches) only once those below are down to one entry; then the heaviest list below the top level is
    emptied (never the advice: ``SPARED``); last a map of null reasons is cut to as many reasons as the budget holds
    (half, where even one more than that does not fit), its least telling reasons first (``_reasons``). A top-level
    list is never emptied: a result that does not fit then is refused. Only lists and maps are cut (never an
    object's field, nor a list of numbers alone: a point or a triple), so the result keeps its tool's schema; a map
    of null reasons keeps the paths the result still holds (``_prune``). Each cut whose list the result still holds
    is listed under ``cut`` (its path, and how many entries are kept of how many) with how to get the rest: the
    ``hints`` whose pattern (a regular expression) matches the path of a list cut, then ``ask``; a page's list cut
    moves its ``next_offset`` to the first entry left out."""
    _prune(result)
    text = adapter.text(result)
    full = len(text)
    cuts: dict[str, tuple[Any, Any, int]] = {}  # each list cut: its parent, its key there, its entries in full
    asked = Asked(full, ask, hints or {})
    while len(text) > budget:
        path, parent, key, kept = _next_cut(result, budget, len(text), full)
        if _reasons(key, parent[key]):
            kept = _most_reasons(result, cuts, (path, parent, key), budget, asked)
        text, cuts = _cut(result, cuts, (path, parent, key), kept, asked)
    return result


class Asked(NamedTuple):
    """What a cut's ``ask`` is made of: the whole result's length, the general way to get the rest (``ask``) and
    each list's own (``hints``: a pattern of its path, the hint)."""

    full: int
    ask: str
    hints: Mapping[str, str]

    def text(self, cuts: Mapping[str, Any], paged: str) -> str:
        """How to get the rest of the lists ``cuts`` names: their hints, the general way, the page, the budget."""
        own = dict.fromkeys(hint for at in cuts for pattern, hint in self.hints.items() if re.fullmatch(pattern, at))
        larger = min(MAX_CHARS, self.full + 1000)
        return f"{'; or '.join([*own, self.ask])}; {paged}or call again with max_chars={larger}"


Place = tuple[str, Any, Any]  # a list's (or map's) path in the result, its parent and its key there


def _cut(result: dict[str, Any], cuts: dict[str, tuple[Any, Any, int]], place: Place, kept: int,
         asked: Asked) -> tuple[str, dict[str, tuple[Any, Any, int]]]:
    """Keep ``kept`` entries of the list at ``place``, and list the cuts the result still holds under its ``cut``:
    the result's JSON text, and those cuts."""
    path, parent, key = place
    cuts = {**cuts, path: (parent, key, cuts[path][2] if path in cuts else len(parent[key]))}
    _keep(parent, key, kept)
    _prune(result)
    cuts = {at: cut for at, cut in cuts.items() if _holds(result, at)}  # not those of entries cut since
    paged = _repage(result, cuts)
    result["cut"] = {"lists": [{"path": at, "kept": len(held[name]), "of": of}
                               for at, (held, name, of) in cuts.items()], "full_chars": asked.full,
                     "ask": asked.text(cuts, paged)}
    return adapter.text(result), cuts


def _most_reasons(result: dict[str, Any], cuts: dict[str, tuple[Any, Any, int]], place: Place, budget: int,
                  asked: Asked) -> int:
    """The most reasons of the map at ``place`` (fewer than it holds) that the result keeps within ``budget``, each
    count tried and undone; half of them where even one does not fit."""
    _, parent, key = place
    whole, listed = parent[key], result.get("cut")
    low, high, most = 1, len(whole) - 1, len(whole) // 2
    while low <= high:
        tried = (low + high) // 2
        text, _ = _cut(result, cuts, place, tried, asked)
        parent[key] = whole
        if listed is None:
            del result["cut"]
        else:
            result["cut"] = listed
        low, high, most = (tried + 1, high, tried) if len(text) <= budget else (low, tried - 1, most)
    return most


def _next_cut(result: dict[str, Any], budget: int, size: int, full: int) -> tuple[str, Any, Any, int]:
    """The next cut ``fit`` makes: the path, parent and key of the list (or map) and the entries it keeps; the
    refusal where none is left."""
    halved = _halvable(result, "", False) or _halvable(result, "", True)
    if halved is not None:
        _, path, parent, key = halved
        return path, parent, key, len(parent[key]) // 2
    emptied = _heaviest(result, "")  # a list's last entry
    if emptied is not None:
        return (*emptied, 0)
    reasons = _halvable(result, "", False, reasons=True)  # the last resort: the reasons of the nulls
    if reasons is not None:
        _, path, parent, key = reasons
        return path, parent, key, len(parent[key]) // 2
    raise _unfit(budget, size, full)


def _repage(result: dict[str, Any], cuts: dict[str, tuple[Any, Any, int]]) -> str:
    """Point the result's page (if any) at the first entry of a paged list (``PAGED``) that the cuts left out; what
    the cut's ``ask`` says of it ("" where none was)."""
    page = result.get("page")
    kept = [len(held[name]) for at, (held, name, _) in cuts.items() if PAGED.fullmatch(at)]
    if not isinstance(page, dict) or not kept or page.get("offset") is None:
        return ""
    first = page["offset"] + min(kept)
    if page.get("next_offset") is None or first < page["next_offset"]:
        page["next_offset"] = first
    return f"the entries left out start at page.next_offset={page['next_offset']}: call again with that offset; "


def _unfit(budget: int, cut: int, full: int) -> RooflineError:
    """The error of a result that does not fit ``budget`` however cut: the least budget that fits is the cut-down
    size, or the full size where cutting (which adds what was cut) left it no shorter."""
    if cut < full:
        return RooflineError(f"the result does not fit in max_chars {budget} even cut down ({cut} characters; {full} "
                             f"in full)", f"call again with max_chars={cut} or more (max_chars={min(MAX_CHARS, full)} "
                             "for all of it)")
    return RooflineError(f"the result does not fit in max_chars {budget} ({full} characters, and no shorter cut "
                         "down)", f"call again with max_chars={min(MAX_CHARS, full)} or more for all of it")


def _cuttable(child: Any) -> bool:
    """Whether ``child`` is a list that may be cut: not one of numbers alone (a point, a triple: cut short, it
    reads as another)."""
    return isinstance(child, list) and not (child and all(isinstance(x, (int, float)) for x in child))


def _reasons(key: Any, child: Any) -> bool:
    """Whether ``child`` is a map of null reasons (``missing``: each reason with the paths of the nulls it
    explains), which is cut by whole reasons, those of the object's last fields first (``_keep``)."""
    return key == "missing" and isinstance(child, dict) and all(isinstance(p, list) for p in child.values())


def _texts(key: Any, child: Any) -> bool:
    """Whether ``child`` is a map of texts cut like a list (``TEXTS``), by whole entries."""
    return key in TEXTS and isinstance(child, dict) and all(isinstance(t, str) for t in child.values())


def _keep(parent: Any, key: Any, kept: int) -> None:
    """Keep the first ``kept`` entries of the list (or map of texts) ``parent[key]``, or of a map of reasons its
    ``kept`` most telling: the reasons of the parent's first fields (a launch's figures come before their detail)."""
    items = parent[key]
    if _texts(key, items):
        parent[key] = dict(list(items.items())[:kept])
    elif isinstance(items, dict):
        fields = list(parent)
        ranked = sorted(items.items(), key=lambda reason: min((_place(p, fields) for p in reason[1]),
                                                              default=(len(fields), 0)))
        parent[key] = dict(ranked[:kept])
    else:
        del items[kept:]


_STEP = re.compile(r"\[\d+\]|[^.\[\]]+")  # a step of a null's path: a field's name or a list's [index]


def _place(path: str, fields: list[Any]) -> tuple[int, int]:
    """Where the null at ``path`` sits among ``fields``: its field's place, then its depth (a figure before its
    parts)."""
    steps = _STEP.findall(path)
    return fields.index(steps[0]) if steps and steps[0] in fields else len(fields), len(steps)


def _prune(node: Any) -> None:
    """Keep in each map of null reasons under ``node`` the paths its object still holds (the nulls of a list entry
    cut, or never given, go with it), and the reasons left with one."""
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in list(children):
        if _reasons(key, child):
            node[key] = {reason: shown for reason, paths in child.items()
                         if (shown := [path for path in paths if _holds(node, path)])}
        else:
            _prune(child)


def _holds(node: Any, path: str) -> bool:
    """Whether ``node`` holds the value at ``path`` (``a.b[2].c``): false only where the path runs through a list
    entry past the list's end."""
    for step in _STEP.findall(path):
        index = int(step[1:-1]) if step.startswith("[") else None
        if index is not None and isinstance(node, list):
            if index >= len(node):
                return False
            node = node[index]
        elif index is None and isinstance(node, dict) and step in node:
            node = node[step]
        else:
            return True
    return True


def _halvable(node: Any, path: str, top: bool, reasons: bool = False) -> tuple[int, str, Any, Any] | None:
    """The heaviest list of two or more entries (or map of two or more texts: ``_texts``; with ``reasons``, the
    heaviest map of two or more null reasons alone: ``_reasons``) under ``node`` (``cut`` and what ``KEPT`` names
    left alone), below the top level of the result, or (``top``) at it: its size, path, parent and key there. The
    reports of a paged result (``list_kernels``) are never cut: the rows of a report cut out would be on no page."""
    best: tuple[int, str, Any, Any] | None = None
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        if (not path and key == "cut") or not isinstance(child, (dict, list)):
            continue
        where = f"{path}[{key}]" if isinstance(node, list) else f"{path}.{key}" if path else str(key)
        is_reasons = _reasons(key, child)
        found = [] if is_reasons or key in KEPT else [_halvable(child, where, top, reasons)]
        wanted = is_reasons if reasons else (_cuttable(child) or _texts(key, child)) and key not in KEPT
        paged_parents = not path and key == "reports" and isinstance(node, dict) and "page" in node
        if wanted and len(child) >= 2 and (bool(path) != top) and not paged_parents:  # a report cut, its rows lost
            found.append((len(adapter.text(child)), where, node, key))
        for one in found:
            if one is not None and (best is None or one[0] > best[0]):
                best = one
    return best


def _heaviest(node: Any, path: str) -> tuple[str, Any, Any] | None:
    """The non-empty list (or map of texts) below the top level of ``node`` whose JSON is longest (``cut``, what
    ``KEPT`` names, what ``SPARED`` names, a page's rows (``PAGED``) and lists of numbers left alone): its path, its
    parent and its key there."""
    best: tuple[int, str, Any, Any] | None = None
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        if (not path and key == "cut") or key in KEPT:
            continue
        where = f"{path}[{key}]" if isinstance(node, list) else f"{path}.{key}" if path else str(key)
        emptiable = path and key not in SPARED and not PAGED.fullmatch(where)  # a page's rows are its data
        if emptiable and (_cuttable(child) or _texts(key, child)) and child:
            size = len(adapter.text(child))
            if best is None or size > best[0]:
                best = (size, where, node, key)
        if isinstance(child, (dict, list)):
            inner = _heaviest(child, where)
            if inner is not None:
                size = len(adapter.text(inner[1][inner[2]]))
                if best is None or size > best[0]:
                    best = (size, *inner)
    return None if best is None else best[1:]


def command_line(command: Sequence[str], specs: Sequence[Path] = ()) -> str:
    """The equivalent command line of a call, as a shell reads it, with the server's extra spec files (``--specs``)
    before any ``--`` (what follows it is the application's)."""
    options = [arg for path in specs for arg in ("--specs", str(path))]
    end = command.index("--") if "--" in command else len(command)
    return shlex.join(["roofline", *command[:end], *options, *command[end:]])


def filter_args(kernel: Sequence[str] | None) -> list[str]:
    return [arg for f in kernel or () for arg in ("--kernel", f)]


class Server(MCPServer):
    """The SDK's server, with a call's arguments that fail their schema (or that the tool does not take) told in one
    line, argument by argument, and each tool listed with the JSON Schema of its result as its output schema
    (``output_schema``) and an input schema that allows no other argument."""

    async def list_tools(self) -> Any:
        tools = await super().list_tools()
        return [t.model_copy(update={"output_schema": output_schema(t.name),
                                     "input_schema": {**t.input_schema, "additionalProperties": False}})
                for t in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = next((list(t.input_schema["properties"]) for t in await super().list_tools() if t.name == name), None)
        if known is not None and (unknown := [a for a in arguments if a not in known]):
            raise ToolError(unknown_arguments(name, unknown, known))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            if not isinstance(err.__cause__, ValidationError):
                raise
            raise ToolError(f"{name}: {argument_problems(err.__cause__)}") from None


def unknown_arguments(tool: str, unknown: Sequence[str], known: Sequence[str]) -> str:
    """The one line that refuses arguments a tool does not take, with those it does."""
    words = "argument" if len(unknown) == 1 else "arguments"
    return f"{tool}: unknown {words} {', '.join(map(repr, unknown))}: {tool} takes {', '.join(known)}"


# The fields every result starts with, in this order (docs/agents.md): the schema version, the tool, the command.
LEADING = ("schema_version", "tool", "command")


def leading(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the fields every result starts with (``LEADING``) first, the others in their order."""
    return {**{key: result[key] for key in LEADING}, **result}


# Each tool's result: the kind of document (roofline.documents.schemas) it is, the tool's own
# (roofline.documents.tools, named by the tool).
RESULTS = {"list_kernels": "list_kernels", "analyse_kernel": "analyse_kernel", "compare_reports": "compare_reports",
           "project_report": "project_report", "grade_kernel": "grade_kernel", "gpu_spec": "gpu_spec",
           "rank_nsys_kernels": "rank_nsys_kernels"}


# How to get the rest of each tool's lists cut to its budget: a pattern of the list's path, the hint (a list with no
# hint of its own: the whole document in a file, or a larger budget).
HINTS: dict[str, dict[str, str]] = {
    "list_kernels": {r"reports\[\d+\]\.rows": "narrow with offset/limit or kernel filters"},
    "analyse_kernel": {r"kernel\.advice": "ask for fewer advice items",
                       r"kernel\.hotspots\..+": "ask for fewer hot spots",
                       "matched": "narrow the kernel filter, or pick the launch"},
    "compare_reports": {r"kernels|regressions|not_judged|only_in_(base|new)": "narrow with kernel filters"},
    "project_report": {"kernels": "narrow with offset/limit or kernel filters"},
    "grade_kernel": {"kernels": "narrow with kernel filters"},
    "rank_nsys_kernels": {"kernels": "narrow with offset/limit"},
}


def output_schema(tool: str) -> dict[str, Any]:
    """A tool's output schema: its result's JSON Schema, generated from its type (an object at the top, as MCP
    asks)."""
    return {**adapter.schema(RESULTS[tool]), "type": "object"}


# The command line's options as the tools' arguments name them: an error's hint names what the caller can pass.
ARGUMENTS = {"--map": "maps", "--match": "match", "--kernel": "kernel", "--kernel-name-base": "kernel_name_base",
             "--ceilings": "ceilings", "--by": "by", "--to": "to", "--clock": "clock", "--nvtx": "nvtx", "--top": "top",
             "--baseline": "baseline", "--work-tolerance": "work_tolerance", "--alpha": "alpha",
             "--fail-if-slower": "fail_if_slower", "--min-share": "min_share",
             "--fail-if-total-slower": "fail_if_total_slower", "--fail-if-roof-drop": "fail_if_roof_drop",
             "--fail-if-new-share": "fail_if_new_share",
             "--gate-different-work": "gate_different_work=true", "--allow-different-gpu": "allow_different_gpu=true"}
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*(?![\w-])")  # not -o: ncu's and nsys's output file
# The command line's advice that names a command, its document option or the Python call, as a tool call says it
# (a command no tool runs is left out of the advice). The phrases are those of the errors' hints (``specs.catalog``,
# ``nsys.timeline``, ``compare.regression``), checked by tests/cli/test_mcp_server.py.
PHRASES = {LIST_IDS: "call gpu_spec without spec_id for the ids", f"({named_by(DOCUMENT_OPTION)})": "(output)",
           NVTX_RANGES_LISTED: "against the ranges rank_nsys_kernels lists under profile.nvtx when called without nvtx",
           COMPARE_INSTEAD: "", IN_PYTHON: "", GENERATIONS: ""}


def as_arguments(line: str) -> str:
    """An error's line with each of the command line's options the tools take named as the tool's argument
    (``--map`` as ``maps``) and its advice to run a command as the tool to call (``PHRASES``); ncu's options
    (``--set full``) and the server's own (``--root``) stay."""
    for phrase, call in PHRASES.items():
        line = line.replace(phrase, call)
    return _OPTION.sub(lambda m: ARGUMENTS.get(m.group(0), m.group(0)), line)


def argument_problems(err: ValidationError) -> str:
    """Each argument that fails its schema, what it must be, and what was given (cut to 40 characters)."""
    problems = []
    for e in err.errors():
        where = ".".join(str(part) for part in e["loc"]) or "arguments"
        given = "" if e["type"] == "missing" else f" (given {repr(e.get('input'))[:40]})"
        if e["type"] == "float_type" and e.get("input") is None:  # JSON has no infinity: a client sends null
            given = " (given null, as a client sends an infinite or NaN number: give a finite one)"
        problems.append(f"argument '{where}': {e['msg']}{given}")
    return "; ".join(" ".join(p.split()) for p in problems)


def build(roots: Roots, time_limit_s: float | None = None, specs: Sequence[Path] = ()) -> MCPServer:
    """The server and its tools over ``roots``; ``time_limit_s`` bounds each .ncu-rep read (None: the command
    line's default, scaled to the file's size); ``specs``: extra device spec files or folders."""
    server: MCPServer = Server("roofline", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    def options(kernel: Sequence[str] | None, ceilings: CeilingSet = "kernel-clock", diagnostics: bool = False,
                base: Literal["function", "demangled", "mangled"] = "function", sass: bool = True) -> AnalysisOptions:
        return AnalysisOptions(kernel=tuple(kernel or ()), kernel_name_base=base, ceilings=ceilings,
                               specs=tuple(specs), time_limit_s=time_limit_s, diagnostics=diagnostics, sass=sass)

    def line(command: Sequence[str]) -> str:
        """The equivalent command line of a call, with the server's ``--specs``."""
        return command_line(command, specs)

    def finish(answer: adapter.Answer, output: str | None, max_chars: int, tool: str) -> dict[str, Any]:
        """The result as plain data, the whole document written to ``output`` (if asked), cut to ``max_chars``."""
        return done(adapter.plain(answer.result), answer, output, max_chars, tool)

    def done(result: dict[str, Any], answer: adapter.Answer, output: str | None, max_chars: int,
             tool: str) -> dict[str, Any]:
        """``finish`` of a result already plain data: cut with the hints of ``tool``'s lists (``HINTS``)."""
        if output is None:
            return fit(result, max_chars, "give output=FILE.json for the whole document", HINTS[tool])
        adapter.write_json(roots.writable(output), adapter.whole(answer.whole))
        result["written"] = output
        try:
            return fit(result, max_chars, f"read the whole document in {output}", HINTS[tool])
        except RooflineError as err:  # the file holds the whole document all the same: say so
            raise RooflineError(f"{err.message}; the whole document was written to {output}", err.hint) from None

    def tool(fn: Callable[..., dict[str, Any]]) -> None:
        """Register ``fn`` as a tool whose errors, of any kind, are one line to the caller (the server goes on)."""
        import functools

        @functools.wraps(fn)
        async def call(**kwargs: Any) -> CallToolResult:
            try:
                # in the event loop's thread, the main one: the regex time limit applies
                result = leading(fn(**kwargs))
                adapter.conform(RESULTS[fn.__name__], result)  # the type its output schema is generated from
            except RooflineError as err:
                raise ToolError(as_arguments(" ".join(str(err).split()))) from None
            except Exception as err:  # a defect: still one line, and the server stays up
                raise ToolError(" ".join(f"internal error: {type(err).__name__}: {err}".split())) from None
            return CallToolResult(content=[TextContent(type="text", text=adapter.text(result))],
                                  structured_content=result)

        server.add_tool(call, name=fn.__name__, description=" ".join((fn.__doc__ or "").split()),
                        structured_output=True)

    @tool
    def list_kernels(
        reports: Annotated[list[str], Field(min_length=1, description="Report files (.ncu-rep or .json models).")],
        by: Annotated[Literal["kernel", "function", "nvtx"], Field(
            description="Group launches by kernel (demangled name), function name or innermost NVTX range.")]
        = "kernel",
        offset: Offset = 0, limit: Limit = 20, kernel: Filters = None, ceilings: Ceilings = "kernel-clock",
        max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """List the kernels of one or more Nsight Compute reports, ranked by time to gain (what each launch's first
        advice item would save, summed; a kernel without an estimated saving placed by its recoverable time, the
        time above its busiest unit's peak within what it can reach; each report's 'ranked_by' says which ranking
        it got): per kernel its launches (count), time share, verdict (bound: compute, memory, balanced, latency,
        small_grid), percent of roof, recoverable_s and time_to_gain_s. Paginated with offset/limit. Next:
        analyse_kernel on a kernel name from here (kernel='exact:NAME')."""
        paths = [roots.readable(r, "reports") for r in reports]
        command = ["summary", *reports, "--by", by, "--top", str(offset + limit), *filter_args(kernel),
                   "--ceilings", ceilings, "-f", "json"]
        # advised, as the CLI's summary: its rows' time to gain is the report's
        answer = adapter.list_kernels(paths, options(kernel, ceilings, diagnostics=True, sass=False), by, offset,
                                      limit, line(command))
        return finish(answer, output, max_chars, "list_kernels")

    @tool
    def analyse_kernel(
        report: Annotated[str, Field(description="One report file (.ncu-rep or .json model).")],
        kernel: Annotated[str, Field(description="Which kernel: NAME (name contains it), exact:NAME or "
                                     "regex:PATTERN.")],
        launch: Annotated[int | None, Field(ge=0, description="Which of the matched launches (0-based, report "
                                            "order); default: the longest.")] = None,
        advice: Annotated[int, Field(ge=0, le=100, description="Advice items kept (most time saved first).")] = 5,
        hotspots: Annotated[int, Field(ge=0, le=20, description="Hot instructions and source lines kept.")] = 5,
        kernel_name_base: Annotated[Literal["function", "demangled", "mangled"], Field(
            description="The name the filter reads.")] = "function",
        ceilings: Ceilings = "kernel-clock", max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """Analyse one kernel launch of a report: the verdict with the busiest unit, its roofline position (FLOP/s,
        bytes/s and intensity per memory level) against the roofs used, percent of roof and recoverable time,
        occupancy and warp stalls, the top advice items with their bounded time savings, and the hot spots
        (instructions and source lines with the most warp samples, from --set full reports). Nulls have their
        reason under 'missing'."""
        path = roots.readable(report, "report")
        command = ["report", report, "--kernel", kernel, "--kernel-name-base", kernel_name_base, "--ceilings",
                   ceilings, "-f", "json"]
        answer = adapter.analyse_kernel(path, options([kernel], ceilings, diagnostics=True, base=kernel_name_base),
                                        launch, advice, hotspots, kernel, report, line(command), NAME_CHARS)
        return finish(answer, output, max_chars, "analyse_kernel")

    @tool
    def compare_reports(
        base: Annotated[str, Field(description="The baseline report.")],
        new: Annotated[str, Field(description="The new report, judged against the baseline.")],
        match: Annotated[str, Field(description="Pair kernels by name, demangled, order, family or regex:PATTERN.")]
        = "name",
        maps: Annotated[list[str] | None, Field(description="Explicit pairs BASE_REGEX=NEW_REGEX.")] = None,
        kernel: Filters = None,
        fail_if_slower: Annotated[float, finite(ge=0, le=MAX_SLOWER_PCT, description="Regression: a kernel slower "
                                               "by more than this percent per launch (beyond the noise).")]
        = SLOWER_PCT,
        min_share: Annotated[float, finite(ge=0, le=100, description="Gate only kernels with at least this percent "
                                          "of either report's time.")] = MIN_SHARE_PCT,
        fail_if_total_slower: Annotated[float, finite(ge=0, le=MAX_SLOWER_PCT, description="Regression: the gated "
                                                     "kernels together slower by more than this percent.")]
        = TOTAL_SLOWER_PCT,
        fail_if_roof_drop: Annotated[float | None, finite(ge=0, le=MAX_ROOF_DROP_PTS, description="Regression: "
                                                         "percent of roof down by more than this many points.")]
        = None,
        fail_if_new_share: Annotated[float | None, finite(ge=0, le=100, description="Regression: the kernels only "
                                                          "the new report runs take more than this percent of its "
                                                          "kernel time.")] = None,
        work_tolerance: Annotated[float, finite(ge=0, lt=MAX_WORK_TOLERANCE_PCT, description="Percent of work "
                                               "difference beyond which a pair is different work (compared by "
                                               "throughput, never by time).")]
        = 100.0 * WORK_TOLERANCE,
        alpha: Annotated[float, finite(gt=0, lt=MAX_ALPHA, description="Significance level of the noise test.")]
        = ALPHA,
        gate_different_work: Annotated[bool, Field(description="Gate different-work pairs on time per unit of "
                                                   "work.")] = False,
        allow_different_gpu: Annotated[bool, Field(description="Judge reports from different GPUs or ncu versions.")]
        = False,
        max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """Compare a new report with a baseline kernel by kernel, as `roofline diff` gates CI: the work check comes
        first (a pair whose work differs gets no speed-up, only a throughput ratio), then the change of time per
        launch with its noise interval, the headline figure on the governing resource, and the verdict: exit_code 0
        (no regression beyond the thresholds), 1 (regression, with the kernels and why) or 2 (none, but the kernels
        under not_judged have no time on a side, so a regression in them would pass). Per kernel also the
        source lines whose share of warp samples moved most. Where every kernel's work differs the call is refused
        ('nothing to gate'): call again with gate_different_work=true to judge them per unit of work."""
        options_args = ["--match", match, *(a for m in maps or () for a in ("--map", m)), *filter_args(kernel),
                        "--work-tolerance", f"{work_tolerance:g}", "--alpha", f"{alpha:g}"]
        command = ["diff", base, new, *options_args, "--fail-if-slower", f"{fail_if_slower:g}", "--min-share",
                   f"{min_share:g}", "--fail-if-total-slower", f"{fail_if_total_slower:g}",
                   *(("--fail-if-roof-drop", f"{fail_if_roof_drop:g}") if fail_if_roof_drop is not None else ()),
                   *(("--fail-if-new-share", f"{fail_if_new_share:g}") if fail_if_new_share is not None else ()),
                   *(("--gate-different-work",) if gate_different_work else ()),
                   *(("--allow-different-gpu",) if allow_different_gpu else ()), "-f", "json"]
        answer = adapter.compare_reports(
            roots.readable(base, "base"), roots.readable(new, "new"), options(kernel), match, maps or (),
            work_tolerance, alpha, fail_if_slower, min_share, fail_if_total_slower, fail_if_roof_drop,
            gate_different_work, allow_different_gpu, line(command),
            line(["compare", base, new, *options_args, "-f", "json"]), fail_if_new_share)
        result = adapter.plain(answer.result)  # a gate left off is said by its argument, not the command's option
        result["missing"] = {path: as_arguments(reason) for path, reason in result["missing"].items()}
        return done(result, answer, output, max_chars, "compare_reports")

    @tool
    def project_report(
        report: Annotated[str, Field(description="The report whose kernels are projected.")],
        to: Annotated[str, Field(description="Device spec id of the target GPU (gpu_spec lists them).")],
        kernel: Filters = None, offset: Offset = 0, limit: Limit = 20,
        clock: Clock = "sustained", max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """Project every launch onto another GPU at the clock it holds under load (sustained; boost, or ncu's
        base): each time-model unit at the target's own rate, waves and tail, a launch floor; the workload's total
        (``workload``) and each kernel's launches summed, with an interval (a model, not a measurement). Paginated with
        offset/limit."""
        path = roots.readable(report, "report")
        if to.strip().lower() == "all" or "," in to:  # the command's table of every GPU: no page of kernels to give
            raise RooflineError(f"to '{to}': project_report projects onto one GPU, a page of its kernels at a time",
                                "give one spec id (gpu_spec without spec_id lists them), one call per GPU")
        command = ["project", report, "--to", to, *filter_args(kernel), "--clock", clock, "-f", "json"]
        answer = adapter.project_report(path, to, options(kernel), clock, offset, limit,
                                        line(command))
        return finish(answer, output, max_chars, "project_report")

    @tool
    def grade_kernel(
        report: Annotated[str, Field(description="One report file (.ncu-rep or .json model).")],
        kernel: Filters = None,
        baseline: Annotated[str | None, Field(description="A report of the reference kernel (e.g. its FP32 version): "
                                              "a kernel doing less work, or in a less precise type, is not graded; "
                                              "checked against the baseline's kernel of the same name, else its "
                                              "longest.")] = None,
        kernel_name_base: Annotated[Literal["function", "demangled", "mangled"], Field(
            description="The name the filter reads.")] = "function",
        max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """Grade each kernel of a report against the roof of the work it does: its floor at the GPU's achievable
        peaks over its measured time (1: at the roof; the most any what-if that keeps the work saves is 1 - grade of
        its time), with its datasheet grade, the unit and roof that govern it, the measurement's conditions (SM
        clock, cache control, replay mode, launches; each with the ncu option that fixes it) and the confidence.
        A grade is withheld (null, reasons under 'withheld') where the kernel writes nothing or, against a baseline,
        does less work or computes in a less precise type. The launches' detail is left out ('per_launch' empty):
        the equivalent command gives it."""
        path = roots.readable(report, "report")
        base = roots.readable(baseline, "baseline") if baseline is not None else None
        command = ["grade", report, *filter_args(kernel), "--kernel-name-base", kernel_name_base,
                   *(("--baseline", baseline) if baseline is not None else ()), "-f", "json"]
        answer = adapter.grade_kernel(path, options(kernel, base=kernel_name_base), base, NAME_CHARS,
                                      line(command))
        return finish(answer, output, max_chars, "grade_kernel")

    @tool
    def gpu_spec(
        spec_id: Annotated[str | None, Field(description="Device spec id, e.g. h100-sxm5; leave out to list the "
                                             "ids.")] = None,
        max_chars: MaxChars = DEFAULT_CHARS,
    ) -> dict[str, Any]:
        """Look up a GPU's datasheet spec: every ceiling (peak FLOP/s per precision, dense tensor rates, memory, L2
        and L1 bandwidth, clocks, SM count) with its source; without spec_id, the ids of the known GPUs."""
        if spec_id is None:
            return fit(adapter.plain(adapter.spec_ids(line(["specs", "list", "-f", "json"]), specs)), max_chars,
                       "ask for one spec_id")
        return fit(adapter.plain(adapter.spec(spec_id, line(["specs", "show", spec_id, "-f", "json"]), specs)),
                   max_chars, "the spec's notes are long: raise max_chars")

    @tool
    def rank_nsys_kernels(
        profile: Annotated[str, Field(description="An Nsight Systems SQLite export (nsys export --type sqlite).")],
        top: Annotated[int, Field(ge=1, le=50, description="How many of the top kernels get an ncu command.")] = 5,
        nvtx: Annotated[str | None, Field(description="Keep only kernels launched inside NVTX ranges of this "
                                          "name.")] = None,
        offset: Offset = 0, limit: Limit = 20, max_chars: MaxChars = DEFAULT_CHARS, output: Output = None,
    ) -> dict[str, Any]:
        """Rank the kernels of an Nsight Systems profile by total GPU time (count, total, median, share of the busy
        time), and give the ncu commands that profile one median-duration launch of each of the top kernels (APP
        stands for the application and its arguments, NAME for the name of the report and log files each run
        writes), as `roofline analyze --from-nsys` runs them. With nvtx, no command (analyze plans over the whole
        profile): 'left_out' says how to profile a kernel of the range. Paginated with offset/limit."""
        path = _nsys_export(roots.readable(profile, "profile"), profile)
        command = ["timeline", profile, *(("--nvtx", nvtx) if nvtx else ()), "-f", "json"]
        analyze = line(["analyze", "--from-nsys", profile, "--top", str(top), "--", "APP"])
        answer = adapter.rank_nsys_kernels(path, nvtx, top, offset, limit, line(command), analyze)
        return finish(answer, output, max_chars, "rank_nsys_kernels")

    return server


def _nsys_export(path: Path, shown: str) -> Path:
    """``path`` where it names an Nsight Systems SQLite export; else the error that says what the file is and what
    to do with it."""
    suffix = path.suffix.lower()
    if suffix == ".sqlite":
        return path
    wants = "rank_nsys_kernels reads an Nsight Systems export (nsys export --type sqlite)"
    if suffix in (".ncu-rep", ".json"):
        raise RooflineError(f"{shown}: an Nsight Compute report ({suffix}), not an Nsight Systems profile; {wants}",
                            "for an ncu report call list_kernels (its kernels), then analyse_kernel")
    export = path.with_suffix(".sqlite")
    raise RooflineError(f"{shown}: not an Nsight Systems SQLite export; {wants}",
                        f"export it first: nsys export --type sqlite -o {export} {shown}" if suffix in (
                            ".nsys-rep", ".qdrep") else "name the .sqlite file nsys export wrote")


def serve(roots: Sequence[Path], time_limit_s: float | None = None, specs: Sequence[Path] = ()) -> None:
    """Run the server over stdio until the client closes it."""
    build(Roots(roots), time_limit_s, specs).run("stdio")
