"""The two tasks of the protocol, both run by `reprolab-train`.

- `ReportPolicyTask` (stage B): the core GRPO task (`reprolab.tasks.policy_gradient`) with the environment's
  rubric as the training reward; its val/test episodes (held-out entities, greedy) also log the oracle quality,
  coverage F1, hallucination rate and the rubric's own reward of each report.
- `RewardQualityTask` (stage A): no network and no training (`trainer.max_epochs: 0`); its test epoch scores the
  fixed candidate pool of every test prompt with the rubric and the oracle (`reward_quality.py`) and logs
  `test/pairwise_agreement`, `test/criteria_recall`, `test/criteria_precision`, `test/rubric_items`.
"""

from __future__ import annotations

import math
import statistics

import lightning as L

from experiments.dr_rubric.reward_quality import candidate_pool, criteria_recall_precision, pairwise_agreement
from reprolab.cli.errors import ConfigError
from reprolab.tasks.policy_gradient import GroupPolicyGradientTask


class ReportPolicyTask(GroupPolicyGradientTask):
    def _evaluate(self, records, stage: str) -> None:
        episodes = self.play(records, 1, self.eval_temperature)
        values = {"reward": [e.reward for e in episodes], "completion_tokens": [sum(e.is_action) for e in episodes]}
        for episode in episodes:
            for key, value in self.environment.measures(episode.record, episode.history[0][0]).items():
                values.setdefault(key, []).append(value)
        for key, series in values.items():
            self.log(f"{stage}/{key}", statistics.fmean(series), batch_size=len(records), prog_bar=key == "reward")


class RewardQualityTask(L.LightningModule):
    # by design (reprolab.run.job_logging.expected_warnings): nothing to optimise, test only
    expected_warnings = ("`LightningModule.configure_optimizers` returned `None`",
                         "You passed in a `val_dataloader` but have no `validation_step`")

    def __init__(self, model=None, optimizer=None, scheduler=None, *, environment, pool_size: int = 24,
                 faithful: float = 0.85):
        super().__init__()
        if pool_size < 2 or not 0 <= faithful <= 1:
            raise ConfigError(f"task.pool_size={pool_size} must be >= 2 (pairs to agree on) and task.faithful="
                              f"{faithful} a probability")
        self.environment, self.pool_size, self.faithful = environment, pool_size, faithful
        self.rows: list[dict] = []

    def configure_optimizers(self):
        return None

    def training_step(self, batch, batch_idx):  # max_epochs 0: never called; a fast_dev_run batch is passed over
        return None

    def test_step(self, records, batch_idx):
        env = self.environment
        for record in records:
            pool = candidate_pool(record, self.pool_size, env.world.budget, self.faithful)
            recall, precision = criteria_recall_precision(env.builder.rubric(record),
                                                          env.world.standards[record["category"]])
            self.rows.append({
                "pairwise_agreement": pairwise_agreement([env.rubric_reward(record, r) for r in pool],
                                                         [env.oracle_quality(record, r) for r in pool]),
                "criteria_recall": recall, "criteria_precision": precision,
                "rubric_items": len(env.builder.rubric(record))})

    def on_test_epoch_end(self) -> None:
        for key in self.rows[0]:
            finite = [row[key] for row in self.rows if not math.isnan(row[key])]
            self.log(f"test/{key}", statistics.fmean(finite))
        self.log("test/search_queries", float(self.environment.search_queries))
        self.rows = []
