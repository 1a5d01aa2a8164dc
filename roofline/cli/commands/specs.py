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
    from roofline.specs.catalog import DeviceSpec, Override

app = typer.Typer(help="List, show and check the device spec YAML files (datasheet ceilings).",
                  no_args_is_help=True)
SpecFormat = Literal["table", "json", "yaml"]
MIN_NAME_CHARS = 8  # an id or display name in `specs list` keeps at least this many characters
MIN_SOURCE_CHARS = 30  # `specs show` puts each source under its row where its column would be narrower
SOURCE_INDENT = 4  # a source under its row (`specs show` on a narrow terminal) starts this far in
SHOWN_DIGITS = 6  # significant digits of a number in `specs show`: every file's value whole, float noise not


@app.command("list", short_help="One line per GPU: id, display name, CC, SMs, FP32, FP16 Tensor, DRAM; "
                                   "which of your specs overrides a built-in one.")
@handles_errors
def list_specs(
    fmt: Annotated[SpecFormat, typer.Option("--format", "-f", help="table, json or yaml (each spec's id and "
                                            "display names).")] = "table",
    specs: SpecsOpt = None,
) -> None:
    """One line per GPU: id, display name, CC, SMs, FP32, dense FP16 tensor, DRAM bandwidth; fits the terminal by
    abbreviating the id and the name (never a number), every text from a file escaped for the terminal; a note under
    the table for each of your specs that overrides another (the one a report of that GPU gets). JSON and YAML give
    each spec's id and display names (the list of the MCP tool gpu_spec)."""
    from roofline.documents.common import builtins
    from roofline.documents.tools import spec_refs
    from roofline.specs.catalog import load_catalog

    catalog = load_catalog(specs or ())
    if fmt == "table":
        _print_list(catalog.specs)
        for line in override_lines(catalog.overrides()):
            typer.echo(visible(line))
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


def override_lines(overrides: Sequence[Override]) -> list[str]:
    """A note per spec that takes a GPU's reports from another (``SpecCatalog.overrides``): which one they get."""
    from roofline.specs.achievable import shown_path

    return [f"note: {o.spec.id} overrides {o.over.id} for '{o.name}': reports of that GPU get {o.spec.id}" if o.name
            else f"note: {shown_path(o.spec.path)} replaces {shown_path(o.over.path)} (id '{o.spec.id}')"
            for o in overrides]


def _abbreviated(name: str) -> str:
    """A GPU's display name without the vendor's leading words ("NVIDIA GeForce RTX 4090" -> "RTX 4090")."""
    for word in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(word)
    return name


@app.command("show", short_help="Every number of one spec with its source.")
@handles_errors
def show(
    spec_id: Annotated[str, typer.Argument(metavar="ID", help="Spec id, e.g. a100-sxm4-80gb, or a GPU's display "
                                           "name as reports print it, e.g. \"NVIDIA H100 80GB HBM3\".")],
    fmt: Annotated[SpecFormat, typer.Option("--format", "-f", help="table, json or yaml (a document of the spec, "
                                            "not a spec file: to start your own, copy the file --path "
                                            "prints).")] = "table",
    path: Annotated[bool, typer.Option("--path", help="Print only the spec's file (to copy as a start for your "
                                       "own GPU's).")] = False,
    specs: SpecsOpt = None,
) -> None:
    """Every number of one spec with its source, each value with the digits of its file (capacities in GiB/MiB);
    a long source wraps (on a narrow terminal, under its row), never cut, and every text from the file is escaped
    for the terminal."""
    from roofline.specs.catalog import load_catalog

    spec = load_catalog(specs or ()).get(spec_id)
    if path:
        typer.echo(spec.path)
    elif fmt == "table":
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
    """The table of ``specs show``: every number with its whole source, each text from the file escaped."""
    from roofline.render.terminal import escape, terminal_console

    console = terminal_console()
    console.print(f"[bold]{escape(spec.id)}[/bold]  {escape(', '.join(spec.display_names))}  "
                  f"({escape(spec.architecture)} {escape(spec.chip)}, CC {escape(spec.compute_capability)})  "
                  f"{escape(spec.path)}", highlight=False)
    _print_rows(console, ("key", "value", "source"), _rows(spec))
    if spec.notes:
        console.print(f"notes: {escape(spec.notes)}", highlight=False)
    if spec.measured is not None:
        _print_calibration(console, spec)


def _rows(spec: DeviceSpec) -> list[tuple[str, str, str]]:
    """Key, value with its unit, and source (with the formula of a derived value) of each number a spec gives."""
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
    rows = []
    for key, value in values.items():
        if value is None:
            continue
        unit = units.get(key, "B/s" if key.startswith("bandwidth") else "OP/s" if _integer(key) else "FLOP/s")
        source = spec.sources.get(key, "") + (f" [derived: {spec.derived[key]}]" if key in spec.derived else "")
        rows.append((key, _file_value(value, unit), source))
    return rows


def _file_value(value: float, unit: str) -> str:
    """A spec's number with the digits its file gives (1755 MHz: "1.755 GHz", not "1.75 GHz"), capacities in the
    binary units the vendors' "GB" and "MB" stand for ("80 GiB", "50 MiB")."""
    from roofline.core.units import si

    if unit == "bit":
        return f"{value:.0f} bit"
    if unit == "B":
        for scale, prefix in ((2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki")):
            if value >= scale:
                return f"{value / scale:.{SHOWN_DIGITS}g} {prefix}B"
    return si(value, unit, SHOWN_DIGITS)


def _print_rows(console: Any, head: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A table whose last column is a long text (a source, how a roof was measured): the other columns (a name, then
    figures) whole, the text wrapped (a token too long for a line folded, never cut); where the terminal leaves it
    under ``MIN_SOURCE_CHARS``, each row's text on the lines under the row, the whole width."""
    from rich.table import Table
    from rich.text import Text

    from roofline.render.terminal import COLUMN_GAP

    widths = [max([len(head[i]), *(len(row[i]) for row in rows)]) for i in range(len(head) - 1)]
    if console.width - sum(widths) - COLUMN_GAP * len(widths) >= MIN_SOURCE_CHARS:
        table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
        for i, col in enumerate(head):
            last = i == len(head) - 1
            table.add_column(col, justify="left" if i == 0 or last else "right", no_wrap=not last, overflow="fold")
        for row in rows:
            table.add_row(*row[:-1], Text(visible(row[-1])))
        console.print(table)
        return
    if sum(widths) + COLUMN_GAP * (len(widths) - 1) > console.width:  # columns aligned only where they fit
        widths = [0] * len(widths)
    console.print(Text.assemble((_aligned(head[:-1], widths), "bold"), f"  ({head[-1]} below)"))
    for row in rows:
        console.print(_aligned(row[:-1], widths), highlight=False)
        for line in Text(visible(row[-1]), overflow="fold").wrap(console, max(console.width - SOURCE_INDENT, 1)):
            line.rstrip()
            console.print(Text(" " * SOURCE_INDENT) + line)


def _aligned(cells: Sequence[str], widths: Sequence[int]) -> str:
    """A row's cells two spaces apart, the first left-aligned and the others (figures) right-aligned."""
    pairs = enumerate(zip(cells, widths, strict=True))
    return "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in pairs)


def _integer(key: str) -> bool:
    """Whether a peak counts integer operations (INT8, INT4 Tensor Cores: OP/s, not FLOP/s)."""
    return key.startswith("peaks.") and key.removeprefix("peaks.").removeprefix("tensor_").startswith(("int", "uint"))


def _print_calibration(console: Any, spec: DeviceSpec) -> None:
    """The calibrated roofs (--ceilings calibrated): the rate under ncu and at default clocks, how each was measured."""
    from roofline.core.units import si
    from roofline.render.terminal import escape
    from roofline.specs.calibration import BANDWIDTHS

    cal = spec.measured
    assert cal is not None
    console.print(f"calibrated {escape(cal.date)} ({escape(cal.software)}): {escape(cal.path)}", highlight=False)
    rows = [(key, si(roof.ncu.median if roof.ncu else None, unit), si(roof.default.median if roof.default else None,
                                                                       unit), roof.method or roof.missing)
            for key, roof in cal.roofs.items() for unit in ["B/s" if key in BANDWIDTHS else "FLOP/s"]]
    _print_rows(console, ("roof", "under ncu", "default clocks", "how"), rows)


@app.command("check", short_help="Validate every spec and calibration file (built-in and yours) and "
                                    "cross-check each FP32 peak; exit 1 on problems.")
@handles_errors
def check(specs: SpecsOpt = None) -> None:
    """Validate every spec and calibration file (built-in and yours), cross-check each FP32 peak and each calibration
    against its spec; exit 1 on problems, every problem of every file named, one line each (exit 2 for a --specs
    path that names no file). Remarks on figures a valid spec likely leaves out follow, without failing, and a note
    for each of your specs that overrides another."""
    from roofline.specs.catalog import catalog_problems, load_catalog, spec_remarks

    checked, problems = catalog_problems(specs or ())
    for problem in problems:
        typer.echo(visible(problem), err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{checked} spec files valid; every FP32 peak agrees within 2% with SMs x lanes x 2 x clock")
    catalog = load_catalog(specs or ())
    for remark in (r for spec in catalog.specs for r in spec_remarks(spec)):
        typer.echo(visible(f"note: {remark}"))
    for line in override_lines(catalog.overrides()):
        typer.echo(visible(line))
