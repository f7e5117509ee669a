"""Profiles generated offline with their classic-rule winners; PrefLib elections as an optional test set.

A batch is (ballots[B, n, m], winners[B, m]): the tied winners of `rule`, whose uniform lottery is the
target (DeepVoting §3). Train, val and test profiles are drawn once in `setup` from `seed` (so every arm
of a claim with the same seed sees the same test profiles). `permute_candidates` renames the candidates of
each training profile at random, every batch (candidate-permutation augmentation, DeepVoting §4).
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from experiments.voting.embeddings import permute_candidates
from experiments.voting.preflib import load_preflib_dir
from experiments.voting.profiles import sample_profiles
from experiments.voting.rules import rule_by_name
from reprolab.cli.errors import ConfigError


def permuted_batch(items: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Collate, then rename candidates: ballots keep their meaning, winners[perm[c]] = winners[c]."""
    ballots = torch.stack([b for b, _ in items])
    winners = torch.stack([w for _, w in items])
    perm = torch.argsort(torch.rand(ballots.shape[0], ballots.shape[-1]), dim=-1)
    return permute_candidates(ballots, perm), torch.zeros_like(winners).scatter(-1, perm, winners)


class ProfileDataModule(L.LightningDataModule):
    def __init__(self, num_candidates: int = 5, num_voters: int = 25, culture: str = "ic", phi: float = 0.5,
                 alpha: float = 0.1, rule: str = "borda", num_train: int = 20000, num_val: int = 2000,
                 num_test: int = 2000, batch_size: int = 256, eval_batch_size: int = 2000,
                 permute_candidates: bool = True, seed: int = 0, preflib_dir: str | None = None, num_workers: int = 0):
        super().__init__()
        if num_candidates < 2 or num_voters < 1:
            raise ConfigError(f"data.num_candidates={num_candidates}, data.num_voters={num_voters}: need m >= 2, n >= 1")
        self.m, self.n = num_candidates, num_voters
        self.culture, self.phi, self.alpha = culture, phi, alpha
        self.rule = rule_by_name(rule)
        self.sizes = {"train": num_train, "val": num_val, "test": num_test}
        self.batch_size, self.eval_batch_size = batch_size, eval_batch_size
        self.permute, self.seed, self.num_workers = permute_candidates, seed, num_workers
        self.preflib_dir = preflib_dir
        self.splits: dict[str, TensorDataset] = {}

    def labelled(self, ballots: torch.Tensor, chunk: int = 8192) -> TensorDataset:
        return TensorDataset(ballots, torch.cat([self.rule(part) for part in ballots.split(chunk)]))

    def setup(self, stage: str | None = None) -> None:
        if self.splits:
            return
        rng = np.random.default_rng(self.seed)
        for split, k in self.sizes.items():   # fixed order: the test profiles depend on the seed only
            ballots = sample_profiles(self.culture, rng, k, self.n, self.m, self.phi, self.alpha)
            self.splits[split] = self.labelled(torch.from_numpy(ballots))
        if self.preflib_dir:
            self.splits["test"] = [self.labelled(b[None]) for b in load_preflib_dir(Path(self.preflib_dir), self.m)]

    def train_dataloader(self):
        return DataLoader(self.splits["train"], batch_size=self.batch_size, shuffle=True, drop_last=True,
                          collate_fn=permuted_batch if self.permute else None, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.splits["val"], batch_size=self.eval_batch_size, num_workers=self.num_workers)

    def test_dataloader(self):
        if isinstance(self.splits["test"], list):   # PrefLib: elections differ in n, one per batch
            return DataLoader(torch.utils.data.ConcatDataset(self.splits["test"]), batch_size=1)
        return DataLoader(self.splits["test"], batch_size=self.eval_batch_size, num_workers=self.num_workers)
