"""QM9 through PyTorch Geometric, exactly as Nash-MTL sets it up (Navon et al. 2022, §6.2; their code).

11 targets [μ, α, HOMO, LUMO, R², ZPVE, U0_atom, U_atom, H_atom, G_atom, c_v] (PyG indices
0,1,2,3,5,6,12,13,14,15,11), complete graphs with distances as edge features, one seeded shuffle:
test = first 10,000, val = next 10,000, train = the rest (110,831). Targets are standardised with the train
mean/std; `target_scale` = std × 1000 for the energies (reported in meV). `torch_geometric.datasets.QM9`
downloads and verifies the raw archive on first use (`python scripts/data/prepare_qm9.py`).
"""

from __future__ import annotations

from pathlib import Path

import torch

from experiments.apt.loaders import SplitDataModule
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.config.extras import require
from reprolab.data.fake import FakeSamples

TARGETS = [0, 1, 2, 3, 5, 6, 12, 13, 14, 15, 11]
MEV = [2, 3, 5, 6, 7, 8, 9]  # positions (in TARGETS order) reported in meV instead of eV
N_MOLECULES = 130831
SPLIT_SIZES = {"train": N_MOLECULES - 20000, "val": 10000, "test": 10000}


def fake_molecule(generator: torch.Generator):
    """A raw PyG QM9 record of random values: 2-29 atoms (11 features, one-hot element), a bond chain
    (4 one-hot bond types) and 19 targets, as `torch_geometric.datasets.QM9` stores one."""
    from torch_geometric.data import Data

    n = int(torch.randint(2, 30, (), generator=generator))
    x = torch.rand(n, 11, generator=generator)
    x[:, :5] = torch.nn.functional.one_hot(torch.randint(0, 5, (n,), generator=generator), 5).float()
    src = torch.arange(n - 1)
    edge_index = torch.cat([torch.stack([src, src + 1]), torch.stack([src + 1, src])], dim=1)
    bond = torch.nn.functional.one_hot(torch.randint(0, 4, (n - 1,), generator=generator), 4).float()
    return Data(x=x, edge_index=edge_index, edge_attr=torch.cat([bond, bond]), pos=torch.randn(n, 3, generator=generator),
                z=torch.randint(1, 10, (n,), generator=generator), y=torch.randn(1, 19, generator=generator))


class CompleteGraph:
    """All ordered atom pairs as edges (no self loops); bond features where a bond exists, zeros elsewhere."""

    def __call__(self, data):
        from torch_geometric.utils import remove_self_loops

        n = data.num_nodes
        row = torch.arange(n).repeat_interleave(n)
        col = torch.arange(n).repeat(n)
        attr = data.edge_attr.new_zeros((n * n, data.edge_attr.shape[1]))
        attr[data.edge_index[0] * n + data.edge_index[1]] = data.edge_attr
        data.edge_index, data.edge_attr = remove_self_loops(torch.stack([row, col]), attr)
        return data


class SelectTargets:
    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        self.mean, self.std = mean, std

    def __call__(self, data):
        data.y = (data.y[:, TARGETS] - self.mean) / self.std
        return data


class QM9DataModule(SplitDataModule):
    def __init__(self, data_dir: str, batch_size: int = 120, num_workers: int = 4, download: bool = False,
                 seed: int = 0, limit: int | None = None):
        super().__init__()
        self.root = Path(data_dir) / "qm9"
        self.batch_size, self.num_workers, self.download, self.seed, self.limit = batch_size, num_workers, download, seed, limit
        self.target_scale = None

    def setup(self, stage: str | None = None) -> None:
        require("torch_geometric", "apt")
        import torch_geometric.transforms as T
        from torch_geometric.datasets import QM9

        if not self.download and not (self.root / "processed").is_dir():
            raise DatasetNotFoundError(f"no QM9 under '{self.root}'; run 'python scripts/data/prepare_qm9.py "
                                       f"--data-dir {self.root.parent}' or set data.download=true")
        raw = QM9(str(self.root))
        if len(raw) != N_MOLECULES:
            raise CorruptDataError(f"QM9 under '{self.root}' has {len(raw)} molecules, expected {N_MOLECULES}; "
                                   "delete the folder and re-run scripts/data/prepare_qm9.py")
        perm = torch.randperm(len(raw), generator=torch.Generator().manual_seed(self.seed))
        test_idx, val_idx, train_idx = perm[:10000], perm[10000:20000], perm[20000:]
        y = raw.y[:, TARGETS]  # the collated targets (InMemoryDataset exposes them by attribute)
        mean, std = y[train_idx].mean(0), y[train_idx].std(0)
        self.target_scale = std * torch.tensor([1000.0 if i in MEV else 1.0 for i in range(len(TARGETS))])
        ds = QM9(str(self.root), transform=T.Compose([SelectTargets(mean, std), CompleteGraph(), T.Distance(norm=False)]))
        limit = self.limit or None
        self.sets = {"train": ds[train_idx[:limit]], "val": ds[val_idx[:limit]], "test": ds[test_idx[:limit]]}

    def fake_setup(self, stage: str | None = None) -> None:
        """Random molecules in QM9's split sizes through the real transforms (reprolab.data.fake)."""
        import torch_geometric.transforms as T

        n = len(TARGETS)
        transform = T.Compose([SelectTargets(torch.zeros(n), torch.ones(n)), CompleteGraph(), T.Distance(norm=False)])
        self.target_scale = torch.tensor([1000.0 if i in MEV else 1.0 for i in range(n)])
        self.sets = {k: FakeSamples(lambda g: transform(fake_molecule(g)), min(self.limit or size, size), i)
                     for i, (k, size) in enumerate(SPLIT_SIZES.items())}

    def make_loader(self, dataset, shuffle: bool):
        from torch_geometric.loader import DataLoader

        return DataLoader(dataset, batch_size=self.batch_size, shuffle=shuffle, num_workers=self.num_workers)
