"""The MPI ranks of several nsys files (``analysis.timeline.rank_totals``): each file's rank from the launcher's
variable, else its name, else none claimed; rows in rank order; each rank's busy time against the other ranks'
median, so the rank the others wait on is told from the ranks that wait."""

from __future__ import annotations

import pytest

from roofline.analysis.timeline import FILE_NAME, ORDER, known_ranks, name_ranks, rank_totals
from roofline.core.timeline import DeviceTime, KernelTime, Timeline


def timeline(path: str, busy_s: float, span_s: float = 6.73) -> Timeline:
    """A one-GPU timeline busy ``busy_s`` of a ``span_s`` span."""
    return Timeline(path, (KernelTime("k", 10, busy_s, busy_s / 10, busy_s / 10, busy_s / 10, (0,)),),
                    (DeviceTime(0, "V100", 10, busy_s, span_s),), ())


def test_the_launchers_variable_comes_first_and_must_tell_every_file_apart() -> None:
    """SLURM_PROCID=0 on every rank (mpiexec inside sbatch) tells nothing; PMI_RANK does, whatever the names say."""
    env = [{"PMI_RANK": 1, "SLURM_PROCID": 0}, {"PMI_RANK": 0, "SLURM_PROCID": 0}]
    assert known_ranks(["a.rank0.sqlite", "a.rank1.sqlite"], env) == ([1, 0], "PMI_RANK")
    same = [{"SLURM_PROCID": 0}, {"SLURM_PROCID": 0}]
    assert known_ranks(["app.3.sqlite", "app.7.sqlite"], same) == ([3, 7], FILE_NAME)
    assert known_ranks(["app.3.sqlite", "app.7.sqlite"], [{"PMI_RANK": 3}, {}]) == ([3, 7], FILE_NAME)


@pytest.mark.parametrize(("names", "ranks"), [
    (["app.0.sqlite", "app.1.sqlite", "app.10.sqlite", "app.2.sqlite"], [0, 1, 10, 2]),  # the shell's glob order
    (["v100-sxm2-16gb_gem-openmp-mpi-job1-rank1_2021.2.qdrep", "v100-sxm2-16gb_gem-openmp-mpi-job1-rank0_2021.2.qdrep"],
     [1, 0]),
    (["app.rank3.node7.nsys-rep", "app.rank12.node2.nsys-rep"], [3, 12]),  # "rank" names it beside the host's number
    (["run1-gpu0.sqlite", "run2-gpu1.sqlite"], None),  # two numbers differ: which is the rank is not known
    (["app.3.sqlite", "app.3.sqlite"], None),  # one number twice
    (["conv_2023.1.sqlite", "llama3_2024.6.sqlite"], None),
    (["frank2.sqlite", "frank5.sqlite"], [2, 5]),  # "frank" is no "rank": the one differing number is
])
def test_a_rank_in_the_file_names(names: list[str], ranks: list[int] | None) -> None:
    assert name_ranks(names) == ranks


def test_one_folder_per_rank_names_the_rank_in_the_path_and_else_none_is_claimed() -> None:
    assert known_ranks(["r_3/report.sqlite", "r_11/report.sqlite"]) == ([3, 11], FILE_NAME)
    assert known_ranks(["conv.sqlite", "llama.sqlite"]) == ([None, None], ORDER)


def test_rows_are_in_rank_order_whatever_the_order_given() -> None:
    """app.10 before app.2 on the command line (a shell glob): rows 0, 1, 2, 10, each with its place given."""
    paths = ["app.0.sqlite", "app.1.sqlite", "app.10.sqlite", "app.2.sqlite"]
    totals = rank_totals([timeline(p, 0.0603) for p in paths])
    assert [(r.rank, r.file, r.rank_from) for r in totals] == [(0, 0, FILE_NAME), (1, 1, FILE_NAME),
                                                               (2, 3, FILE_NAME), (10, 2, FILE_NAME)]
    assert {r.outlier for r in totals} == {None}


def test_of_two_ranks_the_busier_is_the_one_the_other_waits_on() -> None:
    """The GEM V100 pair (busy 86.8 ms and 152 ms of 6.73 s spans), rank 1 given first: against the median of the
    two (119 ms) both were 'outliers' by the same 27.3%; against the other rank, rank 1 is 75% busier (slow: rank 0
    waits on it) and rank 0 43% less busy (fast: it waits)."""
    totals = rank_totals([timeline("gem-rank1.qdrep", 0.152), timeline("gem-rank0.qdrep", 0.0868)])
    assert [(r.rank, r.outlier) for r in totals] == [(0, "fast"), (1, "slow")]
    assert [r.off_others_pct for r in totals] == pytest.approx([(0.0868 / 0.152 - 1) * 100,
                                                                 (0.152 / 0.0868 - 1) * 100])


def test_in_a_large_job_only_the_straggler_is_marked() -> None:
    """Eight ranks, one 50% busier: it is the one the others wait on; the seven others stay within 10% of theirs."""
    busy = [0.1] * 7 + [0.15]
    totals = rank_totals([timeline(f"app.{i}.sqlite", b) for i, b in enumerate(busy)])
    assert [r.outlier for r in totals] == [None] * 7 + ["slow"]
    assert totals[-1].off_others_pct == pytest.approx(50.0)


def test_the_set_takes_each_files_rank_variables() -> None:
    """``timeline_set`` passes each file's launcher variables on (``nsys.load.Loaded.rank_variables``)."""
    from roofline.analysis.timeline import timeline_set

    doc = timeline_set([timeline("a.sqlite", 0.1), timeline("b.sqlite", 0.1)],
                       rank_variables=[{"PMIX_RANK": 7}, {"PMIX_RANK": 6}])
    assert [(r.rank, r.rank_from, r.path) for r in doc.ranks] == [(6, "PMIX_RANK", "b.sqlite"),
                                                                  (7, "PMIX_RANK", "a.sqlite")]
    assert doc.rank_of(0) == doc.ranks[1]


def test_the_files_are_put_in_rank_order_or_left_in_the_order_given() -> None:
    """A shell glob gives app.0, app.1, app.10, app.2: every part of the output goes by rank (0, 1, 2, 10); names
    that tell no rank keep the order given."""
    from roofline.analysis.timeline import rank_order

    assert rank_order(["app.0.sqlite", "app.1.sqlite", "app.10.sqlite", "app.2.sqlite"]) == [0, 1, 3, 2]
    assert rank_order(["b.sqlite", "a.sqlite"]) == [0, 1]
    assert rank_order(["x.sqlite", "y.sqlite"], [{"PMI_RANK": 1}, {"PMI_RANK": 0}]) == [1, 0]
