"""roofline.compare.regression: the regression gate of `roofline diff` on synthetic models whose expected slowdowns,
roof drops, shares and totals are computed here from the numbers the models are built with (tests/synthetic.py)."""

from __future__ import annotations

import json
import math
import random
import statistics

import msgspec
import pytest
from typer.testing import CliRunner

from roofline.analysis.roofline import analyze_report
from roofline.cli.app import app
from roofline.compare.pairing import pair_reports
from roofline.compare.regression import GateCause, GateNote, Thresholds, judge
from roofline.core.model import Device, KernelLaunch, Report
from roofline.errors import RooflineError
from tests.synthetic import COMPUTE_BOUND, OLD_GPU, launch, model, names_model, peak_fp32


def _judge(base: Report, new: Report, thresholds: Thresholds | None = None, allow: bool = False):
    return judge(pair_reports([analyze_report(base), analyze_report(new)]), thresholds or Thresholds(), allow)


# --- Thresholds (synthetic, one launch per side) -----------------------------------------------------------
def test_diff_flags_kernels_slower_or_further_from_their_roof_than_the_thresholds():
    base = model("base.json", [launch(0, "a", 1.0e-3, 1e9, 1e7, OLD_GPU), launch(1, "b", 1.0e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "a", 1.2e-3, 1e9, 1e7, OLD_GPU), launch(1, "b", 1.04e-3, 1e9, 1e7, OLD_GPU)])
    comparison = pair_reports([analyze_report(base), analyze_report(new)])
    result = judge(comparison, Thresholds(slower_pct=10.0))
    assert result.exit_code == 1 and [v.pair.key for v in result.regressions] == ["a"]
    verdict = {v.pair.key: v for v in result.verdicts}
    assert verdict["a"].slowdown_pct.value == pytest.approx(20.0, rel=1e-6)
    assert verdict["b"].slowdown_pct.value == pytest.approx(4.0, rel=1e-6)
    assert verdict["a"].reasons == ("slower 20.0% > 10% (untested for noise: one launch per side)",)
    pct = [100 * 2e9 / peak_fp32(OLD_GPU) / t for t in (1.0e-3, 1.2e-3)]  # compute-limited: FLOPs / peak / time
    assert verdict["a"].roof_drop_pct.value == pytest.approx(pct[0] - pct[1], rel=1e-6)
    # the total: both kernels' BASE time (2 ms) at NEW's speed (1.2 + 1.04 ms) is 12% more
    assert result.total is not None and result.total.change_pct == pytest.approx(12.0, rel=1e-6)
    assert judge(comparison, Thresholds(slower_pct=25.0, total_slower_pct=15.0)).exit_code == 0
    total_only = judge(comparison, Thresholds(slower_pct=25.0))
    assert total_only.exit_code == 1 and not total_only.regressions and total_only.total_regressed
    roof = judge(comparison, Thresholds(slower_pct=25.0, total_slower_pct=15.0, roof_drop_pct=5.0))
    assert [v.pair.key for v in roof.regressions] == ["a"]  # b: 3.8 points


def test_the_defaults_fail_a_large_regression_without_any_flag():
    """10% on a kernel with at least 1% of the time, 5% on the total: a 580x slower kernel fails by default."""
    assert Thresholds() == Thresholds(slower_pct=10.0, min_share_pct=1.0, total_slower_pct=5.0, roof_drop_pct=None)
    base = model("base.json", [launch(0, "k", 3.49e-6, 1e4, 1e4, OLD_GPU), launch(1, "big", 1e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 2.04e-3, 1e4, 1e4, OLD_GPU), launch(1, "big", 1e-3, 1e9, 1e7, OLD_GPU)])
    result = _judge(base, new)
    assert result.exit_code == 1 and [v.pair.key for v in result.regressions] == ["k"]
    assert result.regressions[0].slowdown_pct.value == pytest.approx(100 * (2.04e-3 / 3.49e-6 - 1), rel=1e-9)


def test_kernels_under_the_minimum_share_are_not_gated_but_count_in_the_total():
    """k holds 0.5% of BASE's time and 0.6% of NEW's: its 20% is not gated, the total sees it."""
    base = model("base.json", [launch(0, "k", 5e-6, 1e4, 1e4, OLD_GPU), launch(1, "big", 995e-6, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 6e-6, 1e4, 1e4, OLD_GPU), launch(1, "big", 995e-6, 1e9, 1e7, OLD_GPU)])
    result = _judge(base, new)
    k = next(v for v in result.verdicts if v.pair.key == "k")
    assert k.share_pct == pytest.approx(100 * 6e-6 / (6e-6 + 995e-6), rel=1e-9)
    assert not k.regressed and k.not_gated is not None and k.not_gated.kind is GateCause.SMALL_SHARE
    assert k.not_gated.share_pct == k.share_pct and k.not_gated.min_share_pct == 1.0
    assert result.total is not None and result.total.base_s == pytest.approx(1e-3, rel=1e-9)
    assert result.total.at_new_speed_s == pytest.approx(6e-6 + 995e-6, rel=1e-9)
    assert result.exit_code == 0
    assert _judge(base, new, Thresholds(min_share_pct=0.5)).exit_code == 1


# --- Noise: several launches per side ---------------------------------------------------------------------
NOISE_SIGMA = 0.02  # launch-to-launch scatter of the model's times: lognormal, 2%


def noisy_model(path: str, kernels: dict[str, float], launches: int = 30, sigma: float = NOISE_SIGMA,
                seed: int = 1) -> Report:
    """``launches`` launches of each kernel (name -> median time), times scattered lognormally by ``sigma``
    (seeded), the same work per launch."""
    rng = random.Random(seed)
    items = [launch(i * len(kernels) + j, name, t * math.exp(rng.gauss(0.0, sigma)), 1e6, 1e6, OLD_GPU)
             for i in range(launches) for j, (name, t) in enumerate(kernels.items())]
    return model(path, items)


def test_diff_gates_a_15_percent_regression_and_passes_a_2_percent_one_at_the_default_alpha():
    """30 launches per kernel on each side, 2% noise: +15% is a regression beyond the 10% threshold at alpha 0.01,
    +2% is not (and neither moves the total past 5% on its own)."""
    base = noisy_model("base.json", {"slower15": 1e-3, "slower2": 1e-3}, seed=1)
    new = noisy_model("new.json", {"slower15": 1.15e-3, "slower2": 1.02e-3}, seed=2)
    result = _judge(base, new)
    verdict = {v.pair.key: v for v in result.verdicts}
    assert [v.pair.key for v in result.regressions] == ["slower15"]
    gated = verdict["slower15"]
    assert gated.change is not None and not gated.change.untested and gated.change.base_n == 30
    assert gated.change.low is not None and gated.change.low > 1.10  # the interval clears the threshold
    assert gated.p_value is not None and gated.p_value < 0.01
    hl = hodges_lehmann(base, new, "slower15")
    assert hl == pytest.approx(1.15, abs=0.02) and gated.slowdown_pct.value == pytest.approx(100 * (hl - 1), rel=1e-9)
    assert gated.reasons[0].startswith(f"slower {100 * (hl - 1):.1f}% > 10%: at least ")
    passed = verdict["slower2"]
    assert not passed.regressed and passed.p_value is not None and passed.p_value > 0.5
    assert passed.change is not None and passed.change.low is not None and passed.change.low < 1.10
    only_2pct = _judge(noisy_model("b.json", {"k": 1e-3}, seed=3), noisy_model("n.json", {"k": 1.02e-3}, seed=4))
    assert only_2pct.exit_code == 0


def test_the_noise_gate_through_the_command_line(tmp_path):
    """The same models as report-model files, diffed as CI runs it: no flag, exit 1 for +15%, exit 0 for +2%."""
    def written(name: str, report: Report):
        path = tmp_path / name
        path.write_text(json.dumps(report.to_dict()))
        return str(path)

    base = written("base.json", noisy_model("base.json", {"k": 1e-3}, seed=1))
    for factor, code in ((1.15, 1), (1.02, 0)):
        new = written(f"new{factor}.json", noisy_model("new.json", {"k": factor * 1e-3}, seed=2))
        result = CliRunner().invoke(app, ["diff", base, new, "-f", "json"])
        assert result.exit_code == code, result.output
        (kernel,) = json.loads(result.stdout)["kernels"]
        assert kernel["change"]["base_launches"] == kernel["change"]["new_launches"] == 30
        assert kernel["regressed"] is (code == 1) and (kernel["p_value"] < 0.01) is (code == 1)


def hodges_lehmann(base: Report, new: Report, name: str) -> float:
    """The median of the pairwise ratios NEW / BASE of a kernel's launch times (on their logarithms)."""
    times = [[k.value("gpu__time_duration.sum") or 0.0 for k in m.launches if k.name == name] for m in (base, new)]
    return math.exp(statistics.median(math.log(b / a) for a in times[0] for b in times[1]))


def test_a_change_the_noise_explains_is_not_gated():
    """+12% median change under 20% noise: the interval reaches below +10%, so the test does not reject."""
    base = noisy_model("base.json", {"k": 1e-3}, sigma=0.2, seed=5)
    new = noisy_model("new.json", {"k": 1.12e-3}, sigma=0.2, seed=6)
    (verdict,) = _judge(base, new, Thresholds(total_slower_pct=50.0)).verdicts
    assert verdict.change is not None and verdict.change.low is not None and verdict.change.low < 1.10
    assert not verdict.regressed and verdict.p_value is not None and verdict.p_value >= 0.01


def test_the_change_is_the_median_of_the_pairwise_ratios_and_the_total_uses_it():
    base = noisy_model("base.json", {"k": 1e-3}, launches=7, seed=7)
    new = noisy_model("new.json", {"k": 1.3e-3}, launches=9, seed=8)
    result = _judge(base, new, Thresholds(slower_pct=50.0, total_slower_pct=50.0))
    hl = hodges_lehmann(base, new, "k")
    (verdict,) = result.verdicts
    assert verdict.slowdown_pct.value == pytest.approx(100 * (hl - 1), rel=1e-9)
    assert result.total is not None and result.total.change_pct == pytest.approx(100 * (hl - 1), rel=1e-9)
    base_s = sum((k.value("gpu__time_duration.sum") or 0.0) * 1e-9 for k in base.launches)
    assert result.total.base_s == pytest.approx(base_s, rel=1e-12)


# --- Set-up: GPU and ncu version --------------------------------------------------------------------------
def _on(report: Report, device: str = "Synthetic GPU", ncu: str = "2024.1.0.0", path: str = "") -> Report:
    return msgspec.structs.replace(report, device=Device(name=device, compute_capability="9.0"), ncu_version=ncu,
                               path=path or report.path)


def test_reports_of_different_gpus_or_ncu_versions_are_refused_unless_allowed():
    base = model("base.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU)])
    with pytest.raises(RooflineError) as err:
        _judge(_on(base), _on(new, device="Other GPU"))
    assert str(err.value).startswith("base.json (Synthetic GPU, ncu 2024.1.0.0) and new.json (Other GPU, ncu "
                                     "2024.1.0.0) come from different GPUs, so their times are no regression test")
    assert "--allow-different-gpu (allow_different_gpu=True in Python)" in str(err.value)
    assert err.value.exit_code == 2 and "\n" not in str(err.value)
    with pytest.raises(RooflineError, match="come from different ncu versions"):
        _judge(_on(base), _on(new, ncu="2025.1.0.0"))
    allowed = _judge(_on(base), _on(new, device="Other GPU", ncu="2025.1.0.0"), allow=True)
    assert allowed.exit_code == 0
    assert allowed.setup_notes == ("different GPUs and ncu versions allowed (--allow-different-gpu): base.json "
                                   "(Synthetic GPU, ncu 2024.1.0.0) and new.json (Other GPU, ncu 2025.1.0.0)",)
    unknown = _judge(_on(base), _on(new, ncu=""))
    assert unknown.setup_notes == ("ncu version not checked: new.json does not name the ncu version that wrote it "
                                   "(a report model written without it)",)


def test_two_gpus_of_one_name_are_told_apart_by_what_differs():
    """A GPU of the same name with fewer SMs (another SKU, a MIG slice) was refused as "(Synthetic GPU, ...) and
    (Synthetic GPU, ...) come from different GPUs", which named no difference."""
    base = model("base.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU)])
    fewer = msgspec.structs.replace(_on(base, path="new.json"),
                                    device=Device(name="Synthetic GPU", compute_capability="9.0", sm_count=72))
    with pytest.raises(RooflineError) as err:
        _judge(msgspec.structs.replace(_on(base), device=Device(name="Synthetic GPU", compute_capability="9.0",
                                                               sm_count=80)), fewer)
    assert str(err.value).startswith("base.json (Synthetic GPU, 80 SMs, ncu 2024.1.0.0) and new.json (Synthetic "
                                     "GPU, 72 SMs, ncu 2024.1.0.0) come from different GPUs")


# --- Different work --------------------------------------------------------------------------------------
def test_different_work_is_reported_and_left_out_of_the_gate_unless_asked():
    """k does 3x the FLOPs in 2x the time: 100% slower, but 33% faster per FLOP; j is the same work and 1% slower."""
    base = model("base.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU, sol=COMPUTE_BOUND),
                               launch(1, "j", 1e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 2e-3, 3e9, 1e7, OLD_GPU, sol=COMPUTE_BOUND),
                             launch(1, "j", 1.01e-3, 1e9, 1e7, OLD_GPU)])
    result = _judge(base, new)
    k = next(v for v in result.verdicts if v.pair.key == "k")
    assert k.pair.different_work(1) and not k.regressed
    assert k.not_gated == GateNote(GateCause.DIFFERENT_WORK, k.pair.work[1])
    assert k.slowdown_pct.value == pytest.approx(100.0, rel=1e-9)
    assert k.per_work_pct.value == pytest.approx(100 * (2.0 / 3.0 - 1), rel=1e-9)
    assert result.total is not None and result.total.kernels == 1  # j only
    assert result.exit_code == 0
    gated = _judge(base, new, Thresholds(gate_different_work=True))
    assert gated.exit_code == 0 and gated.total is not None and gated.total.kernels == 2
    slower_per_flop = msgspec.structs.replace(new, launches=(launch(0, "k", 4e-3, 3e9, 1e7, OLD_GPU), new.launches[1]))
    result = _judge(base, slower_per_flop, Thresholds(gate_different_work=True))
    assert [v.pair.key for v in result.regressions] == ["k"]
    assert result.regressions[0].reasons[0] == ("slower 33.3% > 10% (untested for noise: one launch per side) per "
                                                "unit of work (FP32 FLOP)")


def test_diff_refuses_reports_without_a_shared_kernel_or_a_gate_it_cannot_check():
    base, new = (analyze_report(names_model(p, [(n, "")])) for p, n in (("b.json", "x"), ("n.json", "y")))
    with pytest.raises(RooflineError, match="no kernel in common"):
        judge(pair_reports([base, new]), Thresholds(slower_pct=1.0))
    timeless = KernelLaunch(range_index=0, action_index=0, name="x", metrics={"gpu__time_duration.sum": 1000.0})
    bare = analyze_report(model("t.json", [timeless]))
    with pytest.raises(RooflineError, match="--fail-if-roof-drop cannot be checked"):
        judge(pair_reports([bare, bare]), Thresholds(roof_drop_pct=5.0))


def test_nothing_to_gate_when_every_shared_kernel_does_different_work():
    base = model("base.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 1e-3, 2e9, 1e7, OLD_GPU)])
    with pytest.raises(RooflineError) as err:
        _judge(base, new)
    assert str(err.value) == ("base.json vs new.json: nothing to gate, 1 of the 1 shared kernels do different work: "
                              "pass --gate-different-work to gate them per unit of work, or compare the runs with "
                              "roofline compare")


def test_the_total_of_one_kernel_takes_the_singular():
    from roofline.render.compare.table import total_text

    base = model("base.json", [launch(0, "a", 1.0e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "a", 1.1e-3, 1e9, 1e7, OLD_GPU)])
    assert total_text(judge(pair_reports([analyze_report(base), analyze_report(new)]), Thresholds())).startswith(
        "total: 1 kernel takes 1 ms in BASE")


def test_kernels_only_in_new_fail_the_gate_above_their_share_of_new_time():
    """NEW runs ``extra`` (3 ms) beside the shared ``a`` (1 ms, unchanged): 75% of NEW's kernel time, which only
    --fail-if-new-share gates; off by default."""
    base = model("base.json", [launch(0, "a", 1.0e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "a", 1.0e-3, 1e9, 1e7, OLD_GPU), launch(1, "extra", 3.0e-3, 1e9, 1e7, OLD_GPU)])
    comparison = pair_reports([analyze_report(base), analyze_report(new)])
    off = judge(comparison)
    assert off.only_in_new is not None and off.only_in_new.share == pytest.approx(0.75, rel=1e-9)
    assert off.exit_code == 0 and not off.only_in_new_regressed
    above = judge(comparison, Thresholds(new_share_pct=50.0))
    assert above.exit_code == 1 and above.only_in_new_regressed and not above.regressions
    assert judge(comparison, Thresholds(new_share_pct=75.0)).exit_code == 0  # not above: 75% is the limit
    same = judge(pair_reports([analyze_report(base), analyze_report(base)]), Thresholds(new_share_pct=0.0))
    assert same.only_in_new is None and same.exit_code == 0  # NEW runs no kernel of its own


@pytest.mark.parametrize("field", ["slower_pct", "min_share_pct", "total_slower_pct", "roof_drop_pct",
                                   "new_share_pct"])
def test_a_nan_or_negative_threshold_cannot_switch_the_gate_off(field: str) -> None:
    """NaN compares false with everything: a NaN slower limit passed every regression (the CLI refused it, a
    Python caller's Thresholds did not)."""
    from roofline.errors import UsageError

    for value in (float("nan"), float("inf"), -1.0):
        with pytest.raises(UsageError, match=field):
            Thresholds(**{field: value})  # type: ignore[arg-type]


# --- Kernels the gate cannot judge ------------------------------------------------------------------------
def _four_kernels(path: str, unmeasured: str = "", invalid: str = "") -> Report:
    """a (4 ms), b (3 ms), c (2 ms), tiny (5 us); ``unmeasured`` without its time, ``invalid`` marked invalid."""
    from msgspec.structs import replace

    launches = [launch(i, name, t, 1e9, 1e7, OLD_GPU) for i, (name, t) in
                enumerate((("a", 4e-3), ("b", 3e-3), ("c", 2e-3), ("tiny", 5e-6)))]
    for i, k in enumerate(launches):
        if k.name == unmeasured:
            launches[i] = replace(k, metrics={n: v for n, v in k.metrics.items() if n != "gpu__time_duration.sum"})
        if k.name == invalid:  # as a launch that failed: no metric at all (a report model's reader marks it so)
            launches[i] = replace(k, metrics={}, invalid="not measured: ncu collected no counters for it")
    return model(path, launches)


def test_a_gated_size_kernel_without_a_time_in_new_is_not_judged_and_fails_the_job_with_2():
    """b (3 ms of 9 ms, 33%) has no launch time in NEW: the gate passed (exit 0, "no regression") with it left out
    of the total, so a regression in it would pass."""
    from roofline.compare.regression import Unjudged

    result = _judge(_four_kernels("base.json"), _four_kernels("new.json", unmeasured="b"))
    assert not result.regressed and result.exit_code == 2
    (b,) = result.not_judged
    assert (b.kernel, b.cause) == ("b", Unjudged.NO_TIME)
    assert b.share_pct == pytest.approx(100 * 3e-3 / (4e-3 + 3e-3 + 2e-3 + 5e-6), rel=1e-9)
    assert _judge(_four_kernels("base.json"), _four_kernels("new.json", unmeasured="b"),
                  Thresholds(min_share_pct=34.0)).exit_code == 0  # its share under the one gated: left out


def test_a_kernel_every_launch_of_which_is_invalid_in_new_is_not_judged_not_only_in_base():
    from roofline.compare.regression import Unjudged

    result = _judge(_four_kernels("base.json"), _four_kernels("new.json", invalid="c"))
    assert result.comparison.unmatched[0] == ("c",)  # as before: no valid launch of it to pair
    (c,) = result.not_judged
    assert (c.kernel, c.cause, result.exit_code) == ("c", Unjudged.EVERY_LAUNCH_INVALID, 2)
    assert c.share_pct == pytest.approx(100 * 2e-3 / (4e-3 + 3e-3 + 2e-3 + 5e-6), rel=1e-9)


def test_a_kernel_under_the_share_or_removed_from_new_or_a_regression_keeps_its_exit_code():
    """tiny (0.06%) invalid in NEW is under --min-share; c absent from NEW was removed (only in BASE, as before);
    a regression elsewhere exits 1 whatever is not judged."""
    base = _four_kernels("base.json")
    assert _judge(base, _four_kernels("new.json", invalid="tiny")).exit_code == 0
    removed = model("new.json", [k for k in base.launches if k.name != "c"])
    assert _judge(base, removed).exit_code == 0
    slower = _four_kernels("new.json", unmeasured="b")
    slower = model("new.json", [launch(0, "a", 6e-3, 1e9, 1e7, OLD_GPU), *slower.launches[1:]])
    result = _judge(base, slower)
    assert result.exit_code == 1 and [n.kernel for n in result.not_judged] == ["b"]


def test_the_diff_command_exits_2_and_says_which_kernel_it_could_not_judge(tmp_path):
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(_four_kernels(str(base)).to_dict()))
    new.write_text(json.dumps(_four_kernels(str(new), invalid="c").to_dict()))
    table = CliRunner().invoke(app, ["diff", str(base), str(new), "--wide"])
    assert table.exit_code == 2, table.output
    assert "not judged: 1 kernel without a time, a regression would pass (exit 2)" in table.output
    assert "not judged c (22.2% of BASE's time, >= --min-share 1%): NEW ran it, and every launch of it there is " \
           "invalid" in " ".join(table.output.split())
    written = CliRunner().invoke(app, ["diff", str(base), str(new), "-f", "json", "-o", str(tmp_path / "d.json")])
    assert written.exit_code == 2
    doc = json.loads((tmp_path / "d.json").read_text())
    assert (doc["exit_code"], doc["regression"]) == (2, False)
    assert doc["not_judged"] == [{"kernel": "c", "share_pct": pytest.approx(100 * 2e-3 / 9.005e-3),
                                  "cause": "every_launch_invalid", "share_of": "base"}]
    CliRunner().invoke(app, ["diff", str(base), str(new), "-f", "markdown", "-o", str(tmp_path / "d.md")])
    markdown = (tmp_path / "d.md").read_text()
    assert ":x: **not judged: 1 kernel" in markdown and "**Not judged** (a regression in these would pass)" in markdown


def test_invalid_launches_are_sought_by_name_under_order_matching_and_on_the_base_side_too():
    """Under --match order the invalid launches' order says nothing: they are sought by name (the gate passed, exit 0,
    with c paired to tiny). A kernel BASE ran only with invalid launches is not judged either."""
    from roofline.compare.pairing import parse_matcher
    from roofline.compare.regression import Unjudged

    base, new = _four_kernels("base.json"), _four_kernels("new.json", invalid="c")
    ordered = judge(pair_reports([analyze_report(base), analyze_report(new)], parse_matcher("order")), Thresholds())
    assert [(n.kernel, n.cause, n.share_of) for n in ordered.not_judged] == [("c", Unjudged.EVERY_LAUNCH_INVALID,
                                                                              "base")]
    assert ordered.exit_code == 2  # order pairs BASE's c with NEW's tiny (faster): nothing regressed
    backwards = _judge(_four_kernels("base.json", invalid="b"), _four_kernels("new.json"))
    (b,) = backwards.not_judged
    assert (b.kernel, b.cause, b.share_of, backwards.exit_code) == ("b", Unjudged.EVERY_BASE_LAUNCH_INVALID, "new", 2)
    assert b.share_pct == pytest.approx(100 * 3e-3 / 9.005e-3, rel=1e-9)


def test_a_kernel_with_no_time_on_either_side_is_not_judged_with_its_share_unknown(tmp_path):
    from roofline.render.compare.prose import not_judged_text

    result = _judge(_four_kernels("base.json", unmeasured="b"), _four_kernels("new.json", unmeasured="b"))
    (b,) = result.not_judged
    assert (b.kernel, b.share_pct, b.share_of, result.exit_code) == ("b", None, None, 2)
    assert not_judged_text(b, 1.0).startswith("b (no time on either side: its share unknown, so no --min-share leaves "
                                              "it out): no launch time")
    files = [tmp_path / "base.json", tmp_path / "new.json"]
    for f in files:
        f.write_text(json.dumps(_four_kernels(str(f), unmeasured="b").to_dict()))
    CliRunner().invoke(app, ["diff", *map(str, files), "-f", "json", "-o", str(tmp_path / "d.json")])
    doc = json.loads((tmp_path / "d.json").read_text())
    assert doc["not_judged"] == [{"kernel": "b", "share_pct": None, "cause": "no_time", "share_of": None}]
    assert doc["missing"]["not_judged[0].share_pct"] == "neither report has a launch time of the kernel"


def test_a_gpu_attribute_a_report_does_not_give_is_unknown_not_none():
    base = model("base.json", [launch(0, "k", 1e-3, 1e9, 1e7, OLD_GPU)])
    known = msgspec.structs.replace(_on(base), device=Device(name="G", compute_capability="9.0", sm_count=80))
    blank = msgspec.structs.replace(_on(base, path="new.json"), device=Device(name="G"))
    with pytest.raises(RooflineError) as err:
        _judge(known, blank)
    assert "new.json (G, CC unknown, unknown SMs, ncu 2024.1.0.0)" in str(err.value) and "None" not in str(err.value)


def _invoke_all(base: Report, new: Report, tmp_path, *args: str) -> tuple[str, str, dict]:
    """The table (80 columns), the Markdown and the JSON of ``diff`` on two report models written to ``tmp_path``."""
    paths = []
    for report, name in ((base, "base.json"), (new, "new.json")):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(report.to_dict()))
    run = [str(p) for p in paths] + list(args)
    table = CliRunner().invoke(app, ["diff", *run], env={"COLUMNS": "80"}).stdout
    markdown = CliRunner().invoke(app, ["diff", *run, "-f", "markdown"]).stdout
    doc = json.loads(CliRunner().invoke(app, ["diff", *run, "-f", "json"]).stdout)
    return table, markdown, doc


def test_a_kernel_not_judged_for_its_invalid_launches_is_listed_once_not_also_as_only_in_one_report(tmp_path):
    """c (22.2% of BASE's time) ran in NEW with every launch invalid: it was listed as not judged and, below, as
    "only in BASE (1): c" in the table, the Markdown ("Only in base") and JSON only_in_base; now once, not judged."""
    table, markdown, doc = _invoke_all(_four_kernels("base.json"), _four_kernels("new.json", invalid="c"), tmp_path)
    assert "not judged c (22.2% of BASE's time" in " ".join(table.split()) and "only in BASE" not in table
    assert "**Not judged**" in markdown and "Only in" not in markdown
    assert [n["kernel"] for n in doc["not_judged"]] == ["c"] and doc["only_in_base"] == doc["only_in_new"] == []


def test_a_kernel_base_ran_with_every_launch_invalid_is_not_counted_among_news_own_kernels(tmp_path):
    """b (3 ms of NEW's 9.005 ms) ran in BASE with every launch invalid: not judged, and neither listed as only in
    NEW nor counted in the time of NEW's own kernels that --fail-if-new-share gates (that time is null: none)."""
    base, new = _four_kernels("base.json", invalid="b"), _four_kernels("new.json")
    result = _judge(base, new, Thresholds(new_share_pct=10.0))
    assert result.comparison.unmatched[1] == ("b",) and result.only_in(1) == ()
    assert result.only_in_new is None and not result.only_in_new_regressed and result.exit_code == 2
    table, _, doc = _invoke_all(base, new, tmp_path, "--fail-if-new-share", "10")
    assert "only in NEW (" not in table and doc["only_in_new"] == [] and doc["only_in_new_s"] is None
    assert doc["missing"]["only_in_new_s"] == "NEW runs no kernel BASE lacks"


def test_a_kernel_with_invalid_launches_under_the_min_share_stays_among_those_only_in_one_report():
    """Under --min-share the gate leaves c out: it is not judged, so it stays listed as only in BASE."""
    result = _judge(_four_kernels("base.json"), _four_kernels("new.json", invalid="c"), Thresholds(min_share_pct=30.0))
    assert result.not_judged == () and result.only_in(0) == ("c",) and result.exit_code == 0


def test_the_table_the_markdown_and_the_json_list_the_kernels_in_one_order_regressed_first(tmp_path):
    """c (2 ms in BASE, third by time) 30% slower: every output lists it first, then a, b and tiny by BASE time (the
    Markdown put regressions first, the table and JSON kept BASE-time order)."""
    slower = model("new.json", [launch(i, name, t, 1e9, 1e7, OLD_GPU) for i, (name, t) in
                                enumerate((("a", 4e-3), ("b", 3e-3), ("c", 2.6e-3), ("tiny", 5e-6)))])
    table, markdown, doc = _invoke_all(_four_kernels("base.json"), slower, tmp_path)
    expected = ["c", "a", "b", "tiny"]
    assert [k["label"] for k in doc["kernels"]] == expected and doc["regressions"][0]["kernel"] == "c"
    rows = table.split("time per launch (median)\n", 1)[1].splitlines()[1:5]
    assert [row.split()[0] for row in rows] == expected and rows[0].split()[-1] == "REGRESSED"
    assert [line.split("`")[1] for line in markdown.splitlines() if line.startswith("| `")] == expected


def test_a_real_kernel_with_every_launch_invalid_in_new_is_listed_once(roofline_report, tmp_path):
    """RTX 4070 Ti PyTorch sim: fill_vector holds 35.7% of BASE's time; NEW with its launches failed (no counters)
    said "not judged fill_vector" and "only in BASE (1): fill_vector" (probe r25); now only the first."""
    from msgspec.structs import replace

    base = roofline_report("rtx4070ti_pytorch-sim_full")
    new = replace(base, launches=[replace(k, metrics={}, invalid="not measured: ncu collected no counters for it")
                                  if k.name == "fill_vector" else k for k in base.launches])
    fill = sum(k.value("gpu__time_duration.sum") for k in base.launches if k.name == "fill_vector")
    total = sum(k.value("gpu__time_duration.sum") for k in base.launches)
    table, markdown, doc = _invoke_all(base, new, tmp_path)
    assert doc["not_judged"] == [{"kernel": "fill_vector", "share_pct": pytest.approx(100 * fill / total, rel=1e-9),
                                  "cause": "every_launch_invalid", "share_of": "base"}]
    assert round(100 * fill / total, 1) == 35.7 and doc["only_in_base"] == [] and doc["exit_code"] == 2
    assert "only in BASE" not in table and "Only in base" not in markdown
