"""The report environment: a prompt is a dossier, the action a report, the reward the chosen rubric's judge.

At construction the rubric builder (`rubric=`) is fitted on the public world through the search tool (`search`,
a partial taking `documents` and `seed`: `corpus.NoisySearch` here), so every arm of a seed trains on the same
prompts and world and differs only in its rubric. Training prompts are rewarded by the rubric (stage B's reward);
val and test prompts (held-out entities) by the oracle quality, which is what `val/reward` and `test/reward` report;
`measures` adds coverage F1, the hallucination rate and the rubric's own reward for the evaluation logs.

The scripted expert (the SFT warm start) writes a generic faithful report: 2 to `budget` attributes of the
dossier in a random order fixed per entity, so the warm start has the format and no knowledge of any standard.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from experiments.dr_rubric.builders import RubricBuilder
from experiments.dr_rubric.corpus import build_corpus
from experiments.dr_rubric.rubric import coverage_f1, hallucination_rate, oracle_rubric, rubric_score
from experiments.dr_rubric.world import ATTRIBUTES, World, write_report
from reprolab.cli.errors import ConfigError
from reprolab.lm.environments.base import RewardEnvironment


class ReportEnvironment(RewardEnvironment):
    def __init__(self, world: World, rubric: RubricBuilder, search: Callable, copies: int = 2, misleading: int = 3,
                 normalise: bool = True):
        if not isinstance(rubric, RubricBuilder):
            raise ConfigError(f"environment.rubric must be a rubric builder (conf/rubric/*); got {type(rubric).__name__}")
        self.world, self.builder, self.normalise = world, rubric, normalise
        self.corpus = build_corpus(world, copies, misleading)
        self.sessions = []

        def session(category: str):
            self.sessions.append(search(documents=self.corpus, seed=[world.seed, world.categories.index(category)]))
            return self.sessions[-1]

        rubric.fit(world.public(), session, world.standards if rubric.reads_standard else None)

    @property
    def search_queries(self) -> int:
        return sum(s.queries for s in self.sessions)

    def records(self, split):
        return self.world.records(split)

    def oracle_quality(self, record: dict, report: str) -> float:
        return rubric_score(oracle_rubric(self.world.standards[record["category"]]), record, report, self.world.budget)

    def rubric_reward(self, record: dict, report: str) -> float:
        return rubric_score(self.builder.rubric(record), record, report, self.world.budget, self.normalise)

    def reward(self, record, completion):
        if record["split"] == "train":
            return self.rubric_reward(record, completion)
        return self.oracle_quality(record, completion)

    def measures(self, record: dict, report: str) -> dict[str, float]:
        standard = self.world.standards[record["category"]]
        return {"oracle_quality": self.oracle_quality(record, report),
                "coverage_f1": coverage_f1(record, report, standard),
                "hallucination_rate": hallucination_rate(record, report),
                "rubric_reward": self.rubric_reward(record, report)}

    def expert(self, record, history):
        rng = np.random.default_rng(zlib.crc32(record["entity"].encode()))
        size = int(rng.integers(2, self.world.budget + 1))
        return write_report(record, [ATTRIBUTES[i] for i in rng.permutation(len(ATTRIBUTES))[:size]])
