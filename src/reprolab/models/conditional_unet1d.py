"""The 1-D temporal convolutional U-Net of Diffusion Policy's CNN-based variant (Chi et al., RSS 2023, §III-B,
"CNN-based Diffusion Policy"; Fig. 2 b; after Janner et al. 2022): it maps a noisy action sequence (B, T_p, A) and
the diffusion step k to the predicted noise ε̂, conditioned on the observation features by FiLM (Perez et al.
2018): every residual block's first convolution is followed by a per-channel affine map γ · h + β predicted by a
linear layer from [step embedding, observation features].

Layout as the paper's released `ConditionalUnet1D`: a sinusoidal step embedding → Linear(d, 4d) → Mish →
Linear(4d, d); down path of two FiLM residual blocks per level of `down_dims` and a strided convolution between
levels; two FiLM residual blocks at the bottom; up path mirrors it with skip connections and transposed
convolutions (the released code's layout: the top level's skip is left unused); a final Conv1d block and a 1×1 convolution to the action channels. Every Conv1d block is
Conv1d(kernel, same padding) → GroupNorm(`n_groups`) → Mish.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class SinusoidalStepEmbedding(nn.Module):
    """[sin(k ω_i), cos(k ω_i)], ω_i = 10000^(−i / (d/2 − 1)), i < d/2 (the Transformer's position code)."""

    def __init__(self, dim: int):
        super().__init__()
        if dim % 2 or dim < 4:
            raise ValueError(f"the step embedding's size must be even and >= 4; got {dim}")
        self.dim = dim

    def forward(self, k: torch.Tensor) -> torch.Tensor:
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half, device=k.device) / (half - 1))
        args = k.float()[:, None] * freqs[None]
        return torch.cat([args.sin(), args.cos()], -1)


def conv_block(c_in: int, c_out: int, kernel: int, groups: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(c_in, c_out, kernel, padding=kernel // 2), nn.GroupNorm(groups, c_out), nn.Mish())


class FiLMResidualBlock(nn.Module):
    """conv block → γ · h + β (γ, β from the condition; `scale` False: h + β only) → conv block, + a residual
    (a 1×1 convolution where the channel count changes)."""

    def __init__(self, c_in: int, c_out: int, cond_dim: int, kernel: int, groups: int, scale: bool = True):
        super().__init__()
        self.c_out, self.scale = c_out, scale
        self.first, self.second = conv_block(c_in, c_out, kernel, groups), conv_block(c_out, c_out, kernel, groups)
        self.film = nn.Sequential(nn.Mish(), nn.Linear(cond_dim, 2 * c_out if scale else c_out))
        self.residual = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        h = self.first(x)
        film = self.film(cond)[:, :, None]
        if self.scale:
            gamma, beta = film[:, : self.c_out], film[:, self.c_out :]
            h = gamma * h + beta
        else:
            h = h + film
        return self.second(h) + self.residual(x)


class ConditionalUnet1D(nn.Module):
    """`forward(x (B, T, A), k (B,), cond (B, cond_dim)) -> ε̂ (B, T, A)`; T must be divisible by
    2^(len(down_dims) − 1) (one halving between levels)."""

    def __init__(self, action_dim: int, cond_dim: int, down_dims=(256, 512, 1024), kernel_size: int = 5,
                 n_groups: int = 8, step_embed_dim: int = 256, film_scale: bool = True):
        super().__init__()
        dims = [action_dim, *down_dims]
        if any(d % n_groups for d in down_dims):
            raise ValueError(f"every down_dims entry must be divisible by n_groups={n_groups}; got {list(down_dims)}")
        self.levels = len(down_dims)
        self.step_embed = nn.Sequential(SinusoidalStepEmbedding(step_embed_dim),
                                        nn.Linear(step_embed_dim, 4 * step_embed_dim), nn.Mish(),
                                        nn.Linear(4 * step_embed_dim, step_embed_dim))
        c = step_embed_dim + cond_dim
        block = lambda i, o: FiLMResidualBlock(i, o, c, kernel_size, n_groups, film_scale)  # noqa: E731
        pairs = list(zip(dims[:-1], dims[1:], strict=True))
        self.down = nn.ModuleList(
            nn.ModuleList([block(i, o), block(o, o),
                           nn.Conv1d(o, o, 3, 2, 1) if n < len(pairs) - 1 else nn.Identity()])
            for n, (i, o) in enumerate(pairs))
        self.mid = nn.ModuleList([block(dims[-1], dims[-1]), block(dims[-1], dims[-1])])
        self.up = nn.ModuleList(  # every up level doubles the length back; the top level's skip is not used
            nn.ModuleList([block(2 * o, i), block(i, i), nn.ConvTranspose1d(i, i, 4, 2, 1)])
            for i, o in reversed(pairs[1:]))
        self.final = nn.Sequential(conv_block(down_dims[0], down_dims[0], kernel_size, n_groups),
                                   nn.Conv1d(down_dims[0], action_dim, 1))

    def forward(self, x: torch.Tensor, k: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        if x.shape[1] % 2 ** (self.levels - 1):
            raise ValueError(f"the action horizon {x.shape[1]} must be divisible by 2^{self.levels - 1} "
                             f"(one halving per U-Net level); change horizon or down_dims")
        cond = torch.cat([self.step_embed(k.expand(len(x))), cond], -1)
        h, skips = x.transpose(1, 2), []
        for first, second, down in self.down:
            h = second(first(h, cond), cond)
            skips.append(h)
            h = down(h)
        for b in self.mid:
            h = b(h, cond)
        for first, second, up in self.up:
            h = up(second(first(torch.cat([h, skips.pop()], 1), cond), cond))
        return self.final(h).transpose(1, 2)
