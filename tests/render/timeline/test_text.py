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


def test_files_named_by_rank_are_shown_by_rank_and_unnamed_ones_by_their_place(tmp_path):
    """Copies of the example export named as report.%q{OMPI_COMM_WORLD_RANK} names them, given as a shell glob
    orders them (10 before 2): the ranks table in rank order, the stream lines by rank, the CSV by rank. Named
    with no rank, the files are numbered in the order given and no rank is claimed (an empty CSV rank)."""
    import shutil

    from roofline.facade import Roofline
    from roofline.render.timeline.text import render_csv

    paths = [tmp_path / f"report.{r}.sqlite" for r in (0, 10, 2)]
    for path in paths:
        shutil.copyfile(H100_EXAMPLES, path)
    doc = Roofline().timeline(paths).timelines
    text = render_table(doc, width=100)
    rows = [line.split()[:2] for line in text[text.index("\nranks\n"):].splitlines()[3:6]]
    assert rows == [["0", "report.0.sqlite"], ["2", "report.2.sqlite"], ["10", "report.10.sqlite"]]
    assert "rank 10 GPU 0 copies" in text and "rank: the number in each file's name" in " ".join(text.split())
    assert {tuple(line.split(",")[:2]) for line in render_csv(doc).splitlines()[1:]} == {
        (str(p), p.name.split(".")[1]) for p in paths}
    plain = [tmp_path / f"{name}.sqlite" for name in ("first", "second")]
    for path in plain:
        shutil.copyfile(H100_EXAMPLES, path)
    doc = Roofline().timeline(plain).timelines
    text = render_table(doc, width=100)
    assert "file 2 GPU 0 copies" in text and "rank 0" not in text
    assert {line.split(",")[1] for line in render_csv(doc).splitlines()[1:]} == {""}
