"""The fingerprint baselines' features from a PROTAC-8K batch: ECFP bits, then one-hot target and one-hot E3.

A featurizer for `reprolab.tasks.sklearn_estimator.SklearnEstimatorTask` (`task.featurizer`), so the forests
read the same batches of the same `Protac8KDataModule` as the networks. `with_tuple=False` keeps only the
ECFP bits (the molecule-only forest).
"""

from __future__ import annotations

import numpy as np
import torch

from reprolab.errors import ConfigError


class TupleFingerprintFeatures:
    def __init__(self, fp_bits: int = 2048, num_targets: int = 512, num_e3s: int = 32, with_tuple: bool = True):
        self.fp_bits, self.num_targets, self.num_e3s, self.with_tuple = fp_bits, num_targets, num_e3s, with_tuple

    def __call__(self, batch: dict) -> np.ndarray:
        """[B, fp_bits (+ num_targets + num_e3s)] uint8 from a batch whose `mol` is on-bit indices padded with fp_bits."""
        mol = batch["mol"]
        if not torch.is_tensor(mol) or mol.ndim != 2:
            raise ConfigError("the fingerprint features need ECFP batches: set data.mol_encoder=ecfp")
        bits = torch.zeros(len(mol), self.fp_bits + 1, dtype=torch.uint8)
        bits.scatter_(1, mol.long().cpu(), 1)  # column fp_bits collects the padding
        parts = [bits[:, : self.fp_bits]]
        if self.with_tuple:
            parts += [torch.nn.functional.one_hot(batch["target"].long().cpu(), self.num_targets).to(torch.uint8),
                      torch.nn.functional.one_hot(batch["e3"].long().cpu(), self.num_e3s).to(torch.uint8)]
        return torch.cat(parts, dim=1).numpy()
