"""`roofline calibrate`: measure the GPU's achievable roofs with microbenchmarks and write them as a calibration
file, the ceilings of ``--ceilings calibrated``.

The microbenchmarks (``roofline.specs.microbench``, CuPy and/or PyTorch) run twice in a child process: once as they are
(the GPU's default clocks, CUDA events) and once under ncu with its default clock control (the clocks a report's
kernels run at; each launch timed by ncu). Every input and output is checked before they run (the spec files, the
output file, ncu), so no measurement is lost to a bad option. The file is never overwritten without --force, and a
file roofline did not write never is. The default name (ID.calibration.yaml) is known only once the GPU is: where
it cannot be written, the measurement goes to the first free ID.calibration-N.yaml, said on stderr.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from roofline.cli.failures import handles_errors
from roofline.cli.ncu_options import NcuPathOpt
from roofline.cli.options import SpecsOpt
from roofline.core.choices import OUTPUT_OPTION
from roofline.ncu import driver
from roofline.render.names import visible

if TYPE_CHECKING:  # pragma: no cover
    from roofline.core.model import KernelLaunch
    from roofline.errors import SpecError
    from roofline.specs.calibration import Calibration
    from roofline.specs.catalog import DeviceSpec

NCU_REPS = 5  # launches ncu times per benchmark (each one profiled on its own)


def ncu_options() -> driver.NcuOptions:
    """The timing run: only the duration and SM clock of each launch, at ncu's default clock control (base),
    caches left warm between launches (the L2 benchmark reads what it read before), NVTX ranges recorded."""
    from roofline.specs.calibration import NCU_METRICS

    return driver.NcuOptions(section_set=None, metrics=",".join(NCU_METRICS), clock_control="base",
                             extra=("--cache-control", "none", "--nvtx"))


@handles_errors
def calibrate(
    output: Annotated[Path | None, typer.Option(
        *OUTPUT_OPTION, help="Calibration file to write (default ID.calibration.yaml here; the built-in ones are "
        "device_specs/measured/ID.yaml).")] = None,
    reps: Annotated[int, typer.Option("--reps", min=3, help="Timed launches per benchmark at default clocks.")] = 10,
    no_ncu: Annotated[bool, typer.Option(
        "--no-ncu", help="Skip the run under ncu (the file then has default-clock rates only, which "
        "--ceilings calibrated does not use).")] = False,
    ncu: NcuPathOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing calibration file roofline wrote "
                                        "(without it no file is replaced; a file roofline did not write never "
                                        "is).")] = False,
    specs: SpecsOpt = None,
) -> None:
    """Measure the GPU's achievable DRAM and L2 bandwidth, FP32/FP64 FMA and Tensor Core GEMM rates."""
    from roofline import __version__
    from roofline.specs.calibration import Calibration, measure, to_yaml_dict
    from roofline.specs.catalog import load_catalog

    # every input and output is checked before minutes of benchmarks, not after them
    catalog = load_catalog(specs or ())
    if output is not None:
        _check_output(output, force)
    else:
        _check_folder(Path.cwd(), Path("."))
    install = None if no_ncu else _find_ncu(ncu)
    with tempfile.TemporaryDirectory(prefix="roofline-calibrate-") as tmp:
        result = _run_benchmarks(Path(tmp) / "default.json", reps)
        launches, ncu_used = (None, "") if install is None else _run_under_ncu(Path(tmp), install)
    device = result["device"]["name"]
    spec = _spec_for(device, catalog.specs)
    spec_id = spec.id if spec else _slug(device)
    software = ", ".join(filter(None, [f"roofline {__version__}", ncu_used, result.get("software", "")]))
    cal = Calibration(spec_id, device, datetime.date.today().isoformat(), software,
                      measure(result["benchmarks"], launches, "" if install else "ncu not run (--no-ncu)"))
    _print_table(cal, spec)
    path = output or _default_path(spec_id, force)
    _check_output(path, force)  # a file made while the benchmarks ran
    import yaml

    from roofline.cli.output import write_output

    header = (f"# Calibrated roofs of {device}, written by roofline calibrate (rates in FLOP/s and bytes/s).\n"
              "# ncu: under ncu's clock control (used by --ceilings calibrated); default: the GPU's default clocks.\n")
    write_output(path, header + yaml.safe_dump(to_yaml_dict(cal), sort_keys=False))
    refused = _refusals(spec, cal, path)
    for problem in refused:  # the measurement is kept; the analysis would refuse the file
        typer.echo(f"roofline: warning: {visible(str(problem))}", err=True)
    if refused:
        return
    hint = "" if spec else f" (no device spec matches '{device}': add one with id '{spec_id}' to use it)"
    typer.echo(f"roofline: analyse with --specs {path} --ceilings calibrated{hint}", err=True)


def _refusals(spec: DeviceSpec | None, cal: Calibration, path: Path) -> list[SpecError]:
    """Why the analysis would refuse the calibration just written (``catalog.calibration_problems``: a rate above
    the datasheet's peak); none without a spec."""
    from roofline.specs.catalog import calibration_problems

    return calibration_problems(spec, dataclasses.replace(cal, path=str(path))) if spec is not None else []


def _check_output(path: Path, force: bool) -> None:
    """RooflineError for a calibration file that could not be written: a file roofline did not write (never
    replaced, even with --force), one it wrote without --force, a folder or a device, a folder it cannot be made
    in."""
    from roofline.cli.output import STDOUT, replaceable
    from roofline.errors import RooflineError

    if str(path) == STDOUT:
        return
    real = Path(os.path.realpath(path))
    if _foreign(real):
        raise RooflineError(f"{path}: exists and was not written by roofline; not replacing it (--force replaces "
                            "only a calibration file roofline wrote)", "choose another -o name")
    replaceable(path)  # a folder, a device, a file that cannot be read, a folder where no file can be made
    if real.exists() and not force:
        raise RooflineError(f"{path}: exists", "choose another -o name, or add --force to replace it")


def _foreign(real: Path) -> bool:
    """Whether ``real`` is a regular file without roofline's mark (one it cannot read is left to ``replaceable``)."""
    from roofline.cli.output import carries_mark

    try:
        return real.is_file() and not carries_mark(real)
    except OSError:
        return False


def _check_folder(real: Path, shown: Path) -> None:
    """RooflineError when no file can be made in the folder ``real`` (or in the folders to be made above it)."""
    from roofline.core.files import unwritable_folder
    from roofline.errors import RooflineError

    blocked = unwritable_folder(real)
    if blocked is not None:
        raise RooflineError(f"{shown}: cannot write the calibration file there ({blocked[0]}: {blocked[1]})",
                            "choose another -o name, in a folder you may write")


def _default_path(spec_id: str, force: bool) -> Path:
    """``ID.calibration.yaml`` here, known only after the benchmarks; where that name is taken (a file roofline did
    not write, or one it wrote and no --force) the first free ``ID.calibration-N.yaml``, said on stderr, so that
    the measurement is kept."""
    path, n, first_refusal = Path(f"{spec_id}.calibration.yaml"), 1, None
    while (refusal := _taken(path, force)) is not None:
        first_refusal = first_refusal or refusal
        n += 1
        path = Path(f"{spec_id}.calibration-{n}.yaml")
    if first_refusal is not None:
        typer.echo(f"roofline: note: {first_refusal}; writing {path} instead (choose the name with -o)", err=True)
    return path


def _taken(path: Path, force: bool) -> str | None:
    """Why an existing ``path`` may not be written (``_check_output``); None where it does not exist or may be."""
    from roofline.errors import RooflineError

    if not os.path.lexists(path):
        return None
    try:
        _check_output(path, force)
    except RooflineError as err:
        return err.message
    return None


def _microbench_argv(out: Path, reps: int) -> list[str]:
    return [sys.executable, "-m", "roofline.specs.microbench", str(out), "--reps", str(reps)]


def _run_benchmarks(out: Path, reps: int) -> dict[str, Any]:
    """Run the microbenchmarks at the default clocks; their results, or the child's last line as the error."""
    from roofline.errors import RooflineError

    typer.echo("roofline: running the microbenchmarks at the GPU's default clocks", err=True)
    done = subprocess.run(_microbench_argv(out, reps), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=False)
    if done.returncode != 0 or not out.is_file():
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise RooflineError(f"the microbenchmarks failed: {last}",
                            "run on a machine with an NVIDIA GPU and CuPy and/or PyTorch for its CUDA version")
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _find_ncu(ncu: str | None) -> driver.NcuInstall:
    """The ncu to time the benchmarks with; its NcuError also offers --no-ncu."""
    from roofline.errors import NcuError

    try:
        return driver.find_ncu(ncu)
    except NcuError as err:
        raise NcuError(err.message, f"{err.hint}; or calibrate at default clocks only with --no-ncu") from None


def _run_under_ncu(tmp: Path, install: driver.NcuInstall) -> tuple[list[KernelLaunch], str]:
    """Run the microbenchmarks under ncu (its default clock control, caches left warm, NVTX ranges recorded);
    the launches of the report and the ncu used."""
    from roofline import load

    typer.echo(f"roofline: running the microbenchmarks under {install.describe()}", err=True)
    app = _microbench_argv(tmp / "ncu.json", NCU_REPS)
    plan = driver.make_plan(install.path, ncu_options(), str(tmp / "calibrate"), app)
    report = driver.profile(plan)
    return list(load(str(report)).launches), f"ncu {'.'.join(map(str, install.version))}"


def _spec_for(device: str, specs: tuple[DeviceSpec, ...]) -> DeviceSpec | None:
    """The spec whose display name is the GPU's; of several, the last (a user's over a built-in, as reports match)."""
    return next((s for s in reversed(specs) if device in s.display_names), None)


def _slug(name: str) -> str:
    """An id for a GPU without a spec: its name in lowercase words joined by dashes."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "gpu"


def _print_table(cal: Calibration, spec: DeviceSpec | None) -> None:
    """Each roof: datasheet, calibrated at ncu's and at the default clocks (each with its ratio), spread, method."""
    from rich.table import Table

    from roofline.core.units import si
    from roofline.render.terminal import terminal_console
    from roofline.specs.calibration import BANDWIDTHS, ROOFS
    from roofline.specs.catalog import datasheet_roof

    table = Table(title=f"Calibrated roofs: {cal.device}", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    for col in ("roof", "datasheet", "ncu clocks", "ratio", "SM clock", "default clocks", "ratio", "spread",
                "how"):
        table.add_column(col, justify="left" if col in ("roof", "how") else "right")
    for key in ROOFS:
        roof = cal.roofs.get(key)
        if roof is None:
            continue
        unit = "B/s" if key in BANDWIDTHS else "FLOP/s"
        sheet = datasheet_roof(spec, key)[0] if spec is not None else None
        cells = []
        for r in (roof.ncu, roof.default):
            cells += [si(r.median, unit) if r else "n/a", f"{r.median / sheet:.2f}" if r and sheet else ""]
        clock = f"{roof.ncu.sm_clock_hz / 1e9:.2f} GHz" if roof.ncu and roof.ncu.sm_clock_hz else ""
        spread = max((r.spread_pct for r in (roof.ncu, roof.default) if r), default=None)
        table.add_row(key, si(sheet, unit), cells[0], cells[1], clock, cells[2], cells[3],
                      f"{spread:.1f}%" if spread is not None else "", roof.method or roof.missing)
    terminal_console().print(table)
