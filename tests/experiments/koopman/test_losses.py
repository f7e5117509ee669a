"""Lusch et al. losses on a linear system where the exact Koopman matrix is known."""

from __future__ import annotations

import torch
from torch import nn

from experiments.koopman.losses import koopman_losses
from experiments.koopman.model import DeepKoopman


def identity_net(widths):
    return nn.Identity()


def linear_windows(A: torch.Tensor, steps: int) -> torch.Tensor:
    x = torch.randn(16, A.shape[0])
    out = [x]
    for _ in range(steps):
        x = x @ A.T
        out.append(x)
    return torch.stack(out, 1)


def test_exact_koopman_matrix_gives_zero_loss():
    A = torch.tensor([[0.9, -0.2], [0.2, 0.9]])
    model = DeepKoopman(identity_net, state_dim=2, latent_dim=2, hidden=2)
    with torch.no_grad():
        model.koopman.weight.copy_(A)
    losses = koopman_losses(model, linear_windows(A, 5), pred_steps=5)
    for name in ("recon", "pred", "lin", "inf"):
        assert losses[name].item() < 1e-10, name


def test_wrong_koopman_matrix_loss_by_hand():
    model = DeepKoopman(identity_net, state_dim=1, latent_dim=1, hidden=1)      # K = I
    window = torch.tensor([[[2.0], [1.0], [0.5]]])                             # x_m = 2 · 0.5^m
    losses = koopman_losses(model, window, pred_steps=2, recon_weight=0.1, inf_weight=0.0)
    # predictions stay at 2: errors 1 and 1.5 → pred = (1 + 2.25)/2; lin the same; recon 0
    assert abs(losses["pred"].item() - 1.625) < 1e-6 and abs(losses["lin"].item() - 1.625) < 1e-6
    assert abs(losses["loss"].item() - (0.1 * 1.625 + 1.625)) < 1e-6
    assert abs(losses["inf"].item() - 1.0) < 1e-6
