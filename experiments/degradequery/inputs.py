"""Turn (mol, target_id, e3_id) index tuples into the tensors `DegradeQuery` consumes."""

from __future__ import annotations

import numpy as np
import torch

from .data import Protac8K
from .graphs import mol_graphs


def on_bit_table(fingerprints: np.ndarray) -> torch.Tensor:
    """[n_mol, max_on] long: each row's on-bit indices, padded with n_bits (FingerprintEncoder's pad)."""
    n_mol, n_bits = fingerprints.shape
    counts = (fingerprints > 0).sum(1)
    table = np.full((n_mol, max(int(counts.max()), 1)), n_bits, dtype=np.int64)
    rows, cols = np.nonzero(fingerprints)
    table[rows, np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)] = cols
    return torch.from_numpy(table)


class TupleInputs:
    """Holds the molecule (fingerprint or graph) and sequence tables once; gathers a batch's rows from them.

    `mol_encoder='ecfp'` gives the molecule input as on-bit indices [B, L]; 'gin' as a graph dict.
    """

    def __init__(self, data: Protac8K, use_sequences: bool = False, mol_encoder: str = "ecfp"):
        if mol_encoder not in ("ecfp", "gin"):
            raise ValueError(f"mol_encoder must be 'ecfp' or 'gin', got '{mol_encoder}'")
        self.fp_on = on_bit_table(data.fingerprints) if mol_encoder == "ecfp" else None
        self.graphs = mol_graphs(tuple(data.smiles)) if mol_encoder == "gin" else None
        self.target_seq = torch.from_numpy(data.target_seq) if use_sequences else None
        self.e3_seq = torch.from_numpy(data.e3_seq) if use_sequences else None

    def molecules(self, mol: torch.Tensor) -> torch.Tensor | dict[str, torch.Tensor]:
        return self.fp_on[mol] if self.graphs is None else self.graphs.gather(mol)

    def proteins(self, target: torch.Tensor, e3: torch.Tensor) -> dict[str, torch.Tensor]:
        out = {"target": target, "e3": e3}
        if self.target_seq is not None:
            out["target_seq"], out["e3_seq"] = self.target_seq[target], self.e3_seq[e3]
        return out

    def __call__(self, tuples: np.ndarray | torch.Tensor) -> dict[str, torch.Tensor]:
        tuples = torch.as_tensor(np.asarray(tuples), dtype=torch.long)
        if tuples.ndim != 2 or tuples.shape[1] != 3:
            raise ValueError(f"expected (mol, target, e3) tuples of shape [n, 3], got {tuple(tuples.shape)}")
        mol, target, e3 = tuples.unbind(-1)
        return {"mol": self.molecules(mol), **self.proteins(target, e3)}
