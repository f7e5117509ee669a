"""Counterfactual tuple pretraining: tell observed (molecule, target, E3) tuples from corruptions.

Each observed tuple is paired with corruptions that replace its target, its E3 ligase, or both
(the three counterfactuals of the paper's abstract). Replacements are drawn from the corpus
frequencies of targets / E3s (`sampling=frequency`) or uniformly, and redrawn until the corrupted
tuple is not an observed one. The loss is binary cross-entropy with the observed tuple as positive
and each kind of corruption weighted equally: L = BCE(s(x), 1) + 1/3 sum_k BCE(s(x~_k), 0).
No label is used; the corpus is the split's `pretrain` records (no evaluation record). The stage itself is
`pretrain_task.CounterfactualPretrainTask` on `datamodule.Protac8KPretrainCorpus` (preset degradequery/pretrain).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from lightning.fabric.utilities.apply_func import move_data_to_device

from .inputs import TupleInputs

KINDS = ("target", "e3", "both")


class CounterfactualSampler:
    """Draws corrupted versions of observed tuples that are themselves not observed."""

    def __init__(self, observed: np.ndarray, num_targets: int, num_e3s: int, sampling: str = "frequency", seed: int = 0):
        if sampling not in ("frequency", "uniform"):
            raise ValueError(f"sampling must be 'frequency' or 'uniform', got '{sampling}'")
        self.num_targets, self.num_e3s = num_targets, num_e3s
        self.observed = np.unique(self._key(observed))
        counts_t = np.bincount(observed[:, 1], minlength=num_targets).astype(float)
        counts_e = np.bincount(observed[:, 2], minlength=num_e3s).astype(float)
        if sampling == "uniform":
            counts_t, counts_e = (counts_t > 0).astype(float), (counts_e > 0).astype(float)
        self.p_target, self.p_e3 = counts_t / counts_t.sum(), counts_e / counts_e.sum()
        self.rng = np.random.default_rng(seed)

    def _key(self, tuples: np.ndarray) -> np.ndarray:
        return (tuples[:, 0] * self.num_targets + tuples[:, 1]) * self.num_e3s + tuples[:, 2]

    def is_observed(self, tuples: np.ndarray) -> np.ndarray:
        keys = self._key(tuples)
        pos = np.searchsorted(self.observed, keys).clip(max=len(self.observed) - 1)
        return self.observed[pos] == keys

    def corrupt(self, tuples: np.ndarray, kind: str, tries: int = 20) -> tuple[np.ndarray, np.ndarray]:
        """(kept row indices, corrupted tuples); rows still observed after `tries` redraws are dropped."""
        out = tuples.copy()
        todo = np.arange(len(out))
        for _ in range(tries):
            if kind in ("target", "both"):
                out[todo, 1] = self.rng.choice(self.num_targets, size=len(todo), p=self.p_target)
            if kind in ("e3", "both"):
                out[todo, 2] = self.rng.choice(self.num_e3s, size=len(todo), p=self.p_e3)
            todo = todo[self.is_observed(out[todo])]
            if len(todo) == 0:
                break
        kept = np.setdiff1d(np.arange(len(out)), todo)
        return kept, out[kept]


def counterfactual_loss(model, inputs: TupleInputs, sampler: CounterfactualSampler, observed: np.ndarray):
    """BCE of observed (label 1) vs each corruption kind (label 0), kinds weighted equally.

    The molecule is the same in a tuple and its corruptions, so its embedding is computed once.
    """
    device = next(model.parameters()).device
    m = model.molecule(move_data_to_device(inputs.molecules(torch.from_numpy(observed[:, 0])), device))

    def score(rows: np.ndarray, tuples: np.ndarray) -> torch.Tensor:
        t = torch.from_numpy(tuples)
        proteins = move_data_to_device(inputs.proteins(t[:, 1], t[:, 2]), device)
        z = model.tuple_embedding(m[torch.from_numpy(rows).to(device)], **proteins)
        return model.compat_head(z).squeeze(-1)

    pos = score(np.arange(len(observed)), observed)
    loss = F.binary_cross_entropy_with_logits(pos, torch.ones_like(pos))
    for kind in KINDS:
        neg = score(*sampler.corrupt(observed, kind))
        loss = loss + F.binary_cross_entropy_with_logits(neg, torch.zeros_like(neg)) / len(KINDS)
    return loss
