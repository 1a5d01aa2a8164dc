"""The package's stages, checked on its source with ``ast``: every import (module level, inside functions and
under TYPE_CHECKING) stays in its stage or goes to a stage below, never up; no import circle; no command imports
another command; no private name crosses a module boundary; renderers return their output and leave the disk to
the one writer.

Stages, lowest first (a module may import its own stage and those below); each is a subpackage:

    core        roofline.errors and roofline.core: the model, units, labels, choices, thresholds, time limits,
                kernel names and the --kernel language, work over many reports, cohorts
    ncu         running ncu, the .ncu-rep container, the reader, metric names and formulas, validation
    nsys        Nsight Systems: nsys export for reports, the SQLite timeline reader (aggregated in SQL)
    specs       device specs (catalog), YAML with a budget, calibrated roofs, microbenchmarks
    analysis    roofline maths, result types, verdict, work, diagnostics, advice, libraries, the report's view
    compare     pairing across reports, noise, the diff gate, the application summary
    documents   each command's document (kinds) and its --format json tree of typed structs; their JSON Schemas
    facade      roofline.facade (``Roofline``: the options and the spec catalog once, one typed document per command,
                ``documents.kinds``) over roofline.pipeline: load -> filter -> spec -> analyse -> advise -> view
    render      pure renderers (report/, compare/, timeline/, and their shared terminal, matplotlib, name fitting)
    store       the Parquet store of many reports' report documents (collect over the facade, DuckDB queries)
    api         roofline (the Python API): a shell over the facade like the command line; registers the notebook
                display hooks on first use
    cli         the typer application, shared options, the one output writer, one module per command

No exception: a result's ``_repr_html_`` looks up the hook the API registered (``core.display``), so nothing below
render imports it, even inside a function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from roofline.cli.app import COMMANDS

PACKAGE = Path(__file__).resolve().parents[1] / "roofline"
STAGES = ("core", "ncu", "nsys", "specs", "analysis", "compare", "documents", "facade", "render", "store", "api",
          "cli")
TOP_LEVEL = {"roofline.errors": "core", "roofline": "api", "roofline.pipeline": "facade", "roofline.facade": "facade",
             "roofline.__main__": "cli"}
COMMAND_MODULES = frozenset(f"roofline.cli.commands.{module}" for module, *_ in COMMANDS.values())
MAX_TOP_LEVEL_MODULES = 8


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def stage(module: str) -> int:
    """The stage of a module: its subpackage's (roofline.render.report.table -> render), or its own entry at the top."""
    name = TOP_LEVEL.get(module) or module.split(".")[1]
    assert name in STAGES, f"{module} is in no stage: place it in a subpackage of {STAGES} ({Path(__file__).name})"
    return STAGES.index(name)


def imports(module: str) -> Iterator[tuple[str, str, int]]:
    """(imported roofline module, name taken from it or "", line) for every import in ``module``, inside functions
    and under TYPE_CHECKING too."""
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "roofline":
                    yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{module}:{node.lineno}: relative import (the package uses absolute ones)"
            base = node.module or ""
            if base.split(".")[0] != "roofline":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub, "", node.lineno) if sub in MODULES else (base, alias.name, node.lineno)


def edges() -> dict[str, set[str]]:
    """Module -> the roofline modules it imports; the CLI also imports each command by name (importlib)."""
    graph = {m: {target for target, _, _ in imports(m) if target != m} for m in MODULES}
    graph["roofline.cli.app"] |= COMMAND_MODULES
    return graph


def test_every_module_has_a_stage_and_few_stay_at_the_top() -> None:
    for module in MODULES:
        stage(module)
    top = [p.name for p in PACKAGE.glob("*.py")]
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"{len(top)} modules at the top of roofline/: {sorted(top)}"
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == (
        set(STAGES) - {"facade", "api"})


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_stay_in_the_stage_or_go_down(module: str) -> None:
    upward = [f"line {line}: {target} ({STAGES[stage(target)]})" for target, _, line in imports(module)
              if stage(target) > stage(module)]
    assert not upward, f"{module} ({STAGES[stage(module)]}) imports upward: {upward}"


def test_a_notebook_hook_is_registered_from_above() -> None:
    """The result types Jupyter shows look their HTML up in core.display; the API registers the hooks."""
    hooks = {m for m in MODULES for n in ast.walk(ast.parse(MODULES[m].read_text()))
             if isinstance(n, ast.FunctionDef) and n.name == "_repr_html_"}
    assert hooks == {"roofline.analysis.launches", "roofline.compare.pairing"}
    for module in hooks:
        assert "roofline.core.display" in {t for t, _, _ in imports(module)}
    assert "register_html" in MODULES["roofline"].read_text()


DOCUMENT_SHELLS = ("roofline", "roofline.cli.mcp_adapter", "roofline.cli.nsys_work", "roofline.store.collect",
                   *(f"roofline.cli.commands.{c}" for c in ("analyze", "compare", "diff", "plot", "project", "report",
                                                            "summary", "timeline")))
STAGE_WORK = ("roofline.pipeline", "roofline.compare.pairing", "roofline.compare.regression",
              "roofline.compare.ranking", "roofline.compare.realtime", "roofline.analysis.borrowed",
              "roofline.specs.catalog")


@pytest.mark.parametrize("module", DOCUMENT_SHELLS)
def test_the_shells_ask_the_facade_and_chain_no_stage(module: str) -> None:
    """The commands that analyse reports, the MCP adapter and the Python API call the facade (``roofline.facade``)
    for their documents: none imports the pipeline's analysis, the pairing, the judge, the ranking, the real-time
    weighing or the spec catalog's loader to chain them itself (data types and argument parsers excepted)."""
    allowed = {"AnalysisOptions", "build_view", "PairOptions", "pair_options", "parse_matcher", "check_top",
               "Thresholds", "ReportAnalysis", "AppSummary", "Comparison", "SpecCatalog", "DeviceSpec",
               "builtin_folder"}  # where the shipped specs lie (the store hashes them): a place, not a stage's work
    bad = [f"line {line}: {target}.{name}" for target, name, line in imports(module)
           if target in STAGE_WORK and name not in allowed]
    assert not bad, f"{module} chains stages itself: {bad}"


def test_no_import_circle() -> None:
    graph = edges()
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> None:
        if node in visiting:
            raise AssertionError("import circle: " + " -> ".join(visiting[visiting.index(node):] + [node]))
        if node in done:
            return
        visiting.append(node)
        for target in sorted(graph[node]):
            visit(target)
        visiting.pop()
        done.add(node)

    for module in sorted(graph):
        visit(module)


def test_commands_are_leaves() -> None:
    for module in COMMAND_MODULES:
        others = sorted(t for t, _, _ in imports(module) if t in COMMAND_MODULES and t != module)
        assert not others, f"{module} imports another command: {others}"


def test_no_private_name_crosses_a_module() -> None:
    crossing = []
    for module in MODULES:
        tree = ast.parse(MODULES[module].read_text())
        aliases = {}  # local name -> roofline module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    full = (alias.name if isinstance(node, ast.Import)
                            else f"{node.module}.{alias.name}" if node.module else alias.name)
                    if full in MODULES:
                        aliases[alias.asname or alias.name.split(".")[0]] = full
        for target, name, line in imports(module):
            if name.startswith("_") and not name.startswith("__"):
                crossing.append(f"{module}:{line} imports {target}.{name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                crossing.append(f"{module}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    assert not crossing, crossing


def test_the_stages_are_used_as_drawn() -> None:
    """Each stage is imported by a stage above it (no stage is dead weight in the drawing)."""
    graph = edges()
    for i, name in enumerate(STAGES[:-1]):
        users = {m for m, targets in graph.items() for t in targets if stage(t) == i and stage(m) > i}
        assert users, f"nothing above imports the {name} stage"


RENDER = sorted(m for m in MODULES if m.startswith("roofline.render."))
FILE_METHODS = {"open", "write_text", "write_bytes", "mkdir", "unlink", "rename", "touch"}  # Path's


@pytest.mark.parametrize("module", RENDER)
def test_renderers_never_touch_the_disk(module: str) -> None:
    """Renderers return str or bytes; only cli.output.write_output writes files (savefig only into memory)."""
    calls = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "open") or (
                isinstance(func, ast.Attribute) and func.attr in FILE_METHODS):
            calls.append(f"line {node.lineno}: file access")
        if isinstance(func, ast.Attribute) and func.attr in ("savefig", "use") and module != "roofline.render.mpl":
            calls.append(f"line {node.lineno}: {func.attr} (matplotlib set-up and saving live in render.mpl)")
    assert not calls, f"{module}: {calls}"


def _imported_by(renderer: Callable[..., object]) -> str:
    """The module a registry's renderer imports its function from."""
    import inspect

    node = next(n for n in ast.walk(ast.parse(inspect.getsource(renderer))) if isinstance(n, ast.ImportFrom))
    return node.module or ""


def test_every_renderer_module_is_reached_from_the_format_registry() -> None:
    """A renderer of report/, compare/ or timeline/ is named by a format of base.FORMATS, or imported by one that
    is, so the registry is the one list of what the tool can write."""
    from roofline.render.base import FORMATS

    graph = edges()
    reached: set[str] = set()
    todo = [_imported_by(f.renderer) for f in FORMATS]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += [t for t in graph[module] if t.startswith("roofline.render.")]
    renderers = [m for m in RENDER if m.split(".")[2] in ("report", "compare", "timeline")
                 and MODULES[m].name != "__init__.py"]
    assert not [m for m in renderers if m not in reached]


def test_every_command_has_its_module() -> None:
    assert COMMAND_MODULES <= set(MODULES)


# --- Renderers only format ------------------------------------------------------------------------------
BELOW_RENDER = ("roofline.analysis", "roofline.compare", "roofline.ncu", "roofline.nsys", "roofline.specs",
                "roofline.pipeline")


def imported_object(target: str, name: str) -> object:
    """The object an import names: a module (``name`` "") or a module's attribute."""
    import importlib

    module = importlib.import_module(target)
    return module if not name else getattr(module, name)


def is_data(obj: object) -> bool:
    """What a renderer may take from the stages below it: a class (a result type, a dataclass, an enum), a type
    alias, or a constant; never a function (the analysis is done before the renderers run) nor a whole module
    (through which any function could be called)."""
    import types
    import typing

    if isinstance(obj, type) or typing.get_origin(obj) is not None:
        return True
    return not callable(obj) and not isinstance(obj, types.ModuleType)


@pytest.mark.parametrize("module", RENDER)
def test_renderers_import_no_analysis_function(module: str) -> None:
    """A renderer imports from analysis, compare, ncu, nsys, specs and the pipeline only data: classes (the view,
    the result types), type aliases and constants; no function and no module, at module level, inside functions
    or under TYPE_CHECKING. Everything a renderer shows is decided by the view (``analysis.view``)."""
    bad = [f"line {line}: {target}{'.' + name if name else ''}" for target, name, line in imports(module)
           if target.startswith(BELOW_RENDER) and not is_data(imported_object(target, name))]
    assert not bad, f"{module} imports functions or modules of the stages below: {bad}"


def test_the_renderer_rule_catches_a_function() -> None:
    """The rule above fails on a renderer that imports an analysis function or module (and passes a type)."""
    from roofline.analysis import roofline as analysis

    assert not is_data(analysis.report_level_ceilings) and not is_data(analysis)
    assert is_data(imported_object("roofline.analysis.view", "ReportView"))
    assert is_data(imported_object("roofline.analysis.verdict", "BOUND_WORDS"))
    assert is_data(imported_object("roofline.analysis.results", "Bound"))


# --- Causes are data -------------------------------------------------------------------------------------
# The names the code gives a reason's text: a Value's reason and via, a verdict's reason, a note, an advice item's
# estimate, cause and condition, a ceiling's missing reasons and clock note, a hint, a definition, "why" and "how".
REASON_NAME = re.compile(r"(^|_)(reasons?|why|notes?|estimate|via|causes?|condition|how|hints?|definition|missing"
                         r"|bound_by|collect|detail|findings?|warning)$")
TEXT_METHODS = {"startswith", "endswith", "split", "rsplit", "partition", "rpartition", "find", "rfind", "index",
                "rindex", "removeprefix", "removesuffix", "count"}
REGEX_FUNCTIONS = {"match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
# ncu's own rule results are input text from the report, which ncu_rules classifies (a rule's title, the metrics it
# focuses on), as the reader parses the report's other strings: not a reason this tool wrote.
NCU_RULE_TEXT = {("roofline.analysis.ncu_rules", "_cause_topic"), ("roofline.analysis.ncu_rules", "_item")}


def named(node: ast.AST) -> str:
    """The name a text is read under: ``k.verdict.reason`` -> "reason", ``missing[key]`` -> "missing"."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return named(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return named(node.func.value)
    return ""


def reason_matches(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """(line, function, what) for every test on a reason's text: ``"x" in reason`` (a text in it; ``key in missing``,
    a mapping's key, is data), ``reason.startswith(...)`` (and the other str methods that look inside a text), a
    regular expression over a reason."""
    inside: dict[int, str] = {}  # node -> the innermost function holding it (ast.walk visits outer ones first)
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update({id(n): function.name for n in ast.walk(function)})
    for node in ast.walk(tree):
        where = inside.get(id(node), "")
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                literal = isinstance(node.left, ast.JoinedStr) or (
                    isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
                if isinstance(op, (ast.In, ast.NotIn)) and literal and REASON_NAME.search(named(right)):
                    yield node.lineno, where, f"... in {named(right)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in TEXT_METHODS and REASON_NAME.search(named(node.func.value)):
                yield node.lineno, where, f"{named(node.func.value)}.{node.func.attr}()"
            if node.func.attr in REGEX_FUNCTIONS and any(REASON_NAME.search(named(a)) for a in node.args):
                yield node.lineno, where, f"regex {node.func.attr}() over a reason"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_code_matches_reason_text(module: str) -> None:
    """Causes are data (enums, fields); prose is written at the edge and never read back: no code tests what a
    reason, note, estimate or hint says (a membership test, a str method that looks inside it, a regex)."""
    found = {f"line {line}: {what}" for line, function, what in reason_matches(ast.parse(MODULES[module].read_text()))
             if (module, function) not in NCU_RULE_TEXT}
    assert not found, f"{module} matches reason text: {sorted(found)}"


@pytest.mark.parametrize("source", [
    'def f(v):\n    return v.reason.startswith("no SpeedOfLight")',
    'def f(how):\n    return "unscaled" in how',
    'def f(c):\n    return c.clock_note.split(";")[0]',
    'def f(m, why):\n    return m.search(why)',
    'def f(k):\n    return "x" in k.verdict.reason',
    'def f(item):\n    return item.estimate.split(":")[0]',
    'def f(c, key):\n    return c.missing.get(key, "").startswith("missing metrics")',
])
def test_the_reason_rule_catches_the_patterns_it_was_written_for(source: str) -> None:
    """Each form of matching removed from the code (issue 43) is caught by the rule above."""
    assert list(reason_matches(ast.parse(source)))


def test_the_reason_rule_leaves_data_alone() -> None:
    assert not list(reason_matches(ast.parse(
        'def f(v, item, names):\n    return v.cause is None and item.capped and "fp32" in names')))


# --- One place per fact ------------------------------------------------------------------------------------
METRIC_NAME = re.compile(r"\b(sm|smsp|gpu|gpc|dram|fbpa|fbp|lts|ltc|l1tex|idc|launch|device__attribute)__[a-z0-9_]+")


def text_literals(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string literals of a module, its docstrings left out."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("roofline.ncu")))
def test_metric_names_live_in_the_ncu_stage(module: str) -> None:
    """An ncu metric name is written in roofline.ncu (metrics.py: the names the formulas, the verdict's units and
    the advice read) and taken from there; no other module spells one (docstrings aside)."""
    spelled = [f"line {n.lineno}: {str(n.value)[:60]}" for n in text_literals(ast.parse(MODULES[module].read_text()))
               if METRIC_NAME.search(str(n.value))]
    assert not spelled, f"{module} spells ncu metric names: {spelled}"


# --- One kind of record per role ---------------------------------------------------------------------------
OPTION_RECORDS = {"roofline.compare.pairing": {"Matcher", "PairOptions"}, "roofline.compare.regression": {"Thresholds"}}


def dataclass_names(source: str) -> set[str]:
    """The classes a module's source decorates with ``dataclass``."""
    return {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)
            and any("dataclass" in ast.unparse(d) for d in node.decorator_list)}


RECORD_MODULES = sorted(m for m in MODULES if m.startswith(("roofline.analysis.", "roofline.compare."))
                        or m == "roofline.render.base")


@pytest.mark.parametrize("module", RECORD_MODULES)
def test_results_and_views_are_structs_not_dataclasses(module: str) -> None:
    """Every result of the analysis and the comparisons, every view and every renderer document is a frozen msgspec
    struct (analysis/results.py says why); only the comparisons' option types are dataclasses."""
    assert dataclass_names(MODULES[module].read_text()) <= OPTION_RECORDS.get(module, set())


# the modules `report` imports that once held dataclasses: building their classes cost 26-35 ms a run (issue 64)
REPORT_PATH_MODULES = ("roofline.core.model", "roofline.core.cohorts", "roofline.core.kernel_filter",
                       "roofline.core.kernel_names", "roofline.core.kernel_families", "roofline.specs.catalog",
                       "roofline.specs.derived", "roofline.specs.safe_yaml", "roofline.ncu.reader",
                       "roofline.ncu.validation", "roofline.pipeline", "roofline.cli.facts")


@pytest.mark.parametrize("module", REPORT_PATH_MODULES)
def test_the_report_model_options_and_specs_are_structs_not_dataclasses(module: str) -> None:
    """The report model, the specs, the analysis options and the other records the ``report`` command imports are
    msgspec structs: a dataclass's class takes about 1 ms to build, a struct's about 0.014 ms."""
    assert dataclass_names(MODULES[module].read_text()) == set()


def test_the_record_rule_sees_each_form_of_dataclass() -> None:
    source = ("@dataclass(frozen=True)\nclass A:\n    x: int\n\n@dataclasses.dataclass\nclass B:\n    y: int\n\n"
              "class C(Struct, frozen=True):\n    z: int\n")
    assert dataclass_names(source) == {"A", "B"}
