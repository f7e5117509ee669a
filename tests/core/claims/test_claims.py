"""reprolab-claims on hand-made run folders: pairing by seed, the paired-t interval, every verdict
rule, selection by a validation metric, meta-claims, bad claims files, and the recorded results."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from reprolab.claims import ClaimsError, evaluate_claims, load_claims
from reprolab.claims.intervals import fisher_z_interval, log_t_interval, t_interval
from reprolab.claims.report import rescore
from reprolab.claims.scorecard import render_scorecard
from reprolab.claims.spec import Claim
from reprolab.claims.verdicts import verdict_for
from reprolab.cli import claims as claims_cli
from tests.core.results.run_folders import make_run, make_sweep

ACC = {"sgd": {0: 0.50, 1: 0.60, 2: 0.70}, "adamw": {0: 0.80, 1: 0.82, 2: 0.90}}
# adamw − sgd per seed: 0.30, 0.22, 0.20 → mean 0.24, sd 0.052915, t(0.975, 2) = 4.302653
HALF = 4.302653 * math.sqrt(0.0028) / math.sqrt(3)


def write_claims(tmp_path, claims, runs_root=None):
    path = tmp_path / "paper" / "claims.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"paper": "toy", "runs_root": str(runs_root or tmp_path), "command": "make claim-toy",
                                    "claims": claims}))
    return path


def paired(**extra):
    return {"id": "adamw_beats_sgd", "claim": "AdamW is better", "runs": ["sweep"], "metric": "test/acc",
            "treatment": {"optimizer": "adamw"}, "baseline": {"optimizer": "sgd"}, **extra}


@pytest.fixture
def sweep(tmp_path):
    return make_sweep(tmp_path / "sweep", ACC)


def evaluate(tmp_path, *claims):
    return evaluate_claims(load_claims(write_claims(tmp_path, list(claims))))


def test_t_interval_matches_hand_computation():
    mean, low, high = t_interval([0.30, 0.22, 0.20])
    assert mean == pytest.approx(0.24)
    assert (low, high) == pytest.approx((0.24 - HALF, 0.24 + HALF), abs=1e-6)
    with pytest.raises(ValueError):
        t_interval([0.3])


def test_fisher_z_interval_matches_hand_computation_and_stays_inside_minus_one_one():
    # atanh(0.5, 0.6, 0.7) = 0.549306, 0.693147, 0.867301: mean 0.703251, sd 0.159239, half 4.302653 * sd / sqrt 3
    # = 0.395573, so tanh(0.703251 -/+ 0.395573) = 0.298327, 0.800075 around tanh(0.703251) = 0.606427
    assert fisher_z_interval([0.5, 0.6, 0.7]) == pytest.approx((0.606427, 0.298327, 0.800075), abs=1e-6)
    spread = [0.418, -0.049, 0.628]  # DR-rubric's three Spearman rhos: the plain t interval passes 1
    assert t_interval(spread)[2] > 1
    mean, low, high = fisher_z_interval(spread)
    assert -1 < low < mean < high < 1
    with pytest.raises(ValueError, match="inside"):
        fisher_z_interval([0.5, 1.0, 0.7])


def test_a_correlation_claim_is_scored_on_the_z_scale_and_drops_a_perfect_rho(tmp_path):
    make_sweep(tmp_path / "sweep", {"adamw": {0: 0.5, 1: 0.6, 2: 0.7, 3: 1.0}})
    claim = {"id": "rho", "claim": "ranks agree", "runs": ["sweep"], "metric": "test/acc",
             "treatment": {"optimizer": "adamw"}, "threshold": 0.2, "effect": "correlation"}
    (result,) = evaluate(tmp_path, claim)
    assert result.n == 3 and "1 seed(s) with |r| = 1" in result.reason
    assert (result.mean, *result.ci) == pytest.approx((0.606427, 0.298327, 0.800075), abs=1e-6)
    assert result.verdict == "reproduces" and result.to_dict()["effect"] == "correlation"
    (strict,) = evaluate(tmp_path, {**claim, "threshold": 0.5})
    assert strict.verdict == "direction only"


@pytest.mark.parametrize("extra", [{"baseline": {"optimizer": "sgd"}, "threshold": 0.0}, {"threshold": 1.5}])
def test_a_correlation_claim_must_be_single_arm_with_a_threshold_inside_the_range(tmp_path, extra):
    claim = {"id": "rho", "claim": "ranks agree", "runs": ["sweep"], "metric": "test/acc",
             "treatment": {"optimizer": "adamw"}, "effect": "correlation", **extra}
    with pytest.raises(ClaimsError, match="correlation"):
        load_claims(write_claims(tmp_path, [claim]))


def test_paired_difference_pairs_by_seed_and_reproduces(tmp_path, sweep):
    (result,) = evaluate(tmp_path, paired())
    assert result.n == 3 and result.verdict == "reproduces"
    assert [p["effect"] for p in result.pairs] == pytest.approx([0.30, 0.22, 0.20])
    assert result.ci == pytest.approx((0.24 - HALF, 0.24 + HALF), abs=1e-6)
    assert result.treatment_mean == pytest.approx(0.84) and result.baseline_mean == pytest.approx(0.60)


def test_threshold_the_interval_does_not_clear_gives_direction_only(tmp_path, sweep):
    (result,) = evaluate(tmp_path, paired(threshold=0.15))  # CI low is 0.109
    assert result.verdict == "direction only"


def test_opposite_direction_does_not_reproduce(tmp_path, sweep):
    (result,) = evaluate(tmp_path, paired(direction="less"))
    assert result.verdict == "does not reproduce"


def test_ratio_and_relative_effects(tmp_path, sweep):
    ratio, strict, rel = evaluate(tmp_path, paired(effect="ratio"), paired(id="strict", effect="ratio", threshold=1.2),
                                  paired(id="rel", effect="relative", threshold=0.1))
    assert [p["effect"] for p in ratio.pairs] == pytest.approx([0.8 / 0.5, 0.82 / 0.6, 0.9 / 0.7])
    # ratios 1.6, 1.3667, 1.2857 on the log scale: logs 0.470004, 0.312375, 0.251314, mean 0.344564, sd 0.112842,
    # half-width 4.302653 · 0.112842 / √3 = 0.280316; geometric mean e^0.344564 = 1.41137, CI e^(0.344564 ∓ 0.280316)
    # = [1.06636, 1.86802] (the arithmetic t interval was [1.0121, 1.8229])
    assert ratio.mean == pytest.approx(1.41137, abs=1e-5)
    assert ratio.ci == pytest.approx((1.06636, 1.86802), abs=1e-5)
    assert ratio.verdict == "reproduces" and strict.verdict == "direction only"
    assert [p["effect"] for p in rel.pairs] == pytest.approx([0.6, 0.82 / 0.6 - 1, 0.9 / 0.7 - 1])


@pytest.mark.parametrize(
    ("direction", "threshold", "mean", "low", "high", "expected"),
    [
        ("greater", 0.0, 0.2, 0.1, 0.3, "reproduces"),
        ("greater", 0.0, 0.2, -0.1, 0.5, "direction only"),
        ("greater", 0.0, -0.2, -0.3, -0.1, "does not reproduce"),
        ("greater", 0.0, -0.1, -0.3, 0.1, "inconclusive"),
        ("greater", 0.25, 0.3, 0.1, 0.5, "direction only"),
        ("less", 0.0, -0.2, -0.3, -0.1, "reproduces"),
        ("less", 0.0, 0.2, 0.1, 0.3, "does not reproduce"),
        # non-inferiority: "within 1 point" is effect < 1 with the bar beyond the no-effect value
        ("less", 1.0, 0.5, 0.2, 0.8, "reproduces"),
        ("less", 1.0, 0.9, 0.5, 1.3, "direction only"),
        ("less", 1.0, 1.5, 1.2, 1.8, "does not reproduce"),
        # a magnitude claim ("at least 0.25 better"): the whole interval between no effect and the bar is weaker
        ("greater", 0.25, 0.15, 0.1, 0.2, "weaker than claimed"),
        ("greater", 0.25, 0.1, -0.05, 0.2, "does not reproduce"),  # excludes the size, includes no effect
        ("greater", 0.25, 0.2, -0.05, 0.3, "direction only"),      # includes the bar and no effect
    ],
)
def test_verdict_rules(direction, threshold, mean, low, high, expected):
    claim = Claim(id="c", claim="x", baseline={"a": 1}, direction=direction, threshold=threshold)
    assert verdict_for(claim, mean, low, high) == expected


@pytest.mark.parametrize(
    ("mean", "low", "high", "expected"),
    [
        (0.30, 0.20, 0.45, "reproduces"),            # "at most half": the whole interval below 0.5
        (0.70, 0.60, 0.80, "weaker than claimed"),   # smaller error, but not half: between the bar and 1
        (0.90, 0.78, 1.03, "does not reproduce"),    # issue 36's DG/IW: excludes half, includes no effect
        (0.60, 0.40, 0.85, "direction only"),        # includes the bar, excludes no effect
        (0.80, 0.40, 1.20, "direction only"),        # includes the bar and no effect, mean below 1
        (1.10, 0.40, 1.30, "inconclusive"),
        (1.20, 1.05, 1.40, "does not reproduce"),    # wholly on the wrong side of no effect
    ],
)
def test_magnitude_ratio_verdicts(mean, low, high, expected):
    claim = Claim(id="c", claim="x", baseline={"a": 1}, effect="ratio", direction="less", threshold=0.5)
    assert claim.magnitude
    assert verdict_for(claim, mean, low, high) == expected


def test_a_ratio_interval_is_never_negative_where_the_arithmetic_one_is():
    # delightful's recorded DG/IW ratios (issue 36): the arithmetic t interval was [-0.479, 1.206] around 0.363;
    # log scale: logs -2.87920, -0.31845, -1.18269, mean -1.46011, sd 1.30374, half-width 4.302653 · 1.30374 / √3
    # = 3.23862: geometric mean e^-1.46011 = 0.23221, CI [e^-4.69873, e^1.77851] = [0.009129, 5.9063]
    ratios = [0.056179781493447344, 0.7272726847120567, 0.30645158789532645]
    mean, low, high = t_interval(ratios)
    assert low < 0
    gmean, glow, ghigh = log_t_interval(ratios)
    assert (gmean, glow, ghigh) == pytest.approx((0.23221, 0.009129, 5.9063), rel=1e-4)
    with pytest.raises(ValueError, match="positive"):
        log_t_interval([0.5, -0.1])


def test_a_ratio_pair_that_is_not_positive_is_left_out_and_said(tmp_path):
    make_sweep(tmp_path / "sweep", {"sgd": {0: 0.5, 1: 0.6, 2: -0.7}, "adamw": {0: 0.8, 1: 0.82, 2: 0.9}})
    (result,) = evaluate(tmp_path, paired(effect="ratio"))
    assert result.n == 2 and "1 pair(s) with a ratio <= 0" in result.reason


def test_single_arm_claim_holds_the_metric_against_an_absolute_threshold(tmp_path, sweep):
    # adamw 0.80, 0.82, 0.90: mean 0.84, CI 0.84 ± 0.131448 = [0.7086, 0.9714]
    single = {"id": "level", "claim": "AdamW reaches 0.70", "runs": ["sweep"], "metric": "test/acc",
              "treatment": {"optimizer": "adamw"}, "threshold": 0.70, "paper_value": 0.9}
    clear, straddle, above = evaluate(tmp_path, single, {**single, "id": "b", "threshold": 0.75},
                                      {**single, "id": "c", "threshold": 0.98})
    assert clear.verdict == "reproduces" and clear.mean == pytest.approx(0.84)
    assert clear.ci == pytest.approx((0.84 - HALF, 0.84 + HALF), abs=1e-6)
    assert straddle.verdict == "direction only"
    assert above.verdict == "does not reproduce"


def test_not_run_when_runs_absent_or_an_arm_is_empty_or_one_seed(tmp_path, sweep):
    make_sweep(tmp_path / "one", {"sgd": {0: 0.5}, "adamw": {0: 0.9}})
    absent, empty, one = evaluate(
        tmp_path, paired(runs=["nowhere"]), paired(id="empty", baseline={"optimizer": "muon"}),
        paired(id="one", runs=["one"]))
    assert absent.verdict == "not run" and "no runs at" in absent.reason
    assert empty.verdict == "not run" and "baseline" in empty.reason
    assert one.verdict == "not run" and one.n == 1 and "needs 2" in one.reason


def test_a_diverged_pair_is_dropped_and_said(tmp_path):
    make_sweep(tmp_path / "sweep", {"sgd": {0: 0.5, 1: 0.6, 2: 0.7}, "adamw": {0: 0.8, 1: 0.82, 2: 0.9}})
    metrics = tmp_path / "sweep" / "3" / "metrics.json"  # adamw seed 0
    data = json.loads(metrics.read_text())
    data["test/acc"] = None
    metrics.write_text(json.dumps(data))
    (result,) = evaluate(tmp_path, paired())
    assert result.n == 2 and "1 pair(s) without a finite test/acc" in result.reason


def test_two_runs_of_one_arm_and_seed_is_an_error_naming_both(tmp_path, sweep):
    make_sweep(tmp_path / "sweep" / "again", {"sgd": {0: 0.55}})
    with pytest.raises(ClaimsError, match="two runs of the baseline arm.*best_of"):
        evaluate(tmp_path, paired())


def test_best_of_selects_each_arms_value_by_validation_mean(tmp_path):
    i = 0
    for opt, lrs in {"sgd": {0.1: 0.5, 1.0: 0.7}, "adamw": {0.001: 0.9, 0.01: 0.6}}.items():
        for lr, acc in lrs.items():
            for seed in range(3):
                make_run(tmp_path / "grid" / str(i), config={"seed": seed, "optimizer": {"lr": lr}},
                         metrics={"test/acc": acc + seed / 100, "best/val/acc": acc},
                         choices={"optimizer": opt})
                i += 1
    (result,) = evaluate(tmp_path, paired(runs=["grid"], best_of={"key": "optimizer.lr", "by": "best/val/acc",
                                                                   "mode": "max"}))
    assert result.selected == {"treatment": "0.001", "baseline": "1.0"}
    assert [p["effect"] for p in result.pairs] == pytest.approx([0.2, 0.2, 0.2])


def test_best_of_passes_over_a_value_where_a_seed_diverged(tmp_path):
    i = 0
    for opt, lrs in {"sgd": {0.1: [0.5, 0.5, 0.5]}, "adamw": {0.001: [0.6, 0.6, 0.6], 0.01: [0.9, None, 0.9]}}.items():
        for lr, accs in lrs.items():
            for seed, acc in enumerate(accs):
                make_run(tmp_path / "grid" / str(i), config={"seed": seed, "optimizer": {"lr": lr}},
                         metrics={"test/acc": acc if acc is not None else None, "best/val/acc": acc},
                         choices={"optimizer": opt})
                i += 1
    (result,) = evaluate(tmp_path, paired(runs=["grid"], best_of={"key": "optimizer.lr", "by": "best/val/acc",
                                                                   "mode": "max"}))
    assert result.selected["treatment"] == "0.001"  # 0.01 scores 0.9 on its surviving seeds but diverged once


def test_best_of_without_the_selection_metric_is_not_run_not_an_error(tmp_path, sweep):
    (result,) = evaluate(tmp_path, paired(best_of={"key": "optimizer._target_", "by": "best/val/nll"}))
    assert result.verdict == "not run" and "best/val/nll" in result.reason


def test_meta_claim_counts_the_listed_verdicts(tmp_path, sweep):
    results = evaluate(
        tmp_path, paired(), paired(id="b", threshold=0.15), paired(id="c", direction="less"),
        {"id": "two_of_three", "claim": "most", "at_least": 2, "of": ["adamw_beats_sgd", "b", "c"]},
        {"id": "one_of_three", "claim": "any", "at_least": 1, "of": ["adamw_beats_sgd", "b", "c"]},
        {"id": "all", "claim": "all", "at_least": 3, "of": ["adamw_beats_sgd", "b", "c"]},
    )
    verdicts = {r.claim.id: r.verdict for r in results}
    assert verdicts["two_of_three"] == "direction only"  # 1 reproduces + 1 direction only
    assert verdicts["one_of_three"] == "reproduces"
    assert verdicts["all"] == "does not reproduce"  # 'c' does not, so 3 can no longer be met


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (paired(colour="red"), "unknown key"),
        (paired(direction="up"), "direction 'up'"),
        ({k: v for k, v in paired().items() if k != "baseline"}, "needs an absolute 'threshold'"),
        ({k: v for k, v in paired().items() if k != "metric"}, "'metric' is missing"),
        (paired(threshold="big"), "threshold must be a number"),
        ({"id": "m", "claim": "x", "at_least": 2, "of": ["nope"]}, "at_least <= len"),
    ],
)
def test_bad_claims_files_are_one_clear_line(tmp_path, claim, message):
    with pytest.raises(ClaimsError, match=message):
        load_claims(write_claims(tmp_path, [claim]))


def test_duplicate_ids_and_unknown_paper(tmp_path):
    with pytest.raises(ClaimsError, match="repeated: adamw_beats_sgd"):
        load_claims(write_claims(tmp_path, [paired(), paired()]))
    with pytest.raises(ClaimsError, match="has no claims file"):
        load_claims("no_such_paper")


def test_cli_writes_json_and_results_block_and_keeps_recorded_results(tmp_path, sweep, capsys):
    path = write_claims(tmp_path, [paired(paper_value=0.3)])
    assert claims_cli.main(["--file", str(path)]) == 0
    recorded = json.loads((path.parent / "results" / "claims.json").read_text())
    assert recorded["claims"][0]["verdict"] == "reproduces" and recorded["claims"][0]["n"] == 3
    block = (path.parent / "RESULTS.md").read_text()
    assert "<!-- reprolab-claims: toy -->" in block and "**reproduces**" in block and "0.2400 [" in block
    # the runs are gone (a fresh clone): the recorded verdict stays, marked as recorded
    assert claims_cli.main(["--file", str(path), "--runs-root", str(tmp_path / "elsewhere")]) == 0
    again = json.loads((path.parent / "results" / "claims.json").read_text())["claims"][0]
    assert again["verdict"] == "reproduces" and again["kept"] is True
    assert "(recorded)" in (path.parent / "RESULTS.md").read_text()
    assert (path.parent / "RESULTS.md").read_text().count("<!-- reprolab-claims: toy -->") == 1


def test_a_fresh_clone_keeps_the_meta_claims_counted_from_the_recorded_verdicts(tmp_path, sweep, capsys):
    meta = {"id": "one_of_two", "claim": "any", "at_least": 1, "of": ["adamw_beats_sgd", "b"]}
    meta_of_meta = {"id": "outer", "claim": "the meta", "at_least": 1, "of": ["one_of_two"]}
    path = write_claims(tmp_path, [paired(), paired(id="b", direction="less"), meta, meta_of_meta])
    assert claims_cli.main(["--file", str(path)]) == 0
    measured = {e["id"]: e for e in json.loads((path.parent / "results" / "claims.json").read_text())["claims"]}
    assert measured["one_of_two"]["verdict"] == "reproduces" and measured["outer"]["verdict"] == "reproduces"
    # no runs on this machine: the parts are kept, and the meta-claims still count them instead of turning `not run`
    assert claims_cli.main(["--file", str(path), "--runs-root", str(tmp_path / "elsewhere")]) == 0
    again = {e["id"]: e for e in json.loads((path.parent / "results" / "claims.json").read_text())["claims"]}
    assert {i: again[i]["verdict"] for i in again} == {i: measured[i]["verdict"] for i in measured}
    assert again["one_of_two"]["kept"] and again["one_of_two"]["mean"] == 1.0 and again["outer"]["kept"]
    assert again["one_of_two"]["reason"] == "adamw_beats_sgd: reproduces, b: does not reproduce"
    assert again["one_of_two"]["commits"] == measured["one_of_two"]["commits"]
    row = next(line for line in capsys.readouterr().out.splitlines()[::-1] if line.startswith("| `one_of_two`"))
    assert "1 reproduce (recorded)" in row and "**reproduces**" in row


def test_cli_bad_file_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "claims.yaml"
    bad.write_text("paper: [unclosed\n")
    assert claims_cli.main(["--file", str(bad), "--no-write"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "not valid YAML" in err[0]


def test_scorecard_lists_every_declared_claim_with_its_recorded_verdict(tmp_path, sweep):
    path = write_claims(tmp_path, [paired(paper_value=0.3), paired(id="never", runs=["nowhere"])])
    claims_cli.main(["--file", str(path)])
    text = render_scorecard([path])
    assert "## toy" in text and "Summary: 1 reproduces, 1 not run." in text
    row = next(line for line in text.splitlines() if line.startswith("| `adamw_beats_sgd`"))
    assert "**reproduces**" in row and "0.3" in row and "| cpu |" in row
    assert "**not run**" in next(line for line in text.splitlines() if line.startswith("| `never`"))


def test_cli_one_claim_prints_only_it_and_writes_nothing(tmp_path, sweep, capsys):
    path = write_claims(tmp_path, [paired(), paired(id="other", runs=["nowhere"])])
    assert claims_cli.main(["--file", str(path), "--claim", "adamw_beats_sgd"]) == 0
    out = capsys.readouterr().out
    assert "`adamw_beats_sgd`" in out and "`other`" not in out
    assert not (path.parent / "results").exists() and not (path.parent / "RESULTS.md").exists()
    assert claims_cli.main(["--file", str(path), "--claim", "adamw_beats_sgd", "--runs-root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"Claims of `claims.yaml`, runs under `{tmp_path}`; effects")
    assert claims_cli.main(["--file", str(path), "--claim", "nope"]) == 2
    assert "no claim nope" in capsys.readouterr().err


def write_with_sanity(tmp_path, claims, sanity):
    path = write_claims(tmp_path, claims)
    raw = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**raw, "sanity": sanity}))
    return path


def test_sanity_checks_are_run_listed_apart_and_not_counted(tmp_path, sweep, capsys):
    identity = paired(id="same_arm_is_zero", treatment={"optimizer": "sgd"}, direction="less", threshold=1e-9)
    broken = paired(id="broken_check")  # adamw − sgd > 0 holds ...
    path = write_with_sanity(tmp_path, [paired()], [identity, {**broken, "direction": "less"}])  # ... so "< 0" fails
    claims_file = load_claims(path)
    assert [c.id for c in claims_file.claims] == ["adamw_beats_sgd"] and all(c.sanity for c in claims_file.sanity)
    claim, same, bad = evaluate_claims(claims_file)
    assert claim.verdict == "reproduces" and same.verdict == "holds" and bad.verdict == "fails"
    assert claims_cli.main(["--file", str(path)]) == 0
    recorded = json.loads((path.parent / "results" / "claims.json").read_text())
    assert [e["id"] for e in recorded["claims"]] == ["adamw_beats_sgd"]
    assert [e["id"] for e in recorded["sanity"]] == ["same_arm_is_zero", "broken_check"]
    block = (path.parent / "RESULTS.md").read_text()
    assert block.index("| `adamw_beats_sgd`") < block.index("Sanity checks") < block.index("| `same_arm_is_zero`")
    text = render_scorecard([path])
    assert "Summary: 1 reproduces; sanity checks, not counted: 1 holds, 1 fails." in text
    assert text.index("| `adamw_beats_sgd`") < text.index("Sanity checks (not counted") < text.index("| `broken_check`")


def test_sanity_ids_share_the_claims_namespace_and_cannot_be_meta(tmp_path):
    with pytest.raises(ClaimsError, match="repeated: adamw_beats_sgd"):
        load_claims(write_with_sanity(tmp_path, [paired()], [paired()]))
    meta = {"id": "m", "claim": "x", "at_least": 1, "of": ["adamw_beats_sgd"]}
    with pytest.raises(ClaimsError, match="cannot be a meta-claim"):
        load_claims(write_with_sanity(tmp_path, [paired()], [meta]))


def test_the_trivial_arm_is_evaluated_and_must_fail_the_bar(tmp_path, sweep, capsys):
    # the trivial arm in the treatment's place: sgd − sgd = 0 per seed, which must not clear "> 0.1"
    honest = paired(threshold=0.1, trivial={"optimizer": "sgd"})
    # a claim the trivial arm meets: "adamw within 0.5 of sgd or better" is met by sgd itself (0 > -0.5)
    hollow = paired(id="hollow", threshold=-0.5, trivial={"optimizer": "sgd"})
    good, bad = evaluate(tmp_path, honest, hollow)
    assert good.verdict == "reproduces" and good.trivial.verdict != "reproduces"
    assert good.trivial.mean == 0 and good.trivial.n == 3
    assert bad.trivial.verdict == "reproduces"
    assert bad.verdict == "could not fail" and "own interval: reproduces" in bad.reason   # its own interval clears -0.5
    path = write_claims(tmp_path, [honest, hollow])
    assert claims_cli.main(["--file", str(path)]) == 0
    recorded = {e["id"]: e for e in json.loads((path.parent / "results" / "claims.json").read_text())["claims"]}
    assert recorded["adamw_beats_sgd"]["trivial"]["meets_bar"] is False
    assert recorded["hollow"]["trivial"]["meets_bar"] is True
    block = (path.parent / "RESULTS.md").read_text()
    assert "trivial arm optimizer=sgd fails the bar, as it must" in block
    assert "trivial arm optimizer=sgd **meets the bar**" in block and "could not have failed" in block
    with pytest.raises(ClaimsError, match="'trivial' is a mapping"):
        load_claims(write_claims(tmp_path, [paired(trivial="sgd")]))


def test_a_kept_result_is_rescored_from_its_recorded_pairs_by_the_current_rules(tmp_path, sweep, capsys):
    path = write_claims(tmp_path, [paired(effect="ratio", trivial={"optimizer": "sgd"})])
    assert claims_cli.main(["--file", str(path)]) == 0
    record = path.parent / "results" / "claims.json"
    data = json.loads(record.read_text())
    # as an older rule wrote it: an arithmetic interval of the ratios, and a verdict these rules would not give
    data["claims"][0].update(mean=1.4175, ci=[1.0121, 1.8229], verdict="direction only")
    record.write_text(json.dumps(data))
    assert claims_cli.main(["--file", str(path), "--runs-root", str(tmp_path / "elsewhere")]) == 0
    again = json.loads(record.read_text())["claims"][0]
    assert again["kept"] and again["verdict"] == "reproduces"
    assert again["mean"] == pytest.approx(1.41137, abs=1e-5) and again["ci"] == pytest.approx([1.06636, 1.86802], abs=1e-5)
    assert again["trivial"]["verdict"] == "inconclusive" and again["trivial"]["mean"] == pytest.approx(1.0)
    # the claim now measures another metric: its old record is not kept under the new claim
    path.write_text(path.read_text().replace("metric: test/acc", "metric: test/loss"))
    assert claims_cli.main(["--file", str(path), "--runs-root", str(tmp_path / "elsewhere")]) == 0
    moved = json.loads(record.read_text())["claims"][0]
    assert moved["verdict"] == "not run" and "another metric" in moved["reason"]


def test_every_recorded_claim_whose_trivial_arm_meets_its_bar_is_recorded_as_could_not_fail():
    """The trivial-arm check on the project's own record: a claim whose named trivial arm meets its bar could
    not have failed (STYLE.md, "A claim that can fail"), and its verdict says so, never a reproduction."""
    from reprolab.claims.report import read_recorded, results_json_path
    from reprolab.claims.spec import papers_with_claims

    named = 0
    for paper in papers_with_claims():
        claims_file = load_claims(paper)
        recorded = {e["id"]: e for e in read_recorded(results_json_path(claims_file))}
        for claim in claims_file.claims:
            if claim.trivial is None or recorded.get(claim.id, {}).get("verdict", "not run") == "not run":
                continue
            trivial = recorded[claim.id].get("trivial")
            if trivial is None:  # only a result kept from before the arm was named may lack it (a fresh run records it)
                assert recorded[claim.id].get("kept"), f"{paper}/{claim.id}: names a trivial arm, none is recorded"
                continue
            if trivial["verdict"] == "reproduces":   # recorded, and never counted for the method
                assert recorded[claim.id]["verdict"] == "could not fail", f"{paper}/{claim.id}: its trivial arm meets the bar"
            named += 1
    assert named >= 1  # the project's claims files name trivial arms (dag_gp, probes, voting, heteroskedastic)


def test_a_recorded_partial_result_is_kept_when_its_runs_are_absent(tmp_path, sweep):
    path = write_claims(tmp_path, [paired()])
    assert claims_cli.main(["--file", str(path)]) == 0
    record = path.parent / "results" / "claims.json"
    data = json.loads(record.read_text())
    data["claims"][0].update(verdict="not run", pairs=data["claims"][0]["pairs"][:1])  # one pair finished
    record.write_text(json.dumps(data))
    assert claims_cli.main(["--file", str(path), "--runs-root", str(tmp_path / "elsewhere")]) == 0
    again = json.loads(record.read_text())["claims"][0]
    assert again["kept"] and again["verdict"] == "not run" and again["n"] == 1 and again["mean"] is not None


def test_arms_run_on_different_thread_counts_are_named_in_the_reason(tmp_path, sweep):
    (same,) = evaluate(tmp_path, paired())
    assert "thread" not in same.reason
    for i, threads in enumerate([1, 1, 1, 2, 2, 2]):  # sgd's runs on one thread, adamw's on two
        path = sweep / str(i) / "metrics.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "torch_threads": threads}))
    (mixed,) = evaluate(tmp_path, paired())
    assert "different torch thread counts [1, 2]" in mixed.reason and mixed.verdict == "reproduces"
    assert "different torch thread counts [1, 2]" in rescore(mixed.claim, mixed.to_dict()).reason  # kept on re-score
