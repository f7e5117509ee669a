"""The learner's per-term policy-gradient objectives, one per arm (`task.loss`).

Each function returns per-term objectives J_t whose gradient is the arm's weighted term
c_t U_t ∇log π_θ(A_t|H_t); the task minimises −mean(J). `logp` is the LEARNER's current log-prob
(with gradient), `logp_behaviour` the actor's (stale, possibly buggy) log-prob of the same action.
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError
from reprolab.rl.objective import clipped_surrogate

ARMS = ("reinforce", "iw", "iw_clipped", "ppo", "dg", "sign_blind")


def delight_gate(logp: torch.Tensor, advantage: torch.Tensor, eta: float) -> torch.Tensor:
    """w_t = σ(χ_t/η) with delight χ_t = U_t ℓ_t, ℓ_t = −log π_θ(A_t|H_t) (2603.14608 §2); no gradient."""
    surprisal = -logp.detach()
    return torch.sigmoid(advantage * surprisal / eta)


def sign_blind_gate(logp: torch.Tensor, eta: float) -> torch.Tensor:
    """σ(−ℓ_t/η): a learner-probability-only gate that ignores the advantage's sign (2603.20521 §1)."""
    return torch.sigmoid(logp.detach() / eta)


def importance_ratio(logp: torch.Tensor, logp_behaviour: torch.Tensor) -> torch.Tensor:
    """ρ_t = π_θ(A_t|H_t) / μ(A_t|H_t) with the actor's exact behaviour probability μ; no gradient."""
    return torch.exp(logp.detach() - logp_behaviour)


def policy_gradient_objective(loss: str, logp: torch.Tensor, logp_behaviour: torch.Tensor,
                              advantage: torch.Tensor, eta: float = 1.0, iw_clip: float = 1.0,
                              ppo_clip: float = 0.2) -> torch.Tensor:
    """Per-term objective of arm `loss`; shapes broadcast (per sample, or per token with U per sequence)."""
    advantage = advantage.detach()
    if loss == "reinforce":
        weight = torch.ones_like(logp)
    elif loss == "iw":
        weight = importance_ratio(logp, logp_behaviour)
    elif loss == "iw_clipped":  # truncated IS, as V-trace's ρ̄ (Espeholt et al. 2018, eq. 1)
        weight = importance_ratio(logp, logp_behaviour).clamp(max=iw_clip)
    elif loss == "ppo":  # PPO-clip (Schulman et al. 2017, eq. 7), r = π_θ/μ: the core's, as GRPO's
        return clipped_surrogate(logp, logp_behaviour, advantage, ppo_clip)
    elif loss == "dg":
        weight = delight_gate(logp, advantage, eta)
    elif loss == "sign_blind":
        weight = sign_blind_gate(logp, eta)
    else:
        raise ConfigError(f"task.loss={loss!r} is not an arm; choose one of {', '.join(ARMS)}")
    return weight * advantage * logp
