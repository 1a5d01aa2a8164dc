"""MPI rank detection from launcher environments and --ranks parsing."""

from __future__ import annotations

import pytest

from roofline.cli.ranks import detect_rank, job_size, other_mpi_rank, parse_ranks
from roofline.errors import RooflineError


@pytest.mark.parametrize("spec, inside, outside", [
    ("0", [0], [1, 4]),
    ("0,4", [0, 4], [1, 3, 5]),
    ("0-3", [0, 1, 2, 3], [4]),
    (" 1, 8-9 ", [1, 8, 9], [0, 7, 10]),
    ("all", [0, 1, 4096], []),
    ("ALL", [7], []),
])
def test_parse_ranks(spec: str, inside: list[int], outside: list[int]) -> None:
    selection = parse_ranks(spec)
    assert all(r in selection for r in inside)
    assert not any(r in selection for r in outside)


def test_a_huge_range_is_two_numbers_not_a_list() -> None:
    selection = parse_ranks("7,0-300000000000")
    assert 299999999999 in selection and 300000000001 not in selection and selection.first == 0
    assert selection.ranges == (range(7, 8), range(0, 300000000001))


@pytest.mark.parametrize("spec, size, refused", [("0-3", 4, False), ("0-4", 4, True), ("9,1", 4, True),
                                                  ("all", 1, False), ("0", 1, False)])
def test_ranks_outside_the_job_size_are_refused(spec: str, size: int, refused: bool) -> None:
    selection = parse_ranks(spec)
    if not refused:
        selection.refuse_outside(size, "PMI_SIZE")
        return
    with pytest.raises(RooflineError, match=rf"^--ranks '{spec}': this job has no rank \d+ \(PMI_SIZE={size}: ranks "
                                            rf"0 to {size - 1}\): choose ranks from 0 to {size - 1}, or all$"):
        selection.refuse_outside(size, "PMI_SIZE")


@pytest.mark.parametrize("env, variable, size", [
    ({"OMPI_COMM_WORLD_SIZE": "8"}, "OMPI_COMM_WORLD_RANK", (8, "OMPI_COMM_WORLD_SIZE")),
    ({"PMI_SIZE": "4", "SLURM_NTASKS": "1"}, "PMI_RANK", (4, "PMI_SIZE")),  # the launcher's, not the allocation's
    ({"SLURM_NTASKS": "16"}, "SLURM_PROCID", (16, "SLURM_NTASKS")),
    ({"MV2_COMM_WORLD_SIZE": "2"}, "MV2_COMM_WORLD_RANK", (2, "MV2_COMM_WORLD_SIZE")),
    ({"OMPI_COMM_WORLD_SIZE": "8"}, "PMIX_RANK", None),  # no size beside this rank variable
    ({"PMI_SIZE": "x"}, "PMI_RANK", None),
    ({"PMI_SIZE": "0"}, "PMI_RANK", None),
])
def test_job_size_comes_from_the_launcher_that_set_the_rank(env: dict[str, str], variable: str,
                                                            size: tuple[int, str] | None) -> None:
    assert job_size(env, variable) == size


@pytest.mark.parametrize("spec", ["", "a", "1,", "3-1", "-1", "1-2-3", "0;1", "1.5"])
def test_parse_ranks_rejects_bad_lists(spec: str) -> None:
    with pytest.raises(RooflineError, match=r"--ranks '.*': not a rank list: use e.g. 0,4 or 0-3 or all"):
        parse_ranks(spec)


@pytest.mark.parametrize("env, rank, var", [
    ({"OMPI_COMM_WORLD_RANK": "3"}, 3, "OMPI_COMM_WORLD_RANK"),
    ({"PMIX_RANK": "2"}, 2, "PMIX_RANK"),
    ({"PMI_RANK": "5"}, 5, "PMI_RANK"),
    ({"MV2_COMM_WORLD_RANK": "6"}, 6, "MV2_COMM_WORLD_RANK"),
    ({"PALS_RANKID": "7"}, 7, "PALS_RANKID"),
    ({"SLURM_PROCID": "9"}, 9, "SLURM_PROCID"),
    # mpiexec inside an sbatch job: the batch step's SLURM_PROCID=0 is inherited by every rank
    ({"SLURM_PROCID": "0", "PMI_RANK": "4"}, 4, "PMI_RANK"),
    ({"SLURM_PROCID": "0", "OMPI_COMM_WORLD_RANK": "1", "PMIX_RANK": "1"}, 1, "OMPI_COMM_WORLD_RANK"),
    ({"PMI_RANK": "", "SLURM_PROCID": "2"}, 2, "SLURM_PROCID"),
])
def test_detect_rank(env: dict[str, str], rank: int, var: str) -> None:
    assert detect_rank(env) == (rank, var)


@pytest.mark.parametrize("env, rank, var", [
    ({"OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_RANK": "5"}, 1, "OMPI_COMM_WORLD_LOCAL_RANK"),
    ({"MPI_LOCALRANKID": "2", "PMI_RANK": "6"}, 2, "MPI_LOCALRANKID"),
    ({"MV2_COMM_WORLD_LOCAL_RANK": "0"}, 0, "MV2_COMM_WORLD_LOCAL_RANK"),
    ({"PALS_LOCAL_RANKID": "3"}, 3, "PALS_LOCAL_RANKID"),
    ({"PMI_LOCAL_RANK": "1"}, 1, "PMI_LOCAL_RANK"),
    ({"SLURM_LOCALID": "0", "MPI_LOCALRANKID": "3"}, 3, "MPI_LOCALRANKID"),
    ({"SLURM_LOCALID": "2"}, 2, "SLURM_LOCALID"),
])
def test_detect_local_rank(env: dict[str, str], rank: int, var: str) -> None:
    assert detect_rank(env, local=True) == (rank, var)


def test_no_rank_outside_mpi() -> None:
    with pytest.raises(RooflineError, match="no MPI rank in the environment .*under mpiexec or srun"):
        detect_rank({"HOME": "/"})
    with pytest.raises(RooflineError, match="no MPI local rank"):
        detect_rank({"OMPI_COMM_WORLD_RANK": "0"}, local=True)


def test_garbage_rank_is_named() -> None:
    with pytest.raises(RooflineError, match="PMI_RANK='x1' is not a rank number"):
        detect_rank({"PMI_RANK": "x1"})


@pytest.mark.parametrize("env, other", [
    ({}, False),  # not under an MPI launcher
    ({"OMPI_COMM_WORLD_RANK": "0"}, False),
    ({"OMPI_COMM_WORLD_RANK": "3"}, True),
    ({"PMI_RANK": "1"}, True),
    ({"OMPI_COMM_WORLD_RANK": "0", "SLURM_PROCID": "2"}, False),  # mpiexec inside sbatch: the launcher's rank
    ({"PMIX_RANK": "rank-1"}, False),  # not a number: not told, so not silent
])
def test_other_mpi_rank(env: dict[str, str], other: bool) -> None:
    assert other_mpi_rank(env) is other
