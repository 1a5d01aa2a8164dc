"""Fuzzing roofline's inputs: seeded mutations of the real reports in ../shared/ncu-reps, of report models made from
them (and the shipped synthetic example), and of the spec YAML files in device_specs/, each run through the CLI in
a subprocess with a time limit; and hostile uses of the command line (issue 37): symbolic link loops and FIFOs as
inputs, non-finite option values, names that are not text or hold control characters in every output format,
impossible model values, and multi-file outputs that fail.

Every run must end in one of two ways (``classify``):

* **valid**: exit 0, a strict JSON document on stdout whose numbers are all finite and in range (times above 0,
  shares within 0..1, nothing negative), and nothing on stderr but ``roofline: warning:`` lines;
* **error**: exit 2 and exactly one line on stderr, ``roofline: error: ...``, naming the input file (or, for a
  hostile case, what it names: the option, the output), leaving no new file in a failed output's folder.

Outputs in other formats than JSON are valid when they are UTF-8 and hold no control character but line ends.

Anything else (a traceback, another exit status, a signal, a time-out, several lines) is **other**, a defect.

``tests/test_fuzz.py`` runs a fixed-seed sample in the suite; the full set (300 reports, 150 models, 150 specs) runs
separately from the repository root, in parallel, printing the counts:

    python -m tests.fuzz                 # the full set
    python -m tests.fuzz --seed 7 --reports 600 --models 300 --specs 300
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests import installed

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "ncu-reps"
SPECS = REPO / "device_specs"
EXAMPLE = REPO / "examples" / "h100-sxm_synthetic.roofline.json"
EXAMPLE_GPU = "NVIDIA H100 80GB HBM3"  # a mutated spec is renamed to this GPU so the example is judged against it
SMALL_REPORT_BYTES = 700_000  # the reports mutated: the small ones, for a quick run each
READ_LIMIT_S = 20  # --timeout given to the reader
RUN_LIMIT_S = 90  # the whole command
FULL = {"reports": 300, "models": 150, "specs": 150, "hostile": 150}
KINDS = ("report", "model", "spec", "hostile")


@dataclass(frozen=True)
class Case:
    """One mutated input and the command line that reads it."""

    kind: str  # "report", "model", "spec" or "hostile"
    mutation: str
    path: Path
    args: tuple[str, ...]
    named: str = ""  # what an error line must name, when not an input file (an option, an output)
    clean: Path | None = None  # a folder the run may not leave a new file in when it fails


@dataclass(frozen=True)
class Outcome:
    case: Case
    verdict: str  # "valid", "error" or "other"
    detail: str = ""


# --- Mutated .ncu-rep files --------------------------------------------------------------------------------------
def small_reports() -> list[Path]:
    return sorted(p for p in SHARED.glob("*.ncu-rep") if p.stat().st_size <= SMALL_REPORT_BYTES)


def _report_mutations(rng: random.Random, data: bytes, others: Sequence[bytes]) -> tuple[str, bytes]:
    """One mutation of a report's bytes: cuts, flipped bytes (anywhere, or in the block headers), zeroed ranges,
    blocks dropped, repeated or swapped, another report appended (with or without its file header), padding."""
    from tests.ncu_blocks import blocks

    parts = blocks(data)
    first = parts[0][0]
    kind = rng.choice(["cut", "cut-at-block", "flip", "flip-header", "zero-range", "drop-block", "repeat-block",
                       "swap-blocks", "append-blocks", "append-report", "garbage", "pad", "max-u32"])
    out = bytearray(data)
    if kind == "cut":
        return kind, data[:rng.randrange(1, len(data))]
    if kind == "cut-at-block":
        return kind, data[:rng.choice(parts)[0]]
    if kind == "flip":
        for _ in range(rng.randint(1, 16)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return kind, bytes(out)
    if kind == "flip-header":
        start, _, _ = rng.choice(parts)
        out[start + rng.randrange(4, 12)] ^= 1 << rng.randrange(8)
        return kind, bytes(out)
    if kind == "zero-range":
        at, size = rng.randrange(len(out)), rng.randint(64, 4096)
        out[at:at + size] = bytes(len(out[at:at + size]))
        return kind, bytes(out)
    if kind in ("drop-block", "repeat-block", "swap-blocks"):
        chunks = [data[s:e] for s, e, _ in parts]
        i, j = rng.randrange(len(chunks)), rng.randrange(len(chunks))
        if kind == "drop-block":
            del chunks[i]
        elif kind == "repeat-block":
            chunks.insert(j, chunks[i])
        else:
            chunks[i], chunks[j] = chunks[j], chunks[i]
        return kind, data[:first] + b"".join(chunks)
    if kind == "append-blocks":  # cat a.ncu-rep <(tail -c +11 b.ncu-rep)
        return kind, data + rng.choice(others)[first:]
    if kind == "append-report":
        return kind, data + rng.choice(others)
    if kind == "garbage":
        at = rng.randrange(len(out))
        return kind, bytes(out[:at]) + rng.randbytes(rng.randint(1, 512)) + bytes(out[at:])
    if kind == "pad":
        return kind, data + bytes(rng.randint(1, 1 << 16))
    at = rng.randrange(len(out) - 4)
    out[at:at + 4] = b"\xff\xff\xff\xff"
    return kind, bytes(out)


def report_cases(rng: random.Random, count: int, folder: Path) -> list[Case]:
    sources = {p.name: p.read_bytes() for p in small_reports()}
    names = sorted(sources)
    cases = []
    for i in range(count):
        name = names[i % len(names)]
        mutation, data = _report_mutations(rng, sources[name], [sources[n] for n in names if n != name])
        path = folder / f"r{i:03d}_{mutation}.ncu-rep"
        path.write_bytes(data)
        cases.append(Case("report", f"{mutation} of {name}", path,
                          ("report", str(path), "-f", "json", "--timeout", str(READ_LIMIT_S))))
    return cases


# --- Mutated report models ---------------------------------------------------------------------------------------
HOSTILE_VALUES: tuple[Any, ...] = (None, -1, 0, 0.5, -1e-9, math.nan, math.inf, -math.inf, 1e308, 2**64, "text", "",
                                   [], {}, True, [[[[1]]]], "9.0a", "8", 8.0, 255, 256, 10**12)


def model_sources() -> list[dict[str, Any]]:
    """The synthetic example and the models of a few small real reports (what `Report.to_dict` writes)."""
    from roofline.ncu.reader import load_report

    docs = [json.loads(EXAMPLE.read_text())]
    docs += [load_report(p).to_dict() for p in small_reports()[:4]]
    return docs


def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value in a JSON document (keys and list indices)."""
    yield path
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _leaves(value, (*path, i))


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _model_mutation(rng: random.Random, doc: dict[str, Any]) -> tuple[str, str]:
    """One mutation of a model: a value replaced by a hostile one, a key removed or added, launches repeated or
    renumbered, or the text itself cut, flipped, deeply nested or made non-UTF-8 (returned as text)."""
    kind = rng.choice(["value", "value", "value", "metric", "delete", "unknown-key", "repeat-launch", "huge-int",
                       "cut-text", "flip-text", "deep", "not-utf8"])
    doc = copy.deepcopy(doc)
    paths = [p for p in _leaves(doc) if p]
    if kind in ("value", "delete", "unknown-key"):
        path = rng.choice(paths)
        if kind == "value":
            _set(doc, path, rng.choice(HOSTILE_VALUES))
        elif kind == "delete" and isinstance(_parent(doc, path), dict):
            del _parent(doc, path)[path[-1]]
        elif isinstance(_parent(doc, path), dict):
            _parent(doc, path)["unexpected_" + str(path[-1])] = 1
    elif kind == "metric":
        _hostile_metric(rng, doc["launches"])
    elif kind == "repeat-launch":
        _repeat_launch(rng, doc["launches"])
    text = json.dumps(doc)
    if kind == "huge-int":  # a number no float holds, in place of a random number of the document
        numbers = list(re.finditer(r'": (-?[0-9][0-9.eE+-]*)', text))
        if numbers:
            start, end = rng.choice(numbers).span(1)
            text = text[:start] + "1" + "0" * 400 + text[end:]
    elif kind == "cut-text":
        text = text[:rng.randrange(len(text))]
    elif kind == "flip-text":
        at = rng.randrange(len(text))
        text = text[:at] + chr(rng.randrange(32, 127)) + text[at + 1:]
    elif kind == "deep":
        text = text.replace('"label": ', '"label": ' + "[" * 5000 + "]" * 5000 + ", \"x\": ", 1)
    return kind, text


def _hostile_metric(rng: random.Random, launches: Any) -> None:
    """A hostile value for one metric of one launch: in its object (model version 1) or its column (version 2)."""
    if isinstance(launches, list):
        metrics = rng.choice(launches)["metrics"]
        if metrics:
            metrics[rng.choice(sorted(metrics))] = rng.choice(HOSTILE_VALUES)
    elif launches["count"] and launches["metrics"]:
        column = launches["metrics"][rng.choice(sorted(launches["metrics"]))]
        column[rng.randrange(len(column))] = rng.choice(HOSTILE_VALUES)


def _repeat_launch(rng: random.Random, launches: Any) -> None:
    """One launch again at the end: its object (model version 1) or its value in every column (version 2)."""
    if isinstance(launches, list):
        launches.append(copy.deepcopy(rng.choice(launches)))
    elif launches["count"]:
        i = rng.randrange(launches["count"])
        columns = [c for key, c in launches.items() if key not in ("count", "metrics")]
        for column in (*columns, *launches["metrics"].values()):
            column.append(copy.deepcopy(column[i]))
        launches["count"] += 1


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def model_cases(rng: random.Random, count: int, folder: Path) -> list[Case]:
    sources = model_sources()
    cases = []
    for i in range(count):
        mutation, text = _model_mutation(rng, sources[i % len(sources)])
        path = folder / f"m{i:03d}_{mutation}.json"
        path.write_bytes(text.encode() if mutation != "not-utf8" else text.encode().replace(b"e", b"\xe9", 3))
        cases.append(Case("model", mutation, path, ("report", str(path), "-f", "json")))
    return cases


# --- Mutated spec YAML -------------------------------------------------------------------------------------------
HOSTILE_YAML = (".nan", ".inf", "-.inf", "-1", "0", "0.5", "1..2e3", "1e400", "1" + "0" * 400, "abc", "[1, 2]",
                "{a: 1}", "~", "true", "''", "9.0a", "1.0e-30", "1.0e+30", "7", "19.5e12")  # the last: odd but valid
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))


def _spec_mutation(rng: random.Random, text: str) -> tuple[str, bytes]:
    """One mutation of a spec's text: a value replaced by a hostile scalar, a line dropped, an unknown key, an alias
    bomb, deep nesting, a cut, or bytes that are not UTF-8. The spec is first renamed to the example's GPU."""
    lines = text.replace("display_names:", f"display_names: [\"{EXAMPLE_GPU}\"]\nold_display_names:", 1)
    lines = lines.replace("old_display_names:", "# display_names:", 1)
    rows = lines.splitlines()
    kind = rng.choice(["renamed", "number", "number", "number", "number", "value", "drop-line", "unknown-key",
                       "alias-bomb", "deep", "cut", "not-utf8", "tab"])
    valued = [i for i, row in enumerate(rows) if ": " in row and not row.lstrip().startswith("#")]
    cited = [i for i, row in enumerate(rows) if "{value: " in row]
    if kind == "number":  # the number inside {value: ..., source: ...}
        i = rng.choice(cited)
        head, tail = rows[i].split("{value: ", 1)
        rows[i] = f"{head}{{value: {rng.choice(HOSTILE_YAML)}, {tail.split(', ', 1)[1]}"
    elif kind == "value":
        i = rng.choice(valued)
        key = rows[i].split(": ", 1)[0]
        rows[i] = f"{key}: {rng.choice(HOSTILE_YAML)}"
    elif kind == "drop-line":
        del rows[rng.choice(valued)]
    elif kind == "unknown-key":
        rows.append("frequency_hz: {value: 1.0e9, source: made up}")
    elif kind == "alias-bomb":
        rows = ALIAS_BOMB.splitlines() + rows
    elif kind == "deep":
        rows.append("notes: " + "[" * 2000 + "]" * 2000)
    elif kind == "cut":
        rows = rows[:rng.randrange(1, len(rows))]
    elif kind == "tab":
        i = rng.choice(valued)
        rows[i] = "\t" + rows[i]
    data = ("\n".join(rows) + "\n").encode()
    if kind == "not-utf8":
        data = data.replace(b"a", b"\xe0", 2)
    return kind, data


def spec_cases(rng: random.Random, count: int, folder: Path) -> list[Case]:
    sources = sorted(SPECS.glob("*.yaml"))
    cases = []
    for i in range(count):
        source = sources[i % len(sources)]
        mutation, data = _spec_mutation(rng, source.read_text())
        path = folder / f"s{i:03d}_{mutation}" / source.name  # a spec's id is its file's name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        cases.append(Case("spec", f"{mutation} of {source.name}", path,
                          ("report", str(EXAMPLE), "-f", "json", "--ceilings", "datasheet", "--specs", str(path))))
    return cases


# --- Hostile uses of the command line (issue 37) -------------------------------------------------------------------
HOSTILE_NAMES = ("k\x1b[2J\x1b[31mred\x1b]0;title\x07", "k\x00nul\rcr\nlf<script>alert(1)</script>",
                 "k\ud800x\udfff", "=HYPERLINK(\"http://x\")", "a$\\frac{$b", "k\u202eevil\u2028",
                 "<sub>x</sub>\n# heading", "k" * 70_000)
NON_FINITE = ("nan", "-nan", "NaN", "inf", "-inf", "1e999")
FLOAT_OPTIONS = {"diff": ("--fail-if-slower", "--fail-if-total-slower", "--min-share", "--fail-if-roof-drop",
                          "--alpha", "--work-tolerance", "--timeout"),
                 "compare": ("--alpha", "--work-tolerance", "--timeout"), "report": ("--spread-threshold", "--timeout")}
IMPOSSIBLE: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("registers_per_thread",), -5), (("shared_mem_per_block_bytes",), -1), (("block",), [-2**63, 1, 1]),
    (("grid",), [0, -1, 1]), (("metrics", "launch__waves_per_multiprocessor"), -0.0),
    (("metrics", "gpu__time_duration.sum"), -0.0), (("registers_per_thread",), 2**40))
TEXT_FORMATS = ("table", "json", "csv", "markdown", "html")


def _example() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text())


def _hostile_case(rng: random.Random, i: int, folder: Path) -> Case:
    """One hostile case, in its own folder (the run's working folder)."""
    kind = rng.choice(["loop", "fifo", "option", "name", "name", "impossible", "outputs"])
    here = folder / f"h{i:03d}_{kind}"
    here.mkdir()
    if kind == "loop":
        suffix = rng.choice([".ncu-rep", ".json", ".yaml"])
        first = here / f"a{suffix}"
        if rng.random() < 0.5:
            first.symlink_to(first.name)
        else:
            first.symlink_to(f"b{suffix}")
            (here / f"b{suffix}").symlink_to(first.name)
        return _input_case(kind, first)
    if kind == "fifo":
        suffix = rng.choice([".ncu-rep", ".json", ".yaml", "dir"])
        if suffix == "dir":
            (here / "specs").mkdir()
            os.mkfifo(here / "specs" / "f.yaml")
            return Case("hostile", "fifo in --specs DIR", here / "specs" / "f.yaml",
                        ("report", str(EXAMPLE), "-f", "json", "--specs", str(here / "specs")), named="f.yaml")
        os.mkfifo(here / f"x{suffix}")
        return _input_case(kind, here / f"x{suffix}")
    if kind == "option":
        command = rng.choice(sorted(FLOAT_OPTIONS))
        option, value = rng.choice(FLOAT_OPTIONS[command]), rng.choice(NON_FINITE)
        files = (str(EXAMPLE),) * (1 if command == "report" else 2)
        return Case("hostile", f"{command} {option} {value}", here / "none", (command, *files, option, value, "-f",
                    "json"), named=option)
    if kind in ("name", "impossible"):
        doc = _example()
        if kind == "name":
            name = rng.choice(HOSTILE_NAMES)
            field = rng.choice(["launch", "label", "device", "rule"])
            if field == "launch":
                doc["launches"][0]["name"] = doc["launches"][0]["demangled_name"] = name
            elif field == "label":
                doc["label"] = name
            elif field == "device":
                doc["device"]["name"] = name
            else:
                doc["launches"][0]["rules"] = [{"rule": name, "section": name, "title": name, "message": name,
                                                "kind": "warning"}]
            mutation = f"{field} name {name[:30]!r}"
        else:
            key, impossible = rng.choice(IMPOSSIBLE)
            _set(doc["launches"][0], key, impossible)
            mutation = f"{'.'.join(key)} = {impossible!r}"
        path = here / "model.json"
        path.write_text(json.dumps(doc))
        fmt = rng.choice(TEXT_FORMATS) if kind == "name" else "json"
        out = ("-o", str(here / f"out.{fmt}")) if fmt in ("markdown", "html") else ()
        plot = ("--plot", str(here / "p.png")) if rng.random() < 0.3 else ()
        return Case("hostile", f"{mutation} as {fmt}", path, ("report", str(path), "-f", fmt, *out, *plot))
    fmt = rng.choice(["markdown", "html"])  # "outputs": the document cannot be written, its plots must not stay
    (here / "doc.md").mkdir()
    return Case("hostile", f"{fmt} onto a folder", here / "doc.md",
                ("report", str(EXAMPLE), "-f", fmt, "-o", str(here / "doc.md"), "--plot", str(here / "p.png")),
                named="doc.md", clean=here)


def _input_case(kind: str, path: Path) -> Case:
    """A hostile input: a report (or model) itself, or a spec file through --specs."""
    if path.suffix == ".yaml":
        return Case("hostile", f"{kind} {path.name} as --specs", path,
                    ("report", str(EXAMPLE), "-f", "json", "--specs", str(path)))
    return Case("hostile", f"{kind} {path.name}", path, ("report", str(path), "-f", "json"))


def hostile_cases(rng: random.Random, count: int, folder: Path) -> list[Case]:
    return [_hostile_case(rng, i, folder) for i in range(count)]


# --- Running and judging ---------------------------------------------------------------------------------------------
def run(case: Case) -> Outcome:
    env = installed.child_env(COLUMNS="80")
    before = sorted(os.listdir(case.clean)) if case.clean else []
    try:
        proc = subprocess.run([sys.executable, "-m", "roofline", *case.args], capture_output=True, env=env,
                              cwd=case.path.parent, timeout=RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        return Outcome(case, "other", f"no answer within {RUN_LIMIT_S} s")
    try:
        stdout, stderr = proc.stdout.decode(), proc.stderr.decode()
    except UnicodeDecodeError as err:
        return Outcome(case, "other", f"output that is not UTF-8 ({err})")
    if case.clean and proc.returncode != 0 and sorted(os.listdir(case.clean)) != before:
        return Outcome(case, "other", f"a failed run left {sorted(set(os.listdir(case.clean)) - set(before))}")
    return classify(case, proc.returncode, stdout, stderr)


def classify(case: Case, code: int, stdout: str, stderr: str) -> Outcome:
    """valid, error or other (see the module docstring)."""
    lines = stderr.splitlines()
    if code == 2:
        names = [case.named] if case.named else [str(Path(a)) for a in case.args
                                                 if a.endswith((".ncu-rep", ".json", ".yaml"))]
        named = any(name in lines[0] for name in names) if len(lines) == 1 else False
        if len(lines) == 1 and lines[0].startswith("roofline: error: ") and named:
            return Outcome(case, "error", lines[0])
        return Outcome(case, "other", f"exit 2 but stderr is not one line naming the file: {stderr[-600:]!r}")
    if code != 0:
        return Outcome(case, "other", f"exit {code}: {stderr[-600:]!r}")
    stray = [line for line in lines if not line.startswith(("roofline: warning: ", "wrote "))]
    if stray:
        return Outcome(case, "other", f"exit 0 with stray stderr: {stray[:3]!r}")
    fmt = case.args[case.args.index("-f") + 1] if "-f" in case.args else "table"
    if fmt != "json":
        return _text_outcome(case, fmt, stdout)
    try:
        doc = json.loads(stdout, parse_constant=_reject)
    except ValueError as err:
        return Outcome(case, "other", f"output is not strict JSON ({err})")
    problems = list(out_of_range(doc))
    return Outcome(case, "other", "; ".join(problems[:3])) if problems else Outcome(case, "valid")


# What the terminal and document formats may not hold: control characters but the line end. CSV is judged on being
# written at all (UTF-8, exit 0): a quoted cell may hold a line break.
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
STRICT_TEXT = ("table", "markdown", "html")


def _text_outcome(case: Case, fmt: str, stdout: str) -> Outcome:
    """A table, CSV, Markdown or HTML output: written (to stdout or its -o file), and for the terminal formats free
    of control characters."""
    text = stdout
    if "-o" in case.args:
        out = Path(case.args[case.args.index("-o") + 1])
        try:
            text = out.read_bytes().decode()
        except (OSError, UnicodeDecodeError) as err:
            return Outcome(case, "other", f"{out.name} not written as UTF-8 ({err})")
    raw = _RAW_CONTROL.search(text)
    if fmt in STRICT_TEXT and raw:
        return Outcome(case, "other", f"{fmt} output holds the control character {raw.group()!r}")
    return Outcome(case, "valid")


def _reject(token: str) -> Any:
    raise ValueError(f"{token} in the output")


def out_of_range(doc: Any, path: str = "") -> Iterator[str]:
    """Numbers a valid result may not hold: negative ones, times of 0 or less, shares above 1 (a ``missing`` table
    maps paths to reasons, or to their indices in the report's ``reasons``: no measured number there)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key != "missing":
                yield from out_of_range(value, f"{path}.{key}")
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from out_of_range(value, f"{path}[{i}]")
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        if doc < 0 and not path.endswith(("est_saved_s",)):
            yield f"{path} = {doc} (negative)"
        elif path.endswith(("duration_s", "total_s", "median_s", "min_s", "max_s")) and doc <= 0:
            yield f"{path} = {doc} (a time of 0)"
        elif re.search(r"(^|_)share$", path.rsplit(".", 1)[-1]) and doc > 1 + 1e-9:
            yield f"{path} = {doc} (a share above 1)"


def run_all(cases: Sequence[Case], workers: int | None = None,
            progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Every case, ``workers`` at a time (default: one per CPU)."""
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2) as pool:
        outcomes = []
        for outcome in pool.map(run, cases):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes


def cases(seed: int, counts: dict[str, int], folder: Path) -> list[Case]:
    """The seeded cases: the same seed and counts give the same files."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    return [*report_cases(rng, counts["reports"], folder), *model_cases(rng, counts["models"], folder),
            *spec_cases(rng, counts["specs"], folder), *hostile_cases(rng, counts.get("hostile", 0), folder)]


def summary(outcomes: Sequence[Outcome]) -> str:
    by_kind = Counter((o.case.kind, o.verdict) for o in outcomes)
    counts = Counter(o.verdict for o in outcomes)
    per_kind = ", ".join(f"{kind}s {sum(by_kind[(kind, v)] for v in ('valid', 'error', 'other'))} "
                         f"({by_kind[(kind, 'valid')]}/{by_kind[(kind, 'error')]}/{by_kind[(kind, 'other')]})"
                         for kind in KINDS)
    return (f"{len(outcomes)} cases: valid {counts['valid']}, one-line error {counts['error']}, other "
            f"{counts['other']} [{per_kind}; valid/error/other]")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=15)
    for kind, n in FULL.items():
        parser.add_argument(f"--{kind}", type=int, default=n)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"fuzz: {SHARED} not found (the real reports are needed)", file=sys.stderr)
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="roofline-fuzz-") as tmp:
        outcomes = run_all(cases(args.seed, {k: getattr(args, k) for k in FULL}, Path(tmp)), args.workers)
        for o in outcomes:
            if o.verdict == "other":
                print(f"OTHER {o.case.kind} {o.case.mutation} ({o.case.path.name}): {o.detail}")
    print(f"fuzz (seed {args.seed}): {summary(outcomes)} in {time.monotonic() - started:.0f} s")
    return 1 if any(o.verdict == "other" for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
