"""The nsys reader on the real profiles of ../shared/nsys-reps: every figure checked against the same figure
computed independently (tests/nsys/independent.py: plain queries, aggregated in Python), and against the facts
../shared/nsys-reps/INDEX.md records (rows, distinct kernels, top kernel, GPU)."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from roofline.errors import ReportError
from roofline.nsys.load import load_timeline
from roofline.nsys.timeline import read_timeline, representatives
from tests.conftest import find_shared_nsys
from tests.nsys import independent, instances

# file, kernel rows, distinct kernels, top kernel by total time (prefix), GPU (INDEX.md)
SQLITE = [
    ("gp100_miniweather-openacc_2021.2-export2022.2.sqlite", 2596, 10, "compute_tendencies_z_334_gpu",
     "Quadro GP100"),
    ("h200_nvfuser-matmul-nvtx_2025.1.sqlite", 18, 13, "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN", "NVIDIA H200"),
    ("rtx3090_memfusion-conv-nvtx_2023.1.sqlite", 36, 14, "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_",
     "NVIDIA GeForce RTX 3090"),
    ("rtx4060ti_llama3-inference-nvtx_2024.6.sqlite", 1536, 2, "ampere_sgemm_128x64_nn",
     "NVIDIA GeForce RTX 4060 Ti"),
    ("v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite", 2254, 3, "__omp_offloading_31_18a80a1__Z_3",
     "Tesla V100-PCIE-32GB"),
]
LLAMA = "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite"
CONV = "rtx3090_memfusion-conv-nvtx_2023.1.sqlite"


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("name, rows, distinct, top, gpu", SQLITE, ids=[s[0] for s in SQLITE])
def test_the_ranking_matches_index_md(name: str, rows: int, distinct: int, top: str, gpu: str) -> None:
    """INDEX.md counts distinct short names: grouped by function, the timeline has as many."""
    t = read_timeline(find_shared_nsys(name), group_by="function")
    assert sum(k.count for k in t.kernels) == rows
    assert len(t.kernels) == distinct
    assert t.kernels[0].name.startswith(top)
    assert [d.name for d in t.devices] == [gpu]
    assert [k.total_s for k in t.kernels] == sorted((k.total_s for k in t.kernels), reverse=True)


@pytest.mark.parametrize("name", [s[0] for s in SQLITE])
@pytest.mark.parametrize("by", ["kernel", "function"])
def test_every_kernel_figure_matches_an_independent_computation(name: str, by: str) -> None:
    path = find_shared_nsys(name)
    t = read_timeline(path, group_by=by)
    expected = independent.per_kernel(path, by=by)
    assert {k.name for k in t.kernels} == set(expected)
    for k in t.kernels:
        e = expected[k.name]
        assert k.count == e["count"]
        for field in ("total_s", "median_s", "min_s", "max_s"):
            assert close(getattr(k, field), e[field]), (k.name, field)


@pytest.mark.parametrize("name", [s[0] for s in SQLITE])
@pytest.mark.parametrize("by", ["kernel", "function"])
def test_every_figure_is_the_row_by_row_figure_to_the_last_bit(name: str, by: str) -> None:
    """Counts, totals, medians, extremes, GPUs, busy time, span and every idle cause equal the figures computed row
    by row in Python (integer ns, scaled once): the column-wise reader changes no digit of the document."""
    path = find_shared_nsys(name)
    independent.assert_exact(path, read_timeline(path, group_by=by), by)


@pytest.mark.parametrize("name", [s[0] for s in SQLITE])
def test_busy_time_is_the_union_of_the_launches(name: str) -> None:
    path = find_shared_nsys(name)
    t = read_timeline(path)
    assert {d.device_id: d.busy_s for d in t.devices} == pytest.approx(independent.busy(path), rel=1e-12)
    (first, last), = independent.rows(path, 'SELECT MIN(start), MAX("end") FROM CUPTI_ACTIVITY_KIND_KERNEL')
    assert close(t.devices[0].span_s, (last - first) * 1e-9)
    assert 0 <= t.devices[0].idle_share < 1


def test_overlapping_launches_count_once_in_busy_time() -> None:
    """The 2023.1 capture: 36 launches on one GPU whose summed time exceeds the busy time only by overlap."""
    t = read_timeline(find_shared_nsys(CONV))
    assert t.busy_s <= t.kernel_s
    assert t.busy_s == pytest.approx(6.415244e-3, rel=1e-9)  # also independent.busy, by interval merging


@pytest.mark.parametrize("name, nvtx", [(LLAMA, "layer_0_computation"), (CONV, "ExecutionContext::execute"),
                                        ("h200_nvfuser-matmul-nvtx_2025.1.sqlite",
                                         "FusionExecutorCache::runFusionWithInputs")])
def test_nvtx_keeps_the_kernels_launched_inside_the_range(name: str, nvtx: str) -> None:
    path = find_shared_nsys(name)
    t = read_timeline(path, nvtx)
    inside = independent.inside_nvtx(path, nvtx)
    expected = independent.per_kernel(path, inside, by="kernel")
    independent.assert_same({k.name: (k.count, k.total_s) for k in t.kernels},
                            {n: (e["count"], e["total_s"]) for n, e in expected.items()})
    launched = {(c, p) for *_, c, p in independent.launches(path)}
    assert 0 < sum(k.count for k in t.kernels) == len(inside & launched)
    assert t.nvtx_filter == nvtx


def test_nvtx_ranges_are_named_from_text_or_text_id() -> None:
    """The 2023.1 export keeps 59 of its 60 range names in StringIds (textId)."""
    t = read_timeline(find_shared_nsys(CONV))
    assert sum(r.count for r in t.nvtx) == 59  # every push/pop range; the one domain marker has no end
    assert t.nvtx[0].name == "ExecutionContext::execute"


def test_the_representative_launch_is_the_median_one_by_launch_order() -> None:
    path = find_shared_nsys(LLAMA)
    names = ["ampere_sgemm_128x64_nn", "distribution_elementwise_grid_stride_kernel"]
    reps = representatives(path, names, "function")
    for name in names:
        own = sorted((c, e - s) for n, s, e, _, c, _ in independent.launches(path) if n == name)
        by_duration = sorted(range(len(own)), key=lambda i: (own[i][1], i))
        chosen = by_duration[(len(own) - 1) // 2]
        assert reps[name].launch_index == chosen
        assert reps[name].duration_s == pytest.approx(own[chosen][1] * 1e-9)


def make_db(path: Path, *statements: str) -> Path:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def test_a_profile_without_kernels_is_one_line(tmp_path: Path) -> None:
    path = make_db(tmp_path / "empty.sqlite", "CREATE TABLE StringIds (id INTEGER, value TEXT)")
    with pytest.raises(ReportError, match="holds no GPU kernels .* --trace cuda"):
        read_timeline(path)


def test_an_empty_kernel_table_is_one_line(tmp_path: Path) -> None:
    path = make_db(tmp_path / "empty.sqlite", "CREATE TABLE StringIds (id INTEGER, value TEXT)",
                   'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, shortName INT)')
    with pytest.raises(ReportError, match="holds no GPU kernels \\(an empty CUPTI_ACTIVITY_KIND_KERNEL table\\)"):
        read_timeline(path)


@pytest.mark.parametrize("content, what", [(b"version https://git-lfs.github.com/spec/v1\n", "Git LFS pointer"),
                                           (b"hello", "not an SQLite file")])
def test_files_that_are_not_exports_are_named(tmp_path: Path, content: bytes, what: str) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(content)
    with pytest.raises(ReportError, match=what):
        read_timeline(path)


def test_an_sqlite_file_that_is_not_an_nsys_export(tmp_path: Path) -> None:
    path = make_db(tmp_path / "other.sqlite", "CREATE TABLE t (x INTEGER)")
    with pytest.raises(ReportError, match="not an nsys export"):
        read_timeline(path)


def test_a_kernel_table_without_the_columns_read_is_one_line(tmp_path: Path) -> None:
    """A truncated or hand-made export whose kernel table lacks shortName: the SQL error names the file."""
    path = make_db(tmp_path / "cut.sqlite", "CREATE TABLE StringIds (id INTEGER, value TEXT)",
                   "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT)",
                   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1)")
    with pytest.raises(ReportError, match="cut.sqlite: not an nsys export this reader knows \\(no such column"):
        read_timeline(path)
    with pytest.raises(ReportError, match="no such column"):
        representatives(path, ["k"])


def test_a_kernel_row_without_an_end_is_one_line(tmp_path: Path) -> None:
    """SQLite does not check NOT NULL on reading: a damaged or hand-made row without an end is named, not summed."""
    path = make_db(tmp_path / "null.sqlite", "CREATE TABLE StringIds (id INTEGER, value TEXT)",
                   'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, shortName INT)',
                   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 5, 0, 1), (6, NULL, 0, 1)")
    with pytest.raises(ReportError, match=r"null\.sqlite: not an nsys export this reader knows \(kernel rows without "
                                          r"an integer end\): give nsys"):
        read_timeline(path)


def test_a_copy_without_its_size_is_one_line(tmp_path: Path) -> None:
    from tests.nsys.small_export import nsys_export

    path = nsys_export(tmp_path / "copy.sqlite")
    make_db(path, "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, \"end\" INT, deviceId INT, copyKind INT, "
                  "bytes INT)", "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (0, 10, 0, 1, NULL)")
    with pytest.raises(ReportError, match=r"copy\.sqlite: not an nsys export this reader knows \(unsupported operand"):
        read_timeline(path)


@pytest.mark.parametrize("keep", [0.2, 0.5, 0.9])
def test_a_truncated_export_is_one_line(tmp_path: Path, keep: float) -> None:
    """An export cut short in copying: SQLite finds its pages missing, at opening or on reading."""
    data = find_shared_nsys(LLAMA).read_bytes()
    path = tmp_path / "cut.sqlite"
    path.write_bytes(data[:int(len(data) * keep)])
    with pytest.raises(ReportError, match=r"^[^\n]*cut\.sqlite: [^\n]*$"):
        read_timeline(path)


def test_nvtx_needs_the_nvtx_and_cuda_api_traces() -> None:
    with pytest.raises(ReportError, match="--nvtx needs the NVTX_EVENTS table"):
        read_timeline(find_shared_nsys("v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite"), "range")


def test_errors_name_the_report_a_temporary_export_was_made_from(tmp_path: Path) -> None:
    """A .qdrep is read through an export in a temporary folder, gone when the error is shown: name the report."""
    from tests.nsys.small_export import nsys_export

    export = nsys_export(tmp_path / "app.sqlite")
    report = Path("runs/app.qdrep")
    with pytest.raises(ReportError, match=r"^runs/app\.qdrep: --nvtx needs the NVTX_EVENTS table"):
        read_timeline(export, "range", name=report)
    (tmp_path / "other.sqlite").write_bytes(b"hello")
    with pytest.raises(ReportError, match=r"^runs/app\.qdrep: not an SQLite file"):
        read_timeline(tmp_path / "other.sqlite", name=report)
    assert list(representatives(export, ["gemm"], name=report)) == ["gemm"]  # read as before


def test_the_oldest_schema_names_its_gpu_from_target_info_cuda_gpu() -> None:
    """2020.3: no TARGET_INFO_GPU, no mangledName column; the GPU is TARGET_INFO_CUDA_GPU's."""
    t = read_timeline(find_shared_nsys("v100-pcie-32gb_openmp-offload-stream_2020.3.sqlite"))
    assert t.devices[0].name == "Tesla V100-PCIE-32GB"


def test_instances_of_one_template_are_kernels_apart(tmp_path: Path) -> None:
    """ICON's case: three lambdas of `_kernel_agent`, pooled by short name, listed apart by instance."""
    path = instances.write(tmp_path / "icon-like.sqlite")
    t = read_timeline(path)
    agents = [k for k in t.kernels if k.function == instances.SHORT]
    assert len(agents) == 3 and len({k.name for k in agents}) == 3
    for k in agents:
        tag = next(tag for tag, d in instances.INSTANCES.items() if d == k.demangled)
        own = instances.durations(tag)
        assert (k.count, k.max_s) == (len(own), max(own) * 1e-9)
        assert k.total_s == pytest.approx(sum(own) * 1e-9)
    assert agents[0].demangled == instances.INSTANCES[1]  # the longest instance ranks first of the three
    pooled = read_timeline(path, group_by="function")
    agent = next(k for k in pooled.kernels if k.name == instances.SHORT)
    assert agent.count == 5 and agent.median_s == pytest.approx(9_500_000e-9)


def test_the_representative_launch_is_counted_within_its_instance(tmp_path: Path) -> None:
    path = instances.write(tmp_path / "icon-like.sqlite")
    t = read_timeline(path)
    longest = next(k for k in t.kernels if k.demangled == instances.INSTANCES[1])
    rep = representatives(path, [longest.name])[longest.name]
    own = instances.durations(1)  # 9.66, 9.50, 9.58 ms: the median is the third launch of this instance
    assert rep.launch_index == own.index(sorted(own)[1])
    assert rep.duration_s == pytest.approx(9_580_000e-9)


def test_instances_of_one_short_name_read_apart_in_a_narrow_table(tmp_path: Path) -> None:
    """Each instance that shares its short name carries #i/n, which no cut of an 80-column table removes."""
    from roofline.analysis.timeline import timeline_set
    from roofline.render.timeline.text import render_table

    t = read_timeline(instances.write(tmp_path / "icon-like.sqlite"))
    rows = [line.split()[1:3] for line in render_table(timeline_set([t]), width=80).splitlines()
            if line[:1].isdigit()]
    assert [r[1] for r in rows if r[0].startswith("_kernel_agent")] == ["#1/3", "#2/3", "#3/3"]


@pytest.mark.parametrize("suffix", [".nsys-rep", ".qdrep", ".sqlite"])
def test_an_empty_profile_is_said_to_be_empty(tmp_path: Path, suffix: str) -> None:
    empty = tmp_path / f"empty{suffix}"
    empty.touch()
    with pytest.raises(ReportError, match=rf"empty\{suffix}: file is empty: give an \.nsys-rep"):
        load_timeline(empty)


def test_an_nsight_compute_report_is_named_as_one():
    """An .ncu-rep given where an Nsight Systems profile belongs was told to export it with nsys, which cannot."""
    from tests.conftest import REPO

    report = REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep"
    with pytest.raises(ReportError, match=r"triad-cupy\.full\.ncu-rep: an Nsight Compute report, not an Nsight "
                                          r"Systems profile: read it with roofline report"):
        load_timeline(report)


H200 = "h200_nvfuser-matmul-nvtx_2025.1.sqlite"


def with_environment(source: Path, target: Path, environment: str) -> Path:
    """A copy of an export whose DeviceEnvironment row reads ``environment`` (the table made where it lacks one)."""
    import shutil

    shutil.copyfile(source, target)
    with sqlite3.connect(target) as db:
        db.execute("CREATE TABLE IF NOT EXISTS TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT, "
                   "name TEXT, nameEnum INTEGER, value TEXT)")
        db.execute("DELETE FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'DeviceEnvironment'")
        db.execute("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Local (CLI)', 'DeviceEnvironment', 610, ?)",
                   (environment,))
    db.close()
    return target


def test_the_launchers_rank_variables_are_read_from_the_environment_nsys_ran_with(tmp_path: Path) -> None:
    """The H200 export's real environment (';'-separated, Open MPI's OMPI_ALLOW_RUN_AS_ROOT=1 in it, no rank) with
    the variables mpiexec and srun set appended: each rank variable, most specific first; none in the original."""
    from roofline.nsys.timeline import rank_variables

    real = find_shared_nsys(H200)
    assert rank_variables(real) == {}
    with sqlite3.connect(real) as db:
        (environment,) = db.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'DeviceEnvironment'"
                                    ).fetchone()
    db.close()
    assert "OMPI_ALLOW_RUN_AS_ROOT=1" in environment
    ranked = with_environment(real, tmp_path / "h200.sqlite",
                               f"SLURM_PROCID=0;{environment};PMI_RANK=3;OMPI_COMM_WORLD_RANK=3;LOCAL_RANK=1")
    assert list(rank_variables(ranked).items()) == [("OMPI_COMM_WORLD_RANK", 3), ("PMI_RANK", 3), ("SLURM_PROCID", 0)]


def test_rank_variables_separated_by_nul_bytes_and_an_export_without_the_table(tmp_path: Path) -> None:
    """A capture's environment separated by NUL bytes (2021 reports store it so); the examples' export has no
    TARGET_INFO_SYSTEM_ENV table: no variable, no error."""
    from roofline.nsys.timeline import rank_variables
    from tests.conftest import REPO

    example = REPO / "examples" / "nsys" / "h100-examples.sqlite"
    assert rank_variables(example) == {}
    nul = with_environment(example, tmp_path / "r.sqlite", "SLURM_MEM_PER_CPU=4659\x00PMI_RANK=1\x00PMI_SIZE=8")
    assert rank_variables(nul) == {"PMI_RANK": 1}
