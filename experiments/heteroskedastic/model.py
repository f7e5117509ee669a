"""The mean network: a ReLU MLP that returns its mean, its hidden activations (the latents the post-hoc
variance head reads) and, for the end-to-end baselines, a log-variance head on the last hidden layer.

`variance_head`: none (the mean network of the post-hoc method), linear (mean-variance estimation, Nix &
Weigend 1994; β-NLL) or mlp (Faithful heteroskedastic regression's separate variance network, Stirn et al.
2023, which reads the shared last hidden layer through a stop-gradient).
"""

from __future__ import annotations

from torch import Tensor, nn

from reprolab.cli.errors import ConfigError


class RegressionMLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int] = (50, 50), variance_head: str = "none"):
        super().__init__()
        widths = [in_features, *hidden]
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(a, b), nn.ReLU()) for a, b in zip(widths[:-1], widths[1:], strict=True))
        self.hidden_sizes = list(hidden)
        self.mean_head = nn.Linear(widths[-1], 1)
        heads = {"none": None, "linear": lambda w: nn.Linear(w, 1),
                 "mlp": lambda w: nn.Sequential(nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 1))}
        if variance_head not in heads:
            raise ConfigError(f"model.variance_head must be one of {sorted(heads)}; got '{variance_head}'")
        self.variance_head = heads[variance_head](widths[-1]) if heads[variance_head] else None

    def forward(self, x: Tensor, detach_latent: bool = False) -> dict:
        hidden, h = [], x
        for layer in self.layers:
            h = layer(h)
            hidden.append(h)
        out = {"mean": self.mean_head(h).squeeze(-1), "hidden": hidden}
        if self.variance_head is not None:
            out["log_var"] = self.variance_head(h.detach() if detach_latent else h).squeeze(-1)
        return out
