"""`roofline specs list|show|check`: the datasheet ceilings in device_specs/ and the user's own."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from roofline.cli.failures import handles_errors
from roofline.cli.options import SpecsOpt
from roofline.render.names import visible

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec

app = typer.Typer(help="List, show and check the device spec YAML files (datasheet ceilings).",
                  no_args_is_help=True)
SpecFormat = Literal["table", "json", "yaml"]
MIN_NAME_CHARS = 8  # an id or display name in `specs list` keeps at least this many characters


@app.command("list")
@handles_errors
def list_specs(
    fmt: Annotated[SpecFormat, typer.Option("--format", "-f", help="table, json or yaml (each spec's id and "
                                            "display names).")] = "table",
    specs: SpecsOpt = None,
) -> None:
    """One line per GPU: id, display name, CC, SMs, FP32, dense FP16 tensor, DRAM bandwidth; fits the terminal by
    abbreviating the id and the name (never a number), every text from a file escaped for the terminal. JSON and
    YAML give each spec's id and display names (the list of the MCP tool gpu_spec)."""
    from roofline.documents.common import builtins
    from roofline.documents.tools import spec_refs
    from roofline.specs.catalog import load_catalog

    catalog = load_catalog(specs or ())
    if fmt == "table":
        _print_list(catalog.specs)
    else:
        _echo([builtins(ref) for ref in spec_refs(catalog.specs)], fmt)


def _print_list(specs: Sequence[DeviceSpec]) -> None:
    """The table of ``specs list``, one line per spec, fitted to the terminal."""
    from rich.table import Table

    from roofline.core.units import middle_cut, si
    from roofline.render.terminal import COLUMN_GAP, escape, terminal_console

    console = terminal_console()
    head = ("id", "display name", "CC", "SMs", "FP32", "TC FP16", "DRAM")
    rows = [(s.id, s.display_names[0], s.compute_capability, str(s.sm_count), si(s.peaks["fp32"], "F"),
             si(s.peaks.get("tensor_fp16"), "F"), si(s.memory_bandwidth_bytes_per_s, "B/s"))
            for s in sorted(specs, key=lambda s: s.id)]
    widths = [max([len(col), *(len(visible(row[i])) for row in rows)]) for i, col in enumerate(head)]
    over = sum(widths) + COLUMN_GAP * (len(head) - 1) - console.width
    if over > 0:  # the vendor's words go first: "GeForce RTX 4070 Ti" says which GPU as well
        rows = [(row[0], _abbreviated(row[1]), *row[2:]) for row in rows]
        widths[1] = max([len(head[1]), *(len(visible(row[1])) for row in rows)])
        over = sum(widths) + COLUMN_GAP * (len(head) - 1) - console.width
    for i in (1, 0):  # the name, then the id, give up columns; the numbers never do
        cut = min(max(over, 0), widths[i] - MIN_NAME_CHARS)
        widths[i] -= max(cut, 0)
        over -= max(cut, 0)
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for i, col in enumerate(head):
        table.add_column(col, no_wrap=True, width=widths[i], justify="left" if i in (0, 1, 2) else "right")
    for row in rows:
        table.add_row(*(escape(middle_cut(visible(text), widths[i])) if i < 3 else text for i, text in enumerate(row)))
    console.width = max(console.width, console.width + over)  # narrower than the numbers: lines run longer
    console.print(table)


def _abbreviated(name: str) -> str:
    """A GPU's display name without the vendor's leading words ("NVIDIA GeForce RTX 4090" -> "RTX 4090")."""
    for word in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(word)
    return name


@app.command("show")
@handles_errors
def show(
    spec_id: Annotated[str, typer.Argument(metavar="ID", help="Spec id, e.g. a100-sxm4-80gb.")],
    fmt: Annotated[SpecFormat, typer.Option("--format", "-f", help="table, json or yaml.")] = "table",
    specs: SpecsOpt = None,
) -> None:
    """Every number of one spec with its source."""
    from roofline.specs.catalog import load_catalog

    spec = load_catalog(specs or ()).get(spec_id)
    if fmt == "table":
        _print_table(spec)
    else:
        _echo(spec_dict(spec), fmt)


def _echo(data: Any, fmt: Literal["json", "yaml"]) -> None:
    """A document of ``specs`` as JSON or YAML."""
    if fmt == "json":
        typer.echo(json.dumps(data, indent=2))
    else:
        import yaml

        typer.echo(yaml.safe_dump(data, sort_keys=False), nl=False)


def spec_dict(spec: DeviceSpec) -> dict[str, Any]:
    """A spec as plain data, each number beside its source (``documents.tools.SpecDoc``)."""
    from roofline.documents.common import builtins
    from roofline.documents.tools import spec_doc

    out: dict[str, Any] = builtins(spec_doc(spec))
    return out


def _print_table(spec: DeviceSpec) -> None:
    from rich.table import Table

    from roofline.core.units import si
    from roofline.render.terminal import terminal_console

    console = terminal_console()
    console.print(f"[bold]{spec.id}[/bold]  {', '.join(spec.display_names)}  ({spec.architecture} "
                  f"{spec.chip}, CC {spec.compute_capability})  {spec.path}", highlight=False)
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    table.add_column("key", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("source")
    units = {"sm_count": "", "boost_clock_hz": "Hz", "base_clock_hz": "Hz", "tensor_clock_hz": "Hz",
             "sustained_clock_hz": "Hz", "memory.bytes": "B", "memory.achievable_bandwidth_bytes_per_s": "B/s",
             "memory.bandwidth_bytes_per_s": "B/s", "memory.clock_hz": "Hz", "memory.bus_width_bits": "bit",
             "l2_bytes": "B", "fp32_lanes_per_sm": "", "board_power_w": "W"}
    values = {"sm_count": spec.sm_count, "boost_clock_hz": spec.boost_clock_hz, "base_clock_hz": spec.base_clock_hz,
              "tensor_clock_hz": spec.tensor_clock_hz, "sustained_clock_hz": spec.sustained_clock_hz,
              "board_power_w": spec.board_power_w, "fp32_lanes_per_sm": spec.fp32_lanes_per_sm,
              "memory.bytes": spec.memory_bytes,
              "memory.bandwidth_bytes_per_s": spec.memory_bandwidth_bytes_per_s,
              "memory.achievable_bandwidth_bytes_per_s": spec.memory_achievable_bytes_per_s,
              "memory.clock_hz": spec.memory_clock_hz, "memory.bus_width_bits": spec.memory_bus_width_bits,
              "l2_bytes": spec.l2_bytes,
              **{f"peaks.{k}": v for k, v in spec.peaks.items()},
              "bandwidth.l2_bytes_per_s": spec.l2_bytes_per_s, "bandwidth.l1_bytes_per_s": spec.l1_bytes_per_s}
    for key, value in values.items():
        if value is None:
            continue
        unit = units.get(key, "B/s" if key.startswith("bandwidth") else "OP/s" if _integer(key) else "FLOP/s")
        source = spec.sources.get(key, "") + (f" [derived: {spec.derived[key]}]" if key in spec.derived else "")
        table.add_row(key, si(value, unit), source)
    console.print(table)
    if spec.notes:
        console.print(f"notes: {spec.notes}", highlight=False)
    if spec.measured is not None:
        _print_calibration(console, spec)


def _integer(key: str) -> bool:
    """Whether a peak counts integer operations (INT8, INT4 Tensor Cores: OP/s, not FLOP/s)."""
    return key.startswith("peaks.") and key.removeprefix("peaks.").removeprefix("tensor_").startswith(("int", "uint"))


def _print_calibration(console: Any, spec: DeviceSpec) -> None:
    """The calibrated roofs (--ceilings calibrated): the rate under ncu and at default clocks, how each was measured."""
    from rich.table import Table

    from roofline.core.units import si
    from roofline.specs.calibration import BANDWIDTHS

    cal = spec.measured
    assert cal is not None
    console.print(f"calibrated {cal.date} ({cal.software}): {cal.path}", highlight=False)
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for col in ("roof", "under ncu", "default clocks", "how"):
        table.add_column(col, justify="right" if col in ("under ncu", "default clocks") else "left")
    for key, roof in cal.roofs.items():
        unit = "B/s" if key in BANDWIDTHS else "FLOP/s"
        table.add_row(key, si(roof.ncu.median if roof.ncu else None, unit),
                      si(roof.default.median if roof.default else None, unit), roof.method or roof.missing)
    console.print(table)


@app.command("check")
@handles_errors
def check(specs: SpecsOpt = None) -> None:
    """Validate every spec file (built-in and yours) and cross-check each FP32 peak; exit 1 on problems. Remarks on
    figures a valid spec likely leaves out follow, without failing."""
    from roofline.specs.catalog import catalog_problems, load_catalog, spec_remarks

    checked, problems = catalog_problems(specs or ())
    for problem in problems:
        typer.echo(visible(problem), err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{checked} spec files valid; every FP32 peak agrees within 2% with SMs x lanes x 2 x clock")
    for remark in (r for spec in load_catalog(specs or ()).specs for r in spec_remarks(spec)):
        typer.echo(visible(f"note: {remark}"))
