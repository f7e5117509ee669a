"""Molecular graphs and a GIN encoder: the graph option for the molecule encoder (`model.mol_encoder=gin`).

Atoms carry a 25-dim one-hot description (element, degree, aromaticity, formal charge, hydrogens,
ring membership); bonds are undirected edges. `GINEncoder` is a Graph Isomorphism Network
(Xu et al., 2019, eq. 4.1: h_v <- MLP((1 + eps) h_v + sum_{u in N(v)} h_u)) with a mean readout,
written with `index_add_` so it needs no graph library.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch
from torch import nn

from reprolab.config.extras import require

ELEMENTS = ("C", "N", "O", "S", "F", "Cl", "Br", "I", "P")
ATOM_DIM = len(ELEMENTS) + 1 + 6 + 1 + 3 + 4 + 1


_ELEMENT = {element: i for i, element in enumerate(ELEMENTS)}
_DEGREE, _AROMATIC = len(ELEMENTS) + 1, len(ELEMENTS) + 7  # where each block of the row starts
_CHARGE, _HYDROGENS, _RING = _AROMATIC + 1, _AROMATIC + 4, _AROMATIC + 8


def atom_features(atom) -> list[float]:
    """One-hot element (other last), degree (≥ 5 last), aromatic, formal charge clipped to ±1, hydrogens (≥ 3 last),
    in ring. Each RDKit property is read once (this runs for every atom of every molecule at each set-up)."""
    row = [0.0] * ATOM_DIM
    row[_ELEMENT.get(atom.GetSymbol(), len(ELEMENTS))] = 1.0
    row[_DEGREE + min(atom.GetDegree(), 5)] = 1.0
    row[_AROMATIC] = float(atom.GetIsAromatic())
    row[_CHARGE + 1 + max(-1, min(1, atom.GetFormalCharge()))] = 1.0
    row[_HYDROGENS + min(atom.GetTotalNumHs(), 3)] = 1.0
    row[_RING] = float(atom.IsInRing())
    return row


@dataclass
class MolGraphs:
    """All molecules' atoms and edges, concatenated; `gather` builds the batch of some of them."""

    x: torch.Tensor  # [n_atoms, ATOM_DIM]
    edges: torch.Tensor  # [2, n_edges] local (per-molecule) atom indices, both directions
    atom_start: np.ndarray  # [n_mol + 1]
    edge_start: np.ndarray  # [n_mol + 1]

    @classmethod
    def from_smiles(cls, smiles) -> MolGraphs:
        require("rdkit", "degradequery")
        from rdkit import Chem

        xs, edges, atom_start, edge_start = [], [], [0], [0]
        for smi in smiles:
            mol = Chem.MolFromSmiles(smi)
            xs += [atom_features(mol.GetAtomWithIdx(i)) for i in range(mol.GetNumAtoms())]
            pairs = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()]
            edges += pairs + [(j, i) for i, j in pairs]
            atom_start.append(atom_start[-1] + mol.GetNumAtoms())
            edge_start.append(edge_start[-1] + 2 * len(pairs))
        return cls(torch.tensor(xs, dtype=torch.float32), torch.tensor(edges, dtype=torch.long).reshape(-1, 2).T,
                   np.array(atom_start), np.array(edge_start))

    def gather(self, mol: torch.Tensor) -> dict[str, torch.Tensor]:
        """{x, edge_index, graph, size} of the molecules `mol`, renumbered as one disjoint graph."""
        mol = mol.numpy()
        sizes = self.atom_start[mol + 1] - self.atom_start[mol]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        atoms = np.concatenate([np.arange(self.atom_start[m], self.atom_start[m + 1]) for m in mol])
        edge_index = torch.cat([self.edges[:, self.edge_start[m]:self.edge_start[m + 1]] + int(o)
                                for m, o in zip(mol, offsets, strict=True)], dim=1)
        graph = torch.from_numpy(np.repeat(np.arange(len(mol)), sizes))
        return {"x": self.x[torch.from_numpy(atoms)], "edge_index": edge_index, "graph": graph,
                "size": torch.tensor(len(mol))}


@lru_cache(maxsize=2)
def mol_graphs(smiles: tuple[str, ...]) -> MolGraphs:
    """`MolGraphs.from_smiles`, built once a process per molecule list, so the jobs of a sweep share one set
    (PROTAC-8K's 5,660 molecules take ~4 s of RDKit per build). Shared: read it, never write into it."""
    return MolGraphs.from_smiles(smiles)


class GINEncoder(nn.Module):
    """GIN layers (sum aggregation, learnable eps) -> mean over atoms -> Linear to `dim`."""

    def __init__(self, hidden: int, dim: int, layers: int = 3, dropout: float = 0.1):
        super().__init__()
        self.embed = nn.Linear(ATOM_DIM, hidden)
        self.eps = nn.Parameter(torch.zeros(layers))
        self.layers = nn.ModuleList(
            nn.Sequential(nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, hidden))
            for _ in range(layers)
        )
        self.out = nn.Linear(hidden, dim)

    def forward(self, graph: dict[str, torch.Tensor]) -> torch.Tensor:
        h = self.embed(graph["x"])
        src, dst = graph["edge_index"]
        for eps, layer in zip(self.eps, self.layers, strict=True):
            neighbours = torch.zeros_like(h).index_add_(0, dst, h[src])
            h = h + layer((1 + eps) * h + neighbours)
        n_graphs = int(graph["size"])
        pooled = h.new_zeros(n_graphs, h.shape[1]).index_add_(0, graph["graph"], h)
        counts = torch.bincount(graph["graph"], minlength=n_graphs).clamp(min=1).unsqueeze(1)
        return self.out(pooled / counts)
