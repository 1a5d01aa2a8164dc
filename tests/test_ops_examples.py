"""The single-operator examples (examples/h100/ops) and the scripts that made them (examples/ops)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import roofline

REPO = Path(__file__).resolve().parents[1]
OPS = REPO / "examples" / "ops"
MODELS = REPO / "examples" / "h100" / "ops"
README = REPO / "examples" / "README.md"
WORKLOADS = REPO.parent / "shared" / "workloads" / "single-ops.yaml"
DEVICE = "NVIDIA H100 80GB HBM3"


def script(name: str) -> ModuleType:
    """One of the scripts of examples/ops, imported from its file."""
    spec = importlib.util.spec_from_file_location(name, OPS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def models() -> list[Path]:
    """The shipped report models, in name order."""
    return sorted(MODELS.glob("*.json"))


def test_every_shipped_model_reads_as_one_h100_report_of_its_workload() -> None:
    assert len(models()) == 49
    for path in models():
        report = roofline.load(path)
        assert report.device.name == DEVICE
        assert report.launches, path.name
        assert path.stem in report.label and "ncu 2025.3.1" in report.label


def test_every_launch_gets_the_bound_of_ncus_speed_of_light_rule() -> None:
    """The verdict of each of the models' launches against the SOLBottleneck title ncu stored with it ("High
    Throughput": the busier of the SM and memory sides, as ncu's rule decides)."""
    from roofline.analysis.verdict import NCU_TITLES
    from roofline.pipeline import analyze_files

    sm, memory = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    checked = 0
    for analysis in analyze_files(models()):
        for k in analysis.launches:
            for rule in (r for r in k.launch.rules if r.rule == "SOLBottleneck" and r.kind != "error" and r.title):
                if rule.title == "High Throughput":
                    expected = "compute" if (k.launch.value(sm) or 0) >= (k.launch.value(memory) or 0) else "memory"
                else:
                    expected = NCU_TITLES[rule.title]
                assert k.verdict.bound == expected, (analysis.report.path, k.launch.key, rule.title)
                checked += 1
    assert checked == 113  # the launches of the 49 workloads that carry the rule


def test_the_models_stay_small() -> None:
    assert sum(path.stat().st_size for path in models()) < 15e6


@pytest.fixture(scope="module")
def report_document() -> dict:
    """``roofline report -f json`` of every model, once."""
    command = [sys.executable, "-m", "roofline", "report", "-f", "json", *map(str, models())]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def test_each_workloads_kernel_times_sum_to_its_total(report_document: dict) -> None:
    for report in report_document["reports"]:
        kernel_sum = sum(kernel["duration_s"] for kernel in report["kernels"])
        assert kernel_sum == pytest.approx(report["total_time_s"], rel=1e-9), report["path"]


def test_the_readme_table_is_the_one_the_reports_give(report_document: dict) -> None:
    expected = script("make_table").table(report_document)
    readme = README.read_text().splitlines()
    start = readme.index(expected[0])
    assert readme[start:start + len(expected)] == expected


def test_every_kernel_ran_inside_its_workloads_nvtx_range(report_document: dict) -> None:
    for report in report_document["reports"]:
        workload = Path(report["path"]).name.removesuffix(".json")
        for kernel in report["kernels"]:
            assert workload in json.dumps(kernel["nvtx"]), (workload, kernel["name"])


def test_every_kernel_in_the_table_has_a_verdict(report_document: dict) -> None:
    verdicts = {kernel["bound"] for report in report_document["reports"] for kernel in report["kernels"]}
    assert verdicts <= {"compute", "memory", "balanced", "latency", "small_grid"}
    assert {"compute", "memory"} <= verdicts


def padded(size: int, tile: int) -> int:
    """``size`` rounded up to a whole number of tiles."""
    return -(-size // tile) * tile


def test_matrix_products_count_the_flops_of_their_shapes(report_document: dict) -> None:
    """One GEMM kernel each, counting 2*M*N*K FP32 FLOPs within 0.1%: op01 (2048^3) exactly; op06 (8205 x 2949 x
    5921) on whole tiles, as cuBLAS's 256x128x8 kernel computes them (M, N and K rounded up to its tile: 4.7% more
    than the product needs)."""
    by_name = {Path(r["path"]).name: r for r in report_document["reports"]}
    (square,) = by_name["op01-square-matrix-multiplication.json"]["kernels"]
    assert square["flops"]["fp32"] == pytest.approx(2.0 * 2048**3, rel=1e-3)
    (irregular,) = by_name["op06-matmul-with-irregular-shapes.json"]["kernels"]
    assert "tilesize256x128x8" in irregular["demangled_name"] or "tilesize256x128x8" in irregular["name"]
    tiled = 2.0 * padded(8205, 256) * padded(5921, 128) * padded(2949, 8)
    assert irregular["flops"]["fp32"] == pytest.approx(tiled, rel=1e-3)
    assert irregular["flops"]["fp32"] > 2.0 * 8205 * 2949 * 5921


def test_halved_and_transposed_products_count_their_shapes_flops(report_document: dict) -> None:
    """op09's einsum (M = 16*256*512, K = 256, N = 768) runs as two GEMM launches of 16384 x 12 tiles of 64 x 64,
    each over half of M: each counts 2*(M/2)*N*K plus two FLOPs per output (its epilogue), 0.4% more than its
    product; op14's A.T @ B (1024 x 2048 x 4096) counts 2*M*N*K within 0.2%."""
    by_name = {Path(r["path"]).name: r for r in report_document["reports"]}
    gemms = [k for k in by_name["op09-4d-tensor-matrix-multiplication.json"]["kernels"] if "xmma_gemm" in k["name"]]
    m, n, k = 16 * 256 * 512, 768, 256
    assert len(gemms) == 2
    for gemm in gemms:
        assert "tilesize64x64x8" in gemm["name"] and gemm["grid"] == [16384, 12, 1]
        assert 16384 * 64 == m // 2 and 12 * 64 == n  # the grid covers half of the rows, all of the columns
        assert gemm["flops"]["fp32"] == pytest.approx(2.0 * (m // 2) * n * k + 2 * (m // 2) * n, rel=1e-4)
    (transposed,) = by_name["op14-matmul-with-transposed-a.json"]["kernels"]
    assert transposed["flops"]["fp32"] == pytest.approx(2.0 * 1024 * 2048 * 4096, rel=2e-3)


def workloads_file() -> Path:
    """The standard workload YAML, or skip when the shared folder is absent."""
    if not WORKLOADS.is_file():
        pytest.skip(f"test data not found: {WORKLOADS.name} in ../shared/workloads next to the repository")
    return WORKLOADS


def test_run_ops_reads_the_49_standard_workloads_and_their_sources_compile() -> None:
    run_ops = script("run_ops")
    workloads = run_ops.load_workloads(workloads_file())
    assert len(workloads) == 49 and len({w.id for w in workloads}) == 49
    for workload in workloads:
        compile(run_ops.model_source(workload), workload.id, "exec")
    assert run_ops.find(workloads, "op17").id == "op17-batchnorm"


def test_run_ops_builds_constructor_arguments_body_and_forward() -> None:
    run_ops = script("run_ops")
    workload = run_ops.Workload(id="w", inputs={"x": [2, 3]}, forward=["return self.scale * x"],
                                module=["self.scale = scale"], module_args={"scale": 2})
    assert run_ops.model_source(workload) == (
        "class Model(nn.Module):\n    def __init__(self, scale):\n        super().__init__()\n"
        "        self.scale = scale\n    def forward(self, x):\n        return self.scale * x\n")


def test_run_ops_refuses_an_ambiguous_id_and_a_malformed_entry(tmp_path: Path) -> None:
    run_ops = script("run_ops")
    workloads = [run_ops.Workload(id=i, inputs={}, forward=["return 0"]) for i in ("op1-a", "op1-b")]
    with pytest.raises(KeyError, match="matches 2 workloads"):
        run_ops.find(workloads, "op1")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: x\n  inputs_float32: {A: [2, two]}\n  forward: ['return A']\n")
    with pytest.raises(ValueError, match="list of integers"):
        run_ops.load_workloads(bad)


def test_profile_ops_names_the_sections_and_no_set() -> None:
    command = script("profile_ops").analyze_command("op01", Path("w.yaml"), Path("out"))
    assert command[command.index("--set") + 1] == "none"
    assert [command[i + 1] for i, arg in enumerate(command) if arg == "--section"] == [
        "SpeedOfLight", "SpeedOfLight_HierarchicalSingleRooflineChart",
        "SpeedOfLight_HierarchicalTensorRooflineChart", "LaunchStats", "Occupancy"]
    assert command[command.index("--nvtx-include") + 1] == "op01/"
    assert command[command.index("--clock-control") + 1] == "none"
