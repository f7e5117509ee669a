"""Deep Koopman autoencoder (Lusch, Kutz & Brunton 2018, Fig. 1; Deep-Koopman-KANDy abstract): an encoder ψ lifts
the state to latents, one linear map K advances them, a decoder maps latents back to the state.

Deep-Koopman-KANDy uses two-layer KANs for ψ and its decoder (`reprolab.models.kan.KAN`, widths
[d, h, m] and [m, h, d]); the control swaps in MLPs of the same depth. Latents are defined only up to an
invertible linear map A (ψ → Aψ, K → AKA⁻¹), so the readout reads spans, not single coordinates.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


class DeepKoopman(nn.Module):
    """`net(widths)` builds the encoder [state_dim, hidden, latent_dim] and decoder [latent_dim, hidden, state_dim]."""

    def __init__(self, net: Callable[..., nn.Module], state_dim: int, latent_dim: int, hidden: int):
        super().__init__()
        self.encoder = net(widths=[state_dim, hidden, latent_dim])
        self.decoder = net(widths=[latent_dim, hidden, state_dim])
        self.koopman = nn.Linear(latent_dim, latent_dim, bias=False)
        nn.init.eye_(self.koopman.weight)  # start from the identity: a slowly varying latent state

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        return self.decoder(z)

    def advance(self, z: torch.Tensor, steps: int) -> torch.Tensor:
        """K^m z for m = 1..steps: (batch, m) → (batch, steps, m)."""
        out = []
        for _ in range(steps):
            z = self.koopman(z)
            out.append(z)
        return torch.stack(out, dim=1)

    def forward(self, x0: torch.Tensor, steps: int = 1) -> torch.Tensor:
        """Predicted states x̂_m = ψ⁻¹(K^m ψ(x0)), m = 1..steps."""
        return self.decode(self.advance(self.encode(x0), steps))


class MLPNet(nn.Module):
    """A tanh MLP of the given widths, e.g. [3, 64, 5]: the encoder/decoder of the MLP control."""

    def __init__(self, widths: list[int]):
        super().__init__()
        layers = []
        for a, b in zip(widths[:-1], widths[1:], strict=False):
            layers += [nn.Linear(a, b), nn.Tanh()]
        self.net = nn.Sequential(*layers[:-1])

    def inner(self, x: torch.Tensor) -> torch.Tensor:
        """The first layer's pre-activations (the MLP's counterpart of a KAN's inner functions)."""
        return self.net[0](x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
