"""`roofline timeline` as a terminal table: lines longer than the terminal wrap under their own indentation."""

from __future__ import annotations

from pathlib import Path

from roofline.render.timeline.text import render_table

H100_EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "nsys" / "h100-examples.sqlite"


def test_at_80_columns_the_idle_and_gap_lines_wrap_under_their_own_indentation():
    """examples/nsys (H100, 17 launches): the GPU line, its idle causes and each idle gap are longer than 80
    columns; their continuation lines sit two spaces further in than the line they continue, never at column 0,
    and a cause keeps its share ("(pageable) 3.1%")."""
    from roofline.facade import Roofline

    text = render_table(Roofline().timeline(H100_EXAMPLES).timelines, width=80)
    lines = text.splitlines()
    # a kernel name longer than the line stands whole on its own line (copied into -k), never cut into pieces
    assert all(len(line) <= 80 or " " not in line.strip() for line in lines)
    gpu = lines.index(next(line for line in lines if line.startswith("GPU 0 NVIDIA H100 80GB HBM3: 17 launches")))
    assert lines[gpu + 1] == "  first kernel start to last kernel end (idle 86.8%)"
    assert lines[gpu + 2] == "  idle 219 ms: host outside CUDA calls 95.4%, copying Host-to-Device"
    assert lines[gpu + 3].startswith("    (pageable) 3.1%, copying Device-to-Host (pageable) 1.5%")
    gap = lines.index(next(line for line in lines if line.startswith("2. GPU 0: idle 52 ms")))
    assert lines[gap + 1] == "  (pageable) (stream 7), before kernel triad (stream 7)"
