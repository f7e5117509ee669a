"""Token reversal with a transformer policy (2603.14608 §5; the four frictions of 2603.20521 §1).

The actor writes the answer token by token with the stale parameters; reward 1 only for a fully
correct reverse. Every token is one policy-gradient term (per-token surprisal and gate, one advantage
per sequence). Metrics: greedy sequence error per length, and the longest length solved.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from experiments.delightful.actor import behaviour_log_probs
from experiments.delightful.model import SEP
from experiments.delightful.task import PolicyGradientTask
from reprolab.cli.errors import ConfigError


def with_separator(prompts: torch.Tensor, answers: torch.Tensor | None = None) -> torch.Tensor:
    sep = torch.full((len(prompts), 1), SEP, dtype=prompts.dtype, device=prompts.device)
    return torch.cat([prompts, sep] if answers is None else [prompts, sep, answers], 1)


def answer_logits(logits_fn, prompts: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """Teacher-forced logits [B, n, vocab] for answer tokens 0..n−1 (position n + t predicts token t)."""
    n = prompts.shape[1]
    return logits_fn(with_separator(prompts, answers[:, :-1]))[:, n:]


class ReversalTask(PolicyGradientTask):
    def __init__(self, model, optimizer, scheduler=None, discovery_rate: float = 0.0, solved_error_pct: float = 1.0,
                 **pg):
        super().__init__(model, optimizer, scheduler, **pg)
        if not 0 <= discovery_rate <= 1:
            raise ConfigError(f"task.discovery_rate must lie in [0, 1], got {discovery_rate}")
        self.discovery_rate, self.solved_error_pct = discovery_rate, solved_error_pct
        self.eval_errors: dict[int, float] = {}

    def act(self, prompts, actor_params):
        """Sample n tokens from μ (stale policy mixed with the buggy actor); with probability
        `task.discovery_rate` a sequence is replaced by the correct reverse (a rare discovery by another
        actor). Behaviour log-probs are those the actor reports for the tokens it emitted."""
        def stale(tokens):
            return self.actor_logits(actor_params, tokens)

        tokens = with_separator(prompts)
        for _ in range(prompts.shape[1]):
            log_mu = behaviour_log_probs(stale(tokens)[:, -1], self.bug_rate)
            tokens = torch.cat([tokens, torch.distributions.Categorical(logits=log_mu).sample()[:, None]], 1)
        answers = tokens[:, prompts.shape[1] + 1:]
        if self.discovery_rate > 0:
            found = torch.rand(len(prompts), 1, device=prompts.device) < self.discovery_rate
            answers = torch.where(found, prompts.flip(1), answers)
        log_mu = behaviour_log_probs(answer_logits(stale, prompts, answers), self.bug_rate)
        return answers, log_mu.gather(2, answers[..., None]).squeeze(2)

    def learner_log_probs(self, prompts, answers):
        return F.log_softmax(answer_logits(self.model, prompts, answers), -1).gather(2, answers[..., None]).squeeze(2)

    def true_reward(self, prompts, answers):
        return (answers == prompts.flip(1)).all(1).float()

    @torch.no_grad()
    def greedy_answers(self, prompts: torch.Tensor) -> torch.Tensor:
        tokens = with_separator(prompts)
        for _ in range(prompts.shape[1]):
            tokens = torch.cat([tokens, self.model(tokens)[:, -1].argmax(-1, keepdim=True)], 1)
        return tokens[:, prompts.shape[1] + 1:]

    def _eval_step(self, prompts, stage: str) -> None:
        n = prompts.shape[1]
        error = (1.0 - self.true_reward(prompts, self.greedy_answers(prompts)).mean()) * 100
        self.eval_errors[n] = float(error)
        self.log(f"{stage}/seq_error_pct_len{n}", error, batch_size=1)
        self.log(f"{stage}/seq_error_pct", error, prog_bar=True, batch_size=1)  # the mean over lengths

    def longest_solved(self) -> int:
        """The largest n such that every length up to n has greedy sequence error ≤ `task.solved_error_pct`."""
        lengths = sorted(self.eval_errors)
        solved = lengths[0] - 1
        for n in lengths:
            if self.eval_errors[n] > self.solved_error_pct:
                break
            solved = n
        return solved

    def _eval_epoch_end(self, stage: str) -> None:
        if self.eval_errors:
            self.log(f"{stage}/longest_solved", float(self.longest_solved()))
        self.eval_errors = {}

    def validation_step(self, batch, batch_idx):
        self._eval_step(batch, "val")

    def test_step(self, batch, batch_idx):
        self._eval_step(batch, "test")

    def on_validation_epoch_end(self):
        self._eval_epoch_end("val")

    def on_test_epoch_end(self):
        self._eval_epoch_end("test")
