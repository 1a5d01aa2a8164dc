"""MPI rank detection from the launcher's environment, and parsing of rank selections (``0,4``, ``0-3``, ``all``).

Launcher-specific variables come first: inside a Slurm allocation ``mpiexec`` ranks inherit the batch step's
``SLURM_PROCID=0`` / ``SLURM_LOCALID=0``, so the Slurm variables are trusted only when no MPI launcher set its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from roofline.core.mpi import RANK_VARS
from roofline.errors import RooflineError

LOCAL_RANK_VARS = (
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MPI_LOCALRANKID",  # MPICH / Intel MPI (Hydra)
    "MV2_COMM_WORLD_LOCAL_RANK",
    "PALS_LOCAL_RANKID",
    "PMI_LOCAL_RANK",  # Cray PMI
    "SLURM_LOCALID",
)


JOB_SIZE_VARS = {  # the number of ranks in the job, from the launcher that set the rank variable
    "OMPI_COMM_WORLD_RANK": "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK": "PMI_SIZE",
    "MV2_COMM_WORLD_RANK": "MV2_COMM_WORLD_SIZE",
    "SLURM_PROCID": "SLURM_NTASKS",
}
RANKS_FIX = "use e.g. 0,4 or 0-3 or all"


@dataclass(frozen=True)
class RankSelection:
    """The ranks to profile: every rank, or inclusive ranges (tested for membership, never listed: 0-300000000 is
    two numbers)."""

    ranges: tuple[range, ...] = ()
    every: bool = False
    spec: str = "all"

    def __contains__(self, rank: object) -> bool:
        return self.every or any(rank in r for r in self.ranges)

    @property
    def first(self) -> int:
        """The lowest rank selected (0 for every rank)."""
        return 0 if self.every or not self.ranges else min(r.start for r in self.ranges)

    def refuse_outside(self, size: int, variable: str) -> None:
        """RooflineError when a selected rank is not in a job of ``size`` ranks (as ``variable`` says): it would
        profile nothing, silently."""
        last = None if self.every else max(r[-1] for r in self.ranges)
        if last is not None and last >= size:
            raise RooflineError(f"--ranks '{self.spec}': this job has no rank {last} ({variable}={size}: ranks 0 to "
                                f"{size - 1})", f"choose ranks from 0 to {size - 1}, or all")


def parse_ranks(spec: str) -> RankSelection:
    """Parse ``all`` or a comma list of ranks and inclusive ranges (``0,4``, ``0-3``, ``0,8-11``)."""
    text = spec.strip()
    if text.lower() == "all":
        return RankSelection(every=True, spec=spec)
    try:
        ranges = tuple(_parse_part(part.strip()) for part in text.split(","))
    except ValueError:
        raise RooflineError(f"--ranks '{spec}': not a rank list", RANKS_FIX) from None
    return RankSelection(ranges=ranges, spec=spec)


def job_size(env: Mapping[str, str], rank_variable: str) -> tuple[int, str] | None:
    """``(ranks in the job, variable)`` from the launcher that set ``rank_variable``; None where it says none."""
    name = JOB_SIZE_VARS.get(rank_variable)
    value = env.get(name, "").strip() if name else ""
    return (int(value), str(name)) if value.isdigit() and int(value) > 0 else None


def _parse_part(part: str) -> range:
    """One element of a rank list: ``N`` or ``A-B`` (inclusive, A <= B, non-negative)."""
    first, sep, last = part.partition("-")
    lo = int(first)
    hi = int(last) if sep else lo
    if lo < 0 or hi < lo:
        raise ValueError(part)
    return range(lo, hi + 1)


def other_mpi_rank(env: Mapping[str, str]) -> bool:
    """Whether the launcher's environment names this process an MPI rank other than 0."""
    try:
        return detect_rank(env)[0] != 0
    except RooflineError:  # not an MPI rank, or a variable that is not a number
        return False


def detect_rank(env: Mapping[str, str], local: bool = False) -> tuple[int, str]:
    """Return ``(rank, variable)`` from the first launcher variable set; RooflineError outside an MPI job."""
    names = LOCAL_RANK_VARS if local else RANK_VARS
    for name in names:
        value = env.get(name)
        if value is None or value == "":
            continue
        if not value.strip().isdigit():
            raise RooflineError(f"{name}='{value}' is not a rank number", "check the MPI launcher's environment")
        return int(value), name
    kind = "local rank" if local else "rank"
    raise RooflineError(f"no MPI {kind} in the environment (looked for {', '.join(names)})",
                        "start 'roofline wrap' under mpiexec or srun, or use 'roofline analyze' for one process")
