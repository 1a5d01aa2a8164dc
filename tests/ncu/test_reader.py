"""The .ncu-rep reader: device, launch records, NVTX, rules, differing metric sets and units, and bad input.

Expected values come from ncu_report directly (the ``raw_actions`` fixture) or are facts about the GPUs.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from msgspec.structs import replace

from roofline.core.model import Report
from roofline.errors import ReportError
from roofline.ncu import child, extract, metrics, reader
from roofline.ncu.reader import load_report
from tests.ncu_blocks import blocks

DAXPY = "rtx3070_daxpy-nvtx_custom"
H800 = "h800_flash-attn-fwd_full"
T4 = "t4_matrix-add-2d_full"
ALIFE = "rtx2070super_alife-143launches_basic"


# --- Device ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, gpu, cc, sms, bus_bits", [
    ("v100_miniweather-openacc_full", "Tesla V100-SXM2-32GB", "7.0", 80, 4096),
    ("a100-80gb_cutlass-gemm_full", "NVIDIA A100 80GB PCIe", "8.0", 108, 5120),
    ("rtx4090_smem-transpose_full", "NVIDIA GeForce RTX 4090", "8.9", 128, 384),
    ("h100-pcie_rmsnorm-float4_full-roofline", "NVIDIA H100 PCIe", "9.0", 114, 5120),
    (H800, "NVIDIA H800", "9.0", 132, 5120),
    ("rtx5060ti_transpose_basic", "NVIDIA GeForce RTX 5060 Ti", "12.0", 36, 128),
])
def test_device_fields(roofline_report, raw_actions, name, gpu, cc, sms, bus_bits):
    device = roofline_report(name).device
    raw = raw_actions(name)[0]
    assert (device.name, device.compute_capability, device.sm_count) == (gpu, cc, sms)
    assert device.cc_tuple == tuple(int(x) for x in cc.split("."))
    assert device.memory_bus_width_bits == bus_bits == raw["device__attribute_global_memory_bus_width"]
    assert device.max_clock_hz == raw["device__attribute_max_gpu_frequency_khz"] * 1e3  # kHz -> Hz
    assert device.memory_clock_hz == raw["device__attribute_max_mem_frequency_khz"] * 1e3
    assert device.l2_cache_bytes == raw["device__attribute_l2_cache_size"]
    assert device.total_memory_bytes == raw["device__attribute_total_memory"]
    assert device.attributes["display_name"] == gpu
    assert device.attributes["multiprocessor_count"] == sms


# --- Launch records --------------------------------------------------------------------------------------------
def test_launch_records_match_ncu_report(roofline_report, raw_actions):
    name = "v100_miniweather-openacc_full"
    report, raws = roofline_report(name), raw_actions(name)
    assert [(k.range_index, k.action_index) for k in report.launches] == [(r.range_index, r.action_index)
                                                                          for r in raws]
    for k, raw in zip(report.launches, raws, strict=True):
        assert (k.name, k.demangled_name, k.mangled_name) == (raw.name, raw.demangled, raw.mangled)
        assert k.grid == tuple(int(raw[f"launch__grid_dim_{ax}"]) for ax in "xyz")
        assert k.block == tuple(int(raw[f"launch__block_dim_{ax}"]) for ax in "xyz")
        assert k.registers_per_thread == int(raw["launch__registers_per_thread"])
        assert k.shared_mem_per_block_bytes == int(raw["launch__shared_mem_per_block"])
        assert k.key == f"{raw.range_index}:{raw.action_index}"


def test_templated_names_keep_function_demangled_and_mangled_forms(roofline_report):
    k = roofline_report(H800).launches[4]
    assert k.name == "flash_fwd_kernel"
    assert k.demangled_name.startswith("void flash_fwd_kernel<Flash_fwd_kernel_traits<")
    assert k.mangled_name.startswith("_Z") and "flash_fwd_kernel" in k.mangled_name


def test_daxpy_launch_configuration_and_nvtx_ranges(roofline_report):
    launches = roofline_report(DAXPY).launches
    assert [k.name for k in launches] == ["init_data_kernel", "daxpy_kernel", "check_results_kernel"]
    assert [k.nvtx_ranges for k in launches] == [("run_test", "init_data"), ("run_test", "daxpy"),
                                                 ("run_test", "check_results")]
    daxpy = launches[1]
    assert daxpy.demangled_name == "daxpy_kernel(int, double, double *, double *)"
    assert daxpy.mangled_name == "_Z12daxpy_kernelidPdS_"
    assert daxpy.grid == (16384, 1, 1) and daxpy.block == (256, 1, 1)
    assert daxpy.registers_per_thread == 16 and daxpy.shared_mem_per_block_bytes == 1024


def test_rule_results_are_kept(roofline_report, raw_actions):
    name = "v100_miniweather-openacc_full"
    for k, raw in zip(roofline_report(name).launches, raw_actions(name), strict=True):
        with_text = [r for r in raw.rules if (r.get("rule_message") or {}).get("message", "").strip()]
        assert len(k.rules) == len(with_text) > 0
        assert [r.rule for r in k.rules] == [r["rule_identifier"] for r in with_text]
        assert all(r.kind in ("info", "ok", "optimization", "warning", "error") for r in k.rules)
        assert all(r.message and r.section for r in k.rules)
    rules = roofline_report(DAXPY).launches[0].rules
    assert {(r.rule, r.kind) for r in rules} >= {("Occupancy", "warning")}


def test_rule_focus_metrics_and_speedups_are_kept(roofline_report, raw_actions):
    """Focus metrics (name, value, severity, ncu's note) and the estimated speedup with its type, as stored."""
    name = "rtx4070ti_pytorch-sim_full"
    kept = 0
    for k, raw in zip(roofline_report(name).launches, raw_actions(name), strict=True):
        with_text = [r for r in raw.rules if (r.get("rule_message") or {}).get("message", "").strip()]
        for ours, theirs in zip(k.rules, with_text, strict=True):
            focus = theirs.get("focus_metrics") or []
            assert [(f.name, f.value, f.severity, f.info) for f in ours.focus_metrics] == [
                (f["name"], f["value"], f["severity"], f["info"]) for f in focus]
            speedup = theirs.get("speedup_estimation") or {}
            assert ours.speedup_pct == speedup.get("speedup")
            assert ours.speedup_type == {1: "local", 2: "global"}.get(speedup.get("type"), "")
            kept += ours.speedup_pct is not None
    assert kept > 20
    fill = roofline_report(name).launches[3]
    sol = next(r for r in fill.rules if r.rule == "SOLBottleneck")
    assert sol.focus_metrics[0].info == "67.458 - 1.491 >= 10.000"


# --- Metric sets, units and absent metrics -----------------------------------------------------------------------
def test_metric_sets_differ_between_launches_of_one_report(roofline_report, raw_actions):
    raws = raw_actions(H800)
    counts = [len(r.metric_names) for r in raws]
    assert counts[:4] == [964] * 4 and counts[4] == 829
    launches = roofline_report(H800).launches
    full, failed = launches[0], launches[4]
    read_full = set(full.metrics) | full.nan_metrics
    read_failed = set(failed.metrics) | failed.nan_metrics
    assert read_failed < read_full  # the failed launch lacks e.g. its launch__* metrics
    assert "launch__grid_dim_x" in full.metrics and "launch__grid_dim_x" not in read_failed
    assert failed.grid is None and failed.registers_per_thread is None
    assert "gpu__time_duration.sum" in failed.nan_metrics and "gpu__time_duration.sum" not in failed.metrics
    assert failed.value("gpu__time_duration.sum") is None


def test_units_differ_between_ncu_versions_but_values_are_base_units(roofline_report, raw_actions):
    """ncu 2022.2 labels the per-cycle FMA rate 'cycle' and the peak 'inst'; ncu 2025.1 'inst/cycle'.
    Either way the reader keeps the value as stored (base units: ns, byte, Hz)."""
    rate = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
    peak = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
    old, new = raw_actions("v100_miniweather-openacc_full")[2], raw_actions("h100-pcie_rmsnorm-float4_full-roofline")[0]
    assert (old.units[rate], old.units[peak]) == ("cycle", "inst")
    assert (new.units[rate], new.units[peak]) == ("inst/cycle", "inst/cycle")
    for name, raw in (("v100_miniweather-openacc_full", old), ("h100-pcie_rmsnorm-float4_full-roofline", new)):
        k = roofline_report(name).launches[raw.action_index]
        for metric in (rate, peak, "gpu__time_duration.sum", "dram__bytes.sum.per_second"):
            assert k.metrics[metric] == raw.value(metric)
        assert raw.units["gpu__time_duration.sum"] == "ns"
    # launch metrics: float in ncu 2022-2024 reports, int in 2025 ones; the model has ints either way
    assert isinstance(old.value("launch__shared_mem_per_block"), float)
    assert isinstance(new.value("launch__shared_mem_per_block"), int)
    for name in ("v100_miniweather-openacc_full", "h100-pcie_rmsnorm-float4_full-roofline"):
        assert isinstance(roofline_report(name).launches[0].shared_mem_per_block_bytes, int)


def test_missing_metric_is_absent_not_zero(roofline_report, raw_actions):
    name = "a10g_sgemm-progression_basic"
    k, raw = roofline_report(name).launches[0], raw_actions(name)[0]
    rate = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
    assert raw.value(rate) is None
    assert rate not in k.metrics and rate not in k.nan_metrics and k.value(rate) is None
    assert k.value("no__such_metric.sum") is None


def test_only_the_metrics_roofline_uses_are_read(roofline_report):
    k = roofline_report("h100-pcie_rmsnorm-float4_full-roofline").launches[0]
    units = {u for b in metrics.BREAKDOWNS for u in metrics.breakdown_units(str(k.metrics[b]))}  # the units listed
    assert "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed" in units
    assert set(k.metrics) == set(metrics.to_read(k.metrics)) | units
    assert all(k.value(u) is not None for u in units)
    assert not any(n.startswith("launch__occupancy_per_") for n in k.metrics)  # instanced curves skipped
    assert not any(n.startswith("device__attribute_") for n in k.metrics)  # those live on the Device
    assert not any(n.startswith(metrics.TENSOR_OPS_PREFIX) and ".avg" in n for n in k.metrics)  # .sum forms only


def test_the_metric_list_is_all_the_analysis_reads(shared_name, roofline_report, raw_actions):
    """Every report analyses to the same JSON document when every metric each launch holds is read: the list in
    roofline.ncu.metrics leaves out nothing a formula, the verdict, a diagnostic, the advice or a check reads."""
    from roofline.pipeline import analyze_loaded
    from roofline.render.report.json import render
    from tests.views import views

    report = roofline_report(shared_name)
    full = []
    for k, raw in zip(report.launches, raw_actions(shared_name), strict=True):
        held = {n: v for n, v in raw.values.items() if not n.startswith(extract.DEVICE_PREFIX)}
        nan = {n for n, v in held.items() if isinstance(v, float) and math.isnan(v)}
        own = {n: v for n, v in k.metrics.items() if n in metrics.OWN_METRICS}  # roofline's, not ncu's
        assert set(k.metrics) <= set(held) | set(own) and len(k.metrics) < len(held)
        full.append(replace(k, metrics={**{n: v for n, v in held.items() if n not in nan}, **own}, nan_metrics=nan))
    with_every_metric = replace(report, launches=tuple(full))
    assert render(views([analyze_loaded(with_every_metric)])) == render(views([analyze_loaded(report)]))


def test_every_shared_report_loads(shared_name, roofline_report, raw_actions):
    report = roofline_report(shared_name)
    raws = raw_actions(shared_name)
    assert report.source == "ncu-rep" and report.path.endswith(f"{shared_name}.ncu-rep")
    assert report.device.name and report.device.name != "unknown"
    assert len(report.launches) == len(raws) > 0
    for k, raw in zip(report.launches, raws, strict=True):
        assert (k.range_index, k.action_index, k.name) == (raw.range_index, raw.action_index, raw.name)
        for metric, value in k.metrics.items():
            assert not (isinstance(value, float) and math.isnan(value)), metric
            assert value == raw.value(metric) or metric in metrics.OWN_METRICS, metric  # test_hfma_moves, ...
        for metric in k.nan_metrics:
            assert math.isnan(raw.value(metric)), metric
    json.dumps(report.to_dict(), allow_nan=False)  # the model is strict JSON


# --- Bad input ----------------------------------------------------------------------------------------------------
def one_line_error(path) -> str:
    with pytest.raises(ReportError) as info:
        load_report(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text
    return text


def test_missing_empty_folder_lfs_and_foreign_files(tmp_path):
    assert "no such file" in one_line_error(tmp_path / "absent.ncu-rep")
    (tmp_path / "empty.ncu-rep").write_bytes(b"")
    assert "empty" in one_line_error(tmp_path / "empty.ncu-rep")
    assert "folder" in one_line_error(tmp_path)
    lfs = tmp_path / "lfs.ncu-rep"
    lfs.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 193337\n")
    assert "git lfs pull" in one_line_error(lfs)
    text = tmp_path / "notes.ncu-rep"
    text.write_text("this is not a report\n")
    assert "not an Nsight Compute report" in one_line_error(text)


def test_truncated_reports(shared_report, tmp_path, capfd):
    data = shared_report(T4).read_bytes()
    first_kb = tmp_path / "first-kb.ncu-rep"
    first_kb.write_bytes(data[:1024])
    assert "truncated" in one_line_error(first_kb)
    header_only = tmp_path / "header-only.ncu-rep"
    header_only.write_bytes(data[:8])
    capfd.readouterr()
    assert "truncated" in one_line_error(header_only)
    out, err = capfd.readouterr()  # the native reader logs protobuf parse errors on fd 2: none may leak
    assert (out, err) == ("", "")
    mid_result = tmp_path / "mid-result.ncu-rep"
    mid_result.write_bytes(data[: len(data) // 2])  # the launch record is cut: a launch with no data
    message = one_line_error(mid_result)
    assert "launch 0:0 holds no data" in message and "truncated" in message


def test_report_with_no_kernels(shared_report, tmp_path):
    """The T4 report with its one result block removed: a well-formed report that holds no launch."""
    data = shared_report(T4).read_bytes()
    parts = blocks(data)
    assert parts[-1][1] == len(data) and sum(n for *_, n in parts) == 1
    kept = data[:parts[0][0]] + b"".join(data[s:e] for s, e, n in parts if n == 0)
    empty = tmp_path / "no-kernels.ncu-rep"
    empty.write_bytes(kept)
    assert "holds no kernel launches" in one_line_error(empty)


@pytest.mark.parametrize("content, expected", [
    ("[1, 2]", "not a report model (a JSON object starts with '{', this file with byte 0x5b)"),
    ("{\"a\": 1}", "not a roofline-report-model document"),
    ("not json", "this file with byte 0x6e"),
    ("{not json", "not a valid roofline report model"),
    ("   \n ", "this file with nothing but white space"),
    ("{\"format\": \"roofline-report-model\", \"version\": 99, \"device\": {}, \"launches\": []}", "version 99"),
    ("{\"format\": \"roofline-report-model\", \"version\": 1, \"device\": {\"name\": \"x\", \"bogus\": 1}, "
     "\"launches\": []}", "bogus"),
    ("{\"format\": \"roofline-report-model\", \"version\": 1, \"device\": {\"name\": \"x\"}, \"launches\": []}",
     "holds no kernel launches"),
])
def test_json_that_is_not_a_report_model(tmp_path, content, expected):
    path = tmp_path / "model.json"
    path.write_text(content)
    assert expected in one_line_error(path)


def test_a_large_file_that_cannot_be_a_model_is_refused_from_its_first_bytes(tmp_path):
    """A sparse file of zeros under the size limit (2 GiB, or the limit on a small machine): refused from its first
    4 KiB, never read whole (it would take 3x its size in memory to parse)."""
    from roofline.ncu.reader import model_max_bytes

    path = tmp_path / "zeros.json"
    with path.open("wb") as fh:
        fh.truncate(min(2 << 30, model_max_bytes() - 1))  # sparse: no disk space used
    assert "this file with byte 0x00" in one_line_error(path)


# --- The native reader crashing or missing ------------------------------------------------------------------------
def _segfault(path: str, write_fd: int, sass: bool = True) -> None:
    """A child entry point that dies the way a native crash does (muted like the real one; pytest's
    faulthandler, inherited through fork, is turned off so the expected crash prints no dump)."""
    import faulthandler

    faulthandler.disable()
    child._silence_native_output()
    os.kill(os.getpid(), signal.SIGSEGV)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to patch the child")
def test_native_crash_becomes_one_line_error_and_the_process_lives(shared_report, monkeypatch):
    monkeypatch.setattr(child, "_child_main", _segfault)
    path = shared_report(T4)
    message = one_line_error(path)
    assert "crashed" in message and f"exit {-signal.SIGSEGV}" in message
    with pytest.raises(ChildProcessError):  # the dead child was reaped: no child is left to wait for
        os.waitpid(-1, os.WNOHANG)
    monkeypatch.undo()
    assert len(load_report(path).launches) == 1  # and this process still reads reports


def _interrupted(path: str, write_fd: int, sass: bool = True) -> None:
    """A child entry point that meets Ctrl-C (KeyboardInterrupt, which no ``except Exception`` catches)."""
    child._silence_native_output()
    raise KeyboardInterrupt


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to patch the child")
def test_an_interrupted_child_ends_without_unwinding_into_the_parents_code(shared_report, monkeypatch):
    """Were the child's exception to unwind past the fork, the child would go on running its parent's code (here:
    the rest of this test, and pytest, twice). It ends with status 1 instead; the parent names the failed read."""
    parent = os.getpid()
    monkeypatch.setattr(child, "_child_main", _interrupted)
    message = one_line_error(shared_report(T4))
    assert os.getpid() == parent
    assert "crashed" in message and "exit 1)" in message


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to patch the child")
def test_missing_ncu_report_module_says_how_to_install(shared_report, monkeypatch):
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # "import ncu_report" now fails in the forked child
    assert "pip install ncu-report" in one_line_error(shared_report(T4))


def test_report_model_file_loads_without_ncu_report(roofline_report, tmp_path, monkeypatch):
    report = roofline_report(DAXPY)
    path = tmp_path / "daxpy.roofline.json"
    path.write_text(json.dumps(report.to_dict()))
    monkeypatch.setitem(sys.modules, "ncu_report", None)
    loaded = load_report(path)
    assert isinstance(loaded, Report) and loaded.source == "model"
    assert loaded.launches == report.launches and Path(loaded.path) == path


def test_model_larger_than_this_machine_parses_is_refused_before_reading(roofline_report, tmp_path, monkeypatch):
    path = tmp_path / "daxpy.roofline.json"
    path.write_text(json.dumps(roofline_report(DAXPY).to_dict()))
    monkeypatch.setattr(reader, "model_max_bytes", lambda: 1 << 10)  # a machine with 3 KiB of memory
    message = one_line_error(path)
    assert f"over the 0 MiB of report model this machine can parse (about {reader.MODEL_PARSE_FACTOR}x" in message
    assert message.endswith("analyse it on a machine with more memory, or the .ncu-rep it came from")


def test_the_largest_model_parsed_is_a_share_of_physical_memory():
    largest = reader.model_max_bytes()
    assert largest == reader.physical_memory() // reader.MODEL_PARSE_FACTOR
    if hasattr(os, "sysconf"):
        assert reader.physical_memory() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert largest >= 1 << 28  # any machine that runs the tests parses a 10,000-launch model (36 MB)


# --- The child's answer in frames (issue 13) ----------------------------------------------------------------------
def test_the_batches_bring_the_device_and_every_launch_in_order_as_the_reports_own_objects(shared_report):
    reading = reader.ReportReading(shared_report(ALIFE))
    batches = list(reading.batches())
    report = reading.report()
    assert batches and all(batch.device is report.device for batch in batches)
    taken = [launch for batch in batches for launch in batch.launches]
    assert len(taken) == len(report.launches) == 143
    assert all(mine is theirs for mine, theirs in zip(taken, report.launches, strict=True))


def test_a_frame_larger_than_the_pipe_leaves_the_sender_at_once_and_arrives_whole():
    """The child never waits for the parent: what the pipe cannot take waits in the child, and goes out with the
    next frame or at the end."""
    read_fd, write_fd = os.pipe()
    frames = child._Frames(write_fd)
    device = ("device", {"name": "NVIDIA Imaginary GPU"})
    large = ("launches", [{"name": "k", "metrics": {"text": "x" * (4 << 20)}}], ["NVIDIA Imaginary GPU"])
    frames.send(device)
    frames.send(large)
    assert frames.waiting  # 4 MiB do not fit in the pipe: the rest waits here, send did not block
    ending = threading.Thread(target=lambda: (frames.send(("ok", None)), frames.close()))
    ending.start()
    taken: list[tuple] = []
    end = yield_all(child.read_frames(read_fd, time.monotonic() + 60), taken.extend)
    ending.join()
    os.close(read_fd)
    assert end == ("ok", None) and taken == [device, large]


def test_an_answer_that_arrived_before_the_deadline_is_taken_after_it():
    """The deadline bounds the child's read, not this process's work on the frames it already sent."""
    read_fd, write_fd = os.pipe()
    frames = child._Frames(write_fd)
    frames.send(("ok", None))
    frames.close()
    assert yield_all(child.read_frames(read_fd, time.monotonic() - 1.0), lambda frames: None) == ("ok", None)
    os.close(read_fd)


def test_the_time_a_consumer_spends_on_frames_does_not_count_against_the_read():
    """A consumer that works on one batch past the deadline (the pipeline diagnosing it) still gets the frames the
    child sends afterwards: the deadline moves on by the consumer's time."""
    read_fd, write_fd = os.pipe()
    frames = child._Frames(write_fd)
    frames.send(("device", {"name": "NVIDIA Imaginary GPU"}))
    later = threading.Timer(0.3, lambda: (frames.send(("ok", None)), frames.close()))
    later.start()
    end = yield_all(child.read_frames(read_fd, time.monotonic() + 0.2), lambda batch: time.sleep(0.25))
    later.join()
    os.close(read_fd)
    assert end == ("ok", None)


def yield_all(frames, take):
    """Hand each batch of frames a generator yields to ``take``; what it returns."""
    while True:
        try:
            take(next(frames))
        except StopIteration as stop:
            return stop.value


def _pipe_max_size() -> int:
    try:
        return int(Path("/proc/sys/fs/pipe-max-size").read_text())
    except OSError:
        return 0


@pytest.mark.skipif(_pipe_max_size() < child.PIPE_BYTES, reason="needs Linux pipes that may hold 1 MiB")
def test_the_pipe_from_the_child_holds_a_mebibyte():
    import fcntl

    read_fd, write_fd = os.pipe()
    child._widen(write_fd)
    assert fcntl.fcntl(write_fd, fcntl.F_GETPIPE_SZ) == child.PIPE_BYTES
    os.close(read_fd)
    os.close(write_fd)


def _crashes_after_one_launch(path: str, write_fd: int, sass: bool = True) -> None:
    """A child entry point that sends the device and a launch, then dies the way a native crash does."""
    import faulthandler

    faulthandler.disable()
    child._silence_native_output()
    frames = child._Frames(write_fd)
    frames.send(("device", {"name": "NVIDIA Imaginary GPU"}))
    frames.send(("launches", [{"range_index": 0, "action_index": 0, "name": "k"}], ["NVIDIA Imaginary GPU"]))
    os.kill(os.getpid(), signal.SIGSEGV)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to patch the child")
def test_a_child_that_dies_after_sending_launches_ends_in_the_crash_error(shared_report, monkeypatch):
    monkeypatch.setattr(child, "_child_main", _crashes_after_one_launch)
    taken = []
    reading = reader.ReportReading(shared_report(T4))
    with pytest.raises(ReportError, match=f"reader crashed on this file \\(exit {-signal.SIGSEGV}\\)"):
        for batch in reading.batches():
            taken.extend(batch.launches)
    assert [launch.name for launch in taken] == ["k"]  # handed over early, then dropped with the failed read


# --- Time limit and what is not a file (issue 15) -----------------------------------------------------------------
def _reads_forever(path: str, write_fd: int, sass: bool = True) -> None:
    """A child entry point that never answers, like the native reader spinning on a hostile file."""
    import faulthandler
    import time

    faulthandler.disable()
    child._silence_native_output()
    time.sleep(3600)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to patch the child")
def test_reader_past_its_time_limit_is_killed_and_the_file_named(shared_report, monkeypatch):
    monkeypatch.setattr(child, "_child_main", _reads_forever)
    path = shared_report(T4)
    with pytest.raises(ReportError) as err:
        load_report(path, time_limit_s=0.5)
    assert str(err.value) == (f"{path}: reading took longer than 0.5 s and was stopped: the file may be corrupt; "
                              "if it is a large real report, raise --timeout (seconds)")
    with pytest.raises(ChildProcessError):  # the killed child was reaped
        os.waitpid(-1, os.WNOHANG)


def test_time_limit_scales_with_the_file_size():
    assert reader.read_time_limit(0) == reader.READ_LIMIT_BASE_S
    assert reader.read_time_limit(2 << 30) == reader.READ_LIMIT_BASE_S + 2048 * reader.READ_LIMIT_S_PER_MIB


def test_timeout_option_reaches_the_reader(shared_report):
    from typer.testing import CliRunner

    from roofline.cli.app import app

    path = shared_report(T4)
    result = CliRunner().invoke(app, ["report", str(path), "--timeout", "0.001"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"roofline: error: {path}: reading took longer than 0.001 s and was stopped")


def test_unreadable_location_is_one_line(tmp_path, monkeypatch):
    """Issue 15: a report in a folder the user cannot read raised PermissionError from Path.exists()."""
    path = tmp_path / "locked" / "r.ncu-rep"
    stat_of = Path.stat

    def denied(self: Path, *args: object, **kwargs: object) -> os.stat_result:
        if self == path:
            raise PermissionError(13, "Permission denied")
        return stat_of(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", denied)
    assert one_line_error(path) == f"{path}: cannot access (Permission denied): check the path and its permissions"


def test_fifo_as_input_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "r.ncu-rep"
    os.mkfifo(fifo)
    assert one_line_error(fifo) == (f"{fifo}: is a FIFO, not a regular file: pass the .ncu-rep or .json report file "
                                    "itself (save a stream to a file first)")


# --- Records repeated, counts changed (issue 37) ----------------------------------------------------------------
def test_a_repeated_kernel_record_warns_and_counts_the_launch_once(shared_report, tmp_path):
    """A duplicated record read as one more launch: 1 -> 2 launches and twice the time, with no warning."""
    from tests.ncu.test_container import rebuilt

    data = shared_report("rtx2080ti_kernels_basic").read_bytes()
    path = tmp_path / "repeat.ncu-rep"
    path.write_bytes(rebuilt(data, lambda bs: [*bs, bs[-1]]))
    report = load_report(path)
    assert [(k.key, k.name, k.invalid) for k in report.launches] == [
        ("0:0", "kernel_A", ""), ("0:1", "kernel_C", ""),
        ("0:2", "kernel_C", "repeats the record of launch 0:1 byte for byte")]
    assert report.warnings[0] == ("1 launch record(s) repeat an earlier record byte for byte: each launch is counted "
                                  "once")


def test_a_record_whose_result_count_was_changed_warns(shared_report, tmp_path):
    """A block header announcing 2**32 results: ncu_report drops that launch; the count no longer agrees."""
    from tests.ncu.test_container import OCCUPANCY, rebuilt, with_results

    path = tmp_path / "count.ncu-rep"
    data = shared_report(OCCUPANCY).read_bytes()
    path.write_bytes(rebuilt(data, lambda bs: [*bs[:20], with_results(bs[20], 2**32), *bs[21:]]))
    report = load_report(path)
    assert len(report.launches) == 44
    assert report.warnings[0] == (f"the file's records announce {44 + 2**32} kernel results, 44 were read: a "
                                  "record's header is corrupt or records come from another report; copy the file "
                                  "again")
    # the report's own last launch holds no metrics at all (ncu measured nothing): said, and left out of rankings
    assert report.warnings[1:] and report.warnings[1].startswith("1 of 44 launches are invalid and left out")
    assert len(report.warnings) == 2
