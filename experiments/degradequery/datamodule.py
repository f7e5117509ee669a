"""PROTAC-8K as a LightningDataModule (the `reprolab-train experiment=degradequery/...` path).

Batches are dicts `{mol, target, e3, [target_seq, e3_seq], [mol_x], label}` (mol_x: the `mol_tables` columns) (mol: ECFP on-bits or a graph dict) gathered by `TupleInputs`;
`Protac8KPretrainCorpus` serves the distinct tuples of `pretrain_corpus()` (no validation or test record) to pretraining.
"""

from __future__ import annotations

import lightning as L
import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset

from reprolab.cli.errors import ConfigError

from .data import load_protac8k
from .inputs import TupleInputs
from .mol_tables import MolTables
from .splits import SPLITS


class Protac8KDataModule(L.LightningDataModule):
    def __init__(
        self,
        data_dir: str,
        subdir: str = "protac-8k",
        split: str = "official",
        val_fraction: float = 0.15,
        test_fraction: float = 0.2,
        split_seed: int = 0,
        seed: int = 0,
        conflicts: str = "drop",
        fp_radius: int = 2,
        fp_bits: int = 2048,
        use_sequences: bool = False,
        mol_encoder: str = "ecfp",
        batch_size: int = 64,
        num_workers: int = 0,
        max_targets: int = 512,
        max_e3s: int = 32,
        mol_tables: list[str] | tuple[str, ...] = (),
        cache_dir: str | None = None,
    ):
        super().__init__()
        if split not in SPLITS:
            raise ConfigError(f"data.split '{split}' is unknown; choose one of {sorted(SPLITS)}")
        self.save_hyperparameters()
        self.data = self.split = self.inputs = self.mol_x_tables = None

    def setup(self, stage: str | None = None) -> None:
        if self.data is not None:
            return
        h = self.hparams
        self.data = load_protac8k(h.data_dir, h.subdir, h.fp_radius, h.fp_bits, cache_dir=h.cache_dir)
        if len(self.data.targets) > h.max_targets or len(self.data.e3s) > h.max_e3s:
            raise ConfigError(f"PROTAC-8K has {len(self.data.targets)} targets / {len(self.data.e3s)} E3s, more than "
                              f"data.max_targets={h.max_targets} / data.max_e3s={h.max_e3s}; raise them")
        kwargs = {"seed": h.seed, "conflicts": h.conflicts, "val_fraction": h.val_fraction}
        if h.split != "official":
            kwargs.update(test_fraction=h.test_fraction, split_seed=h.split_seed)
        self.split = SPLITS[h.split](self.data, **kwargs)
        self.inputs = TupleInputs(self.data, h.use_sequences, h.mol_encoder)
        self.smiles = self.data.records.drop_duplicates("mol").set_index("mol").smiles.sort_index().tolist()
        self.e3_names = self.data.records.drop_duplicates("e3_id").set_index("e3_id").e3_name.sort_index().tolist()

    def _mol_x(self, tuples: torch.Tensor) -> torch.Tensor:
        """The `mol_tables` columns of a batch's (mol, target, e3) tuples: rows of the tables of every (molecule, E3)
        pair the split's loaders serve, each row computed on first use (`mol_tables.MolTables`, which stores a table
        once a run has served every pair; the part kinds split each molecule for its record's ligase)."""
        if self.mol_x_tables is None:
            served = pd.concat([self.split.train, self.split.val, self.split.test])
            pairs = served[["mol", "e3_id"]].drop_duplicates().sort_values(["mol", "e3_id"])
            self.mol_x_tables = MolTables(tuple(self.smiles[m] for m in pairs.mol), tuple(self.hparams.mol_tables),
                                          self.hparams.fp_bits, tuple(self.e3_names[e] for e in pairs.e3_id),
                                          self.hparams.cache_dir)
            self.mol_x_row = np.full((len(self.smiles), len(self.e3_names)), -1, dtype=np.int64)
            self.mol_x_row[pairs.mol.to_numpy(), pairs.e3_id.to_numpy()] = np.arange(len(pairs))
        rows = self.mol_x_row[tuples[:, 0].numpy(), tuples[:, 2].numpy()]
        if (rows < 0).any():
            raise ConfigError("data.mol_tables serves the split's train, validation and test records only")
        return torch.from_numpy(self.mol_x_tables.rows(rows))

    @property
    def num_targets(self) -> int:
        return len(self.data.targets)

    @property
    def num_e3s(self) -> int:
        return len(self.data.e3s)

    def pretrain_corpus(self) -> np.ndarray:
        """[n, 3] (mol, target, e3) of every record pretraining may use."""
        return self.data.tuples(self.split.pretrain)

    def _collate(self, items) -> dict[str, torch.Tensor]:
        tuples, labels = zip(*items, strict=True)
        tuples = torch.stack(tuples)
        extra = {"mol_x": self._mol_x(tuples)} if self.hparams.mol_tables else {}
        return {**self.inputs(tuples), **extra, "label": torch.stack(labels).float()}

    def _loader(self, rows, shuffle: bool) -> DataLoader:
        dataset = TensorDataset(torch.from_numpy(self.data.tuples(rows)), torch.from_numpy(rows.label.to_numpy(dtype=np.int64, copy=True)))
        return DataLoader(dataset, batch_size=self.hparams.batch_size, shuffle=shuffle,
                          num_workers=self.hparams.num_workers, collate_fn=self._collate)

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.split.train, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.split.val, shuffle=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader(self.split.test, shuffle=False)


class Protac8KPretrainCorpus(Protac8KDataModule):
    """The distinct (mol, target, e3) tuples of the split's pretraining corpus as [B, 3] long batches, no label.

    Training draws `batch_size` tuples per step without replacement and reshuffles once fewer remain (drop_last);
    the test loader scores every tuple once. The pretraining task has no validation step (no selection).
    """

    def tuples(self) -> np.ndarray:
        return np.unique(self.pretrain_corpus(), axis=0)

    def _corpus_loader(self, shuffle: bool) -> DataLoader:
        return DataLoader(torch.from_numpy(self.tuples()), batch_size=self.hparams.batch_size, shuffle=shuffle,
                          drop_last=shuffle, num_workers=self.hparams.num_workers)

    def train_dataloader(self) -> DataLoader:
        return self._corpus_loader(shuffle=True)

    def test_dataloader(self) -> DataLoader:
        return self._corpus_loader(shuffle=False)
