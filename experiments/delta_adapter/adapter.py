"""The Delta-Adapter: a semantic delta between an exemplar's source and target, as K edit tokens, injected
into a frozen editor through decoupled cross-attention (arXiv 2605.07940, method section).

1. Per-token LayerNorm of both frozen-encoder feature maps (parameter-free, over the feature axis), so the
   delta does not carry each image's per-token scale: d = LN(f(target)) - LN(f(source)).
   `delta_input: target` is the leak control: the adapter reads LN(f(target)) alone, the target in plain view.
2. A gated residual projection, u = W d, h = u + g MLP(u), with the scalar gate g initialised at 0.
3. A Perceiver resampler (Jaegle et al. 2021; Flamingo's form): K learned latents attend to [h; latents]
   over `depth` layers, giving K edit tokens; K bounds how much of the exemplar can pass (the leakage knob).
4. For every editor block, keys K' = W_k e and values V' = W_v e of the edit tokens e, which the editor adds
   as lambda Attn(Q, K', V') (IP-Adapter eq. 5). W_v starts at zero, so the untrained adapter leaves the
   frozen editor's output unchanged (our choice; the paper's initialisation of W_k, W_v is not given).
   `injection: tokens` returns the edit tokens instead, for an editor whose own decoupled-attention processors
   hold W_k, W_v (FluxKontextEditor: diffusers' IP-Adapter processors).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from experiments.delta_adapter.layers import Attention, mlp, split_heads
from reprolab.cli.errors import ConfigError

DELTA_INPUTS = ("difference", "target")
INJECTIONS = ("kv", "tokens")


class PerceiverResampler(nn.Module):
    """K latents <- cross-attention over (inputs, latents), then a feed-forward, `depth` times."""

    def __init__(self, dim: int, num_tokens: int, depth: int = 2, heads: int = 4):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(1, num_tokens, dim) * dim ** -0.5)
        self.layers = nn.ModuleList(nn.ModuleDict({
            "norm_x": nn.LayerNorm(dim), "norm_l": nn.LayerNorm(dim), "attn": Attention(dim, heads),
            "norm_ff": nn.LayerNorm(dim), "ff": mlp(dim)}) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        latents = self.latents.expand(len(x), -1, -1)
        for layer in self.layers:
            normed = layer["norm_l"](latents)
            latents = latents + layer["attn"](normed, torch.cat([layer["norm_x"](x), normed], dim=1))
            latents = latents + layer["ff"](layer["norm_ff"](latents))
        return self.norm(latents)


class DeltaAdapter(nn.Module):
    def __init__(self, encoder_width: int, editor_width: int = 0, editor_depth: int = 0, editor_heads: int = 1,
                 width: int = 64, num_tokens: int = 16, depth: int = 2, heads: int = 4, layernorm: bool = True,
                 delta_input: str = "difference", injection: str = "kv"):
        super().__init__()
        if delta_input not in DELTA_INPUTS:
            raise ConfigError(f"model.delta_input={delta_input!r}; choose one of {DELTA_INPUTS}")
        if injection not in INJECTIONS:
            raise ConfigError(f"model.injection={injection!r}; choose one of {INJECTIONS}")
        if num_tokens < 1:
            raise ConfigError(f"model.num_tokens={num_tokens}; the resampler needs at least one edit token")
        self.layernorm, self.delta_input = layernorm, delta_input
        self.encoder_width, self.num_tokens = encoder_width, num_tokens
        self.injection = injection
        if injection == "tokens":
            self.injection_shape = ("tokens", width)
            editor_depth = 0
        else:
            self.injection_shape = (editor_depth, editor_heads, editor_width // editor_heads)
        self.project = nn.Linear(encoder_width, width)
        self.residual = mlp(width)
        self.gate = nn.Parameter(torch.zeros(()))
        self.resampler = PerceiverResampler(width, num_tokens, depth, heads)
        self.to_k = nn.ModuleList(nn.Linear(width, editor_width) for _ in range(editor_depth))
        self.to_v = nn.ModuleList(nn.Linear(width, editor_width) for _ in range(editor_depth))
        for layer in self.to_v:
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def delta(self, source_features: torch.Tensor, target_features: torch.Tensor) -> torch.Tensor:
        """Step 1: the (per-token normalised) feature difference, or the target alone for the leak control."""
        if source_features.shape != target_features.shape or source_features.shape[-1] != self.encoder_width:
            raise ConfigError(f"the adapter reads feature maps (B, N, {self.encoder_width}); got "
                              f"{tuple(source_features.shape)} and {tuple(target_features.shape)}; set model.encoder_width")
        norm = (lambda f: F.layer_norm(f, f.shape[-1:])) if self.layernorm else (lambda f: f)
        if self.delta_input == "target":
            return norm(target_features)
        return norm(target_features) - norm(source_features)

    def edit_tokens(self, source_features: torch.Tensor, target_features: torch.Tensor) -> torch.Tensor:
        """Steps 1-3: K edit tokens (B, K, width)."""
        u = self.project(self.delta(source_features, target_features))
        return self.resampler(u + self.gate * self.residual(u))

    def forward(self, source_features: torch.Tensor, target_features: torch.Tensor) -> list[tuple]:
        """Step 4: per editor block, (K', V') split into the editor's heads, each (B, heads, K, head width);
        with `injection: tokens`, the edit tokens (B, K, width)."""
        tokens = self.edit_tokens(source_features, target_features)
        if self.injection == "tokens":
            return tokens
        heads = self.injection_shape[1]
        return [(split_heads(k(tokens), heads), split_heads(v(tokens), heads)) for k, v in zip(self.to_k, self.to_v, strict=True)]
