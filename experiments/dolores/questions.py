"""The evaluation questions as a datamodule for the test-only scaffold task: a toy universe of `people` articles
(50 or 500) and `per_hop` questions of each hop count 1..`max_hops`, each with its fixed monolithic context of
`context_articles` articles (the question's evidence among distractors). Only `test` is ever read (max_epochs 0).
"""

from __future__ import annotations

import lightning as L
from torch.utils.data import DataLoader

from experiments.dolores.universe import Universe
from experiments.dolores.world import ToyWorld
from reprolab.cli.errors import ConfigError


def listed(items):
    return list(items)


class ScaffoldQuestionsDataModule(L.LightningDataModule):
    def __init__(self, people: int = 50, universe_seed: int = 1, per_hop: int = 40, max_hops: int = 5,
                 context_articles: int = 8, question_seed: int = 0, batch_size: int = 100, pool: int = 600):
        super().__init__()
        if per_hop < 1 or max_hops < 1 or context_articles < max_hops:
            raise ConfigError(f"data.per_hop and data.max_hops must be >= 1 and data.context_articles "
                              f"({context_articles}) >= data.max_hops ({max_hops}): a context holds every hop's article")
        self.world = ToyWorld(Universe(people, universe_seed, pool), pool)
        self.records = self.world.records(per_hop, max_hops, context_articles, question_seed)
        self.batch_size = batch_size

    def test_dataloader(self):
        return DataLoader(self.records, batch_size=self.batch_size, collate_fn=listed)

    def train_dataloader(self):  # never iterated: the scaffold task is test-only (trainer.max_epochs 0)
        return self.test_dataloader()
