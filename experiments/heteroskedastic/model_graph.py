"""APT's MPNN (Gilmer et al. 2017, reused through config as `backbone`) with its latents exposed for the
post-hoc head by forward hooks: the node embedding and each message-passing round (mean-pooled per
molecule), the Set2Set readout, and the final representation; the backbone's one head is the mean.
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import nn

from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require


class LatentMPNN(nn.Module):
    def __init__(self, backbone: nn.Module, variance_head: str = "none"):
        super().__init__()
        if len(backbone.heads) != 1:
            raise ConfigError(f"the backbone must have one head (model.backbone.n_tasks=1); got {len(backbone.heads)}")
        self.backbone = backbone
        dim = backbone.lin1.out_features
        self.hidden_sizes = [dim] * (1 + backbone.rounds) + [2 * dim, dim]
        heads = {"none": None, "linear": lambda: nn.Linear(dim, 1),
                 "mlp": lambda: nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 1))}
        if variance_head not in heads:
            raise ConfigError(f"model.variance_head must be one of {sorted(heads)}; got '{variance_head}'")
        self.variance_head = heads[variance_head]() if heads[variance_head] else None
        self._captured: list = []
        for module in (backbone.lin0, backbone.gru, backbone.set2set, backbone.lin1):
            module.register_forward_hook(lambda _m, _i, output: self._captured.append(output))

    def forward(self, data, detach_latent: bool = False) -> dict:
        require("torch_geometric", "heteroskedastic")
        from torch_geometric.nn import global_mean_pool

        self._captured = []
        mean = self.backbone(data)[0].squeeze(-1)
        node, *rounds, readout, final = self._captured
        hidden = [global_mean_pool(F.relu(node), data.batch)]
        hidden += [global_mean_pool(out.squeeze(0), data.batch) for out, _ in rounds]
        rep = F.relu(final)
        hidden += [readout, rep]
        result = {"mean": mean, "hidden": hidden}
        if self.variance_head is not None:
            result["log_var"] = self.variance_head(rep.detach() if detach_latent else rep).squeeze(-1)
        return result
