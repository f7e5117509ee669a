"""The GIN option: graph batching and the encoder's invariances."""

import pytest
import torch

from experiments.degradequery.graphs import (
    ATOM_DIM,
    ELEMENTS,
    GINEncoder,
    MolGraphs,
    atom_features,
    mol_graphs,
)
from experiments.degradequery.model import DegradeQuery


def test_graph_batch_renumbers_atoms_and_edges():
    graphs = MolGraphs.from_smiles(["CCO", "c1ccccc1", "N"])
    assert graphs.x.shape == (3 + 6 + 1, ATOM_DIM) and graphs.edges.shape == (2, 2 * (2 + 6))
    batch = graphs.gather(torch.tensor([2, 0]))
    assert batch["x"].shape[0] == 4 and batch["graph"].tolist() == [0, 1, 1, 1] and int(batch["size"]) == 2
    assert sorted(batch["edge_index"].T.tolist()) == [[1, 2], [2, 1], [2, 3], [3, 2]]


def test_a_process_builds_the_graphs_of_one_molecule_list_once_and_batches_leave_them_unchanged():
    shared = mol_graphs(("CCO", "c1ccccc1", "N"))
    assert mol_graphs(("CCO", "c1ccccc1", "N")) is shared and mol_graphs(("CCO",)) is not shared
    fresh = MolGraphs.from_smiles(["CCO", "c1ccccc1", "N"])
    batch = shared.gather(torch.tensor([0, 1]))
    batch["x"].add_(1.0)
    batch["edge_index"].add_(1)
    for name in ("x", "edges"):
        torch.testing.assert_close(getattr(shared, name), getattr(fresh, name))
    assert (shared.atom_start == fresh.atom_start).all() and (shared.edge_start == fresh.edge_start).all()


def test_gin_embedding_does_not_depend_on_batch_company():
    torch.manual_seed(0)
    graphs, gin = MolGraphs.from_smiles(["CCO", "c1ccccc1", "CC(=O)N"]), GINEncoder(16, 8).eval()
    alone = gin(graphs.gather(torch.tensor([1])))
    together = gin(graphs.gather(torch.tensor([0, 1, 2])))
    assert torch.allclose(alone[0], together[1], atol=1e-5)


def test_degradequery_with_gin_scores_tuples():
    graphs = MolGraphs.from_smiles(["CCO", "c1ccccc1"])
    model = DegradeQuery(num_targets=4, num_e3s=2, hidden=16, dim=8, mol_encoder="gin").eval()
    out = model(graphs.gather(torch.tensor([0, 1])), torch.tensor([1, 3]), torch.tensor([0, 1]))
    assert out.shape == (2,) and torch.isfinite(out).all()


def _one_hot_by_definition(atom) -> list[float]:
    """The feature definition spelled out block by block (element, degree, aromatic, charge, hydrogens, ring)."""
    element = [float(atom.GetSymbol() == e) for e in ELEMENTS] + [float(atom.GetSymbol() not in ELEMENTS)]
    degree = [float(min(atom.GetDegree(), 5) == d) for d in range(6)]
    charge = [float(max(-1, min(1, atom.GetFormalCharge())) == c) for c in (-1, 0, 1)]
    hydrogens = [float(min(atom.GetTotalNumHs(), 3) == h) for h in range(4)]
    return element + degree + [float(atom.GetIsAromatic())] + charge + hydrogens + [float(atom.IsInRing())]


def test_atom_features_follow_the_definition_on_charges_unknown_elements_and_many_hydrogens():
    chem = pytest.importorskip("rdkit.Chem")
    smiles = ["C[N+](C)(C)C", "CC(=O)[O-]", "[O-][N+](=O)c1ccccc1", "C[Si](C)(C)C", "OB(O)c1ccc(Br)cc1", "[NH4+]",
              "C1CC2(CC1)CCCC2", "CS(=O)(=O)N", "FC(F)(F)I", "[Fe+3]", "[O-2]", "CP(=O)(O)O"]
    for smi in smiles:
        for atom in chem.MolFromSmiles(smi).GetAtoms():
            row = atom_features(atom)
            assert len(row) == ATOM_DIM and row == _one_hot_by_definition(atom), (smi, atom.GetSymbol())
