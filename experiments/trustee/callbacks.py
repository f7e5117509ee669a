"""Feeds the judge's success rate of each training batch to the curriculum, and logs what the arms must be compared
on: environment steps (tool calls sent, the issue's "equal environment steps"), the judged and the true success
(BFCL's exact checkers on the same episodes: the audit of the judge) and the curriculum's levels."""

from __future__ import annotations

from dataclasses import asdict

import lightning as L

from experiments.trustee.env import Counters


class CurriculumFeedback(L.Callback):
    def __init__(self):
        self.tool_calls = 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        env = pl_module.environment
        counters, env.counters = env.counters, Counters()
        self.tool_calls += counters.tool_calls
        size = max(counters.episodes, 1)
        values = {"tool_calls_total": float(self.tool_calls), "judged_success": counters.judged / size,
                  "true_success": counters.solved / size, "judge_agreement": counters.agree / size}
        curriculum = getattr(trainer.datamodule, "curriculum", None)
        if curriculum is not None and counters.episodes:
            curriculum.observe(counters.judged / size)
            values.update({f"level_{k}": float(v) for k, v in asdict(curriculum.level).items()})
        for name, value in values.items():
            pl_module.log(f"train/{name}", value, batch_size=size)
