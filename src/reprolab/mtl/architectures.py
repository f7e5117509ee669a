"""MTL architectures that expose which parameters are shared and which belong to one task.

`HardParameterSharing` (Caruana 1997): one shared encoder, one head per task. Every architecture here has
`shared_parameters()` and `task_specific_parameters()`, which is all the engine needs; MTAN lives in
`reprolab.mtl.segnet_mtan`.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import Tensor, nn


class MTLArchitecture(nn.Module):
    def shared_parameters(self) -> list[nn.Parameter]:  # pragma: no cover
        raise NotImplementedError

    def task_specific_parameters(self) -> list[nn.Parameter]:  # pragma: no cover
        raise NotImplementedError


class HardParameterSharing(MTLArchitecture):
    """forward(x) → list of T head outputs computed from one shared representation."""

    def __init__(self, encoder: nn.Module, heads: Sequence[nn.Module]):
        super().__init__()
        self.encoder = encoder
        self.heads = nn.ModuleList(heads)

    def forward(self, x: Tensor) -> list[Tensor]:
        rep = self.encoder(x)
        self.representation = rep  # the shared z of the last forward, for the "-UB" weightings
        return [head(rep) for head in self.heads]

    def shared_parameters(self) -> list[nn.Parameter]:
        return list(self.encoder.parameters())

    def task_specific_parameters(self) -> list[nn.Parameter]:
        return list(self.heads.parameters())


def mlp(sizes: Sequence[int], activation: type[nn.Module] = nn.ReLU, last_activation: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class MLPHardSharing(HardParameterSharing):
    """A small hard-sharing MLP: shared trunk `in_dim → hidden…`, one linear head per task (`out_dims`)."""

    def __init__(self, in_dim: int, hidden: Sequence[int], out_dims: Sequence[int]):
        super().__init__(mlp([in_dim, *hidden]), [nn.Linear(hidden[-1], d) for d in out_dims])
