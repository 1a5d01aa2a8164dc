"""User-facing errors: each carries a one-line message naming the input and the fix, and an exit code.

Library code raises these; only the CLI turns them into a printed line and an exit status.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

USAGE_EXIT = 2  # bad input: missing/corrupt file, no kernel matched, malformed spec
TOOL_EXIT = 3  # an external tool (ncu, the application) failed
# The fix for a report none of whose launches is valid (no time, an impossible value): one text for every command
REPROFILE_INVALID = "profile the kernels again (roofline report FILE shows each launch's problem)"


class LeftOutCause(enum.Enum):
    """Why a command went on past a report file (its documents' ``left_out``): no kernel matched the filter there
    (the file is fine), the file itself (missing, corrupt, not an ncu report, no kernels), a device spec, else."""

    NO_KERNEL_MATCHED = "no_kernel_matched"
    REPORT = "report"
    SPEC = "spec"
    OTHER = "other"


class RooflineError(Exception):
    """Base class: ``str(err)`` is the single line shown to the user."""

    exit_code = USAGE_EXIT
    left_out = LeftOutCause.OTHER  # why a file with this error is left out of a run over several
    path = ""  # the report file the error is about, where a run over several files went on past it (the pipeline's)

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message}: {hint}" if hint else message)


class Interrupted(RooflineError):
    """A profiler (ncu, nsys) stopped by a signal passed on to it; exits with 128 + the signal number, as shells do."""

    def __init__(self, signum: int, message: str, hint: str) -> None:
        self.exit_code = 128 + signum
        super().__init__(message, hint)


class UsageError(RooflineError):
    """The command line itself is wrong (an option's value, options that conflict): the same error on every MPI
    rank that runs it, so under ``summary --mpi`` rank 0 alone prints it."""


class ReportError(RooflineError):
    """A report file is missing, empty, corrupt, not an ncu report, or holds no kernels."""

    left_out = LeftOutCause.REPORT


class NoKernelMatched(RooflineError):
    """A kernel filter matched no launch."""

    left_out = LeftOutCause.NO_KERNEL_MATCHED


class SpecError(RooflineError):
    """A device spec file is malformed, incomplete, or an ID is unknown."""

    left_out = LeftOutCause.SPEC


class NcuError(RooflineError):
    """ncu is missing, too old, was denied counters, or did not write a report."""

    exit_code = TOOL_EXIT


class CountersDenied(NcuError):
    """ncu was refused the GPU's performance counters (ERR_NVGPUCTRPERM): nsys can still time the kernels."""


class NoReportAnalysed(RooflineError):
    """Every report file of a command that goes on past bad ones was bad: each one's error, the worst exit status."""

    def __init__(self, errors: Sequence[RooflineError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = tuple(errors)
        self.exit_code = max(e.exit_code for e in errors)
