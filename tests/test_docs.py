"""The README and the pages under docs/ hang together: every relative link reaches an existing file, every #anchor
a heading of its page (by GitHub's anchor rule), and the README links every page of docs/. The licence and the
changelog agree with the package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import installed

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"

FENCE = re.compile(r"^ *```.*?^ *```[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?: \"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6} +(?P<text>.+?) *#* *$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, ...


def pages() -> list[Path]:
    """The README and every Markdown page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(page: Path) -> str:
    """The page without its fenced code blocks, where a '#' line or a bracket is code, not Markdown."""
    return FENCE.sub("", page.read_text())


def links(page: Path) -> list[str]:
    """The targets of the page's Markdown links, outside code blocks and code spans."""
    return [m["target"] for m in LINK.finditer(CODE_SPAN.sub("", prose(page)))]


def relative_links(page: Path) -> list[tuple[Path, str]]:
    """Each link to a place in this repository as (the file it names, its #anchor or ''); web links left out."""
    found = []
    for target in links(page):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        found.append(((page.parent / path).resolve() if path else page.resolve(), anchor))
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: its text as shown (code marks and link targets gone), lower case, every
    character but letters, digits, '_', '-' and spaces dropped, each space a '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of the page's headings; a repeated one also as GitHub numbers it (-1, -2, ...)."""
    found: set[str] = set()
    for m in HEADING.finditer(prose(page)):
        base = name = anchor(m["text"])
        repeat = 0
        while name in found:
            repeat += 1
            name = f"{base}-{repeat}"
        found.add(name)
    return found


def test_the_anchor_rule_is_githubs() -> None:
    """Known GitHub anchors of headings with code, punctuation and underscores."""
    assert anchor("Choosing kernels: `--kernel`") == "choosing-kernels---kernel"
    assert anchor("Ceilings: kernel-clock, datasheet and the report's own") == (
        "ceilings-kernel-clock-datasheet-and-the-reports-own")
    assert anchor("JSON output (`--format json`, schema_version 3)") == "json-output---format-json-schema_version-3"


def test_the_docs_folder_has_pages() -> None:
    """docs/ holds pages, so the checks below cannot pass on an empty folder."""
    assert len(pages()) > 1


def test_every_relative_link_points_to_an_existing_file() -> None:
    """A link to a page or file of the repository names one that exists."""
    broken = [f"{page.relative_to(REPO)}: {path}" for page in pages() for path, _ in relative_links(page)
              if not path.exists()]
    assert not broken, "\n".join(broken)


def test_every_anchor_link_points_to_a_heading_of_its_page() -> None:
    """A #anchor, on the same page or another, is the anchor of a heading of that page."""
    broken = [f"{page.relative_to(REPO)}: {path.name}#{name}" for page in pages()
              for path, name in relative_links(page)
              if name and path.suffix == ".md" and path.exists() and name not in anchors(path)]
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    """The README's list of pages is complete: no page of docs/ is reachable only by browsing the folder."""
    linked = {path for path, _ in relative_links(README)}
    assert [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked] == []


ARCHITECTURE = DOCS / "architecture.md"
PACKAGE = REPO / "roofline"


def modules() -> list[str]:
    """Every module of the package, as a path below roofline/ ("ncu/reader.py"); packages' __init__ files aside."""
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")


def tree_entries() -> dict[str, list[str]]:
    """The module tree of docs/architecture.md: per stage folder ("" for the package's top), its entries, each the
    text of its first line and its continuation lines."""
    block = next(b for b in FENCE.findall(ARCHITECTURE.read_text()) if "\nroofline/\n" in b)
    out: dict[str, list[str]] = {"": []}
    stage = ""
    for line in block.splitlines()[2:-1]:
        if match := re.match(r"^  (\w+)/ ", line):
            stage = match.group(1)
            out[stage] = []
        if re.match(r"^ {2,4}\S", line):
            out[stage if line.startswith("    ") else ""].append(line)
        elif line.strip() and out[stage]:
            out[stage][-1] += " " + line.strip()
    return out


def placed(module: str, entries: dict[str, list[str]]) -> bool:
    """Whether the tree names a module: its file name in its stage's entries, in the entry of its subfolder
    ("report/ table.py, json.py, ..."), or a folder's pattern ("commands/<command>.py")."""
    parts = module.split("/")
    stage, name = (parts[0], parts[-1]) if len(parts) > 1 else ("", parts[0])
    listed = entries.get(stage, [])
    if len(parts) > 2:
        listed = [e for e in listed if e.split()[0] == f"{parts[1]}/" or e.split()[0] == f"{parts[1]}/<command>.py"]
        if any(e.split()[0].endswith("<command>.py") for e in listed):
            return True
    return any(re.search(rf"(?<![\w/]){re.escape(name)}\b", e) for e in listed)


def test_the_architecture_page_places_every_module() -> None:
    entries = tree_entries()
    assert [module for module in modules() if not placed(module, entries)] == []


def test_the_tree_reader_finds_a_missing_module() -> None:
    entries = tree_entries()
    assert placed("ncu/reader.py", entries) and placed("render/report/json.py", entries)
    assert placed("cli/commands/report.py", entries) and placed("pipeline.py", entries)
    assert not placed("ncu/nothing.py", entries) and not placed("render/report/nothing.py", entries)


def test_every_module_has_a_mirrored_test_file_or_one_the_architecture_page_names() -> None:
    """A module's tests mirror it (tests/ncu/test_reader.py for roofline/ncu/reader.py), or the table of
    docs/architecture.md names the test file that covers it, and that file exists."""
    named = dict(re.findall(r"^\| `([^`]+\.py)` \| `(tests/[^`]+\.py)`", ARCHITECTURE.read_text(), flags=re.M))
    assert [test for test in named.values() if not (REPO / test).is_file()] == []
    uncovered = []
    for module in modules():
        folder, _, name = module.rpartition("/")
        mirrored = REPO / "tests" / folder / f"test_{name}"
        command = folder == "cli/commands" and (REPO / "tests" / folder / f"test_{name[:-3]}_command.py").is_file()
        if not (mirrored.is_file() or command or module in named):
            uncovered.append(module)
    assert uncovered == []


def test_the_changelog_has_the_package_version_and_unreleased_changes() -> None:
    """CHANGELOG.md in Keep a Changelog form: an Unreleased section first, then a section of the package's version."""
    from roofline import __version__

    versions = re.findall(r"^## \[([^\]]+)\]", (REPO / "CHANGELOG.md").read_text(), flags=re.M)
    assert versions[:2] == ["Unreleased", __version__]


def test_the_licence_is_the_one_the_package_declares() -> None:
    """LICENSE holds the licence that pyproject.toml declares and the README names."""
    declared = re.search(r'^license = \{ text = "([^"]+)" \}$', (REPO / "pyproject.toml").read_text(), flags=re.M)
    assert declared is not None
    assert (REPO / "LICENSE").read_text().splitlines()[0] == f"{declared[1]} License"
    assert f"{declared[1]} ([LICENSE](LICENSE))" in README.read_text()


# --- Every command the pages show runs as shown ------------------------------------------------------------------
SHARED = REPO.parent / "shared" / "ncu-reps"
EXAMPLES = REPO / "examples" / "h100"
BASH_BLOCK = re.compile(r"^```(?:bash|sh|shell)\n(.*?)^```", re.MULTILINE | re.DOTALL)
# The placeholder files the pages name, and the report each stands for here: a shipped example where one fits,
# else a shared real report (those commands skip when ../shared/ncu-reps is absent).
STAND_INS = {
    "app.ncu-rep": SHARED / "rtx3080_sgemm-vs-cublas_full.ncu-rep",  # an application with cuBLAS ampere_sgemm
    "a10g.ncu-rep": SHARED / "rtx3080_sgemm-vs-cublas_full.ncu-rep",  # cuBLAS SGEMM on one GPU ...
    "h100.ncu-rep": SHARED / "rtx4090_torch-linear-sgemm_custom.ncu-rep",  # ... and of its family on another
    "rtx4070ti.ncu-rep": SHARED / "rtx4070ti_pytorch-sim_full.ncu-rep",
    "before.ncu-rep": EXAMPLES / "triad-cupy.roofline.ncu-rep",  # one kernel, profiled twice on one GPU
    "after.ncu-rep": EXAMPLES / "triad-cupy.full.ncu-rep",
    "main.ncu-rep": EXAMPLES / "torch-bf16.roofline.ncu-rep",  # one GEMM, profiled twice: nothing regressed
    "pr.ncu-rep": EXAMPLES / "torch-bf16.full.ncu-rep",
    "reports/rank0.ncu-rep": EXAMPLES / "triad-half2.roofline.ncu-rep",  # what reports/*.ncu-rep finds
    "reports/rank1.ncu-rep": EXAMPLES / "triad-half2.full.ncu-rep",
    "app.sqlite": SHARED.parent / "nsys-reps" / "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite",  # NVTX ranges
    "rank0.sqlite": SHARED.parent / "nsys-reps" / "gp100_miniweather-openacc_2021.2-export2022.2.sqlite",
    "rank1.sqlite": SHARED.parent / "nsys-reps" / "rtx3090_memfusion-conv-nvtx_2023.1.sqlite",
    "x.ncu-rep": EXAMPLES / "torch-bf16.roofline.ncu-rep",  # the work of the kernel the shipped export times
}
# `roofline analyze --no-counters` runs the stand-in nsys of tests/fake_nsys, which hands out the shipped export
NSYS_EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"
# `roofline analyze` runs the stand-in ncu of tests/fake_ncu, which runs the application and copies this report
# as the one it wrote; the applications themselves are stand-ins that exit 0 (PyTorch would need a GPU).
PROFILED = SHARED / "rtx3080_sgemm-vs-cublas_full.ncu-rep"
STAND_IN_APPS = ("app.py", "examples/pytorch_matmul.py")
# Lines that are not run here, and why.
NOT_RUN = {
    "python3 -m venv": "sets up an environment: the one this test runs in",
    "mpiexec -n": "8 or 64 MPI ranks; tests/cli/commands/test_wrap_mpi.py and test_summary_mpi.py run wrap and "
                  "summary --mpi under mpiexec",
    "srun ": "Slurm's launcher, not on this machine",
}


def shown_commands() -> list[tuple[str, str]]:
    """(page, command line) of every line of a bash block, its trailing comment left out."""
    return [(page.name, re.sub(r"\s+#.*$", "", line).strip()) for page in pages()
            for block in BASH_BLOCK.findall(page.read_text()) for line in block.splitlines() if line.strip()]


def test_the_pages_show_commands_and_each_is_run_or_said_why_not() -> None:
    """Every line is a roofline command (run below) or one NOT_RUN names, so no command is left out unseen."""
    lines = [line for _, line in shown_commands()]
    assert len([line for line in lines if line.startswith("roofline ")]) >= 20
    assert [line for line in lines if not line.startswith("roofline ") and
            not any(line.startswith(prefix) for prefix in NOT_RUN)] == []


def stage(folder: Path, args: list[str]) -> None:
    """The folder a command runs in: the placeholders it names linked to their stand-ins, the examples, the
    stand-in apps."""
    for name, target in STAND_INS.items():
        if not any(name == a or (name.startswith("reports/") and a == "reports/*.ncu-rep") for a in args):
            continue
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).symlink_to(target)
    (folder / "examples").mkdir()
    for item in (REPO / "examples").iterdir():
        (folder / "examples" / item.name).symlink_to(item)
    for app in STAND_IN_APPS:
        (folder / app).unlink(missing_ok=True)
        (folder / app).write_text("print('app ran')\n")


@pytest.mark.parametrize("page, line", [c for c in shown_commands() if c[1].startswith("roofline ")],
                         ids=lambda v: v if isinstance(v, str) and v.endswith(".md") else None)
def test_the_command_runs_as_shown(page: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import glob
    import shlex
    import subprocess
    import sys

    from tests.fake_ncu import fakencu
    from tests.fake_nsys import fakensys

    args = shlex.split(line)[1:]
    needed = [t for name, t in STAND_INS.items() if name in args or (name.startswith("reports/") and
                                                                      "reports/*.ncu-rep" in args)]
    needed += [PROFILED] * (args[0] == "analyze")
    missing = [p.name for p in needed if not p.exists()]
    if missing:
        pytest.skip(f"test data not found: {', '.join(missing)} in ../shared/ncu-reps next to the repository")
    stage(tmp_path, args)
    fake = fakencu.install(monkeypatch, tmp_path / "ncu")
    fakensys.install(monkeypatch, tmp_path / "nsys", NSYS_EXPORT)
    monkeypatch.setenv("FAKE_NCU_REPORT", str(PROFILED))
    monkeypatch.setenv("FAKE_NCU_KERNELS", "gemm,ampere_sgemm_128x64_nn")
    expanded = [hit for a in args for hit in (sorted(glob.glob(a, root_dir=tmp_path)) if "*" in a else [a])]
    env = installed.child_env(COLUMNS="100")
    proc = subprocess.run([sys.executable, "-m", "roofline", *expanded], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"{page}: {line}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr
    if args[0] == "analyze" and "--dry-run" not in args and "--no-counters" not in args:
        assert fake.argvs(), "the stand-in ncu was not run"
