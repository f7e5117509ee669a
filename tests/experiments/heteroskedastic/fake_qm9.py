"""A stand-in for APT's QM9 data module (same constructor, `sets` and `target_scale`): small random
complete graphs with QM9's 11 node features, 5 edge features (+ distance) and 11 targets."""

import torch
from torch_geometric.data import Data


def random_molecule(g: torch.Generator) -> Data:
    n = int(torch.randint(3, 7, (1,), generator=g))
    src, dst = torch.arange(n).repeat_interleave(n), torch.arange(n).repeat(n)
    keep = src != dst
    return Data(x=torch.randn(n, 11, generator=g), edge_index=torch.stack([src[keep], dst[keep]]),
                edge_attr=torch.randn(int(keep.sum()), 5, generator=g), y=torch.randn(1, 11, generator=g))


class Graphs(list):
    """A list that, like a PyG dataset, takes a tensor of indices."""

    def __getitem__(self, index):
        if isinstance(index, torch.Tensor):
            return Graphs(super(Graphs, self).__getitem__(int(i)) for i in index)
        return super().__getitem__(index)


class FakeQM9DataModule:
    def __init__(self, data_dir=None, batch_size=8, num_workers=0, download=False, seed=0, limit=None):
        self.target_scale = torch.linspace(1.0, 2.0, 11) * 1000
        self.sets = {}

    def setup(self, stage=None):
        g = torch.Generator().manual_seed(0)
        self.sets = {k: Graphs(random_molecule(g) for _ in range(n)) for k, n in (("train", 40), ("val", 8), ("test", 8))}
