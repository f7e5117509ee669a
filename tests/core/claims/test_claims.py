"""reprolab-claims on hand-made run folders: pairing by seed, the paired-t interval, every verdict
rule, selection by a validation metric, meta-claims, bad claims files, and the recorded results."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from reprolab.claims import ClaimsError, evaluate_claims, load_claims
from reprolab.claims.evaluate import t_interval, verdict_for
from reprolab.claims.scorecard import render_scorecard
from reprolab.claims.spec import Claim
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
    # ratios 1.6, 1.3667, 1.2857: mean 1.4175, sd 0.16319, CI = mean ± 4.302653 · 0.16319 / √3 = [1.0121, 1.8229]
    assert ratio.ci == pytest.approx((1.0121, 1.8229), abs=1e-3)
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
    ],
)
def test_verdict_rules(direction, threshold, mean, low, high, expected):
    claim = Claim(id="c", claim="x", baseline={"a": 1}, direction=direction, threshold=threshold)
    assert verdict_for(claim, mean, low, high) == expected


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
    assert "## toy" in text and "Summary: 1 not run, 1 reproduces." in text
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
