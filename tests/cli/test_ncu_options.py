"""The ncu options shared by analyze and wrap: NcuChoices spread into a command's signature and gathered back."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import pytest
import typer

from roofline.cli import ncu_options as ncu_opts


@ncu_opts.takes_ncu_options
def _command(first: int, choices: ncu_opts.NcuChoices = ncu_opts.DEFAULTS, last: str = "x") -> tuple[Any, ...]:
    return first, choices, last


def test_the_choices_parameter_is_replaced_by_its_options_in_place() -> None:
    names = list(inspect.signature(_command).parameters)
    assert names == ["first", *(f.name for f in fields(ncu_opts.NcuChoices)), "last"]


def test_the_options_are_gathered_back_into_one_ncu_choices() -> None:
    given = {f.name: f.default for f in fields(ncu_opts.NcuChoices)} | {"section_set": "full", "dry_run": True}
    command: Callable[..., tuple[Any, ...]] = _command  # as typer calls it: the options by name
    first, choices, last = command(first=1, last="y", **given)
    assert (first, last) == (1, "y")
    assert choices == ncu_opts.NcuChoices(section_set="full", dry_run=True)


def test_set_none_without_a_section_or_metrics_is_refused() -> None:
    with pytest.raises(typer.BadParameter, match="--set none collects only"):
        ncu_opts.ncu_options(ncu_opts.NcuChoices(section_set="none"))


def test_the_options_carry_every_choice_to_ncu() -> None:
    options = ncu_opts.ncu_options(ncu_opts.NcuChoices(section_set="none", section=["Occupancy"], launch_skip=2,
                                                       ncu_arg=["--cache-control=none"], force=True))
    assert (options.section_set, options.sections, options.launch_skip, options.extra, options.force) == \
        (None, ("Occupancy",), 2, ("--cache-control=none",), True)
