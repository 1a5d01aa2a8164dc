"""Fuzzing in the suite: a fixed-seed sample of mutated reports, models and specs, and of hostile uses of the command
line (``tests/fuzz.py``), each through the CLI in a subprocess with a time limit. Every outcome is a valid result
(finite, in-range numbers; other formats written as UTF-8, the table without control characters) or exit 2 with one
line naming the file; nothing else. The full set (300 reports, 150 models, 150 specs, 150 hostile cases, 3 to 4
minutes on 2 cores) runs separately: ``python -m tests.fuzz``. The sample (about 3 minutes on 2 cores) is marked
slow: the README's test command leaves it out and ``.ci/run`` runs it right after."""

from __future__ import annotations

from collections import Counter

import pytest

from tests import fuzz

SAMPLE = {"reports": 40, "models": 20, "specs": 20, "hostile": 30}  # 110 of the full set's 750
SEED = 15


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, shared_dir):
    return fuzz.run_all(fuzz.cases(SEED, SAMPLE, tmp_path_factory.mktemp("fuzz")))


@pytest.mark.slow
def test_every_mutated_input_is_a_valid_result_or_a_one_line_error(outcomes, capsys):
    with capsys.disabled():
        print(f"\nfuzz sample (seed {SEED}): {fuzz.summary(outcomes)}")
    others = [f"{o.case.kind} {o.case.mutation} ({o.case.path.name}): {o.detail}" for o in outcomes
              if o.verdict == "other"]
    assert others == [], fuzz.summary(outcomes)


@pytest.mark.slow
def test_the_sample_reaches_both_outcomes_for_every_kind_of_input(outcomes):
    """A sample where everything failed to load (or nothing did) would test little."""
    seen = Counter((o.case.kind, o.verdict) for o in outcomes)
    assert len(outcomes) == sum(SAMPLE.values())
    for kind in fuzz.KINDS:
        assert seen[(kind, "valid")] and seen[(kind, "error")], seen


def test_generation_is_deterministic(tmp_path, shared_dir):
    first = fuzz.cases(SEED, {"reports": 5, "models": 5, "specs": 5}, tmp_path / "a")
    again = fuzz.cases(SEED, {"reports": 5, "models": 5, "specs": 5}, tmp_path / "b")
    assert [c.mutation for c in first] == [c.mutation for c in again]
    assert [c.path.read_bytes() for c in first] == [c.path.read_bytes() for c in again]


def test_the_judge_tells_the_three_outcomes_apart(tmp_path):
    case = fuzz.Case("model", "test", tmp_path / "m.json", ("report", str(tmp_path / "m.json"), "-f", "json"))
    ok = '{"generator":"g","reports":[{"kernels":[{"duration_s":1e-3,"time_share":1.0}]}]}'
    assert fuzz.classify(case, 0, ok, "roofline: warning: x\n").verdict == "valid"
    assert fuzz.classify(case, 2, "", f"roofline: error: {case.path}: bad: fix\n").verdict == "error"
    for code, out, err in [(0, ok.replace("1e-3", "-1"), ""), (0, ok.replace("1e-3", "0"), ""),
                           (0, ok.replace("1e-3", "NaN"), ""), (0, ok.replace("1.0}", "1.5}"), ""),
                           (1, "", "Traceback (most recent call last):\n"), (-11, "", ""),
                           (2, "", "roofline: error: other.json: bad\n"), (2, "", "two\nlines\n")]:
        assert fuzz.classify(case, code, out, err).verdict == "other", (code, out, err)
