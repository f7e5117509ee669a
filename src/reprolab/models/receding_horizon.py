"""Receding-horizon execution of action sequences (Diffusion Policy, Chi et al. 2023, §III-C, Fig. 3): keep the last
T_o observations (the first one repeated until T_o have been seen, as the released env wrapper pads), plan a
sequence when the queue of actions is empty, execute its T_a actions one per step, then plan again. Diffusion
Policy's closed-loop executor (`executor.py`)."""

from __future__ import annotations

import torch

from reprolab.models.executor import Predict


class RecedingHorizon:
    """`act(obs)` observes, plans by `predict(history (B, T_o, D)) -> (B, T_a, A)` when the queue is empty and pops the
    next (B, A) action. Its steps: `observe(obs)`, `history()`, `due()`, `plan(actions)`, `action()`."""

    def __init__(self, predict: Predict, n_obs_steps: int):
        if n_obs_steps < 1:
            raise ValueError(f"n_obs_steps must be >= 1; got {n_obs_steps}")
        self.predict, self.n_obs_steps = predict, n_obs_steps
        self.reset()

    def reset(self) -> None:
        """A new episode: no observation, no queued action."""
        self.seen: list[torch.Tensor] = []
        self.queue: list[torch.Tensor] = []

    def act(self, obs: torch.Tensor) -> torch.Tensor:
        self.observe(obs)
        if self.due():
            self.plan(self.predict(self.history()))
        return self.action()

    def observe(self, obs: torch.Tensor) -> None:
        self.seen = (self.seen + [obs])[-self.n_obs_steps :]

    def history(self) -> torch.Tensor:
        if not self.seen:
            raise ValueError("no observation yet: call observe(obs) first")
        pad = [self.seen[0]] * (self.n_obs_steps - len(self.seen))
        return torch.stack(pad + self.seen, 1)

    def due(self) -> bool:
        return not self.queue

    def plan(self, actions: torch.Tensor) -> None:
        self.queue = list(actions.unbind(1))

    def action(self) -> torch.Tensor:
        if not self.queue:
            raise ValueError("no planned action left: call plan(actions) first")
        return self.queue.pop(0)
