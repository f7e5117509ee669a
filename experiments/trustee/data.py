"""Datamodules over generated training tasks: prompts for the policy task (drawn by the curriculum at every step)
and scripted-expert episodes for supervised learning (the warm start, and arm d). Validation tasks are generated
once (the same for every arm and seed); test tasks are the held-out BFCL tasks (env.py)."""

from __future__ import annotations

import random

from torch.utils.data import DataLoader, Dataset

from experiments.trustee.curriculum import Curriculum
from reprolab.lm.data import ExpertEpisodeDataModule, PromptDataModule, expert_batch, listed


class CurriculumBatches(Dataset):
    """`batches` batches of `batch_size` tasks from `curriculum.draw`, batch i from a generator seeded (seed, i)."""

    def __init__(self, curriculum: Curriculum, batch_size: int, batches: int, seed: int = 0):
        self.curriculum, self.batch_size, self.batches, self.seed = curriculum, batch_size, batches, seed

    def __len__(self) -> int:
        return self.batches

    def __getitem__(self, i: int) -> list[dict]:
        rng = random.Random(self.seed * 1_000_003 + int(i))
        return [self.curriculum.draw(rng) for _ in range(self.batch_size)]


class GeneratedTaskDataModule(PromptDataModule):
    """Prompt records for the policy task; `schedule` (adaptive | uniform | static) picks the training tasks (drawn
    by the curriculum every step, none at set-up: an LM simulator is handed its model after set-up)."""

    setup_splits = ("val", "test")

    def __init__(self, environment, schedule: str = "adaptive", raise_above: float = 0.7, lower_below: float = 0.3,
                 static_tasks: int = 64, **kwargs):
        super().__init__(environment, **kwargs)
        self.curriculum = Curriculum(environment.generator, schedule, raise_above, lower_below, static_tasks,
                                     self.seed)

    def train_dataloader(self):
        return DataLoader(CurriculumBatches(self.curriculum, self.batch_size, self.train_batches, self.seed),
                          batch_size=None, collate_fn=listed)


class GeneratedExpertDataModule(ExpertEpisodeDataModule):
    """Scripted-expert episodes on freshly generated tasks (uniform difficulty), run through the simulator: the
    expert believes its lies and the user's, so its episodes carry the same noise as the policy's."""

    setup_splits = ("val", "test")

    def __init__(self, environment, tokenizer, schedule: str = "uniform", static_tasks: int = 64, **kwargs):
        super().__init__(environment, tokenizer, **kwargs)
        self.curriculum = Curriculum(environment.generator, schedule, static_tasks=static_tasks, seed=self.seed)

    def episodes(self, records: list[dict]):
        return expert_batch(self.prepare(records), self.tokenizer.pad_id)

    def train_dataloader(self):
        return DataLoader(CurriculumBatches(self.curriculum, self.batch_size, self.train_batches, self.seed),
                          batch_size=None, collate_fn=self.episodes)
