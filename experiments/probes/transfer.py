"""The states of two finished source runs A and B on the same inputs, for monitor transfer (`task=sklearn_estimator`).

Each model's readout input is whitened on its own training states (unlabelled, no pairing). A training batch
holds A's state on every training input and B's state only on `n_pairs` of them drawn by the seed (NaN on the
rest), so an alignment cannot see more than `n_pairs` paired inputs; `n_pairs: null` pairs every input (the
oracle, which reads B with labels). Validation and test batches hold both states of their split.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader

from experiments.probes.digits import as_images, digits_images
from experiments.probes.full_batch import FullBatchSplits
from experiments.probes.sources import load_source, readout_inputs, untrained_source
from experiments.probes.whitening import FittedInputMap
from reprolab.cli.errors import ConfigError
from reprolab.data.digits import fake_digits_arrays


def whitened(h_train: torch.Tensor, *others: torch.Tensor) -> list[torch.Tensor]:
    white = FittedInputMap(h_train.shape[1], "whiten").double().fit(h_train)
    return [white(h) for h in (h_train, *others)]


class PairedStates:
    """Featurizer: a batch {a, b, label} → a record array with fields `a` and `b` (float64 blocks per row)."""

    def __call__(self, batch) -> np.ndarray:
        a, b = (torch.as_tensor(batch[k]).double().numpy() for k in ("a", "b"))
        records = np.empty(len(a), dtype=[("a", np.float64, (a.shape[1],)), ("b", np.float64, (b.shape[1],))])
        records["a"], records["b"] = a, b
        return records


class SourceStatesDataModule(FullBatchSplits):
    def __init__(self, sources_dir: str, source_a: str, source_b: str, seed: int = 0, b_seed_offset: int = 1,
                 n_pairs: int | None = 200, val_size: int = 180, data_dir: str = "data", download: bool = False):
        super().__init__()
        if n_pairs is not None and n_pairs < 2:
            raise ConfigError(f"data.n_pairs={n_pairs}; the alignment needs at least 2 paired inputs (null: all)")
        self.run_a = f"{sources_dir}/{source_a}_seed{seed}"
        self.run_b = f"{sources_dir}/{source_b}_seed{seed + b_seed_offset}"
        self.seed, self.n_pairs, self.val_size = seed, n_pairs, val_size
        self.data_dir, self.download = data_dir, download
        self.sources = (source_a, source_b)

    def setup(self, stage: str | None = None) -> None:
        (model_a, cfg_a), (model_b, _) = load_source(self.run_a), load_source(self.run_b)
        self.fit_states(model_a, model_b, *digits_images(cfg_a.data.source, self.data_dir, self.download))

    def fake_setup(self, stage: str | None = None) -> None:
        """The two source presets' networks untrained, on random pixels of their source's sizes (reprolab.data.fake)."""
        (model_a, cfg_a), (model_b, _) = (untrained_source(f"probes/{s}") for s in self.sources)
        self.fit_states(model_a, model_b, *as_images(*fake_digits_arrays(cfg_a.data.source)))

    def fit_states(self, model_a, model_b, x, y, x_test, y_test) -> None:
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(1))   # the sources' own val split
        val, train = order[: self.val_size], order[self.val_size:]
        a, a_val, a_test = whitened(*(readout_inputs(model_a, x_) for x_ in (x[train], x[val], x_test)))
        b, b_val, b_test = whitened(*(readout_inputs(model_b, x_) for x_ in (x[train], x[val], x_test)))
        if self.n_pairs is not None:
            if self.n_pairs > len(train):
                raise ConfigError(f"data.n_pairs={self.n_pairs} exceeds the {len(train)} training inputs")
            unpaired = torch.randperm(len(train), generator=torch.Generator().manual_seed(self.seed))[self.n_pairs:]
            b = b.clone()
            b[unpaired] = float("nan")
        self.splits = {"train": {"a": a, "b": b, "label": y[train]}, "val": {"a": a_val, "b": b_val, "label": y[val]},
                       "test": {"a": a_test, "b": b_test, "label": y_test}}

    def _loader(self, split: str) -> DataLoader:
        return DataLoader([self.splits[split]], batch_size=None)   # one full batch
