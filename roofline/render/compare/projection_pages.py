"""``roofline project`` as pages and rows: Markdown (for a pull request or a wiki), one self-contained HTML page
(the Markdown's blocks) and CSV (per GPU a row per kernel name, per launch group, per NVTX range and the total),
from the rows the terminal table is made of (``render.compare.table``) and the JSON document's fields."""

from __future__ import annotations

from roofline.compare.pairing import Comparison
from roofline.compare.projection import SharedMemoryFit
from roofline.compare.projection_launches import (
    LEFT_OUT_WORDS,
    KernelTotal,
    LaunchProjection,
    RangeTotal,
    WorkloadProjection,
)
from roofline.render import GENERATOR, PROJECT_CSV_COLUMNS
from roofline.render.compare.markdown import grid_blocks
from roofline.render.compare.prose import own_gpu_text
from roofline.render.compare.table import (
    EVERYWHERE_HEADER,
    caveat_lines,
    everywhere_caption,
    everywhere_left_out,
    everywhere_rows,
    everywhere_title,
    everywhere_words,
    kernel_grid,
    launch_grid,
    left_out_words,
    legend_text,
    no_projection_words,
    numeric_columns,
    other_kernel_words,
    projection_words,
    unfit_lines,
    unfit_text,
    workload_words,
)
from roofline.render.names import csv_text
from roofline.render.report.markdown import Block, cell, text

CSV_COLUMNS = PROJECT_CSV_COLUMNS


def projection_markdown(c: Comparison) -> str:
    """The projection as a Markdown document."""
    return text(projection_blocks(c), "roofline project ... --format markdown")


def projection_html(c: Comparison) -> str:
    """The projection as one self-contained HTML page: no scripts, no external resources."""
    from roofline.render.report.html import page

    return page(projection_blocks(c))


def projection_blocks(c: Comparison) -> list[Block]:
    """The report, then the workload on each GPU (``--to all`` or several ids) or on the one target: per kernel, the
    clock and bandwidths assumed, per launch group, and where another kernel is likely there."""
    r = c.reports[0]
    where = f"on {len(c.everywhere)} GPUs" if c.everywhere else f"onto {cell(c.project_to or '')}"
    blocks = [Block("h1", f"Projection of `{cell(r.label)}` {where}"), Block("p", cell(legend_text(r))),
              *(Block("warn", cell(w)) for w in r.warnings)]
    if c.everywhere:
        blocks += _everywhere_blocks(c)
    elif c.workload is not None and c.workload.launches:
        blocks += _workload_blocks(c, c.workload)
    elif c.workload is not None:
        blocks.append(Block("p", f"{cell(no_projection_words(c.workload))}."))
    return [*blocks, Block("p", f"{GENERATOR}.")]


def _everywhere_blocks(c: Comparison) -> list[Block]:
    """The workload's total on each GPU, fastest first, and why a GPU has none."""
    rows = tuple(tuple(cell(x) for x in r) for r in everywhere_rows(c))
    caveats = caveat_lines(c)
    return [Block("p", f"**{cell(everywhere_title(c))}**, {cell(everywhere_words(c))}."),
            Block("table", header=EVERYWHERE_HEADER, rows=rows, numeric=numeric_columns(EVERYWHERE_HEADER)),
            Block("note", cell(everywhere_caption(c))),
            *([Block("ul", items=tuple(cell(line) for line in caveats))] if caveats else []),
            *(Block("p", f"{cell(w.target)}: {cell(w.reason)}") for w in c.everywhere if not w.launches),
            *([Block("p", cell(left_out_words(left)))] if (left := everywhere_left_out(c.everywhere)) else [])]


def _workload_blocks(c: Comparison, w: WorkloadProjection) -> list[Block]:
    """Per kernel and per launch group on the one target, the clock and bandwidths, the likely other kernels."""
    others = other_kernel_words(w)
    return [Block("p", f"**Projection onto {cell(c.project_to or '')}**: {cell(projection_words(c))}."),
            *grid_blocks(kernel_grid(w, "Per kernel"), "h2"),
            Block("h2", f"Workload on {cell(w.target)}"), Block("p", f"**Assumed**: {cell(workload_words(w))}."),
            *grid_blocks(launch_grid(w, "Per launch group")),
            *([Block("h3", "Another kernel likely"),
               Block("ul", items=tuple(f"`{cell(name)}`: {cell(why)}" for name, why in others))] if others else []),
            *([Block("h3", "Cannot launch as built"), Block("ul", items=tuple(cell(line) for line in unfit))]
              if (unfit := unfit_lines(c)) else []),
            *([Block("p", cell(own_gpu_text(c.own_gpu)))] if c.own_gpu is not None else []),
            *([Block("p", cell(left_out_words(w)))] if w.left_out_kernels else [])]


def projection_csv(c: Comparison) -> str:
    """Per GPU: one row per kernel name (``project.row`` = kernel: its launches summed), per launch group (launch),
    per NVTX range (nvtx) and the workload's total (total), each with the clock and both GPUs' DRAM bandwidths
    assumed; times in seconds, the clock in Hz and bandwidths in bytes/s at full precision; a GPU without a
    projection has one row (none) with its ``reason``. The figures' sources are in the JSON and Markdown."""
    workloads = c.everywhere or ((c.workload,) if c.workload is not None else ())
    return csv_text(CSV_COLUMNS, (row for w in workloads for row in _csv_rows(w, _unfit(c, w.target))))


def _unfit(c: Comparison, target: str) -> dict[str, str]:
    """The kernels that cannot launch on ``target`` as built, each with why in words (``unfit_text``)."""
    return {f.kernel: unfit_text(f.fit) for f in c.unfit(target) if isinstance(f.fit, SharedMemoryFit)}


def _csv_rows(w: WorkloadProjection, unfit: dict[str, str]) -> list[list[object]]:
    """A GPU's rows; a kernel row's ``reason`` says where it cannot launch there as built (``unfit``)."""
    if not w.launches:
        return [[w.target, "none", *[""] * (len(CSV_COLUMNS) - 3), w.reason]]
    gpu = [w.clock, _full(w.clock_hz), _full(w.dram_bytes_per_s), _full(w.source_dram_bytes_per_s)]
    out: list[list[object]] = [[w.target, "kernel", k.name, k.count, "", "", *_times(k), k.governing,
                                " ".join(k.other_kernel), *gpu, unfit.get(k.name, "")] for k in w.kernels]
    out += [[w.target, "launch", x.name, x.count, x.grid or "", x.block or "", *_times(x), x.governing,
             " ".join(x.other_kernel), w.clock, _full(x.clock_hz if x.clock_hz is not None else w.clock_hz),
             *gpu[2:], ""]
            for x in w.launches]  # a launch group's own clock: a share of the workload's where power held it
    out += [[w.target, "nvtx", r.name, r.launches, "", "", *_times(r), "", "", *gpu, ""] for r in w.ranges]
    out.append([w.target, "total", "", w.launch_count, "", "", *_times(w), w.governing or "", "", *gpu, ""])
    out += [[w.target, "left_out", k.name, k.launches, *[""] * 6, "", "", *gpu, LEFT_OUT_WORDS[k.cause]]
            for k in w.left_out_kernels]
    return out


def _times(x: KernelTotal | LaunchProjection | RangeTotal | WorkloadProjection) -> list[str]:
    """Measured, projected and the interval's ends, in seconds at full precision."""
    return [repr(x.measured_s), repr(x.projected_s), repr(x.low_s), repr(x.high_s)]


def _full(value: float | None) -> str:
    """A figure at full precision; empty where not known."""
    return "" if value is None else repr(value)
