"""Branch and call targets in SASS as offsets in their function (``analysis.sass.with_offsets``), as the hot spots show
them; the def-use rules of the same module are tested in ``tests/analysis/test_hotspots_producers.py``."""

from __future__ import annotations

import re

import pytest

from roofline.analysis.hotspots import hotspots, top_rows
from roofline.analysis.sass import with_offsets
from tests.ncu.test_pc_sampling import _path, _report

START = 0x7F0E068E2E00  # a function's start address, as ncu_report gives it


@pytest.mark.parametrize(("sass", "shown"), [
    ("BRA `(.L_x_0) 0x7f0e068e7aa0", "BRA `(.L_x_0) +0x4ca0"),
    ("@!P2  BRA 0x7f0e068e3000", "@!P2  BRA +0x200"),
    ("@P2   BRA.U 0x7f0e068e2e10", "@P2   BRA.U +0x10"),
    ("BSSY B0, 0x7f0e068e2f80", "BSSY B0, +0x180"),
    ("BRX R2 0x7f0e068e3000", "BRX R2 +0x200"),
    ("@P1   CALL.REL.NOINC 0x7f0e068e4be0", "@P1   CALL.REL.NOINC +0x1de0"),  # a subroutine after the kernel's body
])
def test_a_branch_or_call_target_becomes_an_offset_in_its_function(sass: str, shown: str) -> None:
    assert with_offsets(sass, START) == shown


def test_a_target_from_the_next_function_on_stays_an_address() -> None:
    assert with_offsets("CALL.ABS.NOINC 0x7f0e06900000", START, 0x7F0E06900000) == "CALL.ABS.NOINC 0x7f0e06900000"
    assert with_offsets("CALL.ABS.NOINC 0x7f0e068fffff", START, 0x7F0E06900000) == "CALL.ABS.NOINC +0x1d1ff"


@pytest.mark.parametrize("sass", [
    "MOV R33, 0x3e055027",  # an immediate, whatever its value
    "IADD3 R36, R19, -0x3f2aaaab, RZ",
    "ISETP.GT.U32.AND P0, PT, R19, 0x7f0e068e7aa0, PT",  # a value that happens to look like an address
    "BRA 0x7f0e068e0000",  # before the function's start: not one of its instructions
    "BRX R2 -0x7f0e068e2e10",  # a signed operand: a displacement, not an address
    "CALL.ABS.NOINC 0x0",
    "JMP R4",
    "EXIT",
])
def test_immediates_and_addresses_outside_the_function_stay_as_they_are(sass: str) -> None:
    assert with_offsets(sass, START) == sass


def test_without_the_function_start_the_text_stays_as_it_is() -> None:
    assert with_offsets("BRA 0x7f0e068e7aa0", None) == "BRA 0x7f0e068e7aa0"


def test_real_report_branch_rows_name_their_target_as_the_rows_name_instructions() -> None:
    """The RTX 3080 SGEMM report's hot branches: each row shows its target as an offset, equal to the target read
    from the raw SASS minus the function's start; no absolute address is left in any row."""
    report = _report(_path("rtx3080_sgemm-vs-cublas_full"))
    branches = 0
    for launch in report.launches:
        h = hotspots(launch)
        if h is None:
            continue
        raw = {pc.pc_offset: pc for pc, _ in h.pcs}
        for row in top_rows(h, n=len(h.pcs)):
            assert not re.search(r"0x[0-9a-f]{9,}", row.sass or "")
            offset = int(row.where.rsplit("+0x", 1)[1], 16) if "+0x" in row.where else None
            pc = raw.get(offset) if offset is not None else None
            if pc is None or not pc.sass or " BRA" not in f" {pc.sass}" or pc.function_pc is None:
                continue
            target = int(re.findall(r"0x([0-9a-f]+)", pc.sass)[-1], 16)
            assert (row.sass or "").endswith(f"+0x{target - pc.function_pc:x}")
            branches += 1
    assert branches > 0
