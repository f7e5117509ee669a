"""The actor/learner LightningModule: a stale actor samples, the learner takes one policy-gradient step.

Per training batch (one learner step): push θ_t into the snapshot ring → the actor acts with θ_{t−D}
(plus bugs) → rewards (maybe flipped) → U = r − b → the learner's CURRENT log-probs → the arm's
objective (`losses.py`). Lightning's automatic optimisation differentiates the returned loss.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.func import functional_call

from experiments.delightful.actor import SnapshotRing, behaviour_log_probs, corrupt_rewards
from experiments.delightful.losses import ARMS, policy_gradient_objective
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task

BASELINES = ("batch_mean", "none")


class PolicyGradientTask(Task):
    """Shared actor/learner logic; subclasses say how to act, score, and take log-probs in their environment.

    Rewards are {0, 1} times `reward_scale` (1 by default), so η = 1 means the gate sees the delight of a
    unit reward (2603.14608 §2 uses η = 1).
    """

    def __init__(self, model, optimizer, scheduler=None, loss: str = "dg", eta: float = 1.0, staleness: int = 0,
                 bug_rate: float = 0.0, reward_flip_rate: float = 0.0, baseline: str = "batch_mean",
                 reward_scale: float = 1.0, iw_clip: float = 1.0, ppo_clip: float = 0.2):
        super().__init__(model, optimizer, scheduler)
        if loss not in ARMS:
            raise ConfigError(f"task.loss={loss!r} is not an arm; choose one of {', '.join(ARMS)}")
        if baseline not in BASELINES:
            raise ConfigError(f"task.baseline={baseline!r}; choose one of {', '.join(BASELINES)}")
        if not (0 <= bug_rate < 1 and 0 <= reward_flip_rate <= 1) or eta <= 0:
            raise ConfigError("task.bug_rate must lie in [0, 1), task.reward_flip_rate in [0, 1], task.eta > 0")
        self.loss_name, self.eta, self.baseline = loss, eta, baseline
        self.bug_rate, self.reward_flip_rate, self.reward_scale = bug_rate, reward_flip_rate, reward_scale
        self.iw_clip, self.ppo_clip = iw_clip, ppo_clip
        self.ring = SnapshotRing(staleness)

    # --- environment-specific pieces -------------------------------------------------------------
    def act(self, batch, actor_params) -> tuple[torch.Tensor, torch.Tensor]:
        """(actions, behaviour log-probs) sampled by the actor with `actor_params`."""
        raise NotImplementedError

    def learner_log_probs(self, batch, actions) -> torch.Tensor:
        """log π_θ(A|H) under the current parameters, with gradient."""
        raise NotImplementedError

    def true_reward(self, batch, actions) -> torch.Tensor:
        raise NotImplementedError

    # --- one learner step ------------------------------------------------------------------------
    def actor_logits(self, actor_params, *inputs) -> torch.Tensor:
        return functional_call(self.model, actor_params, inputs)

    def advantage(self, reward: torch.Tensor) -> torch.Tensor:
        return reward - reward.mean() if self.baseline == "batch_mean" else reward

    def training_step(self, batch, batch_idx):
        self.ring.push(self.global_step, self.model)
        actor_version, actor_params = self.ring.actor_snapshot()
        with torch.no_grad():
            actions, logp_behaviour = self.act(batch, actor_params)
            reward = self.true_reward(batch, actions)
            observed = corrupt_rewards(reward, self.reward_flip_rate) * self.reward_scale
            advantage = self.advantage(observed)
        logp = self.learner_log_probs(batch, actions)
        if logp.ndim > 1:  # per token: one sequence-level advantage for every token
            advantage = advantage.unsqueeze(-1)
        objective = policy_gradient_objective(self.loss_name, logp, logp_behaviour, advantage, self.eta,
                                              self.iw_clip, self.ppo_clip)
        loss = -objective.reshape(len(reward), -1).sum(1).mean()
        size = len(reward)
        self.log("train/loss", loss, batch_size=size)
        self.log("train/reward", reward.mean(), prog_bar=True, batch_size=size)
        self.log("train/actor_lag", float(self.global_step - actor_version), batch_size=size)
        self.log("train/surprisal", -logp.detach().mean(), batch_size=size)
        return loss

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        checkpoint["actor_snapshots"] = self.ring.state_dict()

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self.ring.load_state_dict(checkpoint.get("actor_snapshots", []))


class DigitsBanditTask(PolicyGradientTask):
    """Contextual bandit: one action (a label) per image, reward 1 iff it is the true label; metric = greedy error %."""

    def act(self, batch, actor_params):
        images, _ = batch
        log_mu = behaviour_log_probs(self.actor_logits(actor_params, images), self.bug_rate)
        actions = torch.distributions.Categorical(logits=log_mu).sample()
        return actions, log_mu.gather(1, actions[:, None]).squeeze(1)

    def learner_log_probs(self, batch, actions):
        return F.log_softmax(self.model(batch[0]), -1).gather(1, actions[:, None]).squeeze(1)

    def true_reward(self, batch, actions):
        return (actions == batch[1]).float()

    def _greedy_error(self, batch, stage: str) -> None:
        images, labels = batch
        error = (self.model(images).argmax(-1) != labels).float().mean() * 100
        self.log(f"{stage}/error_pct", error, prog_bar=True, batch_size=len(labels))

    def validation_step(self, batch, batch_idx):
        self._greedy_error(batch, "val")

    def test_step(self, batch, batch_idx):
        self._greedy_error(batch, "test")
