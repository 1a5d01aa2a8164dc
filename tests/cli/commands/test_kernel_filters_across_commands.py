"""The --kernel language is one for every command: the same filters select the same launches in report, compare,
diff, summary and plot (analyze and wrap: tests/cli/commands/test_analyze.py and test_wrap.py).

Each command runs on the RTX 4070 Ti report (14 launches: Thrust, CUB scan, user kernels); the launches it
analysed are recorded at the pipeline and compared with a selection made here by plain string tests on the
names the reader gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline import pipeline
from roofline.cli.app import app

REPORT = "rtx4070ti_pytorch-sim_full"
FILTERS = {  # name: (command-line filters, which name they read, the test each launch's name must pass)
    "part": (["-k", "Scan"], "function", lambda n: "Scan" in n),
    "exact+regex": (["-k", "exact:linspace", "--kernel", "regex:^gen"], "function",
                    lambda n: n == "linspace" or re.search("^gen", n) is not None),
    "demangled": (["-k", "ParallelForAgent", "--kernel-name-base", "demangled"], "demangled",
                  lambda n: "ParallelForAgent" in n),
}
COMMANDS = {
    "report": lambda path, tmp: ["report", path, "-f", "json"],
    "compare": lambda path, tmp: ["compare", path, path, "-f", "json"],
    "diff": lambda path, tmp: ["diff", path, path, "-f", "json"],
    "summary": lambda path, tmp: ["summary", path, "-f", "json"],
    "plot": lambda path, tmp: ["plot", path, "-o", str(tmp / "plot.png")],
}


@pytest.mark.parametrize("filters", sorted(FILTERS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_same_filters_select_the_same_launches(command: str, filters: str, shared_report, roofline_report,
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(shared_report(REPORT))
    options, base, keep = FILTERS[filters]
    launches = roofline_report(REPORT).launches
    expected = [k.key for k in launches if keep(k.demangled_name if base == "demangled" else k.name)]
    assert expected and len(expected) < len(launches)  # each filter keeps some launches, not all

    selected: list[list[str]] = []
    analyze = pipeline.analyze  # behind every command (one report here: analysed in this process)

    def recording(*args, **kwargs):
        analysis = analyze(*args, **kwargs)
        selected.append([k.launch.key for k in analysis.launches])
        return analysis

    monkeypatch.setattr(pipeline, "analyze", recording)
    result = CliRunner().invoke(app, [*COMMANDS[command](path, tmp_path), *options])
    assert result.exit_code == 0, result.output
    assert selected and all(keys == expected for keys in selected)
