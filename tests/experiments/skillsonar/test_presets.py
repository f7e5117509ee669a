"""The presets compose for every guard arm; the paper-scale LLM preset runs a tiny-config test step offline."""

import pytest

from reprolab.config.compose import compose

ARMS = ["none", "scanner", "runtime", "boundary", "confirm_all", "evolved", "greedy"]


@pytest.mark.parametrize("arm", ARMS)
def test_claim_preset_composes_per_arm(arm):
    cfg = compose(["experiment=skillsonar/claim_cpu", f"guard={arm}"])
    assert cfg.arm == arm and cfg.paper == "skillsonar"
    assert (cfg.task.search is None) == (cfg.trainer.max_steps == 0)
    assert set(cfg.data.train_suites).isdisjoint(cfg.data.test_suites)


@pytest.mark.slow
def test_llm_preset_tiny_step_offline(tmp_path):
    pytest.importorskip("agentdojo")
    from reprolab.cli.train import run

    cfg = compose(["experiment=skillsonar/llm_qwen3_8b", "model=qwen3_tiny", "tokenizer=byte", "device=cpu",
                   "logger=none", "print_config=false", "data.test_max_user_tasks=1", "data.pairs_per_task=1",
                   "data.test_suites=[travel]", "data.forms=[plain]", "data.test_chunk=1",
                   "task.max_turns=2", "task.max_new_tokens=8", "+trainer.limit_test_batches=2"], output_dir=tmp_path)
    metrics = run(cfg)
    assert metrics["test/n_episodes"] == 2.0 and "test/benign_utility" in metrics
