"""`make claim-deltamomentum-tuned` (issue 36): AdamW and DeltaAdamW get the same tuning budget. Read with `make -n`
as make expands it: both searches use one space, sampler seed, trial count and tuning seed; the evaluation seeds
exclude the tuning seed; every `reprolab-train` call composes before its first job (as the core test checks for
`claim-<paper>`, which does not call this target)."""

from __future__ import annotations

import shlex

import pytest

from reprolab.config.compose import compose
from tests.core.make_dry_run import script_calls
from tests.core.sweeps.test_claim_targets_compose import first_composition
from tests.core.sweeps.test_search_presets import compose_sweep

TARGET = "claim-deltamomentum-tuned"


def tuning_calls() -> list[tuple[str, dict[str, str], list[str]]]:
    """(step, {study, trials}, the reprolab-train overrides) of each `reprolab-tune` call."""
    calls = []
    for args in script_calls(TARGET, "reprolab-tune", "JOBS=1"):
        cut = args.index("--")
        step, study, flag, trials = args[:cut]
        assert flag == "--trials"
        train = args[cut + 1:]
        assert train[0].endswith("bin/reprolab-train") and train[1] == "-m"
        calls.append((step, {"study": study, "trials": trials}, train[2:]))
    return calls


def _kv(overrides: list[str]) -> dict[str, str]:
    return dict(o.split("=", 1) for o in overrides)


def test_both_optimizers_get_the_same_search_then_their_best_on_unseen_seeds():
    calls = tuning_calls()
    assert [step for step, _, _ in calls] == ["fill", "fill", "best", "best"]
    (_, a, a_args), (_, d, d_args) = calls[:2]
    a_kv, d_kv = _kv(a_args), _kv(d_args)
    assert a_kv.pop("experiment") == "deltamomentum/lm_tiny_adamw"
    assert d_kv.pop("experiment") == "deltamomentum/lm_tiny_delta"
    assert a_kv == d_kv == {"hparams_search": "deltamomentum_lm_tiny", "seed": a_kv["seed"]}
    assert a["trials"] == d["trials"] and a["study"] != d["study"]
    evals = [_kv(args) for _, _, args in calls[2:]]
    assert [c["study"] for _, c, _ in calls[2:]] == [a["study"], d["study"]]
    seeds = evals[0]["seed"].split(",")
    assert len(seeds) >= 3 and evals[1]["seed"] == evals[0]["seed"] and a_kv["seed"] not in seeds
    assert evals[1]["optimizer.eta"] == "0.5,0.0"  # the method, and its trivial arm η 0 (AdamW) at its config


@pytest.mark.parametrize("experiment", ["deltamomentum/lm_tiny_adamw", "deltamomentum/lm_tiny_delta"])
def test_one_search_space_for_both_and_eta_not_in_it(experiment):
    cfg = compose_sweep("hparams_search=deltamomentum_lm_tiny", f"experiment={experiment}")
    params = dict(cfg.hydra.sweeper.params)
    assert set(params) == {"optimizer.lr", "optimizer.betas.1", "scheduler.warmup_steps", "optimizer.weight_decay"}
    assert cfg.hydra.sweeper.direction == "minimize" and cfg.optimized_metric == "val/loss"
    assert cfg.hydra.sweeper.sampler._target_.endswith("TPESampler")
    assert cfg.optimizer.betas[1] == 0.95 and cfg.scheduler.warmup_steps == 16  # the untuned protocol's values


def test_every_train_call_composes_before_its_first_job(tmp_path):
    calls = tuning_calls()
    assert calls
    for _, _, args in calls:
        try:
            compose(first_composition(args), output_dir=tmp_path)
        except Exception as err:  # noqa: BLE001 - the message names the key; the assertion names the call
            pytest.fail(f"{TARGET}: `reprolab-train -m {shlex.join(args)}` fails before its first job: "
                        f"{str(err).splitlines()[0]}")
