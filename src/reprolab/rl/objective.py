"""The clipped importance-ratio objective, its clip fraction, the k3 KL estimator and how tokens are averaged.

PPO-clip (Schulman et al. 2017, eq. 7) per term: min(ρ Â, clip(ρ, 1 − ε_low, 1 + ε_high) Â), ρ = π_θ/π_old.
GRPO (DeepSeekMath eq. 3) applies it per token o_{i,t} with the sequence's Â_i and subtracts β·D_KL[π_θ‖π_ref],
estimated per token by k3 = π_ref/π_θ − log(π_ref/π_θ) − 1 (DeepSeekMath eq. 4): unbiased, always ≥ 0,
exactly 0 where the two agree. ε_high > ε_low is DAPO's "clip-higher" (Yu et al. 2025, §3.1).
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError

AGGREGATIONS = ("sequence_mean", "token_mean", "constant")


def clipped_surrogate(logp: torch.Tensor, logp_old: torch.Tensor, advantage: torch.Tensor, clip_low: float = 0.2,
                      clip_high: float | None = None) -> torch.Tensor:
    """min(ρ Â, clip(ρ, 1 − clip_low, 1 + clip_high) Â) per term, ρ = exp(logp − logp_old) with gradient through
    `logp` only; `clip_high` defaults to `clip_low` (symmetric PPO). Shapes broadcast."""
    clip_high = clip_low if clip_high is None else clip_high
    ratio = torch.exp(logp - logp_old.detach())
    advantage = advantage.detach()
    return torch.minimum(ratio * advantage, ratio.clamp(1 - clip_low, 1 + clip_high) * advantage)


def clip_fraction(logp: torch.Tensor, logp_old: torch.Tensor, advantage: torch.Tensor, clip_low: float,
                  clip_high: float | None = None) -> torch.Tensor:
    """Where the clip binds (the gradient is zero): ρ > 1 + ε_high with Â > 0, or ρ < 1 − ε_low with Â < 0."""
    clip_high = clip_low if clip_high is None else clip_high
    ratio = torch.exp(logp.detach() - logp_old.detach())
    return ((ratio > 1 + clip_high) & (advantage > 0)) | ((ratio < 1 - clip_low) & (advantage < 0))


def kl_k3(logp: torch.Tensor, logp_ref: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimate of KL[π_θ‖π_ref] at tokens sampled from π_θ: exp(Δ) − Δ − 1, Δ = logp_ref − logp."""
    delta = logp_ref.detach() - logp
    return torch.exp(delta) - delta - 1


def aggregate_tokens(per_token: torch.Tensor, mask: torch.Tensor, aggregation: str = "token_mean",
                     constant: float | None = None) -> torch.Tensor:
    """One number from per-token terms [N, T] over the policy's own tokens (`mask`):

    sequence_mean: (1/N) Σ_i (1/|o_i|) Σ_t   GRPO (DeepSeekMath eq. 3): a long completion's tokens weigh less
    token_mean:    (1/Σ_i |o_i|) Σ_i Σ_t     DAPO §3.3: every token weighs the same
    constant:      (1/(N·constant)) Σ_i Σ_t   Dr. GRPO §3.1: a fixed normaliser (the generation budget), no length bias
    """
    mask = mask.to(per_token.dtype)
    total = per_token * mask
    if aggregation == "sequence_mean":
        return (total.sum(1) / mask.sum(1).clamp(min=1)).mean()
    if aggregation == "token_mean":
        return total.sum() / mask.sum().clamp(min=1)
    if aggregation == "constant":
        if not constant or constant <= 0:
            raise ConfigError("task.aggregation=constant needs a positive normaliser (the token budget of a completion)")
        return total.sum() / (per_token.shape[0] * constant)
    raise ConfigError(f"task.aggregation={aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
