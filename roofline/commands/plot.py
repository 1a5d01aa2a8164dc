"""`roofline plot FILE...`: draw the hierarchical roofline of existing reports (PNG, SVG or PDF).

Files the tool writes by itself (plots, Markdown and HTML reports) default to ``reports/<report name>.<ext>``
(``default_output``); writing goes through ``_common.write_output``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, Sequence

import typer

from roofline.commands._common import handles_errors, write_output
from roofline.commands._options import CeilingsOpt, KernelOpt, ReportOptions, SpecsOpt

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis import ReportAnalysis
    from roofline.render.plot import PlotData

REPORTS_DIR = Path("reports")
DEFAULT_TOP = 8  # kernels named in the legend (the rest are drawn in grey as "other")
_REPORT_SUFFIXES = (".ncu-rep", ".roofline.json", ".json")

PlotOutputOpt = Annotated[
    Optional[Path],
    typer.Option("--output", "-o", help="Plot file (.png, .svg or .pdf); default reports/<report name>.png."),
]
TopOpt = Annotated[int, typer.Option("--top", min=1, help="Kernels named in the legend, longest first; the rest "
                                                          "are drawn in grey as 'other'.")]


@handles_errors
def plot(
    files: Annotated[list[Path], typer.Argument(help="Report files: .ncu-rep, or .json report models.")],
    kernel: KernelOpt = None,
    output: PlotOutputOpt = None,
    ceilings: CeilingsOpt = "auto",
    specs: SpecsOpt = None,
    top: TopOpt = DEFAULT_TOP,
) -> None:
    """Draw the hierarchical roofline of existing reports: one panel per report, kernels at every memory level."""
    options = ReportOptions(kernel=kernel, ceilings=ceilings, specs=tuple(specs or ()))
    run_plot(files, options, output or default_output(files, ".png"), top)


def run_plot(paths: Sequence[str | Path], options: ReportOptions, output: Path, top: int = DEFAULT_TOP) -> "PlotData":
    """Analyse the reports and write their plot; returns what was drawn."""
    from roofline.commands.compare import load_analyses

    check_plot_path(output)
    return write_plot(load_analyses(paths, options), output, top)


def write_plot(analyses: Sequence["ReportAnalysis"], output: Path, top: int = DEFAULT_TOP) -> "PlotData":
    """Draw ``analyses`` to ``output`` (format from its extension, checked by ``check_plot_path``)."""
    from roofline.render.plot import draw, plot_data

    data = plot_data(analyses, top)
    write_output(output, draw(data, output.suffix.lower().lstrip(".")))
    return data


def check_plot_path(path: Path) -> None:
    """Refuse a plot name matplotlib is not asked to write here, before any work is done."""
    from roofline.errors import RooflineError
    from roofline.render.plot import PLOT_SUFFIXES

    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise RooflineError(f"{path}: unknown plot format '{path.suffix}'",
                            f"end the name with {', '.join(PLOT_SUFFIXES)}")


# --- Files the tool writes itself ---------------------------------------------------------------------
def default_output(paths: Sequence[str | Path], suffix: str) -> Path:
    """``reports/<first report's name><suffix>``, with ``+N`` when N more reports go into the same file."""
    name = Path(paths[0]).name if paths else "roofline"
    stem = next((name[: -len(s)] for s in _REPORT_SUFFIXES if name.endswith(s)), Path(name).stem)
    more = f"+{len(paths) - 1}" if len(paths) > 1 else ""
    return REPORTS_DIR / f"{stem}{more}{suffix}"


