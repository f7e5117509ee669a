"""The group policy-gradient task through Lightning's own loop: a two-armed bandit posed as a prompt, KL to the
reference, the μ-step rollout reuse that makes the clip act, and one clear error from a broken reward."""

from __future__ import annotations

import functools

import lightning as L
import pytest
import torch

from reprolab.lm.data import PromptDataModule
from reprolab.lm.environments.base import EnvironmentCallError, RewardEnvironment
from reprolab.models.llama import LlamaLM
from reprolab.rl.objective import kl_k3
from reprolab.tasks.policy_gradient import GroupPolicyGradientTask, token_log_probs


class TwoArms:
    """Tokens A = 0 and B = 1; PAD = EOS = 2, BOS = 3: a completion is one arm."""

    vocab_size, pad_id, eos_id, bos_id = 4, 2, 2, 3

    def encode(self, text):
        return [{"A": 0, "B": 1}[c] for c in text if c in "AB"]

    def decode(self, ids):
        return "".join("AB"[i] for i in ids if i < 2)


class ArmA(RewardEnvironment):
    """The bandit: reward 1 for completion "A", 0 for anything else."""

    def records(self, split):
        return [{"prompt": "pick an arm:"}]

    def reward(self, record, completion):
        return float(completion == "A")


class BrokenReward(ArmA):
    def reward(self, record, completion):
        raise KeyError("answer")


def make_task(env=None, **keys):
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=4, d_model=16, n_layer=1, n_head=2, max_seq_len=8)
    options = {"group_size": 8, "max_new_tokens": 1, "temperature": 1.0, **keys}
    return GroupPolicyGradientTask(model, functools.partial(torch.optim.Adam, lr=3e-2), environment=env or ArmA(),
                                   tokenizer=TwoArms(), **options)


def p_arm_a(task) -> float:
    with torch.no_grad():
        return torch.softmax(task.model(torch.tensor([[TwoArms.bos_id]]))[0, -1], -1)[0].item()


def fit(task, steps: int, env=None):
    trainer = L.Trainer(max_steps=steps, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, limit_val_batches=0, accelerator="cpu", devices=1)
    trainer.fit(task, datamodule=PromptDataModule(env or ArmA(), batch_size=4, train_batches=steps))
    return trainer


@pytest.mark.parametrize("advantage,aggregation", [("mean_std", "token_mean"), ("mean", "constant")])
def test_the_policy_moves_to_the_rewarded_arm_within_forty_steps(advantage, aggregation):
    task = make_task(advantage=advantage, aggregation=aggregation)
    before = p_arm_a(task)
    trainer = fit(task, 40)
    after = p_arm_a(task)
    assert before < 0.5 and after > 0.9, (before, after)
    logged = trainer.logged_metrics
    assert {"train/reward", "train/kl", "train/clip_fraction", "train/completion_tokens", "train/turns"} <= set(logged)


def test_kl_is_zero_when_the_policy_is_the_reference_and_grows_after_updates():
    task = make_task(kl_coef=0.1)
    records = ArmA().records("train") * 4
    batch, _, _, ref = task.collect(records)
    logp = token_log_probs(task.model, batch.tokens, batch.attention_mask)
    assert torch.equal(kl_k3(logp, ref)[batch.action_mask], torch.zeros(int(batch.action_mask.sum())))
    fit(task, 10)
    after = token_log_probs(task.model, batch.tokens, batch.attention_mask)
    assert kl_k3(after, ref)[batch.action_mask].mean().item() > 1e-3
    assert all(not p.requires_grad for p in task.reference.parameters())


def test_one_rollout_serves_mu_steps_and_the_clip_then_binds():
    task = make_task(updates_per_rollout=4, clip_low=0.05)
    records = ArmA().records("train") * 4
    optimizer = torch.optim.Adam(task.model.parameters(), lr=3e-1)
    fractions = []
    for step in range(4):  # what Lightning does per step, logging aside
        task.log = lambda *a, **k: None
        task.log_step = lambda batch, loss, kl, clipped: fractions.append(clipped.item())
        loss = task.training_step(records, step)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step == 0:
            first = task.rollout
    assert task.rollout is first  # the same episodes and π_old for μ = 4 steps
    assert fractions[0] == 0.0 and max(fractions[1:]) > 0.0


def test_a_reward_function_that_raises_is_one_error_naming_the_environment():
    with pytest.raises(EnvironmentCallError, match=r"environment .*BrokenReward raised KeyError in step\(\) on prompt "
                                                   r"'pick an arm:': 'answer'"):
        fit(make_task(BrokenReward()), 2, BrokenReward())
