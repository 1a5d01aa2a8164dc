"""What the child process reads from an ``.ncu-rep`` through NVIDIA's ``ncu_report`` (the only module that
imports it; it runs in ``ncu.child``'s child): the device, each launch's metrics, NVTX ranges and ncu's rule results.

Only the metrics the analysis uses are read (``metrics.to_read``, the one list beside the formulas), plus a count of
roofline's own: the thread executions of zero-product HFMA2 instructions (``metrics.HFMA_MOVES``), from the
per-instruction SASS counts and text, and, where the report holds warp samples per instruction (SourceCounters),
the per-PC counters with each instruction's SASS text and source line (``pc_sampling``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Sequence

DEVICE_NAME = "device__attribute_display_name"
DEVICE_PREFIX = "device__attribute_"
_RULE_KINDS = {0: "info", 1: "ok", 2: "optimization", 3: "warning", 4: "error"}  # ncu_report.MsgType
_SPEEDUP_TYPES = {1: "local", 2: "global"}  # ncu_report.SpeedupType (0: unknown)
FRAME_LAUNCHES = 16  # launches per frame from the child: the parent's work on the last one is all that waits on it


def opened(ncu_report: Any, path: str) -> Any:
    """The ncu_report context of the file at ``path``, parsed: ``load_report`` defers the parse of the records (most
    of the cost of a small report) to the first launch taken, which is taken here, before the SASS choice is known
    (``ncu.child``: a read started before the command line is parsed)."""
    from roofline.ncu import metrics  # noqa: F401  # its import (the cohorts' too) is the first launch's other cost

    ctx = ncu_report.load_report(path)
    if ctx.num_ranges() and ctx.range_by_idx(0).num_actions():
        ctx.range_by_idx(0).action_by_idx(0)
    return ctx


def read(ncu_report: Any, ctx: Any, send: Callable[[tuple[Any, ...]], None], sass: bool = True) -> str | None:
    """Read an ncu_report context (``opened``; runs in the child), sending ("device", its dict) from the first
    launch, then ("launches", the launches' dicts, the device each one's record names) every ``FRAME_LAUNCHES``
    launches. Reading stops at the first launch without data (a cut file), which is returned; None when every
    launch has data. ``sass``: whether the sampled instructions' SASS text is read (``pc_sampling``)."""
    value = _value_reader(ncu_report)
    launches: list[dict[str, Any]] = []
    devices: list[str] = []
    device_sent, empty = False, None
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            name, names = action.name(), action.metric_names()  # metric_names() is costly: call it once
            if name is None or not names:
                empty = f"{r}:{a}"
                break
            if not device_sent:
                send(("device", _device(action, names, value)))
                device_sent = True
            launches.append(_launch(ncu_report, action, r, a, name, names, value, sass))
            devices.append(str(value(action.metric_by_name(DEVICE_NAME))))
            if len(launches) == FRAME_LAUNCHES:
                send(("launches", launches, devices))
                launches, devices = [], []
        if empty:
            break
    if launches:
        send(("launches", launches, devices))
    return empty


def _value_reader(ncu_report: Any) -> Callable[[Any], Any]:
    """metric -> its value (a number or a string) or None, by its value kind: what ``IMetric.value()`` does,
    without the table of readers it builds on every call (a third of the cost of a value)."""
    metric = ncu_report.IMetric
    by_kind = {metric.ValueKind_DOUBLE: metric.as_double, metric.ValueKind_FLOAT: metric.as_double,
               metric.ValueKind_UINT32: metric.as_uint64, metric.ValueKind_UINT64: metric.as_uint64,
               metric.ValueKind_STRING: metric.as_string}

    def value(m: Any) -> Any:
        read = None if m is None else by_kind.get(m.kind())
        return None if read is None else read(m)

    return value


def _device(action: Any, names: Sequence[str], value: Callable[[Any], Any]) -> dict[str, Any]:
    import math

    attrs = {}
    for name in names:
        if name.startswith(DEVICE_PREFIX):
            v = value(action.metric_by_name(name))
            if isinstance(v, (int, float, str)) and not (isinstance(v, float) and math.isnan(v)):
                attrs[name.removeprefix(DEVICE_PREFIX)] = v
    major, minor = attrs.get("compute_capability_major"), attrs.get("compute_capability_minor")
    khz = attrs.get("max_gpu_frequency_khz") or attrs.get("clock_rate")
    mem_khz = attrs.get("max_mem_frequency_khz") or attrs.get("memory_clock_rate")
    return {
        "name": str(attrs.get("display_name", "unknown")),
        "compute_capability": f"{major}.{minor}" if major is not None and minor is not None else None,
        "sm_count": _int(attrs.get("multiprocessor_count")),
        "max_clock_hz": float(khz) * 1e3 if khz else None,
        "memory_clock_hz": float(mem_khz) * 1e3 if mem_khz else None,
        "memory_bus_width_bits": _int(attrs.get("global_memory_bus_width")),
        "l2_cache_bytes": _int(attrs.get("l2_cache_size")),
        "total_memory_bytes": _int(attrs.get("total_memory")),
        "attributes": attrs,
    }


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and v == v else None  # v == v: not NaN


def _launch(ncu_report: Any, action: Any, r: int, a: int, function_name: str, names: Sequence[str],
            value: Callable[[Any], Any], sass: bool = True) -> dict[str, Any]:
    from roofline.ncu import metrics as m

    get = action.metric_by_name
    metrics: dict[str, Any] = {}
    nan: list[str] = []
    for name in m.to_read(names):
        _keep(value(get(name)), name, metrics, nan)
    for breakdown in m.BREAKDOWNS:  # the units each throughput is the maximum of, listed in its breakdown string
        listed = metrics.get(breakdown)
        for unit in (m.breakdown_units(str(listed)) if listed else ()):
            if unit not in metrics and unit not in nan:
                _keep(value(get(unit)), unit, metrics, nan)
    sampling = pc_sampling(action, names, sass)
    integer = integer_by_opcode(action)
    if integer is not None:
        metrics[m.INTEGER_OPCODE_INST] = integer
    moves = hfma_moves(action) if m.counts_hfma(metrics) else None
    if moves is not None:
        metrics[m.HFMA_MOVES] = moves
    if not any(name.startswith(m.TENSOR_OPS_PREFIX) for name in metrics):  # the counters, where held, say it all
        mma = mma_instructions(action)
        if mma is not None:
            metrics[m.SASS_MMA_INST] = mma
        by_type = tensor_ops_by_sass(action) if mma else None
        for dtype, ops in (by_type or {}).items():
            metrics[m.SASS_TENSOR_OPS.format(dtype)] = ops
    metrics.update(access_widths(action) or {})
    dims = [_int(metrics.get(name)) for name in (*m.GRID_DIMS, *m.BLOCK_DIMS)]
    return {
        "range_index": r,
        "action_index": a,
        "name": function_name,
        "demangled_name": action.name(ncu_report.IAction.NameBase_DEMANGLED),
        "mangled_name": action.name(ncu_report.IAction.NameBase_MANGLED),
        "grid": dims[:3] if None not in dims[:3] else None,
        "block": dims[3:] if None not in dims[3:] else None,
        "registers_per_thread": _int(metrics.get(m.LAUNCH_REGISTERS)),
        "shared_mem_per_block_bytes": _int(metrics.get(m.LAUNCH_SHARED)),
        "nvtx_ranges": _nvtx(action),
        "metrics": metrics,
        "nan_metrics": nan,
        "rules": _rules(action),
        "pc_sampling": sampling,
    }


def integer_by_opcode(action: Any) -> float | None:
    """Integer thread instructions (predicate on) summed over the integer opcodes (``metrics.INTEGER_OPCODES``) of the
    per-opcode counts; None where the launch has no per-opcode counts."""
    from roofline.ncu import metrics as m

    by_opcode = action.metric_by_name(m.PER_OPCODE_THREAD_INST)
    if by_opcode is None:
        return None
    opcodes = by_opcode.correlation_ids()
    return float(sum(by_opcode.as_double(i) for i in range(by_opcode.num_instances())
                     if opcodes.as_string(i) in m.INTEGER_OPCODES))


def hfma_moves(action: Any) -> float | None:
    """Thread executions of zero-product HFMA2 instructions (``metrics.HFMA_MOVES``), from the per-instruction
    counts and SASS text; None where the launch has no such counts, ncu counted no HFMA2 executed, or the HFMA2s
    found do not add up to ncu's own HFMA2 count (a SASS text it cannot give). The SASS text (a disassembler
    started on first use, about half a second) is read only until every HFMA2 execution is accounted for."""
    from roofline.ncu import metrics as m

    by_opcode, per_pc = action.metric_by_name(m.PER_OPCODE_THREAD_INST), action.metric_by_name(m.PER_PC_THREAD_INST)
    if by_opcode is None or per_pc is None:
        return None
    opcodes = by_opcode.correlation_ids()
    expected = sum(by_opcode.as_double(i) for i in range(by_opcode.num_instances())
                   if opcodes.as_string(i) == m.HFMA2_OPCODE)
    if not expected > 0:
        return None
    pcs, found, moves = per_pc.correlation_ids(), 0.0, 0.0
    for i in range(per_pc.num_instances()):
        executed = per_pc.as_double(i)
        zero_product = hfma2_zero_product(action.sass_by_pc(pcs.as_uint64(i))) if executed > 0 else None
        if zero_product is not None:
            found += executed
            moves += executed if zero_product else 0.0
            if found >= expected:
                break
    return moves if found == expected else None


def mma_instructions(action: Any) -> float | None:
    """Warp-level matrix instructions of any kind executed (``metrics.MMA_OPCODES`` and the uncounted ones), from
    the per-opcode counts; None where the launch has none of those counts."""
    counts = _per_opcode_with_modifiers(action)
    if counts is None:
        return None
    return float(sum(n for op, n in counts if _is_mma(op.split(".")[0])))


def tensor_ops_by_sass(action: Any) -> dict[str, float] | None:
    """Tensor operations per source type counted from the SASS: each matrix instruction's warp executions per opcode
    with its modifiers (ncu's own count, SourceCounters) x its operations per warp instruction
    (``metrics.mma_ops``). None where the launch has no such counts or ran a matrix instruction that cannot be sized
    (``metrics.UNCOUNTED_MMA``, Volta's HMMA.884, sparse MMA); {} where it ran none."""
    from roofline.ncu import metrics as m

    counts = _per_opcode_with_modifiers(action)
    if counts is None:
        return None
    ops: dict[str, float] = {}
    for op, executed in counts:
        if not executed > 0 or not _is_mma(op.split(".")[0]):
            continue
        sized = m.mma_ops(op)
        if sized is None:
            return None
        ops[sized[0]] = ops.get(sized[0], 0.0) + executed * sized[1]
    return ops


def access_widths(action: Any) -> dict[str, float] | None:
    """Warp instructions of global and shared loads and stores per bytes a thread moves
    (``metrics.ACCESS_WIDTH_INST``, every width, zeros included), from the per-opcode counts; None where the launch
    has none."""
    from roofline.ncu import metrics as m

    counts = _per_opcode_with_modifiers(action)
    if counts is None:
        return None
    found = dict.fromkeys(m.ACCESS_WIDTH_METRICS, 0.0)
    for op, executed in counts:
        width = m.access_width(op)
        if width is not None and executed > 0:
            found[m.ACCESS_WIDTH_INST.format(space=width[0], op=width[1], width=width[2])] += executed
    return found


def _per_opcode_with_modifiers(action: Any) -> list[tuple[str, float]] | None:
    """(opcode with its modifiers, warp instructions executed) of every instruction kind the launch ran."""
    from roofline.ncu import metrics as m

    metric = action.metric_by_name(m.PER_OPCODE_WARP_INST)
    if metric is None:
        return None
    ids = metric.correlation_ids()
    return [(ids.as_string(i), metric.as_double(i)) for i in range(metric.num_instances())]


def _is_mma(base: str) -> bool:
    from roofline.ncu import metrics as m

    return base in m.MMA_OPCODES or bool(m.UNCOUNTED_MMA.match(base))


SOURCE_CONTEXT = 3  # source lines kept either side of each sampled line (the renderers show a few)
NO_SASS = "???"  # what ncu_report's disassembler gives for an instruction it cannot decode


SASS_NOT_READ = "not read: this command shows no instructions (roofline report and analyze show them)"


def pc_sampling(action: Any, names: Sequence[str], sass: bool = True) -> dict[str, Any] | None:
    """The launch's per-PC counters in the model's form (``model.PcSampling.to_dict``): every instruction with warp
    samples or a nonzero memory or branch counter, with its stall reasons, executions, SASS text (unless ``sass`` is
    False: the disassembler costs 0.2 to 0.5 s a report) and source line; None where the report holds no warp samples
    per PC."""
    from roofline.ncu import metrics as m

    count = action.metric_by_name(m.PC_SAMPLES)
    if count is None:
        return None
    samples = _per_pc(count) or {}  # a launch too short to be sampled holds the metric with no instance
    stalls = {name.removeprefix(m.STALL_SAMPLES_PREFIX): _per_pc(action.metric_by_name(name))
              for name in names
              if name.startswith(m.STALL_SAMPLES_PREFIX) and not name.endswith(m.STALL_SAMPLES_SKIPPED)}
    memory = {name: per_pc for name in m.PC_MEMORY if (per_pc := _per_pc(action.metric_by_name(name)))}
    executed = {name: _per_pc(action.metric_by_name(name)) or {} for name in (m.PC_INST_EXECUTED,
                                                                              m.PC_THREAD_INST_EXECUTED)}
    starts = sorted(_values(action.metric_by_name(m.FUNCTION_PCS)))
    kept = sorted({pc for pc, n in samples.items() if n > 0}
                  | {pc for per_pc in memory.values() for pc, v in per_pc.items() if v > 0})
    pcs: list[dict[str, Any]] = []
    lines: dict[str, set[int]] = {}
    undecoded = 0
    for pc in kept:
        text = (action.sass_by_pc(pc) or "").strip() if sass else ""
        undecoded += sass and text in ("", NO_SASS)
        info = action.source_info(pc)
        file: str | None = info.file_name() if info is not None and info.file_name() else None
        line: int | None = int(info.line()) if file is not None else None
        if file is not None and line is not None and samples.get(pc, 0) > 0:
            lines.setdefault(file, set()).add(line)
        start = max((s for s in starts if s <= pc), default=pc)
        pcs.append({"pc": pc, "function_pc": start, "pc_offset": pc - start, "samples": int(samples.get(pc, 0)),
                    "stalls": {r: int(v[pc]) for r, v in stalls.items() if v and v.get(pc, 0) > 0},
                    "inst_executed": executed[m.PC_INST_EXECUTED].get(pc),
                    "thread_inst_executed": executed[m.PC_THREAD_INST_EXECUTED].get(pc),
                    "memory": {name: per_pc[pc] for name, per_pc in memory.items() if per_pc.get(pc, 0) > 0},
                    "sass": None if text in ("", NO_SASS) else text, "file": file, "line": line})
    return {"total_samples": int(count.as_uint64()), "pcs": pcs,  # its plain value: the launch's samples in all
            "sass_missing": (f"ncu_report could not disassemble {undecoded} of {len(pcs)} instructions of this "
                             "report (it gives '???'); open the report in the Nsight Compute GUI of its version")
            if undecoded else "" if sass else SASS_NOT_READ,
            "source_text": _source_text(action, lines), "functions": starts,
            "preceding": _preceding(action, pcs) if sass else {}}


def _preceding(action: Any, pcs: Sequence[dict[str, Any]]) -> dict[int, list[Any]]:
    """The SASS text of up to ``PRODUCER_WINDOW`` instructions before each instruction whose warps waited on a
    dependency, within its function, with their source lines: where the producer of the awaited register is looked
    for. ``pcs`` in address order, so a window that reaches one read already has its earlier part read too."""
    from roofline.ncu import metrics as m

    step, out = m.SASS_INSTRUCTION_BYTES, {}
    for pc in pcs:
        if not any(pc["stalls"].get(reason) for reason in m.DEPENDENCY_STALLS):
            continue
        first = max(pc["function_pc"], pc["pc"] - step * m.PRODUCER_WINDOW)
        for at in range(pc["pc"] - step, first - 1, -step):
            if at in out:
                break  # read already, as were those before it
            text = (action.sass_by_pc(at) or "").strip()
            info = action.source_info(at)
            file = info.file_name() if info is not None and info.file_name() else None
            out[at] = [text if text != NO_SASS else "", file, int(info.line()) if file is not None else None]
    return out


def _per_pc(metric: Any) -> dict[int, float] | None:
    """A per-PC metric as {PC: value}; None where the metric is absent or not kept per PC."""
    if metric is None or not metric.has_correlation_ids():
        return None
    ids = metric.correlation_ids()
    return {ids.as_uint64(i): metric.as_double(i) for i in range(metric.num_instances())}


def _values(metric: Any) -> list[int]:
    """The instances of a metric of whole numbers (the function start addresses), none where it is absent."""
    return [] if metric is None else [metric.as_uint64(i) for i in range(metric.num_instances())]


def _source_text(action: Any, lines: dict[str, set[int]]) -> dict[str, dict[str, str]]:
    """The text of the sampled lines and ``SOURCE_CONTEXT`` lines either side, per file, where the report holds the
    file (``--import-source yes``); line numbers as strings (the model's JSON form)."""
    if not lines:
        return {}
    files = action.source_files()  # a map of the native module: ``in`` and ``[]`` only
    out: dict[str, dict[str, str]] = {}
    for file, numbers in lines.items():
        if files is None or file not in files:
            continue
        source = files[file].splitlines()
        wanted = {n for line in numbers for n in range(line - SOURCE_CONTEXT, line + SOURCE_CONTEXT + 1)}
        out[file] = {str(n): source[n - 1] for n in sorted(wanted) if 1 <= n <= len(source)}
    return out


# An HFMA2 instruction's text: optional predicate guard, the opcode and its modifiers, destination, multiplicands.
_HFMA2 = re.compile(r"\s*(?:@!?U?P\w+\s+)?HFMA2(?:\.\w+)*\s+([^,]+),([^,]+),([^,]+)")
_ZERO_REGISTER = re.compile(r"-?\|?RZ\|?(?:\.\w+)?")  # RZ with a sign, an absolute value or a lane selector


def hfma2_zero_product(sass: str) -> bool | None:
    """Whether an HFMA2's two multiplicands are both the zero register (a register move, no arithmetic); None for
    any other instruction."""
    match = _HFMA2.match(sass)
    if match is None:
        return None
    return all(_ZERO_REGISTER.fullmatch(operand.strip()) for operand in match.group(2, 3))


def _keep(v: Any, name: str, metrics: dict[str, Any], nan: list[str]) -> None:
    """Store one metric's value (numbers and strings); a NaN is listed apart, an absent metric is skipped."""
    if isinstance(v, float) and v != v:
        nan.append(name)
    elif isinstance(v, (int, float, str)):
        metrics[name] = v


def _nvtx(action: Any) -> list[str]:
    """NVTX ranges around the launch, outermost first, as ``domain:range`` (domain omitted if default)."""
    state = action.nvtx_state()
    if state is None:
        return []
    out = []
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        prefix = "" if domain.name() in ("", "<default domain>") else f"{domain.name()}:"
        out += [prefix + name for name in (*domain.start_end_ranges(), *domain.push_pop_ranges())]
    return out


def _rules(action: Any) -> list[dict[str, Any]]:
    """The rule results that carry a message, with their focus metrics and estimated speedup, in the model's
    form (``RuleResult.to_dict``)."""
    out = []
    for rule in action.rule_results_as_dicts():
        msg = rule.get("rule_message") or {}
        text = (msg.get("message") or "").strip()
        if text:
            speedup = rule.get("speedup_estimation") or {}
            out.append({"rule": rule.get("rule_identifier", ""), "section": rule.get("section_identifier", ""),
                        "title": msg.get("title", ""), "message": text,
                        "kind": _RULE_KINDS.get(msg.get("type", -1), "info"),
                        "focus_metrics": [_focus(f) for f in rule.get("focus_metrics") or ()],
                        "speedup_pct": _finite(speedup.get("speedup")),
                        "speedup_type": _SPEEDUP_TYPES.get(speedup.get("type", 0), "")})
    return out


def _focus(item: dict[str, Any]) -> dict[str, Any]:
    return {"name": str(item.get("name", "")), "value": _finite(item.get("value")),
            "severity": int(item.get("severity") or 0), "info": str(item.get("info") or "")}


def _finite(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and v == v and abs(v) != float("inf") else None
