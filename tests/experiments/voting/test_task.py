"""The voting presets through the shared trainer (one batch each), the two-stage fine-tuning path, the
dominance margin by hand, equivariance of the models, and config errors as one line."""

import json

import pytest
import torch
from hydra.utils import instantiate
from omegaconf import open_dict

from experiments.voting.embeddings import RankPositions, permute_candidates
from experiments.voting.model import BallotSetNet, EmbeddingMLP
from experiments.voting.task import VotingTask
from reprolab.cli.errors import ConfigError, from_instantiation, one_line
from reprolab.cli.train import build_task, run
from reprolab.config.compose import compose

FAST = ["device=cpu", "logger=none", "debug=fdr", "print_config=false", "data.num_train=64", "data.num_val=32",
        "data.num_test=32", "data.batch_size=16", "data.eval_batch_size=16"]
PRESETS = ["imitate_cpu", "raw_cpu", "finetune_cpu", "imitate_gpu", "raw_gpu", "finetune_gpu"]


def small_run(preset, tmp_path, *extra):
    cfg = compose([f"experiment=voting/{preset}", *FAST, *extra], output_dir=tmp_path)
    return run(cfg)


def checkpointed_run(preset, tmp_path):
    """A few real steps (debug=limit), not fast_dev_run: Lightning writes no checkpoint under fast_dev_run."""
    cfg = compose([f"experiment=voting/{preset}", *[a for a in FAST if a != "debug=fdr"], "debug=limit"], output_dir=tmp_path)
    return run(cfg)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_runs_one_batch_and_logs_axioms_and_classic_points(preset, tmp_path):
    metrics = small_run(preset, tmp_path)
    for key in ("test/acc", "test/viol/condorcet", "test/classic/black/agree", "test/params"):
        assert key in metrics, key
    if "raw" not in preset:
        assert "test/dominance_margin" in metrics and "test/viol/participation" in metrics


def test_finetune_starts_from_the_first_runs_weights(tmp_path):
    first = tmp_path / "imitate"
    checkpointed_run("imitate_cpu", first)
    ckpt = next((first / "checkpoints").glob("*.ckpt"))
    cfg = compose(["experiment=voting/finetune_cpu", *FAST, f"task.init_from={first}"], output_dir=tmp_path / "ft")
    task = build_task(cfg)
    saved = torch.load(ckpt, weights_only=True)["state_dict"]
    for name, value in task.model.state_dict().items():
        assert torch.equal(value, saved[f"model.{name}"])
    assert json.loads((first / "metrics.json").read_text())["test/params"] == sum(
        p.numel() for p in task.model.parameters())


def config_error(build, cfg) -> str:
    """The one line train.main prints for a constructor's error."""
    with pytest.raises(Exception) as caught:
        build(cfg)
    err = from_instantiation(caught.value)
    assert isinstance(err, ConfigError), caught.value
    return one_line(err)


def test_init_from_errors_are_one_line(tmp_path):
    cfg = compose(["experiment=voting/finetune_cpu", *FAST, f"task.init_from={tmp_path}/none"])
    assert "no checkpoint" in config_error(build_task, cfg)
    first = tmp_path / "raw"
    checkpointed_run("raw_cpu", first)
    cfg = compose(["experiment=voting/finetune_cpu", *FAST, f"task.init_from={first}"])
    assert "different model" in config_error(build_task, cfg)


def test_unknown_axiom_or_rule_is_one_line():
    cfg = compose(["experiment=voting/finetune_cpu", *FAST])
    with open_dict(cfg):
        cfg.task.axiom_weights = {"strategyproofness": 1.0}
    assert "axiom_weights.strategyproofness" in config_error(build_task, cfg)
    assert "kemeny" in config_error(instantiate, compose(["experiment=voting/imitate_cpu", "data.rule=kemeny"]).data)


def test_dominance_margin_by_hand():
    task = VotingTask(torch.nn.Linear(1, 1), optimizer=None, classic_rules=("borda", "black"))
    task.log = lambda key, value: logged.__setitem__(key, value)
    logged = {}
    task.sums.update({"acc": [0.9, 1], "viol/pair": [0.03, 1], "classic/borda/agree": [1.0, 1],
                      "classic/borda/viol_pair": [0.10, 1], "classic/black/agree": [0.92, 1],
                      "classic/black/viol_pair": [0.04, 1]})
    task.on_test_epoch_end()
    # borda: max(0.9-1.0, 0.10-0.03) = 0.07; black: max(0.9-0.92, 0.04-0.03) = 0.01 -> min 0.01
    assert abs(logged["test/dominance_margin"] - 0.01) < 1e-9


def test_social_choice_embedding_mlp_is_anonymous_and_set_net_too():
    torch.manual_seed(0)
    ballots = torch.rand(8, 7, 4).argsort(-1)
    shuffled = ballots[:, torch.randperm(7)]
    mlp = EmbeddingMLP(RankPositions(), num_candidates=4, num_voters=7)
    sets = BallotSetNet(num_candidates=4, hidden=16, attention_blocks=1)
    for model in (mlp, sets):
        assert torch.allclose(model(ballots), model(shuffled), atol=1e-5)
    with pytest.raises(ConfigError, match="m=4"):
        mlp(permute_candidates(ballots, torch.rand(8, 4).argsort(-1))[..., :3])
