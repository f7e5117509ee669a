"""The presets through the shared Lightning trainer: every protocol trains, tests and logs its metrics."""

from __future__ import annotations

import json

import pytest

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose


def overrides(protocol: str, data_dir, *extra: str) -> list[str]:
    return [f"experiment=deepfakegenome/zoo_{protocol}_cpu", f"paths.data_dir={data_dir}",
            f"data.zoo_dir={data_dir}/forgery_zoo", "logger=none",
            "print_config=false", "trainer.max_epochs=1", "trainer.enable_progress_bar=false",
            "data.zoo.photos_dir=null", "data.zoo.num_algorithms=10", "data.zoo.seed=3",
            "data.zoo.per_algorithm={train: 6, val: 2, test: 8}", "data.unseen=[fsw01,fre01]",
            "data.distractors=[fre01]", "data.num_seen_algorithms=8", "data.batch_size=16",
            "task.registry_pool=4", "task.registry_k=[1,2]", *extra]


@pytest.mark.parametrize("protocol, expected", [
    ("binary", {"test/seen/auc", "test/unseen/auc", "test/seen/eer", "test/seen/ap", "test/unseen/acc"}),
    ("retrieval", {"test/closed/acc", "test/retrieval_k1/rank1", "test/retrieval_k2/map",
                   "test/retrieval_k2/tpir@fpir0.1"}),
])
def test_protocol_runs_through_the_trainer(protocol, expected, zoo_data_dir, tmp_path):
    extra = ["task.supcon_weight=0.5"] if protocol == "retrieval" else []  # ArcFace + SupCon on the embedding
    metrics = run(compose(overrides(protocol, zoo_data_dir, *extra), output_dir=tmp_path))
    assert expected <= set(metrics), sorted(metrics)
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved["paper"] == "deepfakegenome" and expected <= set(saved)


def test_evaluate_all_scores_every_attribution_protocol(zoo_data_dir, tmp_path):
    cfg = compose(overrides("open_set", zoo_data_dir, "task.evaluate_all=true"), output_dir=tmp_path)
    metrics = run(cfg)
    assert {"test/closed/macro_f1", "test/open/auroc", "test/open/oscr", "test/open/cluster_ari",
            "test/retrieval_k2/rank5"} <= set(metrics)


def test_attribution_preset_with_reals_in_training_fails_clearly(zoo_data_dir, tmp_path):
    cfg = compose(overrides("closed_set", zoo_data_dir, "data.train_reals=true"), output_dir=tmp_path)
    with pytest.raises(ConfigError, match="train_reals=false"):
        run(cfg)


def test_protocol_the_test_set_cannot_support_is_an_error_in_a_full_run(zoo_data_dir, tmp_path):
    # 8 test images per algorithm cannot fill a registry pool of 8 and leave queries
    cfg = compose(overrides("retrieval", zoo_data_dir, "task.registry_pool=8"), output_dir=tmp_path)
    with pytest.raises(ConfigError, match="registry_pool"):
        run(cfg)


@pytest.mark.parametrize("limit", ["1", "0.5"])  # one batch (an int; 1.0 would be all), half the batches
def test_protocol_a_partial_test_set_cannot_support_is_skipped(limit, zoo_data_dir, tmp_path):
    cfg = compose(overrides("retrieval", zoo_data_dir, "task.registry_pool=8", "data.eval_batch_size=16",
                            f"+trainer.limit_test_batches={limit}"),
                  output_dir=tmp_path)
    metrics = run(cfg)
    assert "test/closed/acc" in metrics and not any(k.startswith("test/retrieval") for k in metrics)


def test_open_set_without_unseen_algorithms_fails_before_training(zoo_data_dir, tmp_path):
    cfg = compose(overrides("open_set", zoo_data_dir, "data.unseen=[]", "data.distractors=[]",
                            "data.num_seen_algorithms=10"), output_dir=tmp_path)
    with pytest.raises(ConfigError, match="data.unseen"):
        run(cfg)
    assert not list(tmp_path.rglob("*.ckpt"))  # it stopped before the first training step
