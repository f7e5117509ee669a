"""The presets compose, the claim arms differ only where they should, and both faces take a step through the
trainer: the toy reader for two steps then a scaffold on it, and the paper preset on a tiny random Qwen3 with the
PhantomWiki fixture."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.plan.jobs import reproduce_targets
from tests.experiments.dolores.test_data import phantomwiki_fixture

ARMS = ["decomposed", "monolithic", "sequential", "nomodel", "majority_matched", "best_matched"]
QUICK = ["device=cpu", "logger=none", "print_config=false"]


@pytest.mark.parametrize("arm", ARMS)
def test_claim_arms_change_only_the_scaffold(arm):
    cfg = compose([f"experiment=dolores/{arm}_cpu"])
    assert cfg.trainer.max_epochs == 0 and cfg.setting == f"{arm}_cpu" and cfg.data.people == 50
    expected = {"nomodel": "decomposed", "majority_matched": "majority", "best_matched": "best"}.get(arm, arm)
    assert cfg.task.scaffold == expected and cfg.task.worked_example == (arm != "nomodel")
    guarded = compose(["experiment=dolores/reader_cpu"]).data.leak_guard_universes
    assert {"people": cfg.data.people, "seed": cfg.data.universe_seed, "pool": cfg.data.pool} in \
        [{k: u[k] for k in ("people", "seed", "pool")} for u in guarded]


def test_reader_vocabulary_matches_the_tokenizer():
    cfg = compose(["experiment=dolores/reader_cpu"])
    assert cfg.model.vocab_size == instantiate(cfg.tokenizer).vocab_size and cfg.model.max_seq_len >= 256


def test_paper_presets_compose_at_paper_scale():
    for preset, name in [("phantomwiki_qwen3_8b", "Qwen/Qwen3-8B"), ("phantomwiki_qwen3_32b", "Qwen/Qwen3-32B")]:
        cfg = compose([f"experiment=dolores/{preset}"])
        assert cfg.model.pretrained == name and cfg.tokenizer.name == name and cfg.model.lora is None
        assert cfg.device.name == "gpu" and cfg.data._target_.endswith("PhantomWikiDataModule")
        assert cfg.task.format._target_.endswith("NaturalFormat") and cfg.trainer.max_epochs == 0
        assert f"reproduce-dolores-{preset.replace('phantomwiki_', 'phantomwiki-')}" in reproduce_targets()


def test_unknown_scaffold_is_one_clear_error(tmp_path):
    cfg = compose(["experiment=dolores/decomposed_cpu", "task.scaffold=tree", *QUICK], output_dir=tmp_path)
    with pytest.raises(ConfigError, match="task.scaffold='tree'; choose one of"):
        run(cfg)


def test_reader_trains_then_a_scaffold_runs_on_it(tmp_path):
    reader = compose(["experiment=dolores/reader_cpu", *QUICK, "trainer.max_steps=2", "trainer.val_check_interval=2",
                      "data.batch_size=4", "data.eval_batches=1", "model.d_model=16", "model.n_head=2"],
                     output_dir=tmp_path / "reader")
    assert "test/loss" in run(reader)
    cfg = compose(["experiment=dolores/majority_matched_cpu", *QUICK, f"task.init_from={tmp_path / 'reader'}",
                   "model.d_model=16", "model.n_head=2", "data.per_hop=2", "data.max_hops=3"],
                  output_dir=tmp_path / "scaffold")
    metrics = run(cfg)
    assert {"test/f1_hop1", "test/f1_hop3", "test/tokens_hop3", "test/premature", "test/f1_slope"} <= set(metrics)
    assert 0.0 <= metrics["test/f1"] <= 1.0 and metrics["test/tokens_hop3"] > metrics["test/tokens_hop1"]


def test_paper_preset_one_step_on_a_tiny_random_qwen3(tmp_path):
    pytest.importorskip("transformers")
    data = phantomwiki_fixture(tmp_path / "data")
    cfg = compose(["experiment=dolores/phantomwiki_qwen3_8b", "model=qwen3_tiny", "model.lora=null", "tokenizer=byte",
                   *QUICK, f"paths.data_dir={data}", "task.max_new_tokens=3"], output_dir=tmp_path / "run")
    metrics = run(cfg)
    assert metrics["test/calls"] >= 1 and "test/f1_hop2" in metrics and metrics["test/tokens"] > 0
