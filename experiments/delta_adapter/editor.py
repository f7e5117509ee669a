"""Stage 2: a small DiT editor trained by rectified flow, the stand-in for a FLUX.1-Kontext-class editor.

Two ways to condition on the context image (`context_mode`): `sequence`, in-context as in Kontext (the noisy
target's patch tokens followed by the clean context's, same positions, a learned role embedding apart;
self-attention runs over both and only the target tokens are read out), or `channel`, the context stacked
onto the noisy target's channels before the patch embedding (InstructPix2Pix's concatenation), which a
tiny DiT learns to copy within the CPU budget (the claim presets' choice). Each block is a DiT block with adaLN-Zero on the
timestep (Peebles & Xie 2023). Every block accepts extra keys and values from an adapter: decoupled
cross-attention (IP-Adapter, Ye et al. 2023, eq. 5), Z = Attn(Q, K, V) + lambda Attn(Q, K', V'), with the
block's own frozen query Q, so the editor's weights stay untouched while edit tokens steer it.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from experiments.delta_adapter.layers import PatchEmbed, merge_heads, mlp, split_heads
from reprolab.cli.errors import ConfigError

CONTEXT_MODES = ("channel", "sequence")


def timestep_embedding(t: torch.Tensor, dim: int, max_period: float = 10_000.0) -> torch.Tensor:
    """Sinusoidal features of t in [0, 1] (scaled by 1000, as in DiT)."""
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
    angles = 1000 * t.float()[:, None] * freqs[None]
    return torch.cat([angles.cos(), angles.sin()], dim=-1)


class EditorBlock(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = mlp(dim)
        self.modulation = nn.Linear(dim, 6 * dim)
        nn.init.zeros_(self.modulation.weight)
        nn.init.zeros_(self.modulation.bias)

    def forward(self, x: torch.Tensor, cond: torch.Tensor, ip: tuple | None = None, ip_scale: float = 1.0):
        shift1, scale1, gate1, shift2, scale2, gate2 = self.modulation(F.silu(cond))[:, None].chunk(6, dim=-1)
        h = self.norm1(x) * (1 + scale1) + shift1
        q, k, v = (split_heads(t, self.heads) for t in self.qkv(h).chunk(3, dim=-1))
        attended = F.scaled_dot_product_attention(q, k, v)
        if ip is not None:  # decoupled cross-attention: the same query on the adapter's keys and values
            attended = attended + ip_scale * F.scaled_dot_product_attention(q, *ip)
        x = x + gate1 * self.out(merge_heads(attended))
        h = self.norm2(x) * (1 + scale2) + shift2
        return x + gate2 * self.mlp(h)


class TinyFlowEditor(nn.Module):
    """v(x_t, t | context): the velocity of the target image given the context image (pixels in [0, 1])."""

    def __init__(self, image_size: int = 16, patch: int = 2, width: int = 64, depth: int = 4, heads: int = 4,
                 context_mode: str = "channel"):
        super().__init__()
        if context_mode not in CONTEXT_MODES:
            raise ConfigError(f"model.context_mode={context_mode!r}; choose one of {CONTEXT_MODES}")
        self.image_size, self.patch, self.width, self.depth, self.heads = image_size, patch, width, depth, heads
        self.context_mode = context_mode
        self.target_embed = PatchEmbed(image_size, patch, width, channels=6 if context_mode == "channel" else 3)
        self.context_embed = nn.Conv2d(3, width, patch, stride=patch)
        self.context_role = nn.Parameter(torch.zeros(1, 1, width))
        self.time = nn.Sequential(nn.Linear(width, width), nn.SiLU(), nn.Linear(width, width))
        self.blocks = nn.ModuleList(EditorBlock(width, heads) for _ in range(depth))
        self.final_norm = nn.LayerNorm(width, elementwise_affine=False)
        self.final_modulation = nn.Linear(width, 2 * width)
        self.readout = nn.Linear(width, 3 * patch * patch)
        for layer in (self.final_modulation, self.readout):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def encode(self, images: torch.Tensor) -> torch.Tensor:
        """The flow's space is pixel space in [0, 1] (FluxKontextEditor's is a VAE's latents)."""
        return images

    def decode(self, x: torch.Tensor) -> torch.Tensor:
        return x

    @property
    def injection_shape(self) -> tuple[int, int, int]:
        """(blocks, heads, head width) of the keys and values a decoupled cross-attention adapter must supply."""
        return self.depth, self.heads, self.width // self.heads

    def forward(self, x_t: torch.Tensor, t: torch.Tensor, context: torch.Tensor, ip: list | None = None,
                ip_scale: float = 1.0) -> torch.Tensor:
        n = self.target_embed.pos.shape[1]
        if self.context_mode == "channel":
            h = self.target_embed(torch.cat([x_t, 2 * context - 1], dim=1))
        else:
            ctx = self.context_embed(2 * context - 1).flatten(2).transpose(1, 2) + self.target_embed.pos + self.context_role
            h = torch.cat([self.target_embed(x_t), ctx], dim=1)
        cond = self.time(timestep_embedding(t, self.width))
        for i, block in enumerate(self.blocks):
            h = block(h, cond, None if ip is None else ip[i], ip_scale)
        shift, scale = self.final_modulation(F.silu(cond))[:, None].chunk(2, dim=-1)
        out = self.readout(self.final_norm(h[:, :n]) * (1 + scale) + shift)
        return self.unpatchify(out)

    def unpatchify(self, tokens: torch.Tensor) -> torch.Tensor:
        b, p, s = len(tokens), self.patch, self.image_size // self.patch
        return tokens.view(b, s, s, 3, p, p).permute(0, 3, 1, 4, 2, 5).reshape(b, 3, s * p, s * p)
