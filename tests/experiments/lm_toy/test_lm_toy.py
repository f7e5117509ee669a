"""The toy environment, its presets, and the paper-scale Hugging Face path on a tiny random Qwen3 (offline)."""

from __future__ import annotations

import pytest
import torch
from omegaconf import open_dict

from experiments.lm_toy.env import DigitSum
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.data.fake import fake_config
from reprolab.lm.sampling import sample_by_forward, sample_completions
from reprolab.lm.tokenizer import ByteTokenizer
from reprolab.plan.jobs import reproduce_targets, target_jobs

TWO_STEPS = ["device=cpu", "logger=none", "print_config=false", "trainer.max_steps=2", "trainer.val_check_interval=2",
             "data.batch_size=2", "data.eval_batch_size=25"]  # fake_config() below is `+data/fake=on`


def test_digit_sum_reward_and_expert_by_hand():
    env = DigitSum(digits=5)
    records = env.records("train")
    assert len(records) == 25 and records[-1] == {"prompt": "4+4=", "answer": "8"}
    assert DigitSum().records("test")[99] == {"prompt": "9+9=", "answer": "8"}  # mod 10
    record = {"prompt": "3+4=", "answer": "7"}
    assert env.reward(record, " 7") == 1.0 and env.reward(record, "7x") == 1.0
    assert env.reward(record, "17") == 0.0 and env.reward(record, "") == 0.0 and env.expert(record, []) == "7"


def test_paper_preset_composes_at_paper_scale():
    cfg = compose(["experiment=lm_toy/qwen3_8b_grpo"])
    assert cfg.model.pretrained == "Qwen/Qwen3-8B" and cfg.model.dtype == "bfloat16" and cfg.model.lora.r == 16
    assert cfg.tokenizer.name == "Qwen/Qwen3-8B" and cfg.device.name == "ddp" and cfg.device.precision == "bf16-mixed"
    assert cfg.task._target_.endswith("GroupPolicyGradientTask") and cfg.task.kl_coef > 0
    assert "reproduce-lm_toy-qwen3_8b" in reproduce_targets()
    (job,) = target_jobs("reproduce-lm_toy-qwen3_8b")
    assert job["preset"] == "lm_toy/qwen3_8b_grpo" and job["runs"] == 3


def test_hf_path_two_steps_on_a_tiny_random_qwen3_with_lora_and_kl(tmp_path):
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    cfg = fake_config(compose(["experiment=lm_toy/qwen3_8b_grpo", "model=qwen3_tiny", "tokenizer=byte", *TWO_STEPS,
                               "trainer.log_every_n_steps=1"], output_dir=tmp_path))
    metrics = run(cfg)
    assert (tmp_path / "metrics.json").exists()
    assert {"train/reward", "train/kl", "train/clip_fraction", "val/reward", "test/reward"} <= set(metrics)
    assert metrics["train/kl"] >= 0


def test_hf_generate_samples_what_the_forward_scores():
    """Greedy `model.generate` on left-padded contexts = the reference loop over the wrapper's own forward."""
    pytest.importorskip("transformers")
    from hydra.utils import instantiate

    torch.manual_seed(0)
    model = instantiate(compose(["model=qwen3_tiny", "model.lora=null"]).model).eval()
    tok = ByteTokenizer()
    contexts = [tok.encode("1+2="), tok.encode("guess 0-9: 4 higher:")]
    greedy = sample_completions(model, contexts, 6, 0.0, tok.eos_id, tok.pad_id)
    assert greedy == sample_by_forward(model, contexts, 6, 0.0, tok.eos_id, tok.pad_id)
    assert not model.has_adapters


@pytest.mark.parametrize("preset", ["lm_toy/sft_cpu", "lm_toy/grpo_cpu"])
def test_toy_presets_take_two_steps(preset, tmp_path):
    cfg = fake_config(compose([f"experiment={preset}", *TWO_STEPS], output_dir=tmp_path))
    with open_dict(cfg):
        cfg.data.train_batches = 2
    metrics = run(cfg)
    assert ("val/reward" if preset.endswith("grpo_cpu") else "val/loss") in metrics
