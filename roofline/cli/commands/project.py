"""`roofline project FILE --to SPEC`: each kernel's time per launch on another GPU, from its measured time, work and
verdict (``roofline.compare.projection``), with an interval, the basis and the roofline bound."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.facts import Facts, Output, Reads
from roofline.cli.failures import handles_errors
from roofline.cli.options import (
    ClockOpt,
    KernelOpt,
    NameBaseOpt,
    ProjectFormat,
    ProjectOutputOpt,
    SpecsOpt,
    TimeoutOpt,
    WideOpt,
    analysis_options,
)
from roofline.cli.terminal import terminal_width
from roofline.cli.workflow import facade
from roofline.cli.writing import default_output, refuse_unwritable_outputs, write_document
from roofline.render.base import find_format

FACTS = Facts(output=Output("project"), reads=Reads(sass=False))


@handles_errors
def project(
    file: Annotated[Path, typer.Argument(help="The report (.ncu-rep or .json model) whose kernels are projected.")],
    to: Annotated[str, typer.Option("--to", help="Device spec id of the target GPU (roofline specs list); 'all', "
                                                 "or ids separated by commas: the workload's total on each, sorted.")],
    kernel: KernelOpt = None,
    kernel_name_base: NameBaseOpt = "function",
    fmt: Annotated[ProjectFormat, typer.Option("--format", "-f", help="Output format: table, json, markdown, "
                                                                   "html or csv.")] = "table",
    output: ProjectOutputOpt = None,
    clock: ClockOpt = "sustained",
    specs: SpecsOpt = None,
    timeout: TimeoutOpt = None,
    wide: WideOpt = False,
) -> None:
    """Project each launch onto another GPU at the clock it holds under load (--clock sustained|boost|base): each
    unit's work at the target's rate of that unit, waves and tail, a launch floor; and the workload's total. No
    --ceilings: the model reads each unit's percent of its peak and the specs' rates, no roof of the report."""
    roofline = facade(analysis_options(kernel, kernel_name_base, "kernel-clock", specs, timeout, diagnostics=False))
    to = target_ids(to)
    refuse_near_all(to, roofline.catalog.get)
    targets = roofline.targets(to, clock)  # an unknown target is refused before the report is read
    output = output or default_project_output(file, fmt, to if to == ALL else "+".join(sorted(t.id for t in targets)),
                                              clock)
    refuse_unwritable_outputs("project", fmt, output, None, [file])
    document = roofline.project(file, targets, clock, terminal_width(wide))
    write_document("project", fmt, document, output, [file])


ALL = "all"  # --to all: every GPU of the catalog


def target_ids(to: str) -> str:
    """``--to`` as the catalog reads it: ``all`` in any case, or ids separated by commas, the spaces around each
    dropped; UsageError (one line, with the value to give instead) for an empty id or ``all`` among ids."""
    from roofline.errors import UsageError

    ids = [t.strip() for t in to.split(",")]
    kept = [t for t in ids if t]
    if len(kept) < len(ids):
        raise UsageError(f"--to '{to}': an empty spec id (a comma with none after or before it)",
                         f"use --to {','.join(kept)}" if kept else "name a spec id (roofline specs list), or all")
    if any(t.casefold() == ALL for t in ids):
        if len(ids) == 1:
            return ALL
        rest = ",".join(t for t in ids if t.casefold() != ALL)
        raise UsageError(f"--to '{to}': all is every GPU, not an id among others",
                         f"use --to all alone, or --to {rest}")
    return ",".join(ids)


def refuse_near_all(to: str, known: Callable[[str], object]) -> None:
    """UsageError for an id of ``to`` close to ``all`` (``al``, ``alll``) that ``known`` (the catalog's ``get``) does
    not know: the catalog would suggest only spec ids."""
    import difflib

    from roofline.errors import SpecError, UsageError

    for t in to.split(","):
        if t != ALL and difflib.SequenceMatcher(None, t.casefold(), ALL).ratio() >= NEAR_ALL:
            try:
                known(t)
            except SpecError:
                raise UsageError(f"--to '{to}': unknown device spec id '{t}'",
                                 "did you mean all (every GPU)? roofline specs list gives the spec ids") from None


NEAR_ALL = 0.6  # an unknown id this alike "all" (difflib's ratio: "al" 0.8, "a40" 0.33) is offered all


def default_project_output(file: Path, fmt: str, targets: str, clock: str) -> Path | None:
    """The file a Markdown or HTML projection goes to by default: reports/<report>-project-<targets>[-<clock>].md,
    so that projections onto other GPUs or at another clock do not overwrite each other; None for the formats
    printed on standard output."""
    found = find_format("project", fmt)
    if not found.to_file:
        return None
    tag = targets + ("" if clock == "sustained" else f"-{clock}")
    return default_output([file], found.suffix.replace("-project", f"-project-{tag}", 1))
