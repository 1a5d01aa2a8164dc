"""Analysis and output options shared by `roofline report` and `roofline analyze` (declared once)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import typer

KernelOpt = Annotated[
    Optional[str],
    typer.Option("--kernel", "-k", help="Only launches whose name equals NAME, or matches regex:PATTERN."),
]
FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: table, json, markdown or html."),
]
OutputOpt = Annotated[
    Optional[Path],
    typer.Option("--output", "-o", help="Write the output to this file instead of the terminal."),
]
CeilingsOpt = Annotated[
    str,
    typer.Option(
        "--ceilings",
        help="Roofs for percent-of-roof: spec (datasheet YAML), report (the report's peak counters at its "
        "measured clocks), or auto (spec when the GPU is known, else report).",
    ),
]
SpecsOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--specs", help="Extra device spec YAML file or folder (repeatable); overrides built-ins."),
]
PlotOpt = Annotated[
    Optional[Path],
    typer.Option("--plot", help="Also draw the roofline plot to this file (.png, .svg or .pdf)."),
]


@dataclass(frozen=True)
class ReportOptions:
    """Everything `roofline report` needs besides the report paths."""

    kernel: str | None = None
    fmt: str = "table"
    output: Path | None = None
    ceilings: str = "auto"
    specs: tuple[Path, ...] = field(default_factory=tuple)
    plot: Path | None = None
    spread_threshold_pct: float = 10.0
