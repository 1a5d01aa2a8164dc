"""Reports (.qdrep, .nsys-rep) through a real nsys export: Debian's nsight-systems 2022.4 (installed by
.ci/install-system-tools) reads the reports of nsys 2020.3-2022.4 and refuses later ones. Each report's timeline
is checked against an export made here by calling nsys directly and aggregated independently, against INDEX.md,
and the OpenACC capture against the SQLite export committed beside it (made by nsys 2022.2)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from roofline.errors import ReportError
from roofline.nsys import export
from roofline.nsys.load import load_timeline
from tests.conftest import find_shared_nsys
from tests.nsys import independent
from tests.nsys.test_activity import check_activity

# file, kernel rows, distinct kernels, top kernel (INDEX.md)
REPORTS = [
    ("gp100_miniweather-openacc_2021.2.qdrep", 2596, 10, "compute_tendencies_z_334_gpu"),
    ("v100-sxm2-32gb_miniweather-openacc_2021.5.nsys-rep", 4162, 10, "semi_discrete_step_257_gpu"),
    ("titanrtx_pytorch-cnn-26k-kernels_2020.3.qdrep", 26399, 45, "vectorized_elementwise_kernel"),
    ("rtx3070_instant-ngp-60k-kernels_2021.2.qdrep", 60355, 20, "kernel_mlp_fused"),
    ("rtx3090-plus-rtx2080ti-host_pytorch-tensoriterator_2020.4.qdrep", 1000, 1, "unrolled_elementwise_kernel"),
    ("v100-sxm2-16gb_gem-openmp-mpi-job1-rank0_2021.2.qdrep", 40, 3, "nvkernel_ppush__F1L664_1_"),
    ("v100-sxm2-16gb_gem-openmp-mpi-job1-rank1_2021.2.qdrep", 40, 3, "nvkernel_ppush__F1L664_1_"),
]
NOT_A_REPORT = "give an .nsys-rep, .qdrep or its .sqlite export"
# Each export through the real nsys takes 5 to 35 s: slow by nature (left out of the README's command, run by
# .ci/run right after it). The SQLite exports of ../shared/nsys-reps are read by the fast tests.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def nsys() -> export.Nsys:
    try:
        found = export.find_nsys()
    except ReportError as err:
        pytest.skip(f"no nsys ({err}); .ci/install-system-tools installs Debian's nsight-systems")
    if found.version[:2] < (2022, 4):
        pytest.skip(f"{found.describe()}: these tests expect Debian's 2022.4 or newer")
    return found


def own_export(nsys: export.Nsys, report: Path, tmp_path: Path) -> Path:
    """The report exported by calling nsys here, without roofline's export code."""
    target = tmp_path / "own.sqlite"
    subprocess.run([nsys.path, "export", "--type", "sqlite", "-o", str(target), str(report)], check=True,
                   capture_output=True, timeout=300)
    return target


@pytest.mark.parametrize("name, rows, distinct, top", REPORTS, ids=[r[0] for r in REPORTS])
def test_a_report_is_exported_and_ranked_as_its_own_export_says(nsys: export.Nsys, tmp_path: Path, name: str,
                                                                 rows: int, distinct: int, top: str) -> None:
    report = find_shared_nsys(name)
    t = load_timeline(report, group_by="function")  # INDEX.md counts short names
    assert t.path == str(report) and t.exported_by == nsys.describe()
    assert (sum(k.count for k in t.kernels), len(t.kernels), t.kernels[0].name) == (rows, distinct, top)
    own = own_export(nsys, report, tmp_path)
    for by, timeline in (("function", t), ("kernel", load_timeline(report))):
        expected = independent.per_kernel(own, by=by)
        independent.assert_same({k.name: (k.count, k.total_s, k.median_s) for k in timeline.kernels},
                                {n: (e["count"], e["total_s"], e["median_s"]) for n, e in expected.items()})
    check_activity(own, t)  # idle causes, API summary, transfers: against the export made here


def test_the_report_and_its_committed_2022_2_export_agree(nsys: export.Nsys) -> None:
    """The same capture, exported by nsys 2022.2 (committed .sqlite) and by nsys 2022.4 here."""
    mine = load_timeline(find_shared_nsys("gp100_miniweather-openacc_2021.2.qdrep"))
    theirs = load_timeline(find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite"))
    assert [(k.name, k.count, k.total_s) for k in mine.kernels] == [(k.name, k.count, k.total_s)
                                                                    for k in theirs.kernels]
    assert [d.busy_s for d in mine.devices] == [d.busy_s for d in theirs.devices]


def test_a_report_newer_than_nsys_is_refused_before_export(nsys: export.Nsys) -> None:
    report = find_shared_nsys("h200_nvfuser-matmul-nvtx_2025.1.nsys-rep")
    assert export.report_version(report) == (2025, 1, 1)
    with pytest.raises(ReportError, match=r"written by nsys 2025\.1\.1, which nsys 2022\.4.* cannot read: export "
                                          r"it to SQLite with an nsys as new"):
        load_timeline(report)


def test_a_2023_1_report_is_refused_by_the_build_in_its_closing_bytes(nsys: export.Nsys) -> None:
    """2023.1-2023.3 reports still open with 'Report 1.', but their closing section names the build
    ("2023.1.2.43-32377213v0"): nsys 2022.4 fails to parse them (ProtobufParseException), which is a version, not a
    damaged copy."""
    report = find_shared_nsys("rtx3090_memfusion-conv-nvtx_2023.1.nsys-rep")
    assert export.trailer_version(report) == export.report_version(report) == (2023, 1, 2)
    with pytest.raises(ReportError, match=r"written by nsys 2023\.1\.2, which nsys 2022\.4.* cannot read: export "
                                          r"it to SQLite with an nsys as new"):
        load_timeline(report)


def test_a_2021_report_names_no_build_in_its_closing_bytes() -> None:
    assert export.trailer_version(find_shared_nsys("v100-sxm2-32gb_miniweather-openacc_2021.5.nsys-rep")) is None


def test_a_report_cut_short_is_told_it_may_be_damaged(nsys: export.Nsys, tmp_path: Path) -> None:
    """The first 100,000 bytes of a 2021.5 report, which this nsys reads whole: its export fails with a magic
    number mismatch, which a newer nsys would not mend; the fix says to copy the file again first."""
    cut = tmp_path / "cut.nsys-rep"
    cut.write_bytes(find_shared_nsys("v100-sxm2-32gb_miniweather-openacc_2021.5.nsys-rep").read_bytes()[:100_000])
    with pytest.raises(ReportError, match=r"cut\.nsys-rep: nsys 2022\.4.* cannot export it \(.*\): if the file was "
                                          r"cut short or damaged in copying, copy it again whole"):
        load_timeline(cut)


def test_without_nsys_a_report_gets_one_line_naming_the_sqlite_way(tmp_path: Path) -> None:
    report = find_shared_nsys("gp100_miniweather-openacc_2021.2.qdrep")
    with pytest.raises(ReportError, match=r"openacc_2021\.2\.qdrep: needs nsys to read it; .*no-nsys: not an "
                                          "executable nsys: install Nsight Systems.*nsys export --type sqlite"):
        load_timeline(report, nsys=str(tmp_path / "no-nsys"))


def test_find_nsys_reads_the_environment_variable(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=f"^{tmp_path}/nsys: not an executable nsys"):
        export.find_nsys(env={export.ENV_VAR: str(tmp_path / "nsys")})


@pytest.mark.parametrize("content, what", [(b"version https://git-lfs.github.com/spec/v1\n", "a Git LFS pointer"),
                                           (b"\x00" * 64, "not an nsys report")])
def test_a_file_that_is_no_report_is_named(tmp_path: Path, content: bytes, what: str) -> None:
    path = tmp_path / "x.nsys-rep"
    path.write_bytes(content)
    with pytest.raises(ReportError, match=what):
        export.report_version(path)
