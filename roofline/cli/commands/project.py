"""`roofline project FILE --to SPEC`: each kernel's time per launch on another GPU, from its measured time, work and
verdict (``roofline.compare.projection``), with an interval, the basis and the roofline bound."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.common import (
    CeilingsOpt,
    ClockOpt,
    KernelOpt,
    NameBaseOpt,
    ProjectDocument,
    ProjectFormat,
    ProjectOutputOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
    handles_errors,
    refuse_unwritable_outputs,
    terminal_width,
    warn,
    write_document,
)


@handles_errors
def project(
    file: Annotated[Path, typer.Argument(help="The report (.ncu-rep or .json model) whose kernels are projected.")],
    to: Annotated[str, typer.Option("--to", help="Device spec id of the target GPU (roofline specs list); 'all', "
                                                 "or ids separated by commas: the workload's total on each, sorted.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    fmt: Annotated[ProjectFormat, typer.Option("--format", "-f", help="Output format: table or json.")] = "table",
    output: ProjectOutputOpt = None,
    ceilings: CeilingsOpt = "kernel-clock",
    clock: ClockOpt = "boost",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
) -> None:
    """Project each launch onto another GPU at the clock it holds under load (--clock sustained|boost|base): each
    unit's work at the target's rate of that unit, waves and tail, a launch floor; and the workload's total."""
    from roofline.compare.pairing import PairOptions, pair_reports, project_onto_many
    from roofline.compare.projection import require_clock
    from roofline.errors import RooflineError
    from roofline.pipeline import analyze_files
    from roofline.specs.catalog import load_catalog

    options = analysis_options(kernel, kernel_name_base, ceilings, specs, timeout, diagnostics=False)
    catalog = load_catalog(options.specs)
    targets = list(catalog.specs) if to.strip() == "all" else [catalog.get(t.strip()) for t in to.split(",")]
    for target in targets:
        require_clock(target, clock)
    if len(targets) > 1 and fmt != "table":
        raise RooflineError(f"--to {to} with --format {fmt}: several GPUs are in the table format only for now",
                            "use --format table, or one --to id at a time")
    refuse_unwritable_outputs("project", fmt, output, None, [file])
    analyses = analyze_files([file], options, catalog, 1)
    warn(analyses)
    if len(targets) > 1:
        comparison = project_onto_many(analyses[0], targets, clock)
    else:
        comparison = pair_reports(analyses, project_to=targets[0], options=PairOptions(clock=clock))
    document = ProjectDocument(comparison, width=terminal_width(wide))
    write_document("project", fmt, document, output, [file])
