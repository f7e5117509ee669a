"""The simulated distributed actor: stale parameters, buggy actions, corrupted rewards, rare discoveries.

These are the four frictions of 2603.20521 (abstract, §1), each a config value of the task; 0 turns
one off. Staleness is counted in LEARNER steps (optimizer steps), never in samples.
"""

from __future__ import annotations

import math
from collections import deque

import torch
from torch import nn


class SnapshotRing:
    """Ring buffer of parameter snapshots keyed by learner step; the actor reads the one `staleness` steps old.

    `push(step, model)` stores θ_step once per learner step (gradient accumulation repeats a step);
    `actor_snapshot()` returns (version, θ_version) with version = max(0, step − staleness).
    """

    def __init__(self, staleness: int):
        if staleness < 0:
            raise ValueError(f"staleness must be >= 0 learner steps, got {staleness}")
        self.staleness = staleness
        self.snapshots: deque[tuple[int, dict[str, torch.Tensor]]] = deque(maxlen=staleness + 1)

    def push(self, step: int, model: nn.Module) -> None:
        if self.snapshots and self.snapshots[-1][0] == step:
            return
        if self.snapshots and step != self.snapshots[-1][0] + 1:
            self.snapshots.clear()  # a jump in steps (e.g. a fresh fit): stale versions are no longer known
        params = {name: t.detach().clone() for name, t in [*model.named_parameters(), *model.named_buffers()]}
        self.snapshots.append((step, params))

    def actor_snapshot(self) -> tuple[int, dict[str, torch.Tensor]]:
        return self.snapshots[0]

    def state_dict(self) -> list[tuple[int, dict[str, torch.Tensor]]]:
        return list(self.snapshots)

    def load_state_dict(self, state: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        self.snapshots = deque(state, maxlen=self.staleness + 1)


def behaviour_log_probs(actor_logits: torch.Tensor, bug_rate: float) -> torch.Tensor:
    """log μ with μ = (1 − ε) π_stale + ε · uniform: a fraction ε (`task.bug_rate`) of actions from a buggy
    actor that picks uniformly. Sampling from μ is exactly that mixture, and μ is the exact behaviour
    probability the importance-weighted arms use. Computed in log space (no log 0).
    """
    log_pi = torch.log_softmax(actor_logits, -1)
    if bug_rate <= 0:
        return log_pi
    uniform = math.log(bug_rate / actor_logits.shape[-1])
    return torch.logaddexp(log_pi + math.log1p(-bug_rate), torch.full_like(log_pi, uniform))


def corrupt_rewards(reward: torch.Tensor, flip_rate: float) -> torch.Tensor:
    """Binary reward flipped (r → 1 − r) independently with probability `task.reward_flip_rate`."""
    if flip_rate <= 0:
        return reward
    flip = torch.rand(reward.shape, device=reward.device) < flip_rate
    return torch.where(flip, 1.0 - reward, reward)
