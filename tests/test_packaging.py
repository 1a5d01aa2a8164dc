"""What a user installs is what the tests test (issue 42).

The fast half runs in every test run: the wheel's package list is found, not listed, and the tests import the
installed package (``tests/installed.py`` stops the run before any test otherwise). The slow half (marker ``slow``:
the README's test command leaves it out, ``.ci/run`` runs it right after) builds the sdist and, from it, the wheel,
out of a clean copy of the committed tree, checks both hold every module and spec file of that tree, installs the
wheel into a new virtual environment within the test lock, and runs every command a user can type, from a folder
outside the tree, on the shipped examples: each must exit as documented, with no traceback.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import roofline
from tests import installed

REPO = installed.REPO
LOCK = REPO / "requirements" / "test-lock.txt"
NSYS_EXAMPLE = "examples/nsys/h100-examples.sqlite"


def test_the_tests_import_the_installed_package_not_the_source_tree() -> None:
    package = Path(roofline.__file__).parent
    if installed.problem(package) is None and package.resolve() == (REPO / "roofline").resolve():
        pytest.skip(f"{installed.SOURCE_SWITCH}=1: this run tests the source tree on purpose")
    assert package.resolve() != (REPO / "roofline").resolve()
    assert installed.problem(package) is None


def test_the_package_list_is_found_not_written() -> None:
    assert "\npackages = [" not in (REPO / "pyproject.toml").read_text()
    assert 'find_packages(include=["roofline", "roofline.*"])' in (REPO / "setup.py").read_text()


def test_a_module_missing_from_the_install_is_named(tmp_path: Path) -> None:
    copy = tmp_path / "roofline"
    shutil.copytree(REPO / "roofline", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "device_specs", copy / "device_specs")
    (copy / "nsys" / "timeline.py").unlink()
    assert "lacks nsys/timeline.py" in (installed.problem(copy) or "")


# --- The slow half: build, install, run as a user -----------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """The clean copy of the committed tree, its sdist and wheel, and a new environment with the wheel installed."""

    tree: Path
    sdist: Path
    wheel: Path
    env: Path
    user: Path  # a folder outside the tree, with the shipped examples


def committed_tree(into: Path) -> Path:
    """The committed tree (``git archive HEAD``), unpacked into ``into``; skip outside a git checkout."""
    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("the install test builds from the committed tree: it needs a git checkout and git")
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=REPO, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def run(command: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """A build or install step; its output in the assertion when it fails."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=installed.child_env())
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Build the sdist, then the wheel from it, and install the wheel into a new virtual environment."""
    base = tmp_path_factory.mktemp("install")
    tree = committed_tree(base / "tree")
    dist = base / "dist"
    run([sys.executable, "-m", "build", "--outdir", str(dist), str(tree)], cwd=base)
    (sdist,), (wheel,) = dist.glob("*.tar.gz"), dist.glob("*.whl")
    env = base / "env"
    run([sys.executable, "-m", "venv", str(env)], cwd=base)
    run([str(env / "bin" / "pip"), "install", "-q", "-c", str(LOCK), str(wheel)], cwd=base)
    user = base / "user"
    shutil.copytree(tree / "examples", user / "examples")
    return Built(tree, sdist, wheel, env, user)


def tree_files(tree: Path) -> Iterator[str]:
    """Every file the package must ship, as its path inside an installed ``roofline``."""
    for path in sorted((tree / "roofline").rglob("*")):
        if path.is_file():
            yield str(path.relative_to(tree)).replace("\\", "/")
    specs = tree / "device_specs"
    for path in sorted([*specs.glob("*.yaml"), *specs.glob("measured/*.yaml"), *specs.glob("architecture/*.yaml"),
                        specs / "__init__.py"]):
        yield f"roofline/device_specs/{path.relative_to(specs)}"


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_spec_of_the_tree(built: Built) -> None:
    names = set(zipfile.ZipFile(built.wheel).namelist())
    missing = [name for name in tree_files(built.tree) if name not in names]
    assert not missing, f"missing from {built.wheel.name}: {missing}"


@pytest.mark.slow
def test_the_sdist_holds_every_module_and_spec_of_the_tree(built: Built) -> None:
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    expected = [*(str(p.relative_to(built.tree)) for p in (built.tree / "roofline").rglob("*") if p.is_file()),
                *(str(p.relative_to(built.tree)) for p in (built.tree / "device_specs").rglob("*.yaml"))]
    missing = [name for name in expected if name not in names]
    assert not missing, f"missing from {built.sdist.name}: {missing}"


def user_commands() -> dict[str, tuple[list[str], int]]:
    """Every command a user can type, on the shipped examples, with the exit code it is documented to give."""
    bf16, fp16 = "examples/h100/torch-bf16.roofline.ncu-rep", "examples/h100/torch-fp16.roofline.ncu-rep"
    triad, full = "examples/h100/triad-cupy.roofline.ncu-rep", "examples/h200/sgemm-lineinfo.full.ncu-rep"
    h200 = "examples/h200/torch-bf16.roofline.ncu-rep"
    roofline_cli = ["bin/roofline"]
    return {name: ([*roofline_cli, *args], code) for name, (args, code) in {
        "report table": (["report", bf16, triad], 0),
        "report json": (["report", bf16, "-f", "json"], 0),
        "report csv": (["report", bf16, "-f", "csv"], 0),
        "report markdown": (["report", full, "-f", "markdown", "-o", "out/report.md"], 0),
        "report html": (["report", full, "-f", "html", "-o", "out/report.html"], 0),
        "plot roofline": (["plot", bf16, triad, "-o", "out/roofline.png"], 0),
        "plot instruction": (["plot", "--kind", "instruction", full, "-o", "out/instruction.png"], 0),
        "compare": (["compare", bf16, h200], 0),
        "diff": (["diff", bf16, bf16], 0),
        "project": (["project", bf16, "--to", "h200"], 0),
        "summary": (["summary", bf16, fp16, triad], 0),
        "summary --nsys": (["summary", bf16, fp16, triad, "--nsys", NSYS_EXAMPLE], 0),
        "timeline": (["timeline", NSYS_EXAMPLE], 0),
        "analyze --dry-run": (["analyze", "--dry-run", "-k", "triad", "examples/elementwise_triad.py"], 0),
        "analyze --from-nsys --dry-run": (["analyze", "--from-nsys", NSYS_EXAMPLE, "--top", "2", "--dry-run",
                                           "examples/pytorch_matmul.py"], 0),
        "specs list": (["specs", "list"], 0),
        "specs show": (["specs", "show", "h100-sxm5"], 0),
        "specs check": (["specs", "check"], 0),
        "calibrate --help": (["calibrate", "--help"], 0),
        "wrap --help": (["wrap", "--help"], 0),
        "--version": (["--version"], 0),
        "a missing report": (["report", "examples/absent.ncu-rep"], 2),
    }.items()} | {"python -m roofline": (["bin/python", "-m", "roofline", "--help"], 0)}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(user_commands()))
def test_every_command_runs_from_the_installed_wheel_outside_the_tree(built: Built, name: str) -> None:
    args, expected_code = user_commands()[name]
    if NSYS_EXAMPLE in args and not (built.user / NSYS_EXAMPLE).is_file():
        pytest.fail(f"{NSYS_EXAMPLE} is not in the committed tree: the timeline path has no shipped profile")
    (built.user / "out").mkdir(exist_ok=True)
    command = [str(built.env / args[0]), *args[1:]]
    env = installed.child_env(COLUMNS="100")
    env.pop("ROOFLINE_NCU", None)
    done = subprocess.run(command, cwd=built.user, capture_output=True, text=True, timeout=300, env=env)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == expected_code, f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}"
    if expected_code == 0 and "-o" in args:
        assert (built.user / args[args.index("-o") + 1]).stat().st_size > 0


@pytest.mark.slow
def test_the_installed_wheel_is_what_runs(built: Built) -> None:
    done = subprocess.run([str(built.env / "bin" / "python"), "-c", "import roofline; print(roofline.__file__)"],
                          cwd=built.user, capture_output=True, text=True, env=installed.child_env(), check=True)
    assert Path(done.stdout.strip()).is_relative_to(built.env)
