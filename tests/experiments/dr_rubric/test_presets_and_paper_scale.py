"""Stage A and stage B through the trainer, the paper-scale preset, and its LLM judge / writer on a tiny random Qwen3."""

from __future__ import annotations

import json

import pytest
import torch
from omegaconf import OmegaConf, open_dict

from experiments.dr_rubric.llm_rubric import FALLBACK, JUDGE, LLMDeepResearchRubric, LLMJudge
from experiments.dr_rubric.open_env import LocalCorpusSearch, OpenReportEnvironment
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.lm.tokenizer import ByteTokenizer
from reprolab.models.hf_causal_lm import HuggingFaceCausalLM
from reprolab.plan.jobs import reproduce_targets

QUICK = ["device=cpu", "logger=none", "print_config=false", "trainer.enable_progress_bar=false"]
TWO_STEPS = [*QUICK, "trainer.max_steps=2", "trainer.val_check_interval=2", "data.batch_size=2"]


def tiny_qwen(**kwargs):
    config = OmegaConf.to_container(compose(["model=qwen3_tiny"]).model.config)
    return HuggingFaceCausalLM(config=config, **kwargs)


@pytest.mark.parametrize(("rubric", "agreement"), [("oracle", 1.0), ("generic", None)])
def test_stage_a_is_a_test_only_run_through_the_trainer(rubric, agreement, tmp_path):
    metrics = run(compose(["experiment=dr_rubric/quality_cpu", f"rubric={rubric}", *QUICK], output_dir=tmp_path))
    assert {"test/pairwise_agreement", "test/criteria_recall", "test/rubric_items"} <= set(metrics)
    if agreement is not None:
        assert metrics["test/pairwise_agreement"] == agreement and metrics["test/criteria_recall"] == 1.0
    else:
        assert 0.5 < metrics["test/pairwise_agreement"] < 0.9 and metrics["test/criteria_recall"] == 0.0


@pytest.mark.parametrize("preset", ["dr_rubric/sft_cpu", "dr_rubric/grpo_cpu"])
def test_stage_b_presets_take_two_steps(preset, tmp_path):
    cfg = compose([f"experiment={preset}", "rubric=dr_rubric", *TWO_STEPS], output_dir=tmp_path)
    with open_dict(cfg):
        cfg.data.train_batches = 2
    metrics = run(cfg)
    if preset.endswith("grpo_cpu"):
        assert {"test/reward", "test/coverage_f1", "test/hallucination_rate", "test/oracle_quality"} <= set(metrics)
        assert metrics["test/reward"] == metrics["test/oracle_quality"]  # held-out prompts: scored by the oracle
    else:
        assert "val/loss" in metrics


def test_paper_preset_composes_at_paper_scale():
    cfg = compose(["experiment=dr_rubric/qwen3_8b_grpo"])
    assert cfg.model.pretrained == "Qwen/Qwen3-8B" and cfg.model.lora.r == 16 and cfg.device.name == "ddp"
    assert cfg.environment.judge.model.pretrained == "Qwen/Qwen3-8B" and cfg.rubric.turns == 5
    assert cfg.logger.wandb and "reproduce-dr_rubric-qwen3_8b" in reproduce_targets()


def test_llm_judge_reads_yes_against_no_from_the_next_token():
    torch.manual_seed(0)
    tok = ByteTokenizer()
    judge = LLMJudge(lambda: tiny_qwen(), tok)
    (p,) = judge.item_probabilities("kite", "c7", ["covers c"])
    logits = judge.model.get()(torch.tensor([tok.encode(JUDGE.format(prompt="kite", report="c7", item="covers c"))]))
    expected = torch.softmax(logits[0, -1, [ord("y"), ord("n")]], 0)[0].item()
    assert p == pytest.approx(expected, abs=1e-6) and 0 < judge.score("kite", "c7", ["a", "b"]) < 1
    with pytest.raises(ConfigError, match="same token"):
        LLMJudge(lambda: None, tok, yes="no", no="not")


def test_llm_rubric_searches_each_turn_and_the_open_environment_scores_with_the_judge(tmp_path):
    torch.manual_seed(0)
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in
                                                     ["kite reports give c", "moth notes", "reef"]))
    rows = [{"prompt": "kite?", "split": "train"}, {"prompt": "moth?", "split": "test", "rubric": ["says moth"]}]
    (tmp_path / "prompts.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    search = LocalCorpusSearch(str(tmp_path / "corpus.jsonl"), k=1)
    assert search.search("kite c") == ["kite reports give c"] and search.search("zzz") == []
    tok = ByteTokenizer()
    builder = LLMDeepResearchRubric(lambda: tiny_qwen(), tok, turns=2, max_items=4, max_new_tokens=8)
    judge = LLMJudge(lambda: tiny_qwen(), tok)
    env = OpenReportEnvironment(str(tmp_path / "prompts.jsonl"), builder, search, judge)
    train, test = env.records("train")[0], env.records("test")[0]
    rubric = builder.rubric(train)
    assert search.queries == 2 + 2 and rubric == list(FALLBACK)  # a random writer lists no "- " line: the fallback
    assert builder.rubric(train) is rubric and search.queries == 4  # cached per prompt
    assert env.reward(test, "moth") == pytest.approx(judge.score("moth?", "moth", ["says moth"]))
    with pytest.raises(DatasetNotFoundError, match="prompts"):
        OpenReportEnvironment(str(tmp_path / "none.jsonl"), builder, search, judge).records("train")
    with pytest.raises(DatasetNotFoundError, match="search corpus"):
        LocalCorpusSearch(str(tmp_path / "none.jsonl")).search("kite")
