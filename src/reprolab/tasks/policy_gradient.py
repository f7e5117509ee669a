"""Group-relative policy gradient for language-model policies (GRPO: Shao et al. 2024, DeepSeekMath §4.1).

Per optimizer step (Lightning's automatic optimisation; one `training_step` = one step):
  every `updates_per_rollout` steps: for each prompt of the batch, G = `group_size` episodes from the current
  policy in `environment` (multi-turn up to `max_turns`) → rewards → group-relative advantages Â
  (`reprolab.rl.advantages`) → log π_old (and log π_ref) of the policy's tokens, no gradient;
  then: log π_θ of the same tokens → per token min(ρ Â, clip(ρ) Â) − β k3(π_θ, π_ref) (DeepSeekMath eq. 3)
  → averaged over the policy's tokens as `aggregation` says (`reprolab.rl.objective`) → loss = −that.

The same rollout serves `updates_per_rollout` = μ consecutive steps (GRPO's μ), π_old fixed at rollout time, so
the ratio and its clip act from the second step on; with μ = 1, ρ ≡ 1 and the objective is REINFORCE with the
group baseline. The model is any `model(tokens, attention_mask) -> logits` network (reprolab.models.llama) or
a Hugging Face causal LM (reprolab.models.hf_causal_lm), which samples through `model.generate`.
"""

from __future__ import annotations

import copy

import torch

from reprolab.cli.errors import ConfigError
from reprolab.lm.rollout import Episode, RolloutBatch, policy_actor, run_episodes, start_episodes, to_batch
from reprolab.rl.advantages import NORMALISATIONS, group_advantages
from reprolab.rl.objective import AGGREGATIONS, aggregate_tokens, clip_fraction, clipped_surrogate, kl_k3
from reprolab.run.finished_model import load_initial_weights
from reprolab.tasks.base import Task


def token_log_probs(model, tokens: torch.Tensor, attention_mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log π(tokens[:, t+1] | tokens[:, :t+1]) [N, T − 1] of logits / temperature (the distribution sampled from)."""
    logits = model(tokens, attention_mask=attention_mask)[:, :-1].float()
    if temperature not in (0, 1):
        logits = logits / temperature
    targets = tokens[:, 1:, None]
    return (logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, -1))


class GroupPolicyGradientTask(Task):
    """GRPO / Dr. GRPO on an environment's reward; every choice below is a `task.<key>`."""

    def __init__(self, model, optimizer, scheduler=None, *, environment, tokenizer, group_size: int = 8,
                 max_turns: int = 1, max_new_tokens: int = 16, temperature: float = 1.0,
                 advantage: str = "mean_std", clip_low: float = 0.2, clip_high: float | None = None,
                 kl_coef: float = 0.0, aggregation: str = "token_mean", updates_per_rollout: int = 1,
                 eval_temperature: float = 0.0, init_from: str | None = None):
        super().__init__(model, optimizer, scheduler)
        if advantage not in NORMALISATIONS:
            raise ConfigError(f"task.advantage={advantage!r}; choose one of {', '.join(NORMALISATIONS)}")
        if aggregation not in AGGREGATIONS:
            raise ConfigError(f"task.aggregation={aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
        if group_size < 2 or max_turns < 1 or max_new_tokens < 1 or updates_per_rollout < 1:
            raise ConfigError("task.group_size must be >= 2 and task.max_turns, task.max_new_tokens, "
                              "task.updates_per_rollout >= 1")
        if temperature <= 0 or eval_temperature < 0 or kl_coef < 0 or clip_low < 0:
            raise ConfigError("task.temperature must be > 0; task.eval_temperature, task.kl_coef, task.clip_low >= 0")
        self.environment, self.tokenizer = environment, tokenizer
        self.group_size, self.max_turns, self.max_new_tokens = group_size, max_turns, max_new_tokens
        self.temperature, self.eval_temperature = temperature, eval_temperature
        self.advantage_normalisation, self.aggregation = advantage, aggregation
        self.clip_low, self.clip_high, self.kl_coef = clip_low, clip_high, kl_coef
        self.updates_per_rollout = updates_per_rollout
        if init_from:
            load_initial_weights(self.model, init_from, to_make_it="run the warm-start (SFT) stage first")
        # π_ref: the starting policy, frozen; a LoRA model is its own reference with the adapters off
        self.reference = None
        if kl_coef > 0 and not getattr(model, "has_adapters", False):
            self.reference = copy.deepcopy(self.model).requires_grad_(False)
        self.rollout: tuple | None = None

    # --- rollouts -----------------------------------------------------------------------------------
    def play(self, records: list[dict], group_size: int, temperature: float) -> list[Episode]:
        """`group_size` finished episodes per record from the current policy (a paper's evaluation reads their
        actions, `episode.history`)."""
        was_training = self.model.training
        self.model.eval()
        try:
            episodes = start_episodes(self.environment, records, self.tokenizer, group_size)
            act = policy_actor(self.model, self.tokenizer, self.max_new_tokens, temperature)
            return run_episodes(self.environment, episodes, self.tokenizer, act, self.max_turns)
        finally:
            self.model.train(was_training)

    def episodes(self, records: list[dict], group_size: int, temperature: float) -> RolloutBatch:
        return to_batch(self.play(records, group_size, temperature), self.tokenizer.pad_id, self.device)

    def reference_log_probs(self, batch: RolloutBatch) -> torch.Tensor:
        if self.reference is not None:
            return token_log_probs(self.reference, batch.tokens, batch.attention_mask, self.temperature)
        with self.model.adapters_disabled():
            return token_log_probs(self.model, batch.tokens, batch.attention_mask, self.temperature)

    @torch.no_grad()
    def collect(self, records: list[dict]):
        batch = self.episodes(records, self.group_size, self.temperature)
        advantages = group_advantages(batch.rewards, self.group_size, self.advantage_normalisation)
        old = None if self.updates_per_rollout == 1 else \
            token_log_probs(self.model, batch.tokens, batch.attention_mask, self.temperature)
        ref = self.reference_log_probs(batch) if self.kl_coef > 0 else None
        return batch, advantages, old, ref

    # --- one optimizer step ---------------------------------------------------------------------------
    def training_step(self, records, batch_idx):
        if self.rollout is None or batch_idx % self.updates_per_rollout == 0:
            self.rollout = self.collect(records)
        batch, advantages, old, ref = self.rollout
        logp = token_log_probs(self.model, batch.tokens, batch.attention_mask, self.temperature)
        old = logp.detach() if old is None else old
        advantage = advantages[:, None]
        per_token = clipped_surrogate(logp, old, advantage, self.clip_low, self.clip_high)
        kl = kl_k3(logp, ref) if ref is not None else torch.zeros_like(logp)
        per_token = per_token - self.kl_coef * kl
        budget = self.max_new_tokens * self.max_turns
        loss = -aggregate_tokens(per_token, batch.action_mask, self.aggregation, budget)
        self.log_step(batch, loss, aggregate_tokens(kl.detach(), batch.action_mask, "token_mean"),
                      aggregate_tokens(clip_fraction(logp, old, advantage, self.clip_low, self.clip_high).float(),
                                       batch.action_mask, "token_mean"))
        return loss

    def log_step(self, batch: RolloutBatch, loss, kl, clipped) -> None:
        size = len(batch.rewards)
        groups = batch.rewards.reshape(-1, self.group_size)
        values = {"loss": loss, "reward": batch.rewards.mean(), "reward_std": groups.std(1).mean(),
                  "zero_std_groups": (groups.std(1) == 0).float().mean(), "completion_tokens": batch.action_tokens.mean(),
                  "turns": batch.turns.mean(), "truncated": batch.truncated.mean(), "kl": kl, "clip_fraction": clipped}
        for name, value in values.items():
            self.log(f"train/{name}", value, batch_size=size, prog_bar=name == "reward")

    # --- evaluation: one episode per prompt at eval_temperature (0: greedy) ----------------------------
    def _evaluate(self, records, stage: str) -> None:
        batch = self.episodes(records, 1, self.eval_temperature)
        size = len(records)
        self.log(f"{stage}/reward", batch.rewards.mean(), batch_size=size, prog_bar=True)
        self.log(f"{stage}/completion_tokens", batch.action_tokens.mean(), batch_size=size)
        self.log(f"{stage}/turns", batch.turns.mean(), batch_size=size)

    def validation_step(self, records, batch_idx):
        with torch.no_grad():
            self._evaluate(records, "val")

    def test_step(self, records, batch_idx):
        with torch.no_grad():
            self._evaluate(records, "test")
