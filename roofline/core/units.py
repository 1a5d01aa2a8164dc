"""Number formatting shared by the diagnostics and the renderers: SI prefixes, times, percents, names cut to a width."""

from __future__ import annotations

from collections.abc import Sequence

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """``1.23e12, "FLOP/s"`` -> ``"1.23 TFLOP/s"``; None -> ``"n/a"``."""
    if value is None:
        return "n/a"
    rounded = float(f"{value:.{digits}g}")  # the prefix of the rounded value: 999.6 reads "1 k", not "1e+03 "
    for scale, prefix in _PREFIXES:
        if abs(rounded) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}".rstrip()
    return f"{value:.{digits}g} {unit}".rstrip()


def seconds(value: float | None) -> str:
    """Durations in the unit that keeps 3 significant digits readable (ns, us, ms, s)."""
    if value is None:
        return "n/a"
    rounded = float(f"{value:.3g}")  # the unit of the rounded value: 999.6 us reads "1 ms", not "1e+03 us"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if rounded >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def pct(value: float | None, digits: int = 1) -> str:
    """Percent with a fixed number of decimals; None -> ``"n/a"``."""
    return "n/a" if value is None else f"{value:.{digits}f}%"


def pct_apart(value: float, other: float) -> str:
    """Percent with one decimal, or as many (at most four) as tell ``value`` from ``other`` (a share against its
    limit: 91.77% against 91.79%, where one decimal shows 91.8%)."""
    digits = 1
    while digits < 4 and value != other and round(value, digits) == round(other, digits):
        digits += 1
    return pct(value, digits)


def pct_change(value: float, other: float | None = None) -> str:
    """A signed percent change with one decimal (as many as tell it from ``other``, ``pct_apart``): "+1.2%",
    "-0.4%"; one that rounds to zero is "+0.0%", never "-0.0%"."""
    text = pct(value) if other is None else pct_apart(value, other)
    if not text.strip("-0.%"):
        return "+" + text.removeprefix("-")
    return text if text.startswith("-") else "+" + text


MOST_DECIMALS = 17  # pct_beside's most decimals: a double's 17 significant digits tell it from any other number


def pct_beside(value: float, threshold: float, near: float = 1.0) -> str:
    """A percent judged against ``threshold`` (below it or not): in whole percent ("86%") farther than ``near``
    points from it, else with one decimal or as many as put the figure printed on the side of the threshold the
    value is on ("60.6%", "59.8%"; 59.996 prints "59.996%", where two decimals would print the threshold)."""
    if abs(value - threshold) >= near:
        return f"{value:.0f}%"
    below, digits = value < threshold, 1
    while digits < MOST_DECIMALS and (float(f"{value:.{digits}f}") < threshold) != below:
        digits += 1
    return pct(value, digits)


def hit_pct(value: float | None) -> str:
    """A hit rate: one decimal; above 100% (ncu's ratio is not clamped) the decimals that tell it from 100%
    (``pct_apart``: 100.03%, which one decimal shows as 100.0%)."""
    return pct(value) if value is None or value <= 100.0 else pct_apart(value, 100.0)


def share_pct(value: float | None, digits: int = 1) -> str:
    """A share (0..1) written as a percent: ``0.425`` -> ``"42.5%"``; None -> ``"n/a"``."""
    return "n/a" if value is None else pct(100 * value, digits)


def ratio(value: float | None) -> str:
    """A plain ratio such as an arithmetic intensity."""
    if value is None:
        return "n/a"
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def counted(count: int, noun: str) -> str:
    """``1, "launch"`` -> ``"1 launch"``; ``3, "launch"`` -> ``"3 launches"`` (English plurals of the nouns used)."""
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}es" if noun.endswith(("s", "sh", "ch", "x")) else f"{count} {noun}s"


def runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted whole numbers as runs of consecutive ones, each its first and last: [88, 89, 90, 95] -> [(88, 90),
    (95, 95)]."""
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def waves(value: float) -> str:
    """A wave count to 3 significant digits with its noun: ``1.0`` -> ``"1 wave"``, ``0.5`` -> ``"0.5 waves"``."""
    shown = f"{value:.3g}"
    return f"{shown} wave" if shown == "1" else f"{shown} waves"


def middle_cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis in place of its middle when it is longer: the start
    and the end of a kernel name (its function and its last arguments) say more than either alone."""
    if len(text) <= width:
        return text
    if width < 2:
        return "…"[:width]
    head = width // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def window_cut(text: str, at: int, width: int) -> str:
    """``text`` in at most ``width`` characters with the character at index ``at`` kept in view, an ellipsis at
    each end that is cut: what tells two long names apart may lie in their middle."""
    if len(text) <= width:
        return text
    inner = width - 2
    if inner < 1:
        return middle_cut(text, width)
    start = max(0, min(at - inner // 2, len(text) - (width - 1)))
    if start == 0:
        return text[:width - 1] + "…"
    if start + width - 1 >= len(text):
        return "…" + text[len(text) - (width - 1):]
    return "…" + text[start:start + inner] + "…"


def dims(d: tuple[int, ...]) -> str:
    """A grid or block as ncu writes it: 128x128x1."""
    return "x".join(map(str, d))
