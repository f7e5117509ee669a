"""The GIN option: graph batching and the encoder's invariances."""

import torch

from experiments.degradequery.graphs import ATOM_DIM, GINEncoder, MolGraphs
from experiments.degradequery.model import DegradeQuery


def test_graph_batch_renumbers_atoms_and_edges():
    graphs = MolGraphs.from_smiles(["CCO", "c1ccccc1", "N"])
    assert graphs.x.shape == (3 + 6 + 1, ATOM_DIM) and graphs.edges.shape == (2, 2 * (2 + 6))
    batch = graphs.gather(torch.tensor([2, 0]))
    assert batch["x"].shape[0] == 4 and batch["graph"].tolist() == [0, 1, 1, 1] and int(batch["size"]) == 2
    assert sorted(batch["edge_index"].T.tolist()) == [[1, 2], [2, 1], [2, 3], [3, 2]]


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
