"""The package's layering, checked on its source with ``ast``: every import (module level, inside functions and
under TYPE_CHECKING) goes down or sideways, never up; no import circle; no command imports another command; no
private name crosses a module boundary; renderers return their output and leave the disk to the one writer.

Layers, lowest first (a module may import its own layer and those below):

    errors, model, units, labels, choices, timelimit,      plain data, formatting, closed choices, time limits,
    parallel, thresholds, cohorts                          work over many items (workers, MPI ranks); the defaults
                                                           of comparisons and the diff gate; formulas over cohorts
    metrics, reader, ncu_file, validation, specs,          reading and checking reports and specs, running ncu,
    driver, ranks, kernel_filter, kernel_families,         kernel names, the library a kernel comes from; the
    libraries, calibration, microbench                     calibrated roofs and the GPU microbenchmarks behind them
    results                                                result types
    verdict                                                the bottleneck verdict (SpeedOfLight rule)
    analysis, work, noise                                  roofline maths; work per launch; launch-time noise
    diagnostics                                            occupancy, Tensor Cores
    advice, pairing                                        per-launch advice; kernels paired across reports
    regression, ranking                                    the diff gate; the application summary
    pipeline (and the package's public API)                load -> filter -> spec -> analyse -> diagnose
    render                                                 pure renderers
    commands.common, commands.output, commands.ncu_options shared CLI helpers, the one output writer
    commands.<command>                                     one module per command (leaves)
    cli, __main__                                          the typer application
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from roofline.cli import COMMANDS

PACKAGE = Path(__file__).resolve().parents[1] / "roofline"
LAYERS: tuple[tuple[str, ...], ...] = (
    ("roofline.errors", "roofline.model", "roofline.units", "roofline.labels", "roofline.choices",
     "roofline.timelimit", "roofline.parallel", "roofline.thresholds", "roofline.cohorts"),
    ("roofline.metrics", "roofline.reader", "roofline.ncu_file", "roofline.validation", "roofline.specs",
     "roofline.driver", "roofline.ranks", "roofline.kernel_filter", "roofline.kernel_families", "roofline.libraries",
     "roofline.calibration", "roofline.microbench"),
    ("roofline.results",),
    ("roofline.verdict",),
    ("roofline.analysis", "roofline.work", "roofline.noise"),
    ("roofline.diagnostics",),
    ("roofline.advice", "roofline.pairing"),
    ("roofline.regression", "roofline.ranking"),
    ("roofline.pipeline", "roofline"),
    ("roofline.render",),
    ("roofline.commands", "roofline.commands.common", "roofline.commands.output", "roofline.commands.ncu_options"),
    tuple(f"roofline.commands.{module}" for module, *_ in COMMANDS.values()),
    ("roofline.cli", "roofline.__main__"),
)
COMMAND_MODULES = frozenset(LAYERS[-2])


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    """The layer of a module: its own entry, else its subpackage's (e.g. roofline.render.table -> render)."""
    for candidate in (module, module.rsplit(".", 1)[0]):
        for i, names in enumerate(LAYERS):
            if candidate in names:
                return i
    raise AssertionError(f"{module} is in no layer: place it in LAYERS in {Path(__file__).name}")


def imports(module: str) -> Iterator[tuple[str, str, int]]:
    """(imported roofline module, name taken from it or "", line) for every import in ``module``."""
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
    graph["roofline.cli"] |= COMMAND_MODULES
    return graph


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module: str) -> None:
    upward = [f"line {line}: {target} (layer {layer(target)})" for target, _, line in imports(module)
              if layer(target) > layer(module)]
    assert not upward, f"{module} (layer {layer(module)}) imports upward: {upward}"


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


def test_the_layers_are_used_as_drawn() -> None:
    """Each layer is imported by a layer above it (no layer is dead weight in the drawing)."""
    graph = edges()
    for i, names in enumerate(LAYERS[:-1]):
        users = {m for m, targets in graph.items() for t in targets if layer(t) == i and layer(m) > i}
        assert users, f"nothing above imports layer {i} {names}"


RENDER = sorted(m for m in MODULES if m.startswith("roofline.render."))
FILE_METHODS = {"open", "write_text", "write_bytes", "mkdir", "unlink", "rename", "touch"}  # Path's


@pytest.mark.parametrize("module", RENDER)
def test_renderers_never_touch_the_disk(module: str) -> None:
    """Renderers return str or bytes; only commands.common.write_output writes files (savefig only into memory)."""
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


@pytest.mark.parametrize("module", [m for m in RENDER if m.rsplit(".", 1)[1] not in ("terminal", "mpl", "names")])
def test_each_renderer_declares_its_suffixes(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text())
    assigned = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name)}
    assert "SUFFIXES" in assigned, f"{module} does not declare SUFFIXES"


def test_layers_list_every_command() -> None:
    assert {f"roofline.commands.{m}" for m, *_ in COMMANDS.values()} <= set(MODULES)
    assert len(list(itertools.chain.from_iterable(LAYERS))) == len(set(itertools.chain.from_iterable(LAYERS)))
