"""Regenerate everything in reports/ with roofline's own commands: run from the repository root as
``python reports/regenerate.py`` (the Python that has roofline installed).

From the report models in examples/ (always) and from a few real reports in ../shared/ncu-reps (when that
folder is there; only the outputs land here, never the .ncu-rep files): Markdown reports with their plot PNGs,
HTML reports, CSV tables, roofline plots, comparison and summary plots, the cross-generation comparison of issue 12
(the RTX 4070 Ti report against its H100 PCIe counterpart at a larger problem size, a model built in a temporary
folder by tests/cross_gpu.py and deleted afterwards) as Markdown, HTML and plots, a regression diff as a
pull-request comment, and headless-Chromium screenshots of the HTML pages (skipped, with a message, when no
Chromium is installed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.browser: the same headless Chromium the HTML tests use

from tests.browser import find_browser, screenshot  # noqa: E402

REPORTS = REPO / "reports"
SHARED = REPO.parent / "shared" / "ncu-reps"
REAL = (  # each shows something the example does not
    "h100-pcie_rmsnorm-float4_full-roofline",  # one kernel with all the time; L2/L1 roofs from the report's clocks
    "rtx3080_sgemm-vs-cublas_full",  # no L2/L1 roof at all: hollow points
    "rtx4090_smem-transpose_full",  # no FLOPs: the bandwidth view
    "v100_miniweather-openacc_full",  # FP64 and FP32 ceilings, memory-only kernels listed under the plot
)
COMPARE = (("a10g_sgemm-blocktiling_roofline", "rtx3080_sgemm-vs-cublas_full"),
           ("--map", "two_blocktiling=ampere_sgemm_128x64_nn"), "a10g-vs-rtx3080_sgemm")
SUMMARY = (("rtx4070ti_pytorch-sim_full", "v100_miniweather-openacc_full"), "summary_rtx4070ti+v100")
CROSS = "rtx4070ti-vs-h100-pcie_larger"  # issue 12: one application on two GPUs, at two problem sizes
REGRESSION = "rtx4070ti_linspace-584x_diff"  # issue 12: a 584x slower kernel on the same GPU, diffed by default
H100 = ("torch-bf16.full.ncu-rep", "torch-fp64.full.json", "sgemm-cuda.full.json", "triad-cupy.full.ncu-rep")
PROJECT = ("op29-conv-transposed-2d-square-input-square-kernel", "h100-op29_project")  # issue 62: project's pages
H100_STEM = "h100_known-kernels"  # issue 7: kernels of known work profiled on an H100 by this project (examples/h100)
MODELS = REPO / ".regenerate-models"  # the temporary report models (a fixed name: outputs show relative paths)


def roofline(*args: str | Path, exits: tuple[int, ...] = (0,)) -> None:
    """One roofline command, as a user runs it from the repository root (paths relative to it, so no path of
    this machine lands in the outputs); stops the script on an exit status not in ``exits``."""
    argv = [os.path.relpath(a, REPO) if isinstance(a, Path) else a for a in args]
    done = subprocess.run([sys.executable, "-m", "roofline", *argv], cwd=REPO, stdout=subprocess.DEVNULL, check=False)
    if done.returncode not in exits:
        raise SystemExit(f"roofline {' '.join(argv)}: exit {done.returncode}")


def cross_generation() -> None:
    """The comparison of issue 12 (compare as Markdown with its plot, HTML, the normalized plot) and the regression
    diff of the same application on one GPU (diff's Markdown comment, exit 1)."""
    from roofline.ncu.reader import load_report
    from tests.cross_gpu import H100_SOURCE, RTX4070TI, h100_model, slowed

    rtx_path = SHARED / f"{RTX4070TI}.ncu-rep"
    rtx = load_report(rtx_path)
    MODELS.mkdir(exist_ok=True)
    try:
        h100 = MODELS / "h100-pcie_pytorch-sim_larger.json"
        h100.write_text(json.dumps(h100_model(rtx, load_report(SHARED / f"{H100_SOURCE}.ncu-rep")).to_dict()))
        slow = MODELS / "rtx4070ti_linspace-584x.json"
        slow.write_text(json.dumps(slowed(rtx, "linspace", 584.0, slow.name).to_dict()))
        roofline("compare", rtx_path, h100, "-f", "markdown", "-o", REPORTS / f"{CROSS}.md")
        roofline("compare", rtx_path, h100, "-f", "html", "-o", REPORTS / f"{CROSS}.html")
        roofline("compare", rtx_path, h100, "--normalize", "--plot", REPORTS / f"{CROSS}_normalized.png")
        roofline("diff", rtx_path, slow, "-f", "markdown", "-o", REPORTS / f"{REGRESSION}.md", exits=(1,))
    finally:
        shutil.rmtree(MODELS)


def report_outputs(stem: str, *sources: Path) -> None:
    """Markdown (with its PNG), HTML and CSV of one or more reports."""
    roofline("report", *sources, "-f", "markdown", "-o", REPORTS / f"{stem}.md")
    roofline("report", *sources, "-f", "html", "-o", REPORTS / f"{stem}.html")
    roofline("report", *sources, "-f", "csv", "-o", REPORTS / f"{stem}.csv")


def project_outputs(name: str, stem: str) -> None:
    """One H100 workload projected: onto the T4 as Markdown, onto every known GPU as Markdown and CSV."""
    source = REPO / "examples" / "h100" / "ops" / f"{name}.json"
    roofline("project", source, "--to", "t4", "-f", "markdown", "-o", REPORTS / f"{stem}-t4.md")
    roofline("project", source, "--to", "all", "-f", "markdown", "-o", REPORTS / f"{stem}-all.md")
    roofline("project", source, "--to", "all", "-f", "csv", "-o", REPORTS / f"{stem}-all.csv")


def main() -> None:
    for model in sorted((REPO / "examples").glob("*.roofline.json")):
        report_outputs(model.name.removesuffix(".roofline.json"), model)
    report_outputs(H100_STEM, *(REPO / "examples" / "h100" / name for name in H100))
    project_outputs(*PROJECT)
    if SHARED.is_dir():
        for name in REAL:
            report_outputs(name, SHARED / f"{name}.ncu-rep")
        (a, b), options, stem = COMPARE
        for normalize in ((), ("--normalize",)):
            suffix = "_normalized" if normalize else ""
            roofline("compare", SHARED / f"{a}.ncu-rep", SHARED / f"{b}.ncu-rep", *options, *normalize,
                     "--plot", REPORTS / f"{stem}{suffix}.png")
        names, stem = SUMMARY
        roofline("summary", *(SHARED / f"{n}.ncu-rep" for n in names), "--plot", REPORTS / f"{stem}.png")
        cross_generation()
    else:
        print(f"{SHARED} not found: only the examples were regenerated", file=sys.stderr)
    browser = find_browser()
    if browser is None:
        print("no Chromium found: the HTML screenshot was not regenerated", file=sys.stderr)
    else:
        for page, height in (("h100-sxm_synthetic.html", 1700), (f"{H100_STEM}.html", 2200), (f"{CROSS}.html", 2200)):
            if (REPORTS / page).is_file():
                screenshot(browser, REPORTS / page, REPORTS / f"{page}.png", 1280, height)
                print(f"wrote {REPORTS / page}.png", file=sys.stderr)


if __name__ == "__main__":
    main()
