"""Renderers only format: no arithmetic on a figure anywhere in ``roofline/render/``.

A figure reaches a renderer as a field of its document (the analysis's result types, which carry values, not
arithmetic properties): the renderer reads it as an attribute (``k.time_share``), an item of one
(``r.intensity["dram"].value``), an aggregate of such reads (``sum(s.time_share for s in ...)``), or a local name
bound to any of these in the same function. (A function's result is no figure: a formatter's text, a matplotlib
axis's limits.) A binary
arithmetic operation (``+ - * / // % **``, augmented assignments included) with such an operand is a figure computed
in the renderer, and fails this test: the figure belongs in the analysis, computed once there.

What stays allowed is pure layout, recognised by the kind of node, whatever the file:

* text: ``+``, ``*`` or ``%`` with a string operand (a literal, an f-string, a string method's result);
* a change of unit or a margin: ``*`` or ``/`` by a number literal or a module's constant in capitals (a share
  times 100, seconds times 1e3, an axis range widened by 4 or by ``ROOM_FOR_LABELS``);
* counting: ``+`` or ``-`` of an int literal or ``len(...)`` and a plain read (a 1-based number, columns left after
  a name; ``1 - 2 * alpha`` is no count);
* cycling: ``%`` by an int literal or ``len(...)`` (a palette index);
* anything on operands that read no figure: literals, the renderer's own names (positions, widths, counters).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import roofline.render

RENDER = Path(roofline.render.__file__).parent
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
AGGREGATES = frozenset({"sum", "min", "max", "abs", "round", "float", "int"})


def _text(node: ast.expr) -> bool:
    """Whether ``node`` is a string: a literal, an f-string, a string method's result, or a sum with one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return isinstance(node.func.value, ast.Constant | ast.JoinedStr)
    if isinstance(node, ast.IfExp):
        return _text(node.body) or _text(node.orelse)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (_text(node.left) or _text(node.right))


def _number(node: ast.expr, kind: type | tuple[type, ...] = (int, float)) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (kind if isinstance(kind, tuple) else (kind,))


def _constant(node: ast.expr) -> bool:
    """A number literal, or a module's named one (``ROOM_FOR_LABELS``: a name in capitals)."""
    return _number(node) or (isinstance(node, ast.Name) and node.id.isupper())


def _count(node: ast.expr) -> bool:
    """An int literal or ``len(...)``."""
    return _number(node, int) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                  and node.func.id == "len")


class _Figures:
    """Which expressions of one function read a figure; ``names`` are the local names bound to one."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def read(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return True
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
        if isinstance(node, ast.Call):  # a function's result is not a figure, an aggregate of figures is
            return isinstance(node.func, ast.Name) and node.func.id in AGGREGATES and any(
                self.read(a.elt if isinstance(a, ast.GeneratorExp | ast.ListComp) else a) for a in node.args)
        return False


def _bound_names(scope: ast.AST) -> set[str]:
    """The names a function binds to a figure (assignments, walrus), to a fixed point."""
    names: set[str] = set()
    for _ in range(4):
        figures = _Figures(names)
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    pairs = (zip(target.elts, node.value.elts, strict=False)
                             if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                             else [(target, node.value)])
                    names.update(t.id for t, v in pairs if isinstance(t, ast.Name) and figures.read(v))
    return names


def _layout(op: ast.operator, left: ast.expr, right: ast.expr) -> bool:
    """Whether an operation is layout by its kind (the module docstring's list)."""
    if isinstance(op, ast.Add | ast.Mod | ast.Mult) and (_text(left) or _text(right)):
        return True
    if isinstance(op, ast.Mult | ast.Div) and (_constant(left) or _constant(right)):
        return True
    if isinstance(op, ast.Add | ast.Sub) and (_count(left) and _plain(right) or _count(right) and _plain(left)):
        return True
    return isinstance(op, ast.Mod) and _count(right)


def _plain(node: ast.expr) -> bool:
    """A read or a count, not other arithmetic (``1 - 2 * alpha`` computes a figure; ``width - len(name) - 3``
    counts)."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Add | ast.Sub) and _layout(node.op, node.left, node.right)
    return not isinstance(node, ast.UnaryOp)


def figure_arithmetic(source: str) -> Iterator[tuple[int, str]]:
    """The line and text of each arithmetic operation on a figure in a module's ``source``."""
    tree = ast.parse(source)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))]
    found = set()
    for scope in scopes:
        figures = _Figures(_bound_names(scope) if scope is not tree else set())
        for node in ast.walk(scope):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
                op, left, right = node.op, node.left, node.right
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ARITHMETIC):
                op, left, right = node.op, node.target, node.value
            else:
                continue
            if not _layout(op, left, right) and (figures.read(left) or figures.read(right)):
                found.add((node.lineno, " ".join((ast.get_source_segment(source, node) or "").split())))
    yield from sorted(found)


def _found() -> set[tuple[str, str]]:
    return {(path.relative_to(RENDER.parent).as_posix(), text) for path in sorted(RENDER.rglob("*.py"))
            for _, text in figure_arithmetic(path.read_text(encoding="utf-8"))}


def test_no_renderer_does_arithmetic_on_a_figure():
    found = sorted(_found())
    assert not found, f"{len(found)} figures computed in a renderer:\n" + "\n".join(map(": ".join, found))


def test_the_check_sees_a_figure_computed_and_lets_layout_pass():
    computed = ("def f(k, width):\n    rate = k.flops / k.seconds\n    moved = k.bytes\n    return moved * rate, "
                "sum(x.t for x in k.xs) - 1.0, 1 - 2 * k.alpha\n")
    assert {text for _, text in figure_arithmetic(computed)} == {
        "k.flops / k.seconds", "moved * rate", "sum(x.t for x in k.xs) - 1.0", "1 - 2 * k.alpha"}
    layout = ('def f(k, width, i):\n    return ("a" + k.name, 100 * k.share, k.n - 1, width - len(k.key), '
              'i % len(k.palette), k.number % 10, "%s" % k.x, width // 2, k.width - len(k.key) - 3, "#" * k.level, '
              'max(len(k.rows), 3) * 2)\n')
    assert list(figure_arithmetic(layout)) == []
