"""roofline.cli.facts: each command's facts, declared beside its function, agree with its parameters."""

from __future__ import annotations

import importlib
import inspect
from typing import get_type_hints

import pytest

from roofline.cli.app import COMMANDS, facts
from roofline.cli.facts import Facts

FUNCTIONS = {name: (module, attr) for name, (module, attr, group, _) in COMMANDS.items() if not group}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_declared_output_names_a_parameter_and_an_option_of_its_command(name):
    module = importlib.import_module(f"roofline.cli.commands.{FUNCTIONS[name][0]}")
    function = inspect.unwrap(getattr(module, FUNCTIONS[name][1]))
    output = facts(name).output
    if output is None:
        return
    hints = get_type_hints(function, include_extras=True)
    assert "fmt" in hints
    options = [d for info in hints[output.parameter].__metadata__
               for d in (getattr(info, "default", None), *getattr(info, "param_decls", ()))]
    assert output.option in options


def test_a_group_or_an_unknown_name_has_the_default_facts():
    assert facts("specs") == facts("no-such-command") == facts(None) == Facts()


def test_the_commands_that_read_without_sass_are_those_whose_analysis_reads_none():
    """A report read ahead (before the command line is parsed) leaves the SASS of the sampled instructions out
    where the command's FACTS say so; the pipeline takes it only where the command's analysis agrees: the commands
    whose sources say diagnostics=False or sass=False read no SASS."""
    for name, (module, _) in FUNCTIONS.items():
        reads = facts(name).reads
        if reads is None:
            continue
        source = inspect.getsource(importlib.import_module(f"roofline.cli.commands.{module}"))
        assert reads.sass == ("diagnostics=False" not in source and "sass=False" not in source), name


def test_the_commands_that_read_reports_declare_it():
    assert {name for name in FUNCTIONS if facts(name).reads} == {
        "report", "plot", "compare", "diff", "summary", "project", "grade"}
