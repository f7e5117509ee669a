"""Benchmark networks that are not generic MTL architectures: the QM9 MPNN and the CelebA ResNet encoder.

MPNN (Gilmer et al. 2017) as in Nash-MTL's QM9 code: atom embedding (11→64), 3 rounds of an edge-network
NNConv (mean aggregation) + GRU, Set2Set readout (3 steps), a 128→64 layer; 11 linear heads.
CelebA: a ResNet-18 trunk (torchvision, no pre-training) shared by 40 linear heads, on 64×64 crops.
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from reprolab.config.extras import require
from reprolab.mtl.architectures import HardParameterSharing, MTLArchitecture


class MPNN(MTLArchitecture):
    def __init__(self, n_tasks: int = 11, num_features: int = 11, dim: int = 64, edge_dim: int = 5, rounds: int = 3):
        super().__init__()
        require("torch_geometric", "apt")
        from torch_geometric.nn import NNConv, Set2Set

        self.rounds = rounds
        self.lin0 = nn.Linear(num_features, dim)
        edge_net = nn.Sequential(nn.Linear(edge_dim, 128), nn.ReLU(), nn.Linear(128, dim * dim))
        self.conv = NNConv(dim, dim, edge_net, aggr="mean")
        self.gru = nn.GRU(dim, dim)
        self.set2set = Set2Set(dim, processing_steps=3)
        self.lin1 = nn.Linear(2 * dim, dim)
        self.heads = nn.ModuleList([nn.Linear(dim, 1) for _ in range(n_tasks)])

    def forward(self, data) -> list[Tensor]:
        out = F.relu(self.lin0(data.x))
        h = out.unsqueeze(0)
        for _ in range(self.rounds):
            m = F.relu(self.conv(out, data.edge_index, data.edge_attr))
            out, h = self.gru(m.unsqueeze(0), h)
            out = out.squeeze(0)
        rep = F.relu(self.lin1(self.set2set(out, data.batch)))
        return [head(rep) for head in self.heads]

    def task_specific_parameters(self) -> list[nn.Parameter]:
        return list(self.heads.parameters())

    def shared_parameters(self) -> list[nn.Parameter]:
        return [p for name, p in self.named_parameters() if not name.startswith("heads.")]


class ResNetMultiHead(HardParameterSharing):
    """ResNet-18 trunk (its final fc dropped) → 512-d features → `n_tasks` linear heads."""

    def __init__(self, n_tasks: int = 40):
        from torchvision.models import resnet18

        trunk = resnet18(weights=None)
        trunk.fc = nn.Identity()
        super().__init__(trunk, [nn.Linear(512, 1) for _ in range(n_tasks)])
