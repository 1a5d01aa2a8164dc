"""Renderers only format: no arithmetic on a figure anywhere in ``roofline/render/``.

A figure reaches a renderer as a field of its document (the analysis's result types, which carry values, not
arithmetic properties): the renderer reads it as an attribute (``k.time_share``), an item of one
(``r.intensity["dram"].value``), a local name bound to one in the same function, or the result of a call given one
or made on one (``sum(s.time_share for s in ...)``, ``_roof(sheet, key)``, ``c.roof(key)``): a function handed a
figure may compute another, so its result counts as one. A call is no figure when its function is annotated to
return text (``si(k.flops, "FLOP/s")``, a list of lines), counts (``len``, ``.index``), is made on one of the
renderer's own names (``counts.get(k.name)``, ``ax.get_xlim()``, ``self.renderer``: the renderer's state) or on a
string. A binary arithmetic operation (``+ - * / // % **``, augmented assignments included) with a figure operand is
a figure computed in the renderer, and fails this test: the figure belongs in the analysis, computed once there.

What stays allowed is pure layout, recognised by the kind of node, whatever the file:

* text: ``+``, ``*`` or ``%`` with a string operand (a literal, an f-string, a string method's result, a call of a
  function annotated to return text);
* collections: ``+``, ``-`` or ``|`` with a list, tuple or set (a display, a comprehension, ``list(...)``, a name
  bound to one): joining lines or points is no arithmetic;
* a change of unit or a margin: ``*`` or ``/`` by a number literal, a module's constant in capitals or an item of one
  (a share times 100, seconds times 1e3, an axis range widened by 4 or by ``ROOM_FOR_LABELS``, a marker area scaled
  by ``LEVEL_SCALE[level]``);
* counting: ``+`` or ``-`` of an int literal or ``len(...)`` and a plain read (a 1-based number, columns left after
  a name; ``1 - 2 * alpha`` is no count);
* cycling: ``%`` by an int literal or ``len(...)`` (a palette index);
* anything on operands that read no figure: literals, the renderer's own names (positions, widths, counters).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import roofline
import roofline.render

PACKAGE = Path(roofline.__file__).parent
RENDER = Path(roofline.render.__file__).parent
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
COLLECTION_OPS = (ast.Add, ast.Sub, ast.BitOr)
COLLECTIONS = frozenset({"list", "tuple", "set", "frozenset", "sorted"})
SEQUENCES = frozenset({"list", "tuple", "set", "frozenset", "Sequence"})
COUNTS = frozenset({"len", "index", "count"})
AGGREGATES = frozenset({"sum", "fsum", "mean", "fmean", "median"})  # a total or a mean of figures is a figure
# the names a return annotation may hold and still be text (a line, lines, a table's cell, a kernel's name)
TEXT_TYPES = frozenset({"str", "None", "list", "tuple", "Sequence", "Iterable", "Iterator", "bool", "Block", "Cell",
                        "KernelName", "Line", "Markup"})


def _number(node: ast.expr, kind: type | tuple[type, ...] = (int, float)) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (kind if isinstance(kind, tuple) else (kind,))


def _constant(node: ast.expr) -> bool:
    """A number literal, a module's named one (``ROOM_FOR_LABELS``: a name in capitals), or an item of one."""
    if isinstance(node, ast.Subscript):
        return _constant(node.value)
    return _number(node) or (isinstance(node, ast.Name) and node.id.isupper())


def _called(node: ast.expr) -> str | None:
    """The name of the function or method ``node`` calls, if it is a call."""
    if not isinstance(node, ast.Call):
        return None
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)


def _count(node: ast.expr) -> bool:
    """An int literal, ``len(...)`` or ``.index(...)``."""
    return _number(node, int) or _called(node) in COUNTS


def _plain(node: ast.expr, figures: _Figures) -> bool:
    """A read or a count, not other arithmetic (``1 - 2 * alpha`` computes a figure; ``width - len(name) - 3``
    counts)."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Add | ast.Sub) and figures.layout(node.op, node.left, node.right)
    return not isinstance(node, ast.UnaryOp)


@cache
def _defined(path: Path) -> dict[str, ast.expr | None]:
    """The return annotation of each function a module defines, by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n.returns for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


@cache
def _returns(path: Path) -> dict[str, ast.expr | None]:
    """The return annotation of each function a module defines or imports from ``roofline`` (where the importing
    module defines it), by its local name."""
    found: dict[str, ast.expr | None] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("roofline.") and node.level == 0:
            source = PACKAGE.parent.joinpath(*node.module.split("."))
            source = source.with_suffix(".py") if source.with_suffix(".py").exists() else source / "__init__.py"
            if source.exists():
                defined = _defined(source)
                found.update({a.asname or a.name: defined[a.name] for a in node.names if a.name in defined})
    return {**found, **_defined(path)}


def _text_functions(path: Path | None, tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The functions ``tree`` may call whose result is text, and those whose result is a collection, by their
    return annotation."""
    returns = _returns(path) if path is not None else {
        n.name: n.returns for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    annotated = {name: r for name, r in returns.items() if r is not None}
    text = frozenset(name for name, r in annotated.items() if all(
        n.id in TEXT_TYPES for n in ast.walk(r) if isinstance(n, ast.Name)) and any(
        isinstance(n, ast.Name) and n.id in TEXT_TYPES - {"None", "bool"} for n in ast.walk(r)))
    outer = {name: r.value if isinstance(r, ast.Subscript) else r for name, r in annotated.items()}
    return text, frozenset(name for name, r in outer.items() if isinstance(r, ast.Name) and r.id in SEQUENCES)


def _document_types(tree: ast.Module) -> frozenset[str]:
    """The names ``tree`` imports from ``roofline`` outside the renderers: the document's types."""
    return frozenset(a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
                     and n.module.startswith("roofline.") and not n.module.startswith("roofline.render")
                     for a in n.names)


def _parameters(scope: ast.AST, types: frozenset[str]) -> set[str]:
    """The parameters of a function annotated with a document's type: they hold figures."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    args = scope.args
    return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.annotation is not None
            and any(isinstance(n, ast.Name) and n.id in types for n in ast.walk(a.annotation))}


def _modules(tree: ast.Module) -> frozenset[str]:
    """The names ``tree`` binds to modules (``np``, ``math``): a call on one is a function's call."""
    return frozenset((a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names)


class _Figures:
    """Which expressions of one function read a figure; ``names`` are the local names bound to one, ``collections``
    those bound to a list, tuple or set."""

    def __init__(self, names: set[str], collections: set[str], functions: tuple[frozenset[str], frozenset[str]],
                 modules: frozenset[str]) -> None:
        self.names, self.collections, self.modules = names, collections, modules
        self.texts, self.sequences = functions

    def read(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return not self._own(node)
        if isinstance(node, ast.Subscript | ast.Starred):
            return self.read(node.value)
        if isinstance(node, ast.UnaryOp):
            return self.read(node.operand)
        if isinstance(node, ast.BinOp):
            return self.read(node.left) or self.read(node.right)
        if isinstance(node, ast.IfExp):
            return self.read(node.body) or self.read(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.read(v) for v in node.values)
        if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
            bound = {t.id for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
            if isinstance(node.elt, ast.Name) and node.elt.id in bound:  # (t for t in k.times): the items read
                return any(self.read(g.iter) for g in node.generators)
            return self.read(node.elt)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return any(self.read(e) for e in node.elts)
        if isinstance(node, ast.Call):
            return self._call(node)
        return False

    def _own(self, node: ast.expr) -> bool:
        """Whether ``node`` is an attribute chain on ``self``: the renderer's own state."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id == "self"

    def _call(self, node: ast.Call) -> bool:
        """Whether a call's result is a figure: given one or made on one, and neither text nor a count."""
        if self.text_call(node) or _count(node):
            return False
        func = node.func
        if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id in self.modules):
            return self.read(func.value)  # a method: a figure when made on one
        return any(self.read(a) for a in [*node.args, *(k.value for k in node.keywords)])

    def text_call(self, node: ast.expr) -> bool:
        """A call of a function annotated to return text, or of a string's method."""
        if not isinstance(node, ast.Call):
            return False
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant | ast.JoinedStr):
            return True
        return isinstance(node.func, ast.Name) and node.func.id in self.texts

    def text(self, node: ast.expr) -> bool:
        """Whether ``node`` is a string: a literal, an f-string, a text call, or a sum with one."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.JoinedStr) or self.text_call(node):
            return True
        if isinstance(node, ast.IfExp):
            return self.text(node.body) or self.text(node.orelse)
        return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (
            self.text(node.left) or self.text(node.right))

    def collection(self, node: ast.expr) -> bool:
        """Whether ``node`` is a list, tuple or set: a display, a comprehension, a constructor's result, a name
        bound to one, or a sum with one."""
        if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.ListComp | ast.SetComp):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.collections
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in COLLECTIONS or node.func.id in self.sequences
        if isinstance(node, ast.IfExp):
            return self.collection(node.body) or self.collection(node.orelse)
        return isinstance(node, ast.BinOp) and isinstance(node.op, COLLECTION_OPS) and (
            self.collection(node.left) or self.collection(node.right))

    def layout(self, op: ast.operator, left: ast.expr, right: ast.expr) -> bool:
        """Whether an operation is layout by its kind (the module docstring's list)."""
        if isinstance(op, ast.Add | ast.Mod | ast.Mult) and (self.text(left) or self.text(right)):
            return True
        if isinstance(op, COLLECTION_OPS) and (self.collection(left) or self.collection(right)):
            return True
        if isinstance(op, ast.Mult | ast.Div) and (_constant(left) or _constant(right)):
            return True
        if isinstance(op, ast.Add | ast.Sub) and (_count(left) and _plain(right, self)
                                                  or _count(right) and _plain(left, self)):
            return True
        return isinstance(op, ast.Mod) and _count(right)


def _bound(scope: ast.AST, text: tuple[frozenset[str], frozenset[str]], modules: frozenset[str],
           types: frozenset[str]) -> _Figures:
    """The figures of a function: its parameters of a document's type and the names it binds to a figure or a
    collection (assignments, walrus), to a fixed point."""
    figures = _Figures(_parameters(scope, types), set(), text, modules)
    for _ in range(4):
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    pairs = (zip(target.elts, node.value.elts, strict=False)
                             if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                             else [(target, node.value)])
                    for t, v in pairs:
                        if isinstance(t, ast.Name) and figures.read(v):
                            figures.names.add(t.id)
                        if isinstance(t, ast.Name) and figures.collection(v):
                            figures.collections.add(t.id)
    return figures


def figure_arithmetic(source: str, path: Path | None = None) -> Iterator[tuple[int, str]]:
    """The line and text of each arithmetic operation on a figure in a module's ``source`` (read from ``path``,
    whose imports name the functions returning text)."""
    tree = ast.parse(source)
    text, modules, types = _text_functions(path, tree), _modules(tree), _document_types(tree)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))]
    found = set()
    for scope in scopes:
        figures = _bound(scope, text, modules, types) if scope is not tree else _Figures(set(), set(), text, modules)
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and _called(node) in AGGREGATES and node.args and figures.read(node.args[0]):
                found.add((node.lineno, " ".join((ast.get_source_segment(source, node) or "").split())))
                continue
            if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
                op, left, right = node.op, node.left, node.right
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ARITHMETIC):
                op, left, right = node.op, node.target, node.value
            else:
                continue
            if not figures.layout(op, left, right) and (figures.read(left) or figures.read(right)):
                found.add((node.lineno, " ".join((ast.get_source_segment(source, node) or "").split())))
    yield from sorted(found)


def _found() -> set[tuple[str, str]]:
    return {(path.relative_to(RENDER.parent).as_posix(), text) for path in sorted(RENDER.rglob("*.py"))
            for _, text in figure_arithmetic(path.read_text(encoding="utf-8"), path)}


def test_no_renderer_does_arithmetic_on_a_figure():
    found = sorted(_found())
    assert not found, f"{len(found)} figures computed in a renderer:\n" + "\n".join(map(": ".join, found))


def test_the_check_sees_a_figure_computed_and_lets_layout_pass():
    computed = ("def f(k, width):\n    rate = k.flops / k.seconds\n    moved = k.bytes\n    ts = k.times\n"
                "    return moved * rate, sum(x.t for x in k.xs) - 1.0, 1 - 2 * k.alpha, sum(k.times), "
                "statistics.mean(t for t in k.times), sum(ts)\n")
    assert {text for _, text in figure_arithmetic(computed)} == {
        "k.flops / k.seconds", "moved * rate", "sum(x.t for x in k.xs) - 1.0", "sum(x.t for x in k.xs)",
        "1 - 2 * k.alpha", "sum(k.times)", "statistics.mean(t for t in k.times)", "sum(ts)"}
    layout = ('def f(k, width, i):\n    return ("a" + k.name, 100 * k.share, k.n - 1, width - len(k.key), '
              'i % len(k.palette), k.number % 10, "%s" % k.x, width // 2, k.width - len(k.key) - 3, "#" * k.level, '
              'max(len(k.rows), 3) * 2, sum(len(a.rows) for a in k.parts), sum(heights), '
              'sum(widths[i] for i in range(3)))\n')
    assert list(figure_arithmetic(layout)) == []


def test_a_call_given_a_figure_or_made_on_one_is_a_figure():
    computed = ("def _roof(c, key):\n    return c.roof(key)\n\n"
                "def f(sheet, k):\n    s, m = _roof(sheet, 'dram'), k.c.roof('dram')\n    return m / s, "
                "math.log(k.x) * k.y\n")
    assert {text for _, text in figure_arithmetic(computed)} == {"m / s", "math.log(k.x) * k.y"}


def test_text_collections_and_own_state_are_layout():
    layout = ("def fmt(x: float) -> str:\n    return str(x)\n\n"
              "def f(k, counts, self, width):\n    lines = [k.a]\n    n = counts.get(k.name, 0)\n"
              "    return fmt(k.x) + fmt(k.y), lines + list(k.notes), [k.b] + [k.c], n + 1, "
              "self.renderer.scale(1.0) * width / 2, 0.1 * LEVELS.index(k.level), k.area * SCALE[k.level]\n")
    assert list(figure_arithmetic(layout)) == []
