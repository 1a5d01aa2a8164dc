"""Matplotlib set-up shared by the plots: the file formats, a figure made without pyplot (no GUI backend, no
global state), and saving it to bytes with the generator mark in the file's metadata. matplotlib is imported
inside the functions only, so ``roofline --help`` never loads it."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from roofline.errors import RooflineError
from roofline.render import GENERATOR

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

PlotFormat = Literal["png", "svg", "pdf"]
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
_SAVE_RC: dict[RcKeyType, Any] = {"svg.hashsalt": "roofline"}  # fixed SVG ids: the same plot gives the same file


def plot_format(path: Path) -> PlotFormat:
    """The format of a plot file from its name; RooflineError (before any work) for a suffix not written here."""
    suffix = path.suffix.lower()
    if suffix == ".png" or suffix == ".svg" or suffix == ".pdf":
        return "png" if suffix == ".png" else "svg" if suffix == ".svg" else "pdf"
    raise RooflineError(f"{path}: unknown plot format '{path.suffix}'", f"end the name with {', '.join(PLOT_SUFFIXES)}")


def figure(width_in: float, height_in: float) -> Figure:
    """An empty figure of this size (inches), independent of pyplot and of any display."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in))


def to_bytes(fig: Figure, fmt: PlotFormat, mark: bool = True, **savefig: Any) -> bytes:
    """The figure as PNG, SVG or PDF bytes, reproducible (no dates, fixed SVG ids); ``mark`` puts the generator
    mark in the metadata (left out for SVG inlined in an HTML page)."""
    from matplotlib import rc_context

    out = io.BytesIO()
    with rc_context(_SAVE_RC):
        fig.savefig(out, format=fmt, metadata=metadata(fmt, mark), **savefig)
    return out.getvalue()


def metadata(fmt: PlotFormat, mark: bool) -> dict[str, str | None]:
    """savefig metadata: the generator mark (when ``mark``) and no creation date."""
    tag = GENERATOR if mark else None
    if fmt == "png":
        return {"Software": tag} if tag else {}
    if fmt == "svg":
        return {"Creator": tag, "Date": None, "Format": None, "Type": None}
    return {"Creator": tag, "Producer": tag, "CreationDate": None}
