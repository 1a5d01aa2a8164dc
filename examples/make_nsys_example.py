"""Write examples/nsys/h100-examples.sqlite: an Nsight Systems SQLite export ASSEMBLED BY THIS PROJECT, not one
that nsys wrote.

It stands in for an nsys profile of the shipped examples until one is made on a GPU. It has the tables and columns
of a real export (nsys 2025.1, schema 3.17) that `roofline timeline` reads, and holds:

- the kernels of the examples/h100 `--set roofline` reports: their short, demangled and mangled names, grid,
  block, registers and shared memory, launched in the order the programs launch them (a warm-up and one timed
  launch per program, as `--repeat 1` runs; `sgemm 4096 1` launches once). Each launch lasts the report's own
  measured `gpu__time_duration.sum`; ncu profiled the first launch of each (`-c 1`), and the second is given the
  same duration;
- the NVTX ranges `fp32`, `fp64`, `bf16`, `fp16`, `fp8` around the GEMMs, as examples/pytorch_matmul.py opens
  them (the names the h100 reports were profiled with, `--nvtx-include fp32/`, ...);
- the CUDA API calls the programs make (launches, copies, allocations, synchronisations), the memory copies of
  examples/sgemm/sgemm.cu (two host-to-device inputs and the device-to-host result, from pageable
  `std::vector`s) and the device allocations' memory-usage events. These have no ncu report to take a time from:
  their durations are MODELLED from the constants below (a launch call's host time, a pageable copy's rate, the
  host-side gap before a program's first launch), not measured.

The programs ran as separate processes, one after another on device 0; only the kernels ncu profiled appear
(cuRAND and fill kernels of the PyTorch/CuPy set-up are not in the reports and not here). The export is made
deterministically, so tests/test_nsys_example.py can check that it is up to date with this script.

Run: python examples/make_nsys_example.py   (needs roofline installed: it reads the reports with roofline.load)
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from roofline.core.model import Device, KernelLaunch, Report

HERE = Path(__file__).resolve().parent
OUT = HERE / "nsys" / "h100-examples.sqlite"

# Modelled host-side figures (assumed, not measured): see the module docstring.
T0_NS = 1_000_000_000  # the first program's first API call
SETUP_NS = 2_000_000  # host time before a program's first launch (imports, context, operand set-up)
BETWEEN_PROGRAMS_NS = 50_000_000  # one process ends, the next starts
LAUNCH_CALL_NS = 6_000  # host time of one launch API call
LAUNCH_LATENCY_NS = 4_000  # from the launch call's start to the kernel's start on an idle GPU
PAGEABLE_BYTES_PER_S = 20e9  # a pageable host<->device copy (staged through a pinned buffer)
OPERANDS_NS = 200_000  # host time making the next GEMM's operands, between two NVTX ranges
CALL_NS = 3_000  # host time of a non-blocking call (cudaMalloc, cudaEventRecord, cudaFree)
PROCESS_PID = 41_000  # the first program's process id; the next ones count up
DEVICE = 0
STREAM = 7
CONTEXT = 1

# enum values of the export (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND, ENUM_CUDA_DEV_MEM_EVENT_OPER)
HTOD, DTOH = 1, 2
PAGEABLE, DEVICE_MEM = 0, 2
ALLOCATION, DEALLOCATION = 0, 1
NVTX_PUSH_POP = 59


@dataclass(frozen=True)
class Program:
    """One example program as it was run: its reports (in launch order), launches per kernel, NVTX ranges."""

    command: str
    reports: tuple[str, ...]  # examples/h100 reports (--set roofline), in the order the program runs them
    launches: int  # per kernel: warm-up + timed
    nvtx: tuple[str, ...] = ()  # one range per report, around its kernel's launches
    sync: str = "cudaDeviceSynchronize_v3020"


PROGRAMS = (
    Program("python examples/pytorch_matmul.py --dtype all --repeat 1",
            ("torch-fp32.roofline.json", "torch-fp64.roofline.json", "torch-bf16.roofline.ncu-rep",
             "torch-fp16.roofline.ncu-rep", "torch-fp8.roofline.ncu-rep"), 2,
            ("fp32", "fp64", "bf16", "fp16", "fp8")),
    Program("build/sgemm 4096 1", ("sgemm-cuda.roofline.ncu-rep",), 1, sync="cudaEventSynchronize_v3020"),
    Program("python examples/elementwise_triad.py --backend cupy --repeat 1", ("triad-cupy.roofline.ncu-rep",), 2),
    Program("python examples/elementwise_triad.py --backend torch --repeat 1", ("triad-torch.roofline.json",), 2),
    Program("python examples/elementwise_triad.py --backend cupy --half2 --repeat 1",
            ("triad-half2.roofline.ncu-rep",), 2),
)
SGEMM_N = 4096  # examples/sgemm/sgemm.cu: three N x N float matrices

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
    isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
    smCount INTEGER, chipName TEXT, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
    returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
    registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
    blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
    dynamicSharedMemory INTEGER NOT NULL, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
    dstDeviceId INTEGER, migrationCause INTEGER, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER, bytes INTEGER NOT NULL, memKind INTEGER,
    memoryOperationType INTEGER, name TEXT, correlationId INTEGER, localMemoryPoolAddress INTEGER,
    localMemoryPoolReleaseThreshold INTEGER, localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER,
    importedMemoryPoolAddress INTEGER, importedMemoryPoolProcessId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, "end" INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER);
"""
MEMCPY_KINDS = ((0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"), (1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
                (2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"), (8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"),
                (10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"))
MEM_KINDS = ((0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"), (1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
             (2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"), (4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"))


class Writer:
    """The rows of the export, appended in time order; string ids handed out as names first appear."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.strings: dict[str, int] = {}
        self.correlation = 0

    def sid(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[text], text))
        return self.strings[text]

    def call(self, tid: int, name: str, start: int, end: int) -> int:
        """A CUDA API call on thread ``tid``; returns its correlation id."""
        self.correlation += 1
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)",
                        (start, end, tid, self.correlation, self.sid(name)))
        return self.correlation


def global_pid(pid: int) -> int:
    """nsys's serialized process id: the pid above the low 24 bits (which hold the thread id)."""
    return pid << 24


def write(out: Path, reports_dir: Path = HERE / "h100") -> None:
    """Write the export to ``out`` (replacing it), from the reports in ``reports_dir``."""
    import roofline

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        part = Path(tmp) / out.name
        db = sqlite3.connect(part)
        db.executescript(SCHEMA)
        w = Writer(db)
        device = None
        now = T0_NS
        for i, program in enumerate(PROGRAMS):
            pid = PROCESS_PID + i
            gpid, tid = global_pid(pid), global_pid(pid) + pid
            db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (gpid, pid, program.command))
            reports = [roofline.load(reports_dir / name) for name in program.reports]
            device = device or reports[0].device
            now += SETUP_NS
            now = _run(w, program, reports, gpid, tid, now) + BETWEEN_PROGRAMS_NS
        assert device is not None
        _gpu(db, device)
        _metadata(db)
        db.commit()
        db.execute("VACUUM")
        db.close()
        part.replace(out)


def _run(w: Writer, program: Program, reports: list[Report], gpid: int, tid: int, now: int) -> int:
    """One program's API calls, copies and kernels from host time ``now``; returns the host time it ends."""
    gpu_free = now
    buffers: list[tuple[int, int]] = []
    if program.command.startswith("build/sgemm"):
        size = SGEMM_N * SGEMM_N * 4
        for k in range(3):  # d_a, d_b, d_c
            corr = w.call(tid, "cudaMalloc_v3020", now, now + CALL_NS)
            address = 0x7F0000000000 + k * size
            _memory_event(w, gpid, now + CALL_NS, address, size, ALLOCATION, corr)
            buffers.append((address, size))
            now += CALL_NS
        for _ in range(2):  # a, b: blocking pageable copies
            now, gpu_free = _copy(w, gpid, tid, now, size, HTOD)
        w.call(tid, "cudaEventRecord_v3020", now, now + CALL_NS)
        now += CALL_NS
    for report, nvtx in zip(reports, program.nvtx or (None,) * len(reports), strict=True):
        opened = now
        for launch in report.launches:
            for _ in range(program.launches):
                corr = w.call(tid, "cudaLaunchKernel_v7000", now, now + LAUNCH_CALL_NS)
                start = max(now + LAUNCH_LATENCY_NS, gpu_free)
                end = start + round(launch.value("gpu__time_duration.sum") or 0.0)
                _kernel(w, launch, gpid, corr, start, end)
                gpu_free = end
                now += LAUNCH_CALL_NS
        if nvtx is not None:  # the range holds the launches and the synchronisation that ends it
            now = _sync(w, tid, program.sync, now, gpu_free)
            w.db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, NULL, NULL, NULL, ?, ?, ?, NULL, NULL)",
                         (opened, now, NVTX_PUSH_POP, nvtx, tid, tid))
            now += OPERANDS_NS  # the next precision's operands are made outside its range
    if not program.nvtx:
        now = _sync(w, tid, program.sync, now, gpu_free)
    if buffers:
        now, gpu_free = _copy(w, gpid, tid, now, buffers[-1][1], DTOH)
        for address, size in buffers:
            corr = w.call(tid, "cudaFree_v3020", now, now + CALL_NS)
            _memory_event(w, gpid, now, address, size, DEALLOCATION, corr)
            now += CALL_NS
    return now


def _sync(w: Writer, tid: int, name: str, now: int, gpu_free: int) -> int:
    """A blocking synchronisation: it returns when the GPU's last kernel ends."""
    end = max(now + CALL_NS, gpu_free + CALL_NS)
    w.call(tid, name, now, end)
    return end


def _copy(w: Writer, gpid: int, tid: int, now: int, size: int, kind: int) -> tuple[int, int]:
    """A blocking pageable cudaMemcpy of ``size`` bytes; returns (host time, GPU free) after it."""
    duration = round(size / PAGEABLE_BYTES_PER_S * 1e9)
    start = now + LAUNCH_LATENCY_NS
    end = start + duration
    corr = w.call(tid, "cudaMemcpy_v3020", now, end + CALL_NS)
    src, dst = (PAGEABLE, DEVICE_MEM) if kind == HTOD else (DEVICE_MEM, PAGEABLE)
    w.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                 (start, end, DEVICE, CONTEXT, STREAM, corr, gpid, size, kind, src, dst, DEVICE, DEVICE))
    return end + CALL_NS, end


def _memory_event(w: Writer, gpid: int, at: int, address: int, size: int, operation: int, corr: int) -> None:
    w.db.execute("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?, NULL, "
                 "NULL, NULL, NULL, NULL, NULL)", (at, gpid, DEVICE, CONTEXT, address, size, DEVICE_MEM, operation,
                                                   corr))


def _kernel(w: Writer, launch: KernelLaunch, gpid: int, corr: int, start: int, end: int) -> None:
    """One kernel row with the report launch's names and launch configuration."""
    grid, block = launch.grid or (0, 0, 0), launch.block or (0, 0, 0)
    w.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, "
                 "?, ?, ?, 0, NULL)",
                 (start, end, DEVICE, CONTEXT, STREAM, corr, gpid,
                  w.sid(launch.demangled_name or launch.name),
                  w.sid(launch.name),
                  w.sid(launch.mangled_name or launch.name),
                  launch.registers_per_thread or 0, *grid, *block,
                  launch.shared_mem_per_block_bytes or 0))


def _gpu(db: sqlite3.Connection, device: Device) -> None:
    """The GPU from the reports' device record; memoryBandwidth = 2 x memory clock x bus width (DDR)."""
    d = device
    assert d.memory_clock_hz is not None and d.memory_bus_width_bits is not None
    bandwidth = round(2 * d.memory_clock_hz * d.memory_bus_width_bits / 8)
    major, minor = d.cc_tuple or (None, None)
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, ?, ?, NULL, 1, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
               (DEVICE, d.name, d.l2_cache_bytes, d.total_memory_bytes, bandwidth,
                round(d.max_clock_hz or 0), d.sm_count, DEVICE, major, minor))
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", MEMCPY_KINDS)
    db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)", MEM_KINDS)


def _metadata(db: sqlite3.Connection) -> None:
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", (
        ("EXPORT_PRODUCT_NAME", "roofline examples/make_nsys_example.py (assembled, not written by nsys)"),
        ("EXPORT_SCHEMA_VERSION", "3.17.1"),
        ("NOTE", "kernel durations: the examples/h100 reports' gpu__time_duration.sum; API calls, copies and "
                 "host gaps: modelled (see the script)")))


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
    print(f"wrote {sys.argv[1] if len(sys.argv) > 1 else OUT.relative_to(HERE.parent)}")
