"""A linear MTL model whose per-task gradients are known exactly, and reference optimisers written from the
equations, for the weighting reference tests.

loss_t(θ, φ_t) = L_t + G_t·θ + H_t·φ_t, evaluated at θ = 0, φ = 0: the losses are L_t, the shared Jacobian is G
(T, n) and head t's gradient is H_t. One engine step must write exactly the paper's shared update into θ.grad and
(head weight)·H_t into φ_t.grad.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from reprolab.mtl.engine import MTLBackward


class LinearMTL(nn.Module):
    def __init__(self, G, H, L):
        super().__init__()
        self.G = torch.as_tensor(G, dtype=torch.float64)
        self.H = torch.as_tensor(H, dtype=torch.float64)
        self.L = torch.as_tensor(L, dtype=torch.float64)
        self.theta = nn.Parameter(torch.zeros(self.G.shape[1], dtype=torch.float64))
        self.phi = nn.ParameterList([nn.Parameter(torch.zeros(self.H.shape[1], dtype=torch.float64))
                                     for _ in range(self.G.shape[0])])

    def losses(self) -> torch.Tensor:
        return torch.stack([self.L[t] + self.G[t] @ self.theta + self.H[t] @ phi for t, phi in enumerate(self.phi)])


def engine_step(weighting, G, H=None, L=None, heads="own"):
    """(shared update, (T, m) head gradients, stats) of one engine step on the linear model."""
    G = np.asarray(G, dtype=np.float64)
    H = np.eye(G.shape[0]) if H is None else H
    L = np.ones(G.shape[0]) if L is None else L
    model = LinearMTL(G, H, L)
    stats = MTLBackward(weighting, [model.theta], list(model.phi), heads=heads)(model.losses())
    heads_grad = np.stack([p.grad.numpy() for p in model.phi])
    return model.theta.grad.numpy().copy(), heads_grad, stats


class AdamRef:
    """torch.optim.Adam's update written out (Kingma & Ba, Alg. 1; L2 weight decay added to the gradient)."""

    def __init__(self, x0, lr, weight_decay=0.0, betas=(0.9, 0.999), eps=1e-8):
        self.x = np.array(x0, dtype=np.float64)
        self.lr, self.wd, (self.b1, self.b2), self.eps = lr, weight_decay, betas, eps
        self.m, self.v, self.t = np.zeros_like(self.x), np.zeros_like(self.x), 0

    def step(self, grad):
        grad = np.asarray(grad, dtype=np.float64) + self.wd * self.x
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * grad
        self.v = self.b2 * self.v + (1 - self.b2) * grad**2
        m_hat, v_hat = self.m / (1 - self.b1**self.t), self.v / (1 - self.b2**self.t)
        self.x = self.x - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return self.x


# The three gradient geometries of issue 47, and a five-task one with norms 0.1 ... 10.
CONFLICTING = np.array([[1.0, 0.0, 0.0], [-1.0, 1.0, 0.0], [0.2, -1.0, 0.5]])
NEAR_PARALLEL = np.array([[1.0, 0.0, 0.0], [1.0, 1e-3, 0.0], [1.0, 0.0, 2e-3]])
NORMS = np.array([[10.0, 0.0, 1.0], [0.1, -0.1, 0.0], [0.0, 1.0, -1.0]])
FIVE = np.random.default_rng(5).standard_normal((5, 8)) * np.geomspace(0.1, 10.0, 5)[:, None]
CASES = {"conflicting": CONFLICTING, "near_parallel": NEAR_PARALLEL, "norms": NORMS, "five": FIVE}
LOSSES = {"conflicting": [1.0, 2.0, 0.5], "near_parallel": [0.3, 1.0, 3.0], "norms": [2.0, 0.1, 1.0],
          "five": [1.0, 0.5, 2.0, 0.2, 4.0]}
