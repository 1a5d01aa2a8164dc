"""Run one standard single-operator workload (float32, PyTorch eager) from a workload YAML, ready for ncu.

Each workload of the YAML (``../shared/workloads/single-ops.yaml`` is the standard set of 49) names its inputs'
shapes, its module's constructor arguments and body, its forward's body and any preparation of the inputs. This
script builds the one named by ``--id`` on the GPU, prepares its inputs, makes three warm-up calls, then one
forward call inside an NVTX range named after the workload, and checks the output: its shape equals the shape the
same module gives on PyTorch's ``meta`` device (no arithmetic), and every element is finite.

    python examples/ops/run_ops.py --workloads ../shared/workloads/single-ops.yaml --list
    roofline analyze --set roofline --clock-control none --nvtx-include op17-batchnorm/ \\
        -o examples/h100/ops/op17-batchnorm examples/ops/run_ops.py \\
        --workloads ../shared/workloads/single-ops.yaml --id op17-batchnorm

The workload file holds Python statements and is executed as such: run only files you trust, as you would a script.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

WARMUP_CALLS = 3


@dataclass(frozen=True)
class Workload:
    """One entry of the workload YAML."""

    id: str
    inputs: dict[str, list[int]]
    forward: list[str]
    module: list[str] = field(default_factory=list)
    module_args: dict[str, Any] = field(default_factory=dict)
    input_prep: list[str] = field(default_factory=list)


def load_workloads(path: Path) -> list[Workload]:
    """The workloads of a YAML file, in file order; a malformed entry is a ValueError naming it."""
    import yaml

    entries = yaml.safe_load(path.read_text())
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a list of workloads")
    return [_workload(path, index, entry) for index, entry in enumerate(entries)]


def _workload(path: Path, index: int, entry: Any) -> Workload:
    """One YAML entry as a Workload, checked for the keys and shapes a run needs."""
    if not isinstance(entry, Mapping) or "id" not in entry or "forward" not in entry:
        raise ValueError(f"{path}: entry {index} needs at least 'id' and 'forward'")
    inputs = entry.get("inputs_float32") or {}
    if not all(isinstance(shape, list) and all(isinstance(n, int) for n in shape) for shape in inputs.values()):
        raise ValueError(f"{path}: {entry['id']}: every input shape must be a list of integers")
    return Workload(id=str(entry["id"]), inputs={str(k): list(v) for k, v in inputs.items()},
                    forward=list(entry["forward"]), module=list(entry.get("module") or []),
                    module_args=dict(entry.get("module_args") or {}), input_prep=list(entry.get("input_prep") or []))


def find(workloads: Sequence[Workload], wanted: str) -> Workload:
    """The workload whose id is ``wanted``, or the one id that starts with it (``op17``)."""
    exact = [w for w in workloads if w.id == wanted]
    matches = exact or [w for w in workloads if w.id.startswith(wanted)]
    if len(matches) != 1:
        names = ", ".join(w.id for w in matches[:5]) or "none"
        raise KeyError(f"--id {wanted!r} matches {len(matches)} workloads ({names})")
    return matches[0]


def model_source(workload: Workload) -> str:
    """Python source of the workload's module: constructor arguments by name, its body, and its forward."""
    arguments = ", ".join(["self", *workload.module_args])
    inputs = ", ".join(["self", *workload.inputs])
    body = [*workload.module] or ["pass"]
    lines = ["class Model(nn.Module):", f"    def __init__({arguments}):", "        super().__init__()"]
    lines += [f"        {line}" for line in body]
    lines += [f"    def forward({inputs}):"]
    lines += [f"        {line}" for line in workload.forward]
    return "\n".join(lines) + "\n"


def build_model(torch: ModuleType, workload: Workload) -> Any:
    """An instance of the workload's module, made from its source with its constructor arguments."""
    namespace: dict[str, Any] = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "math": math}
    exec(compile(model_source(workload), f"<{workload.id}>", "exec"), namespace)
    return namespace["Model"](**workload.module_args)


def prepared_inputs(torch: ModuleType, workload: Workload, device: str) -> dict[str, Any]:
    """The inputs (torch.randn, float32) on ``device``, with the workload's preparation applied."""
    values: dict[str, Any] = {name: torch.randn(*shape, device=device, dtype=torch.float32)
                              for name, shape in workload.inputs.items()}
    namespace: dict[str, Any] = {"torch": torch, "math": math}
    for line in workload.input_prep:
        exec(compile(line, f"<{workload.id} input_prep>", "exec"), namespace, values)
    return values


def expected_shape(torch: ModuleType, workload: Workload) -> tuple[int, ...] | None:
    """The output shape on PyTorch's meta device (shapes only, no arithmetic); None where meta cannot run it."""
    try:
        model = build_model(torch, workload).to("meta")
        out = model(**prepared_inputs(torch, workload, "meta"))
    except (NotImplementedError, RuntimeError):
        return None
    return tuple(out.shape)


def run(torch: ModuleType, workload: Workload) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """Three warm-up calls, one call in the workload's NVTX range; the output's shape and the expected one."""
    model = build_model(torch, workload).cuda()
    inputs = prepared_inputs(torch, workload, "cuda")
    with torch.no_grad():
        for _ in range(WARMUP_CALLS):
            model(**inputs)
        torch.cuda.synchronize()
        with torch.cuda.nvtx.range(workload.id):
            out = model(**inputs)
            torch.cuda.synchronize()
    if not bool(torch.isfinite(out).all()):
        raise ArithmeticError(f"{workload.id}: the output holds NaN or infinity")
    return tuple(out.shape), expected_shape(torch, workload)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line: the workload file, and the workload to run (or --list)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=Path, required=True, help="the workload YAML (e.g. single-ops.yaml)")
    parser.add_argument("--id", help="the workload's id, or a prefix naming one (op17)")
    parser.add_argument("--list", action="store_true", help="print the ids and exit")
    return parser.parse_args(argv)


def load_torch() -> ModuleType:
    """PyTorch with a CUDA GPU, or exit with one line."""
    try:
        import torch
    except ImportError:
        sys.exit("run_ops.py needs PyTorch with CUDA: pip install torch")
    if not torch.cuda.is_available():
        sys.exit("run_ops.py: PyTorch sees no CUDA GPU (check nvidia-smi and the torch CUDA build)")
    return torch


def main(argv: list[str], torch_loader: Callable[[], ModuleType] = load_torch) -> int:
    """Run the named workload; 0 when its output has the expected shape and is finite."""
    args = parse_args(argv)
    try:
        workloads = load_workloads(args.workloads)
        if args.list:
            print("\n".join(w.id for w in workloads))
            return 0
        if not args.id:
            sys.exit("run_ops.py: name a workload with --id (or --list them)")
        workload = find(workloads, args.id)
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"run_ops.py: {error}")
    torch = torch_loader()
    shape, expected = run(torch, workload)
    if expected is not None and shape != expected:
        sys.exit(f"run_ops.py: {workload.id}: output shape {shape}, expected {expected}")
    checked = "as on the meta device" if expected is not None else "not checked: the meta device cannot run it"
    print(f"{workload.id}: output {list(shape)} ({checked}), finite, on {torch.cuda.get_device_name()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
