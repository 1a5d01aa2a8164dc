"""Regenerate everything in reports/ with roofline's own commands: run from the repository root as
``python reports/regenerate.py`` (the Python that has roofline installed).

From the report models in examples/ (always) and from a few real reports in ../shared/ncu-reps (when that
folder is there; only the outputs land here, never the .ncu-rep files): Markdown reports with their plot PNGs,
HTML reports, CSV tables, roofline plots, a comparison and a summary plot, and a headless-Chromium screenshot of
the example's HTML report (skipped, with a message, when no Chromium is installed).
"""

from __future__ import annotations

import os
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


def roofline(*args: str | Path) -> None:
    """One roofline command, as a user runs it from the repository root (paths relative to it, so no path of
    this machine lands in the outputs); stops the script on failure."""
    argv = [os.path.relpath(a, REPO) if isinstance(a, Path) else a for a in args]
    subprocess.run([sys.executable, "-m", "roofline", *argv], cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def report_outputs(source: Path, stem: str) -> None:
    """Markdown (with its PNG), HTML and CSV of one report."""
    roofline("report", source, "-f", "markdown", "-o", REPORTS / f"{stem}.md")
    roofline("report", source, "-f", "html", "-o", REPORTS / f"{stem}.html")
    roofline("report", source, "-f", "csv", "-o", REPORTS / f"{stem}.csv")


def main() -> None:
    for model in sorted((REPO / "examples").glob("*.roofline.json")):
        report_outputs(model, model.name.removesuffix(".roofline.json"))
    if SHARED.is_dir():
        for name in REAL:
            report_outputs(SHARED / f"{name}.ncu-rep", name)
        (a, b), options, stem = COMPARE
        for normalize in ((), ("--normalize",)):
            suffix = "_normalized" if normalize else ""
            roofline("compare", SHARED / f"{a}.ncu-rep", SHARED / f"{b}.ncu-rep", *options, *normalize,
                     "--plot", REPORTS / f"{stem}{suffix}.png")
        names, stem = SUMMARY
        roofline("summary", *(SHARED / f"{n}.ncu-rep" for n in names), "--plot", REPORTS / f"{stem}.png")
    else:
        print(f"{SHARED} not found: only the examples were regenerated", file=sys.stderr)
    browser = find_browser()
    if browser is None:
        print("no Chromium found: the HTML screenshot was not regenerated", file=sys.stderr)
    else:
        screenshot(browser, REPORTS / "h100-sxm_synthetic.html", REPORTS / "h100-sxm_synthetic.html.png", 1280, 1700)
        print(f"wrote {REPORTS / 'h100-sxm_synthetic.html.png'}", file=sys.stderr)


if __name__ == "__main__":
    main()
