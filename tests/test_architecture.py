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
    analysis    roofline maths, result types, verdict, work, diagnostics, advice, libraries
    compare     pairing across reports, noise, the diff gate, the application summary
    facade      roofline (the Python API) and roofline.pipeline: load -> filter -> spec -> analyse -> advise
    render      pure renderers (report/, compare/, and their shared terminal, matplotlib and name fitting)
    cli         the typer application, shared options, the one output writer, one module per command

One exception: Jupyter asks a result object itself for its HTML (``_repr_html_``), so that method may import the
renderer it hands over to, inside its body; nothing else in it may go up.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from roofline.cli.app import COMMANDS

PACKAGE = Path(__file__).resolve().parents[1] / "roofline"
STAGES = ("core", "ncu", "nsys", "specs", "analysis", "compare", "facade", "render", "cli")
TOP_LEVEL = {"roofline.errors": "core", "roofline": "facade", "roofline.pipeline": "facade", "roofline.__main__": "cli"}
COMMAND_MODULES = frozenset(f"roofline.cli.commands.{module}" for module, *_ in COMMANDS.values())
MAX_TOP_LEVEL_MODULES = 8
NOTEBOOK_HOOK = "_repr_html_"


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
    """(imported roofline module, name taken from it or "", line) for every import in ``module``, but those of a
    ``_repr_html_`` method (``notebook_hooks``)."""
    tree = ast.parse(MODULES[module].read_text())
    hooked = {id(n) for hook in notebook_hooks(tree) for n in ast.walk(hook)}
    for node in ast.walk(tree):
        if id(node) in hooked:
            continue
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


def notebook_hooks(tree: ast.AST) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == NOTEBOOK_HOOK]


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
        set(STAGES) - {"facade"})


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_stay_in_the_stage_or_go_down(module: str) -> None:
    upward = [f"line {line}: {target} ({STAGES[stage(target)]})" for target, _, line in imports(module)
              if stage(target) > stage(module)]
    assert not upward, f"{module} ({STAGES[stage(module)]}) imports upward: {upward}"


def test_a_notebook_hook_imports_only_a_renderer() -> None:
    """``_repr_html_`` hands the object to a renderer, imported in its body (so that loading the model loads no
    renderer); it imports nothing else."""
    hooks = {}
    for module, path in MODULES.items():
        for hook in notebook_hooks(ast.parse(path.read_text())):
            found = [n.module for n in ast.walk(hook) if isinstance(n, ast.ImportFrom)]
            found += [a.name for n in ast.walk(hook) if isinstance(n, ast.Import) for a in n.names]
            hooks[module] = found
            assert found and all(str(m).startswith("roofline.render.") for m in found), (module, found)
    assert set(hooks) == {"roofline.analysis.launches", "roofline.compare.pairing"}


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


def test_every_renderer_module_is_reached_from_the_format_registry() -> None:
    """A renderer of report/ or compare/ is a format of base.FORMATS (or the plot, chosen by its file suffix), so
    the registry is the one list of what the tool can write."""
    registry = MODULES["roofline.render.base"].read_text()
    renderers = [m for m in RENDER if m.split(".")[2] in ("report", "compare") and MODULES[m].name != "__init__.py"]
    for module in renderers:
        package, name = module.rsplit(".", 2)[1:]
        assert f"from roofline.render.{package} import {name}" in registry or (
            f"from {module} import" in registry), f"{module} is not in base.FORMATS"


def test_every_command_has_its_module() -> None:
    assert COMMAND_MODULES <= set(MODULES)
