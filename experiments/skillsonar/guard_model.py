"""The guard as the run's model: a rule list compiled to a decision table over the feature grid
(category x relevant x provenance), held as a frozen tensor so the checkpoint carries the evolved guard.

`guard` names the starting rule list (rules.GUARDS); `scanner: true` adds the pre-install scanner (the skill is
vetted once, before any call). The table is what decides; the rule list is its readable text and its size.
"""

from __future__ import annotations

import itertools

import torch
from torch import nn

from experiments.skillsonar.actions import CATEGORIES, PROVENANCES, ActionContext, Features, features
from experiments.skillsonar.rules import DECISIONS, GUARDS, RuleGuard
from experiments.skillsonar.scanner import PreinstallScanner
from reprolab.cli.errors import ConfigError


def compile_table(guard: RuleGuard) -> torch.Tensor:
    table = torch.zeros(len(CATEGORIES), 2, len(PROVENANCES))
    for (c, category), rel, (p, prov) in itertools.product(enumerate(CATEGORIES), (0, 1), enumerate(PROVENANCES)):
        table[c, rel, p] = DECISIONS.index(guard.decide_features(Features(category, bool(rel), prov)))
    return table


class GuardModel(nn.Module):
    def __init__(self, guard: str = "runtime", scanner: bool = False, block_at: str = "serious"):
        super().__init__()
        if guard not in GUARDS:
            raise ConfigError(f"model.guard={guard!r}; starting guards: {', '.join(GUARDS)}")
        self.scanner = PreinstallScanner(block_at) if scanner else None
        self.decisions = nn.Parameter(torch.zeros(len(CATEGORIES), 2, len(PROVENANCES)), requires_grad=False)
        self.set_guard(GUARDS[guard]())

    def set_guard(self, guard: RuleGuard) -> None:
        self.guard = guard
        self.decisions.data.copy_(compile_table(guard))

    def decide(self, ctx: ActionContext) -> str:
        f = features(ctx)
        cell = self.decisions[CATEGORIES.index(f.category), int(f.relevant), PROVENANCES.index(f.provenance)]
        return DECISIONS[int(cell)]

    def text(self) -> str:
        """The rule list as a system-prompt skill (what an LLM agent reads; rules.RuleGuard.text)."""
        return self.guard.text()

    @property
    def size(self) -> int:
        return self.guard.size

    def forward(self, ctx: ActionContext) -> str:
        return self.decide(ctx)
