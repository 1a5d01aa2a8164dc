"""`roofline grade REPORT`: each kernel's grade against the roof of the work it does at the GPU's achievable peaks
(``roofline.analysis.grade``), with the conditions of the measurement and, against ``--baseline``, its work checked;
a withheld grade is shown with its reason (exit 0)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import handles_errors
from roofline.cli.options import KernelOpt, NameBaseOpt, SpecsOpt, TimeoutOpt, WideOpt, analysis_options, output_help
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import refuse_unwritable_outputs, write_document
from roofline.core.choices import OUTPUT_OPTION
from roofline.render.base import format_names

if TYPE_CHECKING:  # pragma: no cover
    GradeFormat: TypeAlias = str
else:  # the registry's format names as the Literal typer checks on the command line (mypy sees str)
    GradeFormat = Literal[format_names("grade")]


FACTS = Facts(output=Output("grade"), reads=Reads(sass=False))


@handles_errors
def grade(
    file: Annotated[Path, typer.Argument(help="The report (.ncu-rep or .json model) whose kernels are graded.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    baseline: Annotated[Path | None, typer.Option(
        "--baseline", help="A report of the reference kernel (e.g. the FP32 version): a kernel doing less work, in "
        "a less precise type, is not graded; the baseline's kernel of the same name, else its longest.")] = None,
    fmt: Annotated[GradeFormat, typer.Option("--format", "-f", help="Output format: table, json or markdown.")]
    = "table",
    output: Annotated[Path | None, typer.Option(*OUTPUT_OPTION, help=output_help("grade"))] = None,
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
) -> None:
    """Grade each kernel: its floor at the GPU's achievable peaks over its measured time, with the conditions of the
    measurement, the confidence and the ncu options that raise it; with --baseline, its work checked first."""
    options = analysis_options(kernel, kernel_name_base, "kernel-clock", specs, timeout, diagnostics=False,
                               sass=False)
    refuse_unwritable_outputs("grade", fmt, output, None, [file])
    document = facade(options).grade(file, None, baseline, terminal_width(wide))
    write_document("grade", fmt, document, output, [file])
