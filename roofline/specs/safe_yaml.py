"""YAML files read with a budget: what a device spec never needs and an attacker would use is refused before
anything is built (more than 1 MiB, text that is not UTF-8, aliases, which a few hundred bytes of expand to
gigabytes, nesting deeper than 16 levels), and a key given twice in one mapping (YAML keeps the last silently),
each as one line naming the file and the fix."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from msgspec import Struct

from roofline.core.files import open_regular
from roofline.errors import SpecError

SPEC_FIX = "see device_specs/README.md"
YAML_MAX_BYTES = 1 << 20  # a spec file is a few KiB
YAML_MAX_DEPTH = 16  # a spec nests 3 levels


def load_yaml(path: Path) -> object:
    """A YAML file's data, refusing what a spec never needs and an attacker would use: more than 1 MiB, text
    that is not UTF-8, aliases (``*name``, which expand exponentially), nesting deeper than 16 levels; and a key
    given twice in one mapping (``refuse_duplicate_keys``)."""
    import yaml

    try:
        with open_regular(path, SpecError, "pass a YAML file, or a folder of them, to --specs") as fh:
            raw = fh.read(YAML_MAX_BYTES + 1)
    except OSError as err:
        raise SpecError(f"{path}: cannot read ({err.strerror})", "check the path") from None
    if len(raw) > YAML_MAX_BYTES:
        raise SpecError(f"{path}: larger than {YAML_MAX_BYTES >> 20} MiB, not a device spec (a few KiB)", SPEC_FIX)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SpecError(f"{path}: not UTF-8 text (byte {err.start})", "save the file as UTF-8") from None
    deep = first_line_deeper_than(text, YAML_MAX_DEPTH)
    if deep is not None:  # checked on the text, so this message is ours whatever limits the YAML library has
        raise SpecError(f"{path}: nested deeper than {YAML_MAX_DEPTH} levels at line {deep}", SPEC_FIX)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~10x faster when present
    try:
        _refuse_aliases(path, yaml.parse(text, Loader=loader))
        reader = loader(text)
        try:  # what yaml.load does, with the composed nodes checked before they are built
            node = reader.get_single_node()
            if node is not None:
                refuse_duplicate_keys(path, node)
            return reader.construct_document(node) if node is not None else None
        finally:
            reader.dispose()
    except yaml.YAMLError as err:
        line = _error_line(err, text)
        where = f" at line {line}" if line else ""
        raise SpecError(f"{path}: not valid YAML{where}", "fix the syntax") from None


def _error_line(err: Exception, text: str) -> int | None:
    """The line a YAML error names: where the parser found it, or where the construct it was reading began when it
    found it only at the end of the file (an unclosed quote or bracket) or inside an open flow collection (the
    bracket that is not closed: ``list: [1, 2`` then ``other: 1``); None without a mark."""
    problem, context = getattr(err, "problem_mark", None), getattr(err, "context_mark", None)
    if problem is None:
        return None
    lines = max(len(text.splitlines()), 1)
    at_end = problem.index >= len(text.rstrip()) or problem.line + 1 > lines
    in_flow = any(f"flow {kind}" in str(getattr(err, "context", "")) for kind in ("sequence", "mapping"))
    if (at_end or in_flow) and context is not None:
        return min(int(context.line) + 1, lines)
    return min(int(problem.line) + 1, lines)


def _refuse_aliases(path: Path, events: Iterable[Any]) -> None:
    """Refuse aliases while parsing, before anything is built."""
    import yaml

    for event in events:
        if isinstance(event, yaml.AliasEvent):
            line = event.start_mark.line + 1 if event.start_mark else 0
            raise SpecError(f"{path}: YAML alias '*{event.anchor}' at line {line}",
                            "write the value out; spec files take no anchors or aliases")


def refuse_duplicate_keys(path: Path, node: Any, where: str = "") -> None:
    """SpecError naming a key given twice in one mapping of a composed YAML document and both its lines: YAML
    keeps the last silently, so a corrected key appended to a copied file would hide the old one or be hidden."""
    import yaml

    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            refuse_duplicate_keys(path, item, where)
        return
    if not isinstance(node, yaml.MappingNode):
        return
    seen: dict[tuple[str, str], int] = {}
    for key, value in node.value:
        name = str(key.value) if isinstance(key, yaml.ScalarNode) else ""
        dotted = f"{where}.{name}" if where else name
        line = key.start_mark.line + 1
        if name and (key.tag, name) in seen:
            raise SpecError(f"{path}: key '{dotted}' given twice (lines {seen[key.tag, name]} and {line})",
                            "keep one of them: YAML would silently use the last")
        seen[key.tag, name] = line
        refuse_duplicate_keys(path, value, dotted)


_FLOW_SIGNIFICANT = re.compile(r"""[\[\]{}'"#:,|>]""")
_INDICATOR = re.compile(r"[-?](?:[ \t]+|$)")
_INDICATORS = re.compile(rf"(?:{_INDICATOR.pattern})*")
_BLOCK_SCALAR_REST = re.compile(r"[-+0-9]*[ \t]*(?:#.*)?$")


def first_line_deeper_than(text: str, limit: int) -> int | None:
    """The first line (1-based) where YAML text nests collections deeper than ``limit``, read from the text alone.

    Never below the depth a parser sees: block levels are the stack of indentations, each ``-``/``?`` indicator
    that opens a line and the content after it counting as one more; flow levels are the ``[``/``{`` that open a
    value outside quoted scalars and comments; the content of block scalars (``|``, ``>``) is skipped. A plain
    scalar folded over lines may count deeper than it is. Checked before parsing, so the limit is ours whatever
    the YAML library's own limits are."""
    indents: list[float] = []
    state = _FlowState()
    for number, line in enumerate(text.splitlines(), 1):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if state.scalar_indent >= 0:
            if not body.strip() or indent > state.scalar_indent:
                continue
            state.scalar_indent = -1
        start = 0
        if not state.quote and not state.flow:
            if not body.strip() or body.startswith("#"):
                continue
            indicators = _INDICATORS.match(body)
            start = indicators.end() if indicators else 0
            # An indicator at column c opens a level inside a mapping at c (a sequence may sit at its key's
            # indentation), hence c + 0.5; the content after the last indicator opens one at its own column.
            levels = [indent + m.start() + 0.5 for m in _INDICATOR.finditer(body, 0, start)] + [indent + start]
            while indents and indents[-1] > levels[0]:
                indents.pop()
            for level in levels:
                if not indents or indents[-1] < level:
                    indents.append(level)
            state.base = len(indents)
            if state.base > limit:
                return number
        if _scan_flow(body, start, indent, state, limit):
            return number
    return None


class _FlowState(Struct):
    """What a YAML line leaves open for the next: flow levels, a quoted scalar, a block scalar's indentation."""

    base: int = 0  # block depth of the line where the open flow collection began
    flow: int = 0
    quote: str = ""
    scalar_indent: int = -1


def _scan_flow(body: str, start: int, indent: int, state: _FlowState, limit: int) -> bool:
    """Walk one line's flow brackets, quotes and comments from ``start``; True when the depth passes ``limit``."""
    at_value = state.flow == 0  # in block context a bracket or quote opens only a value, not inside a plain scalar
    pos = start
    while pos < len(body):
        if state.quote:
            pos = _after_quote(body, pos, state)
            continue
        found = _FLOW_SIGNIFICANT.search(body, pos)
        if found is None:
            return False
        char, at = found.group(), found.start()
        if body[pos:at].strip():
            at_value = False
        pos = at + 1
        if char == "#" and (at == 0 or body[at - 1] in " \t"):
            return False
        opens_value = state.flow > 0 or at_value
        if char in "[{" and opens_value:
            state.flow += 1
            if state.base + state.flow > limit:
                return True
        elif char in "]}" and state.flow:
            state.flow -= 1
        elif char in "'\"" and opens_value:
            state.quote = char
        elif char in "|>" and at_value and not state.flow and _BLOCK_SCALAR_REST.match(body, pos):
            state.scalar_indent = indent
            return False
        at_value = char in ":," and (state.flow > 0 or pos == len(body) or body[pos] in " \t")
    return False


def _after_quote(body: str, pos: int, state: _FlowState) -> int:
    """The position after the closing quote of the open quoted scalar, or the line's end when it goes on."""
    while True:
        at = body.find(state.quote, pos)
        if at < 0:
            return len(body)
        if state.quote == "'" and body.startswith("''", at):
            pos = at + 2
        elif state.quote == '"' and (len(body[:at]) - len(body[:at].rstrip("\\"))) % 2:
            pos = at + 1
        else:
            state.quote = ""
            return at + 1
