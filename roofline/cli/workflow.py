"""How a command asks for its document: the facade (``roofline.facade.Roofline``) with the command's options,
its progress bar and its warnings; and the report command's output (``report_files``, `report` and `analyze`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from roofline.cli.failures import fail_for, warn
from roofline.cli.output import DOCUMENT_OPTION
from roofline.cli.plots import report_plot
from roofline.cli.terminal import progress, terminal_width
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.labels import LEGEND_KERNELS
from roofline.core.thresholds import SPREAD_THRESHOLD_PCT
from roofline.documents.kinds import ReportDocument
from roofline.errors import RooflineError
from roofline.pipeline import AnalysisOptions

if TYPE_CHECKING:  # pragma: no cover
    from roofline.facade import Roofline


def facade(options: AnalysisOptions, jobs: int | None = 1) -> Roofline:
    """The facade a command asks for its document: ``options``, up to ``jobs`` reports at once (None: every core),
    a progress bar on a terminal, each report's warnings printed once it is analysed."""
    from roofline.facade import Roofline

    return Roofline(options, jobs=jobs_or_cores(jobs), progress=progress, analysed=warn)


def jobs_or_cores(jobs: int | None) -> int:
    """``--jobs``, or the number of CPU cores when it is not given."""
    from roofline.core.parallel import cores

    return jobs if jobs is not None else cores()


def report_files(paths: Sequence[str | os.PathLike[str]], options: AnalysisOptions, fmt: str = "table",
                 output: Path | None = None, plot: Path | None = None,
                 spread_threshold_pct: float = SPREAD_THRESHOLD_PCT, wide: bool = False,
                 jobs: int | None = 1, option: str = DOCUMENT_OPTION) -> ReportDocument:
    """The facade's report of the files, written: the plot when asked, then the report in ``fmt`` (Markdown, with
    each report's plot as a PNG beside it, and HTML to a file, by default under reports/), with the kernels compared
    across several reports of one job. A bad report does not stop the others: they are written, then each bad
    one is named and the exit status is 2. Up to ``jobs`` reports are analysed at once (None: every core);
    ``option`` names ``output`` in the fixes of an error."""
    plot_fmt = None
    if plot is not None:  # a bad plot suffix is refused before any report is read
        from roofline.render.mpl import plot_format

        plot_fmt = plot_format(plot)
    refuse_unwritable_outputs("report", fmt, output, plot, paths, option)
    roofline = facade(options, jobs)
    document = roofline.report(paths, spread_threshold_pct, terminal_width(wide), LEGEND_KERNELS)
    also, failed = [], []
    if plot is not None and plot_fmt is not None:
        try:
            also.append((plot, report_plot(document, plot_fmt, plot)))
        except RooflineError as err:  # nothing to plot: the report is still written, then the plot's line, exit 2
            failed.append(err)
    try:
        write_document("report", fmt, document, output, paths, also, option)
    except RooflineError as err:  # the report cannot be written: its line after the bad reports', not instead
        failed.append(err)
    fail_for([*roofline.left_out, *failed])
    return document
