"""`roofline analyze --from-nsys`: the top kernels of an nsys profile, one median-duration launch each, profiled
with the stand-in ncu (tests/fake_ncu); the launch chosen is checked against tests/nsys/independent.py."""

from __future__ import annotations

import re
import shlex
import sqlite3
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from roofline.cli.app import app
from roofline.cli.commands import analyze as analyze_cmd
from tests.cli.commands.test_analyze import APP_SOURCE, expected_argv
from tests.conftest import find_shared_nsys
from tests.fake_ncu import fakencu
from tests.nsys import independent, instances

LLAMA = "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite"
NVFUSER = "h200_nvfuser-matmul-nvtx_2025.1.sqlite"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(APP_SOURCE)
    return tmp_path


def invoke(*args: object) -> Result:
    return CliRunner().invoke(app, ["analyze", *map(str, args)])


def median_launch(path: Path, name: str) -> int:
    """Independently: the index (launch order) of the lower-median-duration launch of ``name``."""
    own = sorted((c, e - s) for n, s, e, _, c, _ in independent.launches(path) if n == name)
    order = sorted(range(len(own)), key=lambda i: (own[i][1], i))
    chosen = order[(len(own) - 1) // 2]
    assert own[chosen][1] in (statistics.median_low(d for _, d in own), statistics.median_high(d for _, d in own))
    return chosen


def test_dry_run_says_what_it_will_run_one_median_launch_per_kernel(work: Path) -> None:
    path = find_shared_nsys(LLAMA)
    result = invoke("--from-nsys", path, "--top", "2", "--dry-run", "--ncu", "ncu", "app.py")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (f"# {path}: the top 2 of 2 kernels by GPU time, 100.0% of the GPU busy time, one "
                        "representative launch each")
    commands = [shlex.split(line) for line in lines if not line.startswith("#")]
    for i, (argv, name) in enumerate(zip(commands, ["ampere_sgemm_128x64_nn",
                                                    "distribution_elementwise_grid_stride_kernel"], strict=True)):
        skip = str(median_launch(path, name))
        assert argv == expected_argv("ncu", "-k", f"regex:^(?:{name})$", "-s", skip, "-c", "1",
                                     report=f"app.top{i + 1}.ncu-rep", log=f"app.top{i + 1}.ncu.log")
    assert "launch 434 (by launch order) is the median-duration one, 26.8 us in nsys" in lines[1]


def test_kernels_launched_once_are_profiled_in_one_run(work: Path) -> None:
    result = invoke("--from-nsys", find_shared_nsys(NVFUSER), "--top", "3", "--dry-run", "--ncu", "ncu", "app.py")
    commands = [shlex.split(line) for line in result.stdout.splitlines() if not line.startswith("#")]
    assert commands == [expected_argv("ncu", "-k", "regex:^(?:nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN|"
                                      "nvjet_tst_192x192_64x3_1x2_h_bz_coopB_NTN|"
                                      "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT)$", "-c", "3")]


def synthetic(path: Path, names: list[str]) -> Path:
    """An export with two launches of each name (the second one longer)."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, correlationId INT, '
               "globalPid INT, shortName INT)")
    for i, name in enumerate(names):
        db.execute("INSERT INTO StringIds VALUES (?, ?)", (i, name))
        for j, duration in enumerate((1000 * (i + 1), 3000 * (i + 1))):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, ?, 1, ?)",
                       (10_000 * (2 * i + j), 10_000 * (2 * i + j) + duration, 2 * i + j, i))
    db.commit()
    db.close()
    return path


def test_names_are_escaped_for_ncus_regex(work: Path) -> None:
    path = synthetic(work / "odd.sqlite", ["k.v+1", "a(b)|c"])
    result = invoke("--from-nsys", path, "--dry-run", "--ncu", "ncu", "app.py")
    ks = [argv[argv.index("-k") + 1] for argv in map(shlex.split, result.stdout.splitlines())
          if argv[0] != "#"]
    assert ks == [r"regex:^(?:a\(b\)\|c)$", r"regex:^(?:k\.v\+1)$"]


def test_each_run_writes_its_report_and_all_are_analysed(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, work)
    calls: list[tuple[list[Path], object]] = []
    monkeypatch.setattr(analyze_cmd, "report_files", lambda paths, options, *_, **__: calls.append((paths, options)))
    path = find_shared_nsys(LLAMA)
    result = invoke("--from-nsys", path, "--top", "2", "app.py")
    assert result.exit_code == 0, result.output
    assert [argv[argv.index("-s") + 1] for argv in fake.argvs()] == [
        str(median_launch(path, "ampere_sgemm_128x64_nn")),
        str(median_launch(path, "distribution_elementwise_grid_stride_kernel"))]
    [(paths, options)] = calls
    assert paths == [work / "app.top1.ncu-rep", work / "app.top2.ncu-rep"]
    assert options.kernel == ("regex:^(?:ampere_sgemm_128x64_nn)$",  # type: ignore[attr-defined]
                              "regex:^(?:distribution_elementwise_grid_stride_kernel)$")
    assert "roofline: ampere_sgemm_128x64_nn: 73.9% of the GPU busy time in 512 launches" in result.stderr
    assert result.stderr.splitlines()[-1] == ("roofline: the whole application in real time: roofline summary "
                                              f"{work / 'app.top1.ncu-rep'} {work / 'app.top2.ncu-rep'} --nsys {path}")


@pytest.mark.parametrize("option", [["-k", "gemm"], ["-s", "2"], ["-c", "1"], ["--kernel-name-base", "demangled"]])
def test_options_that_choose_kernels_are_refused_with_from_nsys(work: Path, option: list[str]) -> None:
    result = invoke("--from-nsys", find_shared_nsys(LLAMA), *option, "--dry-run", "app.py")
    assert result.exit_code == 2
    assert "--from-nsys chooses the kernels and their launches" in result.stderr


def test_an_nvtx_filter_is_refused_with_from_nsys(work: Path) -> None:
    """--from-nsys counts the launch to skip over every launch of the profile (433 of Llama's 512 SGEMMs), and ncu
    would count only the 64 inside layer 0's range: refused, in one line."""
    result = invoke("--from-nsys", find_shared_nsys(LLAMA), "--nvtx-include", "layer_0_computation/", "--dry-run",
                    "app.py")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "--from-nsys with --nvtx-include" in result.stderr and "-s " not in result.stdout


def test_a_bad_profile_is_one_line_before_anything_runs(work: Path) -> None:
    (work / "bad.sqlite").write_text("x")
    result = invoke("--from-nsys", "bad.sqlite", "--dry-run", "app.py")
    assert result.exit_code == 2 and result.stderr.startswith("roofline: error: bad.sqlite: not an SQLite file")
    assert not (work / "app.py.args").exists()


def test_the_longest_instance_is_profiled_by_its_demangled_name_and_own_launch(work: Path) -> None:
    """ICON's case: three lambdas of one short name. The longest instance is targeted alone (demangled base), at
    the median of its own launches; the regex matches its demangled name and no other instance's."""
    path = instances.write(work / "icon-like.sqlite")
    result = invoke("--from-nsys", path, "--top", "1", "--dry-run", "--ncu", "ncu", "app.py")
    assert result.exit_code == 0, result.output
    [argv] = [shlex.split(line) for line in result.stdout.splitlines() if not line.startswith("#")]
    assert argv[argv.index("--kernel-name-base") + 1] == "demangled"
    own = instances.durations(1)
    assert argv[argv.index("-s") + 1] == str(own.index(sorted(own)[1]))  # 2: the 9.58 ms launch of instance 1
    pattern = re.compile(argv[argv.index("-k") + 1].removeprefix("regex:"))
    matched = [tag for tag, name in instances.INSTANCES.items() if pattern.search(name)]
    assert matched == [1]
    assert not pattern.search(f"{instances.PLAIN}(double *, int)")
    assert "launch 3 (by launch order) is the median-duration one, 9.58 ms in nsys" in result.stdout


def test_grouped_by_function_the_instances_are_pooled(work: Path) -> None:
    path = instances.write(work / "icon-like.sqlite")
    result = invoke("--from-nsys", path, "--top", "1", "--group-by", "function", "--dry-run", "--ncu", "ncu",
                    "app.py")
    [argv] = [shlex.split(line) for line in result.stdout.splitlines() if not line.startswith("#")]
    assert "--kernel-name-base" not in argv and argv[argv.index("-k") + 1] == "regex:^(?:_kernel_agent)$"
    assert argv[argv.index("-s") + 1] == "3"  # the pooled median (9.5 ms) is the 4th _kernel_agent launch


def test_a_plain_function_under_the_demangled_base_matches_its_overloads_only(work: Path) -> None:
    path = instances.write(work / "icon-like.sqlite")
    result = invoke("--from-nsys", path, "--top", "2", "--dry-run", "--ncu", "ncu", "app.py")
    ks = [argv[argv.index("-k") + 1] for argv in map(shlex.split, result.stdout.splitlines()) if argv[0] != "#"]
    pattern = re.compile(ks[1].removeprefix("regex:"))
    assert pattern.search("update_halo(double *, int)") and pattern.search("void ns::update_halo(float *)")
    assert not pattern.search("update_halo_x(double *)") and not pattern.search(instances.INSTANCES[2])
