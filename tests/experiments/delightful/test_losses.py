"""Each arm's gradient on a hand-worked 2-sample batch.

Learner probabilities of the taken actions π = (1/2, 1/5), behaviour probabilities μ = (1/4, 2/5),
advantages U = (+1, −1/2). Surprisals ℓ = (ln 2, ln 5), so the DG gate σ(Uℓ) = (σ(ln 2), σ(−ln 5 / 2))
= (2/3, 1/(1+√5)) and the sign-blind gate σ(−ℓ) = (1/3, 1/6); importance ratios ρ = π/μ = (2, 1/2).
"""

import math

import pytest
import torch

from experiments.delightful.losses import delight_gate, policy_gradient_objective
from reprolab.cli.errors import ConfigError

PI = torch.tensor([0.5, 0.2])
MU = torch.tensor([0.25, 0.4])
U = torch.tensor([1.0, -0.5])


def grad_wrt_logp(loss: str, pi=PI, mu=MU, advantage=U, **kw) -> torch.Tensor:
    """d J_t / d log π_t for each term: the weight the arm puts on ∇ log π."""
    logp = pi.log().requires_grad_(True)
    objective = policy_gradient_objective(loss, logp, mu.log(), advantage, **kw)
    (grad,) = torch.autograd.grad(objective.sum(), logp)
    return grad


def test_delight_gate_value():
    gate = delight_gate(PI.log(), U, eta=1.0)
    assert torch.allclose(gate, torch.tensor([2 / 3, 1 / (1 + math.sqrt(5))]), atol=1e-6)


def test_delight_gate_temperature():
    # η = 2 halves the delight: σ(ln 2 / 2) = √2 / (1 + √2)
    gate = delight_gate(PI.log(), U, eta=2.0)
    assert gate[0].item() == pytest.approx(math.sqrt(2) / (1 + math.sqrt(2)), abs=1e-6)


def test_dg_gradient_has_no_term_through_the_gate():
    # with a gradient through σ(−U log π) there would be an extra −U² σ' log π term
    assert torch.allclose(grad_wrt_logp("dg"), torch.tensor([2 / 3, -0.5 / (1 + math.sqrt(5))]), atol=1e-6)


def test_dg_does_not_read_behaviour_probabilities():
    other_mu = torch.tensor([0.9, 0.01])
    assert torch.equal(grad_wrt_logp("dg"), grad_wrt_logp("dg", mu=other_mu))


def test_reinforce_weight_is_the_advantage():
    assert torch.allclose(grad_wrt_logp("reinforce"), U)


def test_iw_uses_behaviour_probabilities():
    assert torch.allclose(grad_wrt_logp("iw"), torch.tensor([2.0, -0.25]), atol=1e-6)


def test_iw_clipped_truncates_the_ratio():
    assert torch.allclose(grad_wrt_logp("iw_clipped", iw_clip=1.0), torch.tensor([1.0, -0.25]), atol=1e-6)
    assert torch.allclose(grad_wrt_logp("iw_clipped", iw_clip=1.5), torch.tensor([1.5, -0.25]), atol=1e-6)


def test_ppo_clip():
    # ρ = 2 with U > 0 and ρ = 1/2 with U < 0 both leave [0.8, 1.2] on the side the min keeps clipped: no gradient
    assert torch.allclose(grad_wrt_logp("ppo", ppo_clip=0.2), torch.zeros(2))
    # ρ = 1.1 (inside the clip): gradient ρ U; ρ = 1.5 with U < 0: the unclipped term is the min, gradient ρ U
    mu = torch.tensor([0.5 / 1.1, 0.2 / 1.5])
    assert torch.allclose(grad_wrt_logp("ppo", mu=mu, ppo_clip=0.2), torch.tensor([1.1, -0.75]), atol=1e-5)


def test_sign_blind_gate():
    assert torch.allclose(grad_wrt_logp("sign_blind"), torch.tensor([1 / 3, -0.5 / 6]), atol=1e-6)


def test_per_token_shapes_broadcast_one_advantage_per_sequence():
    logp = torch.log(torch.tensor([[0.5, 0.5], [0.2, 0.2]])).requires_grad_(True)
    objective = policy_gradient_objective("dg", logp, logp.detach(), U[:, None])
    (grad,) = torch.autograd.grad(objective.sum(), logp)
    assert torch.allclose(grad[:, 0], grad[:, 1]) and torch.allclose(grad[:, 0], grad_wrt_logp("dg"), atol=1e-6)


def test_unknown_arm_is_one_clear_line():
    with pytest.raises(ConfigError, match="task.loss='a2c' is not an arm"):
        policy_gradient_objective("a2c", PI.log(), MU.log(), U)
