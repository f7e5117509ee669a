"""Datamodules of a language-model policy: prompts for rollouts, and scripted-expert episodes for the warm start.

Both read an environment's `records(split)`. Training batches draw records with replacement from a generator
seeded by (seed, batch index), so a run's batches repeat exactly and an epoch is `train_batches` long;
validation and test go through their split once, in order.
"""

from __future__ import annotations

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

from reprolab.cli.errors import ConfigError
from reprolab.lm.rollout import Episode, expert_actor, run_episodes, start_episodes, to_batch


class DrawnBatches(Dataset):
    """`batches` batches of `batch_size` records, batch i drawn with replacement by a generator seeded (seed, i)."""

    def __init__(self, records: list, batch_size: int, batches: int, seed: int = 0):
        self.records, self.batch_size, self.batches, self.seed = records, batch_size, batches, seed

    def __len__(self) -> int:
        return self.batches

    def __getitem__(self, i: int) -> list:
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + int(i))
        return [self.records[j] for j in torch.randint(len(self.records), (self.batch_size,), generator=generator)]


def listed(batch):
    return batch


class PromptDataModule(L.LightningDataModule):
    """Batches of prompt records (lists of dicts) from `environment.records(split)`; the task rolls them out.
    `setup_splits`: the splits read at set-up (a subclass whose training prompts are drawn later leaves out train)."""

    setup_splits = ("train", "val", "test")

    def __init__(self, environment, batch_size: int = 8, train_batches: int = 1000, eval_batch_size: int = 64,
                 seed: int = 0):
        super().__init__()
        if batch_size < 1 or train_batches < 1 or eval_batch_size < 1:
            raise ConfigError("data.batch_size, data.train_batches and data.eval_batch_size must be >= 1")
        self.environment, self.batch_size, self.train_batches = environment, batch_size, train_batches
        self.eval_batch_size, self.seed = eval_batch_size, seed
        self.splits: dict[str, list] = {}

    def setup(self, stage: str | None = None) -> None:
        for split in self.setup_splits:
            records = self.environment.records(split)
            if not records:
                raise ConfigError(f"environment {type(self.environment).__name__} has no '{split}' prompts")
            self.splits[split] = self.prepare(records)

    def prepare(self, records: list[dict]) -> list:
        return records

    def train_dataloader(self):
        return DataLoader(DrawnBatches(self.splits["train"], self.batch_size, self.train_batches, self.seed),
                          batch_size=None, collate_fn=listed)

    def _eval(self, split: str):
        return DataLoader(self.splits[split], batch_size=self.eval_batch_size, collate_fn=self.collate)

    def collate(self, items):
        return list(items)

    def val_dataloader(self):
        return self._eval("val")

    def test_dataloader(self):
        return self._eval("test")


class ExpertEpisodeDataModule(PromptDataModule):
    """Supervised warm start: each record's scripted-expert episode, as (tokens, targets) next-token pairs whose
    targets are −100 (ignored by cross-entropy) except on the expert's own action tokens."""

    def __init__(self, environment, tokenizer, max_turns: int = 1, **kwargs):
        super().__init__(environment, **kwargs)
        self.tokenizer, self.max_turns = tokenizer, max_turns

    def prepare(self, records):
        episodes = run_episodes(self.environment, start_episodes(self.environment, records, self.tokenizer),
                                self.tokenizer, expert_actor(self.environment, self.tokenizer), self.max_turns)
        return [(e.tokens, e.is_action) for e in episodes]

    def collate(self, items):
        return expert_batch(items, self.tokenizer.pad_id)

    def train_dataloader(self):
        return DataLoader(DrawnBatches(self.splits["train"], self.batch_size, self.train_batches, self.seed),
                          batch_size=None, collate_fn=self.collate)


def expert_batch(items: list[tuple[list[int], list[bool]]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens [B, T − 1], targets [B, T − 1]): targets are the next tokens where the expert emitted them, else −100."""
    batch = to_batch([Episode({}, list(tokens), list(is_action)) for tokens, is_action in items], pad_id)
    targets = batch.tokens[:, 1:].masked_fill(~batch.action_mask, -100)
    return batch.tokens[:, :-1], targets
