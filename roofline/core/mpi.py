"""The MPI launchers' environment variables that give a process its rank: one list, read by `wrap` (which rank this
process is) and by the timeline reader (which rank an Nsight Systems profile was of)."""

from __future__ import annotations

RANK_VARS = (
    "OMPI_COMM_WORLD_RANK",  # Open MPI
    "PMIX_RANK",  # PMIx launchers (Open MPI 5, prrte)
    "PMI_RANK",  # MPICH / Intel MPI (Hydra)
    "MV2_COMM_WORLD_RANK",  # MVAPICH2
    "PALS_RANKID",  # HPE Cray PALS
    "SLURM_PROCID",  # srun
)
