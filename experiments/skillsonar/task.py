"""The guard evolution as a trainer task: one search step (one guard scored on the training episodes) per
training step; testing scores the resulting guard on the held-out suites.

`search: null` keeps the model's guard fixed (the none / scanner / runtime / boundary / confirm_all arms,
`trainer.max_steps: 0`); `mcts` or `greedy` evolve it from v0 for `trainer.max_steps` steps (the training
loader has that many items and the preset one epoch: with no optimizer Lightning's global step stays 0). The reward is
metrics.reward with `lam` and `mu`; `approve_out_of_scope` is the simulated user's answer to a confirmation
of a call outside their task. Logged per step: `train/reward` (the scored guard), `train/best_reward`,
`train/best_size`; at test every score of metrics.evaluate under `test/` plus `test/reward` and `test/guard_size`.

`agent`: who plays the test episodes. None: the scripted agent (the claim check); an LLM agent
(api_agent.ChatApiAgent, api_agent.yaml) plays them with the guard as its system-prompt skill, and the API's
usage is logged as `test/api_requests`, `test/api_prompt_tokens`, `test/api_completion_tokens`. The search always
scores guards with the scripted agent on the training suites: an evolved guard is evolved offline, then tested.
"""

from __future__ import annotations

import torch

from experiments.skillsonar.agent import SHARED, SimulatedUser
from experiments.skillsonar.metrics import evaluate, reward
from experiments.skillsonar.rules import RuleGuard
from experiments.skillsonar.search import GuardSearch
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task


class GuardSearchTask(Task):
    # by design (reprolab.run.job_logging.expected_warnings): a search has no optimizer and no validation set
    expected_warnings = ("`LightningModule.configure_optimizers` returned `None`",)

    def __init__(self, model, optimizer=None, scheduler=None, search: str | None = None, lam: float = 0.25,
                 mu: float = 0.002, approve_out_of_scope: float = 0.5, branching: int = 6, exploration: float = 0.3,
                 max_depth: int = 8, seed: int = 0, agent=None):
        super().__init__(model, optimizer, scheduler)
        if search not in (None, "mcts", "greedy"):
            raise ConfigError(f"task.search must be mcts, greedy or null (a fixed guard); got {search!r}")
        if not 0.0 <= approve_out_of_scope <= 1.0:
            raise ConfigError(f"task.approve_out_of_scope is a probability; got {approve_out_of_scope}")
        if search is not None and model.scanner is not None:
            raise ConfigError("the search evolves the runtime guard: use model.scanner=false with task.search")
        self.automatic_optimization = False
        self.search_method, self.lam, self.mu = search, lam, mu
        self.user = SimulatedUser(approve_out_of_scope, seed)
        self.search_args = {"branching": branching, "exploration": exploration, "max_depth": max_depth, "seed": seed}
        self.replay = SHARED
        self.agent = agent
        self.search: GuardSearch | None = None
        self._rewards: dict[RuleGuard, float] = {}
        self._test: list[int] = []

    def configure_optimizers(self):
        return None

    def on_fit_start(self) -> None:
        self.trainer.datamodule.search_steps = max(int(self.trainer.max_steps), 1)

    def train_reward(self, guard: RuleGuard) -> float:
        if guard not in self._rewards:
            scores = evaluate(guard, self.trainer.datamodule.train_episodes, self.user, self.replay, brackets=False)
            self._rewards[guard] = reward(scores, guard.size, self.lam, self.mu)
        return self._rewards[guard]

    def training_step(self, batch, batch_idx):
        if self.search_method is None or (self.search is not None and self.search.evaluations >= self.trainer.max_steps):
            return None
        if self.search is None:
            self.search = GuardSearch(self.model.guard, self.train_reward, self.search_method, **self.search_args)
        value = self.search.step()
        self.model.set_guard(self.search.best)
        self.log_dict({"train/reward": value, "train/best_reward": self.search.best_reward,
                       "train/best_size": float(self.search.best.size)}, on_step=True, batch_size=1)
        return None

    def on_train_end(self) -> None:
        if self.search is not None:
            self.model.set_guard(self.search.best)

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        checkpoint["guard_text"] = self.model.guard.text()

    def setup(self, stage: str) -> None:
        if self.agent is not None:
            self.agent.connect()   # a missing API key is refused before the search and any episode

    def test_step(self, batch, batch_idx):
        self._test.extend(int(i) for i in batch)

    def on_test_epoch_end(self) -> None:
        episodes = [self.trainer.datamodule.test_episodes[i] for i in self._test]
        self._test = []
        scores = evaluate(self.model, episodes, self.user, self.replay, scanner=self.model.scanner, agent=self.agent)
        if self.agent is not None:
            scores |= {f"api_{k}": float(v) for k, v in self.agent.usage.items()}
        size = 0 if self.model.scanner is not None else self.model.guard.size
        scores["reward"] = reward(scores, size, self.lam, self.mu)
        scores["guard_size"] = float(size)
        self.log_dict({f"test/{k}": torch.tensor(float(v)) for k, v in scores.items() if v == v}, batch_size=1)
