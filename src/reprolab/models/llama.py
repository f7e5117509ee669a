"""A Llama-2-style decoder (RMSNorm, SwiGLU, RoPE, untied head): DeltaMomentum's FineWeb-Edu LM and the small
from-scratch policy of the language-model policy task (reprolab.tasks.policy_gradient).

Pre-norm blocks x + Attn(RMSNorm(x)), x + SwiGLU(RMSNorm(x)); rotary position embeddings on Q and K;
no biases; separate token embedding and LM head. Q/K/V read the same normalised tensor and gate/up
another, so DeltaMomentum shares one key Gram for each (reprolab.optim.key_hooks).

μP option (``mup_base_width``; Tensor Programs V, Adam table): hidden matrices are ``MuLinear`` with the
multiplier c = base/width in the forward and init std σ·√(base/width)/c (variance ∝ 1/fan_in), so Adam's update of size lr moves W = c·w by
lr·c (the 1/width hidden learning rate) while the hooked keys are unchanged; logits are multiplied by
base/width; embeddings and the head keep their learning rate. Attention uses 1/√d_head with d_head fixed.

`attention_mask` [B, T] (1 = token, 0 = padding; optional) hides padded keys and counts positions over real
tokens only, so a left-padded context gives the logits it gives alone (sampling a batch of prompts of
different lengths). Without it the model is causal over the whole row, as DeltaMomentum trains it.

`copy_head=True` adds a pointer-generator head (`reprolab.models.pointer.CopyHead`): the output is then log P of the
mixture of the vocabulary and a copy distribution over the row's earlier tokens (the DOLORES reader copies its answer
from the context, as extractive readers do); `copy_shift=1` keys it by the previous state (an induction-style copy),
`copy_span=2` by the two states before it.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from reprolab.models.pointer import CopyHead


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps).to(x.dtype)


class MuLinear(nn.Linear):
    """nn.Linear computing x (c·w)ᵀ: under Adam a width multiplier c is a 1/width learning rate (μP)."""

    def __init__(self, d_in: int, d_out: int, multiplier: float = 1.0):
        super().__init__(d_in, d_out, bias=False)
        self.multiplier = multiplier

    def forward(self, x):
        w = self.weight if self.multiplier == 1.0 else self.weight * self.multiplier
        return F.linear(x, w)


def rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """RoPE on (B, H, T, D): rotate the two halves of each head by position-dependent angles."""
    a, b = x.chunk(2, dim=-1)
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, d_model: int, n_head: int, mult: float):
        super().__init__()
        self.n_head, self.d_head = n_head, d_model // n_head
        self.q, self.k, self.v, self.o = (MuLinear(d_model, d_model, mult) for _ in range(4))

    def forward(self, x, cos, sin, mask=None):
        B, T, C = x.shape
        q, k, v = (proj(x).view(B, T, self.n_head, self.d_head).transpose(1, 2)
                   for proj in (self.q, self.k, self.v))
        y = F.scaled_dot_product_attention(rotary(q, cos, sin), rotary(k, cos, sin), v, attn_mask=mask,
                                           is_causal=mask is None)
        return self.o(y.transpose(1, 2).reshape(B, T, C))


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, hidden: int, mult: float):
        super().__init__()
        self.gate, self.up = MuLinear(d_model, hidden, mult), MuLinear(d_model, hidden, mult)
        self.down = MuLinear(hidden, d_model, mult)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, d_model, n_head, hidden, mult):
        super().__init__()
        self.attn_norm, self.mlp_norm = RMSNorm(d_model), RMSNorm(d_model)
        self.attn = Attention(d_model, n_head, mult)
        self.mlp = SwiGLU(d_model, hidden, mult)

    def forward(self, x, cos, sin, mask=None):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return x + self.mlp(self.mlp_norm(x))


def swiglu_hidden(d_model: int, multiple_of: int = 64) -> int:
    """Llama's 2/3·4·d rounded up to a multiple (keeps SwiGLU's parameter count at a 4·d MLP's)."""
    return multiple_of * math.ceil(8 * d_model / 3 / multiple_of)


class LlamaLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int = 256, n_layer: int = 4, n_head: int = 4,
                 max_seq_len: int = 1024, hidden: int | None = None, init_std: float = 0.02,
                 mup_base_width: int | None = None, rope_base: float = 10000.0, d_head: int | None = None,
                 copy_head: bool = False, copy_shift: int = 0, copy_span: int = 1):
        super().__init__()
        if d_head:  # fixed head size (μP width sweeps): as many heads as fit
            n_head = d_model // d_head
        if d_model % n_head or (d_model // n_head) % 2:
            raise ValueError(f"d_model={d_model} must split into {n_head} heads of even size")
        self.width_mult = d_model / mup_base_width if mup_base_width else 1.0
        mult = 1.0 / self.width_mult
        hidden = hidden or swiglu_hidden(d_model)
        self.max_seq_len = max_seq_len
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_head, hidden, mult) for _ in range(n_layer))
        self.norm = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.copy = CopyHead(d_model, vocab_size, copy_shift, copy_span) if copy_head else None
        d_head = d_model // n_head
        inv_freq = rope_base ** (-torch.arange(0, d_head, 2).float() / d_head)
        angles = torch.outer(torch.arange(max_seq_len).float(), inv_freq)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self._init(init_std, n_layer)

    def _init(self, std: float, n_layer: int):
        for name, module in self.named_modules():
            if isinstance(module, MuLinear):
                # GPT-2 scaling on residual outputs; σ/c so that the effective weight c·w has std σ
                s = std / math.sqrt(2 * n_layer) if name.endswith((".o", ".down")) else std
                s *= math.sqrt(1.0 / self.width_mult)  # μP: init variance ∝ 1/fan_in (1 without μP)
                nn.init.normal_(module.weight, std=s / module.multiplier)
            elif isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, std=std)

    def forward(self, tokens: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        T = tokens.shape[1]
        if T > self.max_seq_len:
            raise ValueError(f"sequence of {T} tokens exceeds max_seq_len={self.max_seq_len}")
        x = self.embed(tokens)
        mask = None
        if attention_mask is None:
            cos, sin = self.cos[:T], self.sin[:T]
        else:  # positions over real tokens; a query sees earlier real keys (and itself, so no row is empty)
            positions = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
            cos, sin = self.cos[positions][:, None], self.sin[positions][:, None]
            keys = attention_mask.bool()[:, None, None, :]
            causal = torch.ones(T, T, dtype=torch.bool, device=tokens.device).tril()
            mask = (causal & keys) | torch.eye(T, dtype=torch.bool, device=tokens.device)
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        for block in self.blocks:
            x = block(x, cos, sin, mask)
        h = self.norm(x)
        logits = self.lm_head(h) / self.width_mult
        return logits if self.copy is None else self.copy(h, tokens, logits, attention_mask)

    def num_params(self, non_embedding: bool = False) -> int:
        n = sum(p.numel() for p in self.parameters())
        return n - self.embed.weight.numel() - self.lm_head.weight.numel() if non_embedding else n
