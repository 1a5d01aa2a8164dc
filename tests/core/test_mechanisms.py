"""roofline.core.mechanisms: the speed mechanisms and the switch that turns them off."""

from __future__ import annotations

import pytest

from roofline.core import mechanisms


@pytest.mark.parametrize("switch, off", [("", set()), ("all", set(mechanisms.MECHANISMS)),
                                         ("help, other", {"help"}), ("read-ahead", {"read-ahead"}),
                                         ("early-diagnoses,read-ahead", {"early-diagnoses", "read-ahead"}),
                                         ("other", set())])
def test_the_switch_turns_off_all_or_the_mechanisms_it_names(switch, off, monkeypatch):
    monkeypatch.setenv(mechanisms.SWITCH, switch)
    assert {name for name in mechanisms.MECHANISMS if not mechanisms.on(name)} == off


def test_without_the_switch_every_mechanism_is_on(monkeypatch):
    monkeypatch.delenv(mechanisms.SWITCH, raising=False)
    assert all(mechanisms.on(name) for name in mechanisms.MECHANISMS)
