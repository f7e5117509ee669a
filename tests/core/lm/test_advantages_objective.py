"""Group-relative advantages and the clipped objective against numbers worked by hand."""

from __future__ import annotations

import math

import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.rl.advantages import group_advantages
from reprolab.rl.objective import aggregate_tokens, clip_fraction, clipped_surrogate, kl_k3


def test_group_advantages_by_hand():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    # group 1: mean 0.5, sample std sqrt(4 · 0.25 / 3) = 0.57735 → ±0.5 / 0.57735 = ±0.86603; group 2: all equal → 0
    expected = torch.tensor([0.86603, -0.86603, -0.86603, 0.86603, 0, 0, 0, 0])
    torch.testing.assert_close(group_advantages(rewards, 4, "mean_std"), expected, atol=1e-4, rtol=0)
    torch.testing.assert_close(group_advantages(rewards, 4, "mean"), torch.tensor([0.5, -0.5, -0.5, 0.5, 0, 0, 0, 0]))
    with pytest.raises(ConfigError, match="task.group_size=3"):
        group_advantages(rewards, 3)
    with pytest.raises(ConfigError, match="task.advantage='median'"):
        group_advantages(rewards, 4, "median")


def test_clipped_surrogate_values_gradients_and_clip_fraction_by_hand():
    # ρ = 0.7/0.5 = 1.4 and ρ = 0.25/0.5 = 0.5, each with Â = +1 and −1; ε = 0.2
    logp = torch.log(torch.tensor([0.7, 0.7, 0.25, 0.25])).requires_grad_()
    old = torch.log(torch.full((4,), 0.5))
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    out = clipped_surrogate(logp, old, adv, 0.2)
    # min(1.4, 1.2) = 1.2; min(−1.4, −1.2) = −1.4; min(0.5, 0.8) = 0.5; min(−0.5, −0.8) = −0.8
    torch.testing.assert_close(out, torch.tensor([1.2, -1.4, 0.5, -0.8]))
    out.sum().backward()
    # d(ρÂ)/dlogp = ρÂ where unclipped; 0 where the clipped term is the minimum
    torch.testing.assert_close(logp.grad, torch.tensor([0.0, -1.4, 0.5, 0.0]))
    assert clip_fraction(logp, old, adv, 0.2).tolist() == [True, False, False, True]
    # clip-higher: ε_high = 0.5 lets ρ = 1.4 through for Â > 0
    assert clipped_surrogate(logp, old, adv, 0.2, 0.5)[0].item() == pytest.approx(1.4)


def test_kl_k3_by_hand_and_zero_when_policy_is_reference():
    logp, ref = torch.log(torch.tensor([0.5])), torch.log(torch.tensor([0.25]))
    # Δ = log(0.25/0.5): exp(Δ) − Δ − 1 = 0.5 + log 2 − 1
    assert kl_k3(logp, ref).item() == pytest.approx(0.5 + math.log(2) - 1)
    same = torch.randn(3, 5)
    assert torch.equal(kl_k3(same, same), torch.zeros(3, 5))


def test_token_aggregations_by_hand():
    per_token = torch.tensor([[1.0, 2.0, 3.0, 9.0], [4.0, 9.0, 9.0, 9.0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]]).bool()
    assert aggregate_tokens(per_token, mask, "sequence_mean").item() == pytest.approx((6 / 3 + 4 / 1) / 2)  # GRPO
    assert aggregate_tokens(per_token, mask, "token_mean").item() == pytest.approx(10 / 4)  # DAPO
    assert aggregate_tokens(per_token, mask, "constant", 4).item() == pytest.approx(10 / (2 * 4))  # Dr. GRPO
    with pytest.raises(ConfigError, match="positive normaliser"):
        aggregate_tokens(per_token, mask, "constant")
