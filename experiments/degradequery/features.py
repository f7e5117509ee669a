"""The fingerprint baselines' features from a PROTAC-8K batch: ECFP bits, [extra molecule columns], one-hot target, one-hot E3.

A featurizer for `reprolab.tasks.sklearn_estimator.SklearnEstimatorTask` (`task.featurizer`), so the forests
read the same batches of the same `Protac8KDataModule` as the networks. `with_tuple=False` keeps only the
molecule columns (the molecule-only forest); `with_bits=False` drops the ECFP bits (another molecule table
then stands in: `data.mol_tables`, batch key `mol_x`). `NamesSeenInTraining` (around the estimator) keeps only the
one-hot columns of names some training row has.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from reprolab.cli.errors import ConfigError


class TupleFingerprintFeatures:
    def __init__(self, fp_bits: int = 2048, num_targets: int = 512, num_e3s: int = 32, with_tuple: bool = True,
                 with_bits: bool = True, with_mol_tables: bool = False):
        self.fp_bits, self.num_targets, self.num_e3s, self.with_tuple = fp_bits, num_targets, num_e3s, with_tuple
        self.with_bits, self.with_mol_tables = with_bits, with_mol_tables

    def __call__(self, batch: dict) -> np.ndarray:
        """[B, fp_bits (+ table columns) (+ num_targets + num_e3s)] float32 from a batch whose `mol` is on-bit indices
        padded with fp_bits (and whose `mol_x` holds the `data.mol_tables` columns)."""
        mol = batch["mol"]
        if not torch.is_tensor(mol) or mol.ndim != 2:
            raise ConfigError("the fingerprint features need ECFP batches: set data.mol_encoder=ecfp")
        parts = []
        if self.with_bits:
            bits = torch.zeros(len(mol), self.fp_bits + 1)
            bits.scatter_(1, mol.long().cpu(), 1.0)  # column fp_bits collects the padding
            parts.append(bits[:, : self.fp_bits])
        if self.with_mol_tables:
            if "mol_x" not in batch:
                raise ConfigError("task.featurizer.with_mol_tables=true needs molecule tables: set data.mol_tables")
            parts.append(batch["mol_x"].float().cpu())
        if self.with_tuple:
            parts += [torch.nn.functional.one_hot(batch["target"].long().cpu(), self.num_targets).float(),
                      torch.nn.functional.one_hot(batch["e3"].long().cpu(), self.num_e3s).float()]
        return torch.cat(parts, dim=1).numpy()


class NamesSeenInTraining(ClassifierMixin, BaseEstimator):
    """`estimator` fitted without the one-hot name columns (the last num_targets + num_e3s) that no training row
    sets: a forest's `max_features='sqrt'` then counts only names it can split on (one-hot "from labelled names")."""

    def __init__(self, estimator=None, num_targets: int = 512, num_e3s: int = 32):
        self.estimator, self.num_targets, self.num_e3s = estimator, num_targets, num_e3s

    def fit(self, features, labels):
        features = np.asarray(features)
        names = self.num_targets + self.num_e3s
        self.keep_ = np.ones(features.shape[1], dtype=bool)
        self.keep_[-names:] = features[:, -names:].any(axis=0)
        self.estimator_ = clone(self.estimator).fit(features[:, self.keep_], labels)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, features):
        return self.estimator_.predict_proba(np.asarray(features)[:, self.keep_])

    def predict(self, features):
        return self.estimator_.predict(np.asarray(features)[:, self.keep_])
