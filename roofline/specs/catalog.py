"""Datasheet ceilings: load and validate the cited YAML files in device_specs/, match a report's GPU.

Specs are layered: the built-in files, then ``$ROOFLINE_SPECS`` (paths separated by ``os.pathsep``),
then ``--specs`` paths; a later spec replaces an earlier one with the same id or display name. Every
number in a file is ``{value, source}`` (plus ``derived`` when computed), and all tensor figures are dense.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
from msgspec.structs import replace

from roofline.core import tensor_architectures
from roofline.core.kernel_families import ARCHITECTURES, architecture, device_sm
from roofline.core.model import Ceilings, Device
from roofline.errors import SpecError
from roofline.ncu.validation import BUS_BITS, CC_PATTERN, CLOCK_HZ, MEMORY_CLOCK_HZ, POSITIVE, SM_COUNT, Limit
from roofline.specs import safe_yaml

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.calibration import Calibration

MAX_SUGGESTED = 5  # spec ids an unknown id suggests
ENV_VAR = "ROOFLINE_SPECS"
MEASURED_FOLDER = "measured"  # beside the built-in specs: the calibration files of roofline calibrate
SPEC_SUFFIXES = (".yaml", ".yml")
FP32_CROSS_CHECK_TOLERANCE = 0.02  # stated FP32 peak vs SMs x lanes x 2 x clock
MEMORY_MATCH_TOLERANCE = 0.10  # reported total memory vs the spec's, for fallback matching
# A calibrated roof may pass its spec's datasheet roof (at the SM clock it ran, where above the figure's) by this
# much: the datasheet figures are rounded (the FP32 cross-check allows 2%) and the median of ncu-timed runs and its
# SM clock carry a percent or so of error. A calibrated rate cannot beat the peak at its clock: another GPU's
# calibration, or a sparse figure, is 2x or more above it.
CALIBRATION_TOLERANCE = 0.05
PEAK_KEYS = ("fp64", "fp32", "fp16", "bf16", "tensor_fp64", "tensor_tf32", "tensor_fp16", "tensor_fp16_acc16",
             "tensor_bf16", "tensor_fp8", "tensor_int8")
TOP_KEYS = {"id", "display_names", "architecture", "chip", "compute_capability", "sm_count", "boost_clock_hz",
            "base_clock_hz", "sustained_clock_hz", "tensor_clock_hz", "fp32_lanes_per_sm", "memory", "l2_bytes",
            "peaks", "bandwidth", "notes", "board_power_w"}
SCHEMA_HINT = safe_yaml.SPEC_FIX
LANES = Limit(1.0, 1024.0, integer=True)  # FP32 lanes per SM (64 or 128 on every GPU so far)
BYTES = Limit(0.0, low_open=True, integer=True)
BOARD_POWER_W = Limit(1.0, 5000.0)  # a board's rated power: a few W (a laptop part) to kW (a multi-die module)
DERIVED_ID = "derived"  # the id of a spec derived from a report's device attributes (roofline.specs.derived)
DERIVED_LABEL = "derived from device attributes"
ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a spec id: lowercase-dashes (as a rule its file's name)


class DeviceSpec(Struct, frozen=True):
    """One GPU model's datasheet facts; ``sources`` maps each number's key to its citation."""

    id: str
    path: str
    display_names: tuple[str, ...]
    architecture: str
    compute_capability: str
    sm_count: int
    boost_clock_hz: float
    tensor_clock_hz: float | None
    memory_type: str
    memory_bytes: int | None  # None (like the L2 size) only in a spec derived from a report without the attribute
    memory_bandwidth_bytes_per_s: float
    l2_bytes: int | None
    peaks: Mapping[str, float]
    sources: Mapping[str, str]
    fp32_lanes_per_sm: int
    memory_clock_hz: float | None = None  # as CUDA reports it (memory_clock_rate): half the per-pin data rate
    memory_bus_width_bits: int | None = None
    l1_bytes_per_s: float | None = None
    l2_bytes_per_s: float | None = None
    chip: str = ""
    notes: str = ""
    derived: Mapping[str, str] = field(default_factory=dict)
    measured: Calibration | None = None  # the roofs roofline calibrate measured on this GPU, if a file gives them
    gaps: Mapping[str, str] = field(default_factory=dict)  # roof -> why a derived spec has no number for it
    base_clock_hz: float | None = None  # the SM clock ncu locks while profiling (--clock-control base, its default)
    sustained_clock_hz: float | None = None  # the SM clock a loaded GPU holds where it is below boost (power cap)
    memory_achievable_bytes_per_s: float | None = None  # the DRAM bandwidth a stream-like copy reaches
    board_power_w: float | None = None  # the board's rated power (TDP, max power consumption) from its datasheet

    def clock_of(self, roof: str, tensor_dtype: str = "") -> float:
        """The SM clock a roof's figure holds at: ``tensor_clock_hz`` for a Tensor Core type other than FP64 where
        the spec gives it (NVIDIA quotes the H100 SXM5's FP64 Tensor figure at the boost clock, the others at
        1830 MHz), else the boost clock."""
        return (self.tensor_figure_clock(tensor_dtype) if roof == "tensor" else None) or self.boost_clock_hz

    def tensor_figure_clock(self, tensor_dtype: str) -> float | None:
        """The clock a Tensor Core type's figure holds at where it is not the boost clock (``tensor_clock_hz``, FP64
        excepted), else None."""
        return self.tensor_clock_hz if tensor_dtype != "fp64" else None


class SpecMatch(Struct, frozen=True):
    """A spec found for a report's device, and how it was found."""

    spec: DeviceSpec
    how: str


class Override(Struct, frozen=True):
    """A spec that takes a GPU's reports from another: a later one (a user's) giving the same display name, or
    (``name`` empty) one of the same id that replaces it."""

    spec: DeviceSpec  # the one reports get
    over: DeviceSpec  # the one they got without it
    name: str = ""  # the display name both give, as ``spec`` spells it; "" where ``spec`` replaces its id


LIST_IDS = "run 'roofline specs list' for the ids"  # the fix of an unknown spec id (MCP says its own tool)


class SpecCatalog:
    """All specs in precedence order (later wins), with lookup by id and matching of a device.

    Built-in files (``lazy``) are parsed only when needed: matching by display name first parses just
    the files whose text contains the name; listing, checking and the fallback match parse them all.
    """

    def __init__(self, specs: Sequence[DeviceSpec], lazy: Sequence[Path] = (),
                 calibrations: Sequence[Calibration] = (), lazy_calibrations: Sequence[Path] = ()) -> None:
        self._eager = tuple(specs)
        self._lazy = tuple(lazy)
        self._all: tuple[DeviceSpec, ...] | None = None
        self._user_calibrations = {c.spec_id: c for c in calibrations}  # a later file wins
        self._checked = not calibrations  # whether each user calibration was found to name a spec
        self._lazy_calibrations = {p.stem: p for p in lazy_calibrations}  # built-in files are named after their id
        self._builtin_calibrations: dict[str, Calibration] = {}
        self._by_name: dict[str, list[DeviceSpec]] = {}  # ``_named``'s answer per name: a run matches a GPU twice
        self._replaced: list[Override] = []  # specs a later one of the same id replaced (``specs``)

    @property
    def specs(self) -> tuple[DeviceSpec, ...]:
        """Every spec, built-in ones first, a later spec replacing an earlier one with the same id."""
        if self._all is None:
            by_id: dict[str, DeviceSpec] = {}
            for spec in (*map(parse_spec_file, self._lazy), *self._eager):
                if (earlier := by_id.pop(spec.id, None)) is not None:
                    self._replaced.append(Override(spec, earlier))
                by_id[spec.id] = spec
            for cal in self._user_calibrations.values():
                if cal.spec_id not in by_id:
                    raise _unknown_calibration(cal)
            self._checked = True
            # a calibration that fails its checks is refused where its spec is used (get, match), not here: one
            # bad file must not stop the reports of other GPUs
            self._all = tuple(self._calibrated(spec, strict=False) for spec in by_id.values())
        return self._all

    def overrides(self) -> list[Override]:
        """Each spec that takes a GPU from another (``match``'s precedence: a later spec wins a display name): one of
        the same id replacing it, then one giving the same display name, in the order of ``specs``."""
        specs = self.specs
        named: dict[str, DeviceSpec] = {}
        shadowed = []
        for spec in specs:
            for name in spec.display_names:
                earlier = named.get(_normalize(name))
                if earlier is not None and earlier.id != spec.id:
                    shadowed.append(Override(spec, earlier, name))
                named[_normalize(name)] = spec
        return [*self._replaced, *shadowed]

    def _calibrated(self, spec: DeviceSpec, strict: bool = True) -> DeviceSpec:
        """The spec with its calibrated roofs attached, where a calibration file has its id: a user's (``--specs``),
        else the built-in ``measured/<id>.yaml``, parsed only when its spec is used; a calibration that fails its
        checks (``calibration_problems``) raises with ``strict``, else is left off."""
        if not self._checked:
            _ = self.specs  # checks that each user calibration names a spec, whichever lookup came first
        cal = self._user_calibrations.get(spec.id) or self._builtin_calibration(spec.id)
        if cal is None or spec.measured is cal:
            return spec
        problems = calibration_problems(spec, cal)
        if problems and strict:
            raise problems[0]
        return spec if problems else replace(spec, measured=cal)

    def _builtin_calibration(self, spec_id: str) -> Calibration | None:
        path = self._lazy_calibrations.get(spec_id)
        if path is None:
            return None
        if spec_id not in self._builtin_calibrations:
            from roofline.specs.calibration import parse

            self._builtin_calibrations[spec_id] = parse(safe_yaml.load_yaml(path), str(path))
        return self._builtin_calibrations[spec_id]

    def get(self, spec_id: str) -> DeviceSpec:
        """The spec with this id (in any case where only one id matches it so), else the one a report of a GPU of
        this display name gets ("NVIDIA H100 80GB HBM3", as reports print it; case and punctuation aside, as
        ``match``); SpecError naming close ids when unknown."""
        for spec in self.specs:
            if spec.id == spec_id:
                return self._calibrated(spec)
        wanted = spec_id.casefold()
        same = [spec for spec in self.specs if spec.id.casefold() == wanted]
        if len(same) == 1:  # "H100-SXM5"
            return self._calibrated(same[0])
        name = _normalize(spec_id)
        named = [s for s in self.specs if name and name in {_normalize(n) for n in s.display_names}]
        if named:  # a later spec wins a display name, as in ``match``
            return self._calibrated(named[-1])
        import difflib

        ids = [s.id for s in self.specs]
        starting = [i for i in ids if i.casefold().startswith(wanted)] if wanted else []  # "h100": h100-sxm5, ...
        by_name = [s.id for s in self.specs if name and any(_normalize(n).startswith(name) for n in s.display_names)]
        close = starting or by_name or difflib.get_close_matches(wanted, ids, n=3, cutoff=0.4)
        more = f" ({len(close) - MAX_SUGGESTED} more: roofline specs list)" if len(close) > MAX_SUGGESTED else ""
        hint = (f"did you mean {', '.join(close[:MAX_SUGGESTED])}?{more}" if close
                else LIST_IDS)
        raise SpecError(f"unknown device spec id '{spec_id}'", hint)

    def match(self, device: Device) -> SpecMatch | None:
        """By display name first (user specs before built-ins), then by CC + SM count + memory size."""
        wanted = _normalize(device.name)
        candidates = self.specs if self._all is not None else (*self._named(wanted), *self._eager)
        for spec in reversed(candidates):
            if wanted in {_normalize(n) for n in spec.display_names}:
                if spec in self._eager or all(s.id != spec.id for s in self._eager):
                    how = f"display name '{device.name}'{self._provenance(spec, wanted)}"
                    return SpecMatch(self._calibrated(spec), how)
        return self._fallback(device)

    def _provenance(self, spec: DeviceSpec, wanted: str = "") -> str:
        """Where a matched spec of the user's comes from (``"; your spec FILE, over the built-in t4"``): a report
        then says its datasheet roofs are not the shipped ones; "" for a built-in spec."""
        mine = user_file(spec)
        if not mine:
            return ""
        over = [p.stem for p in self._lazy if p.stem == spec.id] or [
            s.id for s in self._named(wanted) if s.id != spec.id and wanted in {_normalize(n) for n in s.display_names}]
        return f"; your spec {mine}" + (f", over the built-in {over[0]}" if over else "")

    def _named(self, wanted: str) -> list[DeviceSpec]:
        """Built-in specs whose file text could hold the display name (a cheap test before parsing), each file read
        once per name."""
        if wanted not in self._by_name:
            self._by_name[wanted] = [parse_spec_file(p) for p in self._lazy
                                     if wanted and wanted in _normalize(p.read_text())]
        return self._by_name[wanted]

    def _fallback(self, device: Device) -> SpecMatch | None:
        """Same compute capability, SM count and (within 10%) memory size; name tokens break ties."""
        candidates = [s for s in self.specs if s.compute_capability == device.compute_capability
                      and s.sm_count == device.sm_count and _memory_close(s, device)]
        if len(candidates) > 1:
            candidates = _best_by_tokens(candidates, device.name)
        if len(candidates) != 1:
            return None
        memory = f", {device.total_memory_bytes / 2**30:.0f} GiB" if device.total_memory_bytes else ""
        how = (f"fallback: CC {device.compute_capability}, {device.sm_count} SMs{memory} ('{device.name}' is not a "
               f"listed display name){self._provenance(candidates[0])}")
        return SpecMatch(self._calibrated(candidates[0]), how)


def user_file(spec: DeviceSpec) -> str:
    """The path of a user's spec file (``--specs``, ``$ROOFLINE_SPECS``) as given; "" for a built-in or derived
    spec."""
    if not spec.path:
        return ""
    return "" if Path(spec.path).resolve().is_relative_to(builtin_folder().resolve()) else spec.path


def _unknown_calibration(cal: Calibration) -> SpecError:
    """The error of a user's calibration file whose id no device spec has."""
    return SpecError(f"{cal.path}: calibrates '{cal.spec_id}', which no device spec has as its id",
                     "set its 'id' to the id of the GPU's spec ('roofline specs list')")


def calibration_problems(spec: DeviceSpec, cal: Calibration) -> list[SpecError]:
    """Why a calibration file cannot be the spec's: its ``measured.device`` is none of the spec's display names, or a
    roof calibrated under ncu passes the spec's datasheet roof at the SM clock it ran (where above the figure's)
    by more than ``CALIBRATION_TOLERANCE``; each error names the file and the fix."""
    from roofline.core.units import si
    from roofline.specs.calibration import BANDWIDTHS

    what = [] if _normalize(cal.device) in {_normalize(n) for n in spec.display_names} else [
        f"measured.device '{cal.device}' is not a display name of spec '{spec.id}' ({', '.join(spec.display_names)})"]
    for key, roof in cal.roofs.items():
        used, (sheet, figure_clock) = roof.used, datasheet_roof(spec, key)
        if used is None or sheet is None:
            continue
        at_clock = sheet * max(1.0, (used.sm_clock_hz or 0.0) / figure_clock) if figure_clock else sheet
        if used.median > at_clock * (1 + CALIBRATION_TOLERANCE):
            unit = "B/s" if key in BANDWIDTHS else "FLOP/s"
            what.append(f"measured.roofs.{key}.ncu median {si(used.median, unit)} is {used.median / at_clock:.2f}x "
                        f"the datasheet {si(at_clock, unit)} of spec '{spec.id}' (more than "
                        f"{CALIBRATION_TOLERANCE:.0%} above: a calibrated rate cannot beat the peak)")
    if user_file(spec) and not _user_calibration(cal):
        fix = (f"your spec {spec.path} replaces the GPU this shipped calibration measured: keep its display names "
               "and roofs, or give your spec another id")
    else:
        fix = ("a calibration belongs to the GPU it measured: set its 'id' to that GPU's spec ('roofline specs "
               "list'), or run 'roofline calibrate' on this GPU")
    return [SpecError(f"{cal.path}: {w}", fix) for w in what]


def _user_calibration(cal: Calibration) -> bool:
    """Whether a calibration file is a user's, not one of the shipped ``measured/*.yaml``."""
    return not Path(cal.path).resolve().is_relative_to(builtin_folder().resolve())


def datasheet_roof(spec: DeviceSpec, key: str) -> tuple[float | None, float | None]:
    """A calibrated roof's datasheet figure in a spec (``calibration.ROOFS`` keys), with the SM clock it holds at
    (None for a bandwidth)."""
    if key == "dram":
        return spec.memory_bandwidth_bytes_per_s, None
    if key == "l2":
        return spec.l2_bytes_per_s, None
    dtype = key.removeprefix("tensor_")
    return spec.peaks.get(key), spec.clock_of("tensor" if key.startswith("tensor_") else key, dtype)


def device_disagreements(spec: DeviceSpec, device: Device) -> list[str]:
    """Warnings, one line each, where a spec file matched to a report contradicts the report's own device
    attributes: another compute capability, or another SM count (a MIG slice shows fewer SMs than its whole GPU:
    said, not refused, as the datasheet roofs are then the whole GPU's)."""
    if not spec.path or spec.id == DERIVED_ID:
        return []
    where = f"spec {spec.id} ({user_file(spec) or f'device_specs/{Path(spec.path).name}'})"
    out = []
    if device.compute_capability and device.compute_capability != spec.compute_capability:
        out.append(f"{where} is for compute capability {spec.compute_capability}, the report's GPU has "
                   f"{device.compute_capability}: its datasheet roofs are another GPU's (check its display_names)")
    if device.sm_count and device.sm_count != spec.sm_count:
        whose = ("the whole GPU's if this is a MIG slice of it, else another GPU's" if device.sm_count < spec.sm_count
                 else "another GPU's")
        out.append(f"{where} gives {spec.sm_count} SMs, the report's GPU has {device.sm_count}: its datasheet roofs "
                   f"are {whose} (check its display_names)")
    return out


_NOT_ALNUM = bytes(c for c in range(128) if chr(c) not in "abcdefghijklmnopqrstuvwxyz0123456789")


def _normalize(name: str) -> str:
    """Lower-case ASCII letters and digits only: what is left of a name to compare (10x faster than a regex on the
    texts of the spec files, read on every run)."""
    return name.lower().encode("ascii", "ignore").translate(None, _NOT_ALNUM).decode()


def _tokens(name: str) -> set[str]:
    return {t for t in re.split(r"[^a-z0-9]+", name.lower()) if t and t != "nvidia"}


def _memory_close(spec: DeviceSpec, device: Device) -> bool:
    if not device.total_memory_bytes or not spec.memory_bytes:
        return True
    return abs(device.total_memory_bytes / spec.memory_bytes - 1.0) <= MEMORY_MATCH_TOLERANCE


def _best_by_tokens(candidates: list[DeviceSpec], name: str) -> list[DeviceSpec]:
    wanted = _tokens(name)
    score = {s.id: max(len(wanted & _tokens(n)) for n in s.display_names) for s in candidates}
    best = max(score.values())
    return [s for s in candidates if score[s.id] == best]


# --- Loading ------------------------------------------------------------------------------------------
def load_catalog(extra: Sequence[str | os.PathLike[str]] = ()) -> SpecCatalog:
    """Built-in specs, then $ROOFLINE_SPECS, then ``extra`` (``--specs``); later ones take precedence.
    User files are validated at once; built-in ones (validated by the test suite) when first needed. Within one of
    those (every --specs file and folder together, every $ROOFLINE_SPECS entry together) two specs of one id or
    display name are refused (``_check_distinct``), a file named twice read once."""
    user = [*_layer(_env_sources(), from_env=True), *_layer(extra)]
    builtin = _builtin_files()
    measured = builtin[0].parent / MEASURED_FOLDER if builtin else None
    return SpecCatalog([u for u in user if isinstance(u, DeviceSpec)], lazy=builtin,
                       calibrations=[u for u in user if not isinstance(u, DeviceSpec)],
                       lazy_calibrations=sorted(p for p in measured.iterdir() if p.suffix in SPEC_SUFFIXES)
                       if measured and measured.is_dir() else ())


def _layer(paths: Sequence[str | os.PathLike[str]], from_env: bool = False) -> list[DeviceSpec | Calibration]:
    """The user's spec and calibration files of one source (``--specs``, or ``$ROOFLINE_SPECS``: a malformed file
    there fails a run as one given with --specs does, its error saying where it was named)."""
    try:
        files = {os.path.realpath(f): f for path in paths for f in _files_in(Path(path))}
        parsed = [_parse_any(f) for f in files.values()]
        _check_distinct([u for u in parsed if isinstance(u, DeviceSpec)])
    except SpecError as err:
        raise _named_by_env(err) if from_env else err from None
    return parsed


def _named_by_env(err: SpecError) -> SpecError:
    """A spec error of a file ``$ROOFLINE_SPECS`` names, saying so: a setting made long ago is easily forgotten."""
    return SpecError(err.message, f"{err.hint} (named by ${ENV_VAR}: fix the file, or leave it out of ${ENV_VAR})")


def catalog_problems(extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[int, list[str]]:
    """Every problem of the spec files ``load_catalog`` reads (``specs check``), each one line, all in one run: each
    file that cannot be read or parsed, a clash between files of one source, a calibration of no spec or of another
    GPU (``calibration_problems``), and ``check_spec``'s problems of each spec that parses; with the number of device
    specs checked. A path that names no spec file is a usage error (SpecError), not a problem of a file."""
    problems: list[str] = []

    def parsed(path: Path, from_env: bool = False) -> DeviceSpec | Calibration | None:
        try:
            return _parse_any(path)
        except SpecError as err:
            problems.append(str(_named_by_env(err) if from_env else err))
            return None

    user: list[DeviceSpec | Calibration] = []
    for paths, from_env in ((_env_sources(), True), (extra, False)):
        try:
            files = {os.path.realpath(f): f for path in paths for f in _files_in(Path(path))}
        except SpecError as err:
            raise _named_by_env(err) if from_env else err from None
        layer = [u for f in files.values() if (u := parsed(f, from_env)) is not None]
        try:
            _check_distinct([u for u in layer if isinstance(u, DeviceSpec)])
        except SpecError as err:
            problems.append(str(_named_by_env(err) if from_env else err))
        user += layer
    builtin = [u for p in _builtin_files() if isinstance(u := parsed(p), DeviceSpec)]
    folder = builtin_folder() / MEASURED_FOLDER
    shipped = sorted(p for p in folder.iterdir() if p.suffix in SPEC_SUFFIXES) if folder.is_dir() else []
    cals = {c.spec_id: c for c in (*map(parsed, shipped), *user) if c is not None and not isinstance(c, DeviceSpec)}
    by_id = {s.id: s for s in (*builtin, *user) if isinstance(s, DeviceSpec)}
    problems += [str(_unknown_calibration(c)) for c in cals.values() if c.spec_id not in by_id]
    for spec in by_id.values():
        problems += check_spec(spec)
        if spec.id in cals:
            problems += map(str, calibration_problems(spec, cals[spec.id]))
    return len(by_id), problems


def _env_sources() -> list[str]:
    """The spec files and folders $ROOFLINE_SPECS names."""
    return [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]


def _check_distinct(specs: Sequence[DeviceSpec]) -> None:
    """SpecError when two spec files of one source share an id or a display name (one folder, or the --specs files
    and folders together, or the $ROOFLINE_SPECS entries together): which one a GPU matches, or which replaces the
    other, would depend on the order they are named in. Across sources the order is the precedence (built-in, then
    $ROOFLINE_SPECS, then --specs): a user's spec replacing a built-in one is what they are for."""
    ids: dict[str, str] = {}
    names: dict[str, tuple[str, str]] = {}
    for spec in specs:
        if spec.id in ids:
            raise SpecError(f"{spec.path}: id '{spec.id}' is also the id of {ids[spec.id]}",
                            "give each spec file its own id, or pass only one of them")
        ids[spec.id] = spec.path
        for name in spec.display_names:
            other = names.setdefault(_normalize(name), (spec.id, spec.path))
            if other[0] != spec.id:
                raise SpecError(f"{spec.path}: display name '{name}' is also one of {other[1]} (id '{other[0]}')",
                                "a GPU must match one spec: keep the name in one file")


def _builtin_files() -> list[Path]:
    """The shipped YAML files of the GPU models (``builtin_folder``)."""
    return sorted(p for p in builtin_folder().iterdir() if p.suffix in SPEC_SUFFIXES)


def builtin_folder() -> Path:
    """The shipped specs: the folder of the package ``roofline.device_specs`` where it is installed (from a
    wheel, or editable), else the top-level ``device_specs/`` folder of a source checkout. Found with ``find_spec``,
    which neither imports the package nor ``importlib.resources`` (about 5 ms of every run's start-up)."""
    from importlib.util import find_spec

    spec = find_spec("roofline.device_specs")
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(places[0]) if places else Path(__file__).resolve().parents[2] / "device_specs"


def _files_in(path: Path) -> list[Path]:
    """The spec files of a folder, or the file itself: anything else there is (a FIFO, a loop of links) is named
    when it is read (``safe_yaml.load_yaml``)."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in SPEC_SUFFIXES)
        if not files:  # a folder given for its specs that holds none: a wrong path, not an empty choice
            raise SpecError(f"{path}: no spec file (*{', *'.join(SPEC_SUFFIXES)}) in the folder",
                            f"check --specs or ${ENV_VAR}: name a folder of device spec or calibration YAML files")
        return files
    if os.path.lexists(path):
        return [path]
    raise SpecError(f"{path}: no such spec file or folder", f"check --specs or ${ENV_VAR}")


def _parse_any(path: Path) -> DeviceSpec | Calibration:
    """A user's file: a device spec, or a calibration file (``roofline calibrate --output``)."""
    data = safe_yaml.load_yaml(path)
    from roofline.specs.calibration import is_calibration, parse

    return parse(data, str(path)) if is_calibration(data) else _build_spec(path, data)


def parse_spec_file(path: Path) -> DeviceSpec:
    """Read and validate one YAML spec; SpecError with the file, the key and what is wrong."""
    return _build_spec(path, safe_yaml.load_yaml(path))


def _build_spec(path: Path, data: Any) -> DeviceSpec:
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a mapping of keys at the top", SCHEMA_HINT)
    return _build(_Checker(path), data)


class _Checker:
    """Reads typed values out of a spec mapping, raising one-line errors that name file and key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sources: dict[str, str] = {}
        self.derived: dict[str, str] = {}

    def fail(self, key: str, problem: str) -> SpecError:
        return SpecError(f"{self.path}: key '{key}' {problem}", SCHEMA_HINT)

    def text(self, data: Mapping[str, Any], key: str, required: bool = True) -> str:
        value = data.get(key.rsplit(".", 1)[-1])
        if value is None and not required:
            return ""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "is missing or not a non-empty string")
        return value

    def number(self, data: Mapping[str, Any], key: str, limit: Limit = POSITIVE) -> float:
        """A required cited number (see ``optional_number``)."""
        value = self.optional_number(data, key, limit)
        if value is None:
            raise self.fail(key, "is missing")
        return value

    def optional_number(self, data: Mapping[str, Any], key: str, limit: Limit = POSITIVE) -> float | None:
        """A cited number ``{value, source[, derived]}`` in the physical range ``limit`` (finite and positive for
        peaks and bandwidths), with a non-empty source; None when absent."""
        item = data.get(key.rsplit(".", 1)[-1])
        if item is None:
            return None
        if not isinstance(item, dict):
            raise self.fail(key, "must be a mapping {value: NUMBER, source: TEXT}; every number needs a source")
        value, source = _as_number(item.get("value")), item.get("source")
        problem = limit.problem(value)
        if problem:
            raise self.fail(f"{key}.value", problem)
        if not isinstance(source, str) or not source.strip():
            raise self.fail(f"{key}.source", "is missing; every number needs a source")
        self.sources[key] = source
        if item.get("derived"):
            self.derived[key] = str(item["derived"])
        unknown = set(item) - {"value", "source", "derived"}
        if unknown:
            raise self.fail(key, f"has unknown field(s) {sorted(unknown)}; allowed: value, source, derived")
        return float(value)

    def section(self, data: Mapping[str, Any], key: str, allowed: Iterable[str], required: bool) -> dict[str, Any]:
        item = data.get(key)
        if item is None and not required:
            return {}
        if not isinstance(item, dict):
            raise self.fail(key, "is missing or not a mapping")
        unknown = set(item) - set(allowed)
        if unknown:
            raise self.fail(f"{key}.{sorted(unknown)[0]}", f"is not a known key; allowed: {', '.join(allowed)}")
        return item


def _check_id(path: Path, spec_id: str) -> None:
    """SpecError unless the id is in lowercase-dashes (``a100-sxm4-80gb``): one that passes through comma lists
    (``project --to a,b``). An id other than the file's name is valid (a copy of ``t4.yaml`` kept as
    ``t4-lab.yaml`` with ``id: t4`` overrides the built-in t4, calibration and all); ``specs check`` remarks it
    (``spec_remarks``)."""
    if ID_PATTERN.fullmatch(spec_id) is not None:
        return
    form = _id_form(spec_id) or _id_form(path.stem) or "my-gpu"
    raise SpecError(f"{path}: key 'id' '{spec_id}' is not lowercase-dashes",
                    f"set id: {form} (lowercase letters, digits and dashes)")


def _id_form(name: str) -> str:
    """A name in lowercase-dashes ("My GPU_2" -> "my-gpu-2"); "" when nothing of it is left."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))


def _as_number(value: Any) -> Any:
    """YAML 1.1 reads ``19.5e12`` (no sign in the exponent) and ``485e+12`` (no decimal point) as text; take such
    text as the number it is."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)[eE][+-]?\d+", value.strip()):
        return float(value)
    return value


def _build(c: _Checker, data: dict[str, Any]) -> DeviceSpec:
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise c.fail(sorted(unknown)[0], f"is not a known key; allowed: {', '.join(sorted(TOP_KEYS))}")
    names = data.get("display_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise c.fail("display_names", "must be a non-empty list of names as ncu writes them")
    if data.get("id") == DERIVED_ID:
        raise c.fail("id", f"'{DERIVED_ID}' is reserved for peaks derived from a report's device attributes")
    _check_id(c.path, c.text(data, "id"))
    cc = c.text(data, "compute_capability")
    if not CC_PATTERN.fullmatch(cc):
        raise c.fail("compute_capability", f"must look like \"8.0\", got {cc!r}")
    memory = c.section(data, "memory", ("type", "bytes", "bandwidth_bytes_per_s", "achievable_bandwidth_bytes_per_s",
                                         "clock_hz", "bus_width_bits"), required=True)
    bus = c.optional_number(memory, "memory.bus_width_bits", BUS_BITS)
    peaks_data = c.section(data, "peaks", PEAK_KEYS, required=True)
    bandwidth = c.section(data, "bandwidth", ("l2_bytes_per_s", "l1_bytes_per_s"), required=False)
    peaks = {k: c.number(peaks_data, f"peaks.{k}") if k == "fp32" else c.optional_number(peaks_data, f"peaks.{k}")
             for k in PEAK_KEYS}
    base, boost = c.optional_number(data, "base_clock_hz", CLOCK_HZ), c.number(data, "boost_clock_hz", CLOCK_HZ)
    if base is not None and base > boost:
        raise c.fail("base_clock_hz", f"{base:g} is above boost_clock_hz {boost:g}")
    for key in ("sustained_clock_hz", "tensor_clock_hz"):
        clock = c.optional_number(data, key, CLOCK_HZ)
        if clock is not None and clock > boost:
            raise c.fail(key, f"{clock:g} is above boost_clock_hz {boost:g}")
    datasheet = c.number(memory, "memory.bandwidth_bytes_per_s")
    achievable = c.optional_number(memory, "memory.achievable_bandwidth_bytes_per_s")
    if achievable is not None and achievable > datasheet:
        raise c.fail("memory.achievable_bandwidth_bytes_per_s", f"{achievable:g} is above bandwidth_bytes_per_s "
                                                                f"{datasheet:g}")
    return DeviceSpec(
        id=c.text(data, "id"), path=str(c.path), display_names=tuple(names),
        architecture=c.text(data, "architecture"), compute_capability=cc,
        sm_count=int(c.number(data, "sm_count", SM_COUNT)), boost_clock_hz=c.number(data, "boost_clock_hz", CLOCK_HZ),
        tensor_clock_hz=c.optional_number(data, "tensor_clock_hz", CLOCK_HZ),
        base_clock_hz=base, sustained_clock_hz=c.optional_number(data, "sustained_clock_hz", CLOCK_HZ),
        memory_type=c.text(memory, "memory.type"), memory_bytes=int(c.number(memory, "memory.bytes", BYTES)),
        memory_bandwidth_bytes_per_s=datasheet, memory_achievable_bytes_per_s=achievable,
        l2_bytes=int(c.number(data, "l2_bytes", BYTES)),
        peaks={k: v for k, v in peaks.items() if v is not None},
        fp32_lanes_per_sm=int(c.number(data, "fp32_lanes_per_sm", LANES)),
        memory_clock_hz=c.optional_number(memory, "memory.clock_hz", MEMORY_CLOCK_HZ),
        memory_bus_width_bits=int(bus) if bus is not None else None,
        l1_bytes_per_s=c.optional_number(bandwidth, "bandwidth.l1_bytes_per_s"),
        l2_bytes_per_s=c.optional_number(bandwidth, "bandwidth.l2_bytes_per_s"),
        chip=c.text(data, "chip", required=False), notes=c.text(data, "notes", required=False),
        board_power_w=c.optional_number(data, "board_power_w", BOARD_POWER_W),
        sources=dict(c.sources), derived=dict(c.derived),
    )


# --- Using a spec -------------------------------------------------------------------------------------
def spec_ceilings(spec: DeviceSpec, tensor_dtype: str | None = None) -> Ceilings:
    """Datasheet roofs of a spec; the tensor roof is for ``tensor_dtype`` (fp16 when None)."""
    dtype = tensor_dtype or "fp16"
    flops = {p: spec.peaks.get(p) for p in ("fp64", "fp32", "fp16")}
    flops["tensor"] = spec.peaks.get(f"tensor_{dtype}")
    bandwidth = {"dram": spec.memory_bandwidth_bytes_per_s, "l2": spec.l2_bytes_per_s, "l1": spec.l1_bytes_per_s}
    where = f"device_specs {spec.id}"
    missing = {k: f"no {k.upper()} peak in {where}" for k, v in flops.items() if v is None}
    if flops["tensor"] is None:
        missing["tensor"] = f"no dense {dtype.upper()} Tensor Core peak in {where}"
    missing.update({k: f"no documented {k.upper()} bandwidth in {where}" for k, v in bandwidth.items() if v is None})
    missing.update({k: why for k, why in spec.gaps.items() if k in missing})
    clock = f"datasheet peaks at the {spec.boost_clock_hz / 1e9:.3g} GHz boost clock"
    if spec.id == DERIVED_ID:
        clock = f"peaks {DERIVED_LABEL} at the {spec.boost_clock_hz / 1e9:.3g} GHz boost clock (the GPU's maximum)"
    if (tensor_hz := spec.tensor_figure_clock(dtype)) is not None:
        clock += f" ({dtype.upper()} Tensor figure at {tensor_hz / 1e9:.3g} GHz)"
    return Ceilings("datasheet", flops, bandwidth, clock_note=clock, tensor_dtype=dtype, missing=missing,
                    sm_clock_hz=spec.boost_clock_hz)


def _architecture_problems(spec: DeviceSpec) -> list[str]:
    """An ``architecture`` that is not a known one (``core.kernel_families.ARCHITECTURES``) or not its compute
    capability's (a copied file whose CC was changed and its architecture not)."""
    known = [name for _, name in ARCHITECTURES]
    if spec.architecture not in known:
        return [f"{spec.path}: key 'architecture' '{spec.architecture}' is not a known architecture; one of "
                f"{', '.join(known)}"]
    sm = device_sm(spec.compute_capability)
    if sm is not None and architecture(sm) != spec.architecture:
        return [f"{spec.path}: key 'architecture' '{spec.architecture}' is not the architecture of compute "
                f"capability {spec.compute_capability} ({architecture(sm)})"]
    return []


def derived_fp32(spec: DeviceSpec) -> float:
    """FP32 peak from first principles: SMs x FP32 lanes per SM x 2 FLOP per FMA x boost clock."""
    return spec.sm_count * spec.fp32_lanes_per_sm * 2 * spec.boost_clock_hz


def tensor_types_from() -> dict[str, tuple[int, ...]]:
    """The Tensor figures (peak keys, "tensor_tf32") every GPU of a compute capability from the one given on has
    the hardware for (``core.tensor_architectures.tensor_types_from``, of the Tensor Core table), in the order
    of ``PEAK_KEYS``: a spec of such a GPU that gives some Tensor figure and not these lacks a figure, not the
    hardware (``spec_remarks``)."""
    since = {f"tensor_{dtype}": cc for dtype, cc in tensor_architectures.tensor_types_from().items()}
    return {key: since[key] for key in PEAK_KEYS if key in since}


def spec_remarks(spec: DeviceSpec) -> list[str]:
    """What a valid spec likely leaves out or may surprise, not a problem (``specs check`` prints it and passes): an
    id other than its file's name (the id is what commands and ``measured/<id>.yaml`` go by); of a spec giving some
    Tensor figure, the types every GPU of its compute capability has (``tensor_types_from``) that it omits, whose
    work projections then time on other units."""
    named = [f"{spec.path}: id '{spec.id}' is not its file's name: commands, and the calibration in "
             f"measured/{spec.id}.yaml, go by the id"] if spec.path and Path(spec.path).stem != spec.id else []
    return named + _tensor_remarks(spec)


def _tensor_remarks(spec: DeviceSpec) -> list[str]:
    """The Tensor figures a spec giving some omits, though every GPU of its compute capability has them."""
    if not any(k.startswith("tensor_") for k in spec.peaks):
        return []
    cc = tuple(int(part) for part in spec.compute_capability.split("."))
    lacking = [k for k, since in tensor_types_from().items() if k not in spec.peaks and cc >= since]
    if not lacking:
        return []
    return [f"{spec.path}: gives Tensor figures but no peaks.{', peaks.'.join(lacking)}, which every GPU of compute "
            f"capability {spec.compute_capability} has: projections time that Tensor work without a Tensor roof of "
            "its type; add each figure with its source where one can be found"]


def check_spec(spec: DeviceSpec) -> list[str]:
    """Problems beyond the schema (``specs check``): an architecture that is not its compute capability's, the FP32
    cross-check, and dense figures ordered as hardware allows."""
    problems = _architecture_problems(spec)
    stated, derived = spec.peaks["fp32"], derived_fp32(spec)
    if abs(stated / derived - 1.0) > FP32_CROSS_CHECK_TOLERANCE:
        problems.append(f"{spec.path}: peaks.fp32 {stated / 1e12:.4g} TFLOP/s differs by more than 2% from "
                        f"{spec.sm_count} SMs x {spec.fp32_lanes_per_sm} lanes x 2 x "
                        f"{spec.boost_clock_hz / 1e9:.4g} GHz = {derived / 1e12:.4g} TFLOP/s")
    tf32, fp16 = spec.peaks.get("tensor_tf32"), spec.peaks.get("tensor_fp16")
    if tf32 and fp16 and tf32 > fp16:
        problems.append(f"{spec.path}: peaks.tensor_tf32 is above peaks.tensor_fp16; dense TF32 is at most the "
                        "FP16 rate (a sparse figure?)")
    return problems
