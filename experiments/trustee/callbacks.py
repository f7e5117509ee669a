"""Feeds the judge's success rate of each training batch to the curriculum, and logs what the arms must be compared
on: environment steps (tool calls sent, the issue's "equal environment steps"), the judged and the true success
(BFCL's exact checkers on the same episodes: the audit of the judge) and the curriculum's levels.

The judge's audit (issue 43: "a judge from the policy's own family inflating reward"), per step and over the run
so far (`_run`): `judge_agreement` (verdict = BFCL's checkers), `judge_false_pass` (of the episodes the checkers
fail, the share the judge passes: its false-positive rate; logged once a failed episode was seen).
`SimulatorAudit` hands the policy to an LM simulator and logs its roles' answers (lm_simulator.py)."""

from __future__ import annotations

from dataclasses import asdict, fields

import lightning as L

from experiments.trustee.env import Counters


def audit(counters: Counters) -> dict[str, float]:
    size = max(counters.episodes, 1)
    values = {"judged_success": counters.judged / size, "true_success": counters.solved / size,
              "judge_agreement": counters.agree / size}
    if counters.failed:
        values["judge_false_pass"] = counters.false_pass / counters.failed
    return values


class CurriculumFeedback(L.Callback):
    def __init__(self):
        self.tool_calls = 0
        self.run = Counters()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        env = pl_module.environment
        counters, env.counters = env.counters, Counters()
        self.tool_calls += counters.tool_calls
        for field in fields(Counters):
            setattr(self.run, field.name, getattr(self.run, field.name) + getattr(counters, field.name))
        size = max(counters.episodes, 1)
        values = {"tool_calls_total": float(self.tool_calls), **audit(counters),
                  **{f"{k}_run": v for k, v in audit(self.run).items() if k.startswith("judge_")}}
        curriculum = getattr(trainer.datamodule, "curriculum", None)
        if curriculum is not None and counters.episodes:
            curriculum.observe(counters.judged / size)
            values.update({f"level_{k}": float(v) for k, v in asdict(curriculum.level).items()})
        for name, value in values.items():
            pl_module.log(f"train/{name}", value, batch_size=size)


class SimulatorAudit(L.Callback):
    """At set-up, hands the policy's module to the LM simulator of both copies of the environment (the task's:
    tool, user, judge; the datamodule's: the task writer), so one model serves both; after every step logs, per
    role over the run, `sim_<role>_outputs`, `sim_<role>_unparsed` (answers the stand-in replaced) and, for the tool
    and the user, `sim_<role>_exact` (parsed answers equal to the exact one)."""

    def simulators(self, trainer, pl_module) -> list:
        envs = [getattr(pl_module, "environment", None), getattr(trainer.datamodule, "environment", None)]
        unique = {id(e): e.simulator for e in envs if e is not None and hasattr(e.simulator, "bind")}
        return list(unique.values())

    def setup(self, trainer, pl_module, stage):
        first = None
        for simulator in self.simulators(trainer, pl_module):
            simulator.bind(pl_module.model, like=first)
            first = first or simulator

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        totals: dict[str, float] = {}
        for simulator in self.simulators(trainer, pl_module):
            for role, stats in simulator.stats.items():
                for name, count in asdict(stats).items():
                    key = f"sim_{role}_{name}"
                    totals[key] = totals.get(key, 0.0) + count
        for name, value in totals.items():
            if not (name.endswith("_exact") and name.split("_")[1] in ("task", "judge")):
                pl_module.log(f"train/{name}", value, batch_size=1)
