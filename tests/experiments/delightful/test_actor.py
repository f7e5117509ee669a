"""The frictions: the snapshot ring counts learner steps, the buggy actor's mixture, reward flips."""

import math

import pytest
import torch
from torch import nn

from experiments.delightful.actor import SnapshotRing, behaviour_log_probs, corrupt_rewards


def constant_model(value: float) -> nn.Module:
    layer = nn.Linear(1, 1)
    nn.init.constant_(layer.weight, value)
    return layer


def test_ring_returns_the_snapshot_staleness_learner_steps_old():
    ring = SnapshotRing(staleness=2)
    versions = []
    for step in range(6):
        ring.push(step, constant_model(float(step)))
        version, params = ring.actor_snapshot()
        versions.append(version)
        assert params["weight"].item() == version  # the parameters stored at that learner step
    assert versions == [0, 0, 0, 1, 2, 3]


def test_ring_ignores_repeated_pushes_of_one_learner_step():
    # gradient accumulation: several batches in one learner step must not age the snapshots
    ring = SnapshotRing(staleness=1)
    for step in (0, 0, 0, 1, 1, 2):
        ring.push(step, constant_model(float(step)))
    assert ring.actor_snapshot()[0] == 1


def test_ring_snapshot_is_a_copy():
    model, ring = constant_model(1.0), SnapshotRing(staleness=0)
    ring.push(0, model)
    with torch.no_grad():
        model.weight.fill_(5.0)
    assert ring.actor_snapshot()[1]["weight"].item() == 1.0


def test_ring_rejects_negative_staleness():
    with pytest.raises(ValueError, match="staleness must be >= 0"):
        SnapshotRing(-1)


def test_behaviour_mixture_by_hand():
    pi = torch.tensor([0.7, 0.2, 0.1])
    # μ = 0.7 π + 0.3 / 3 = (0.59, 0.24, 0.17)
    assert torch.allclose(behaviour_log_probs(pi.log(), 0.3).exp(), torch.tensor([0.59, 0.24, 0.17]), atol=1e-6)
    assert torch.allclose(behaviour_log_probs(pi.log(), 0.0), pi.log(), atol=1e-6)


def test_buggy_fraction_of_actions():
    torch.manual_seed(0)
    logits = torch.tensor([[50.0, 0.0, 0.0]]).expand(200_000, 3)  # the actor's policy always picks action 0
    actions = torch.distributions.Categorical(logits=behaviour_log_probs(logits, 0.3)).sample()
    assert (actions != 0).float().mean().item() == pytest.approx(0.3 * 2 / 3, abs=0.004)


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.3])
def test_reward_corruption_rate(rate):
    torch.manual_seed(0)
    zeros, ones = torch.zeros(200_000), torch.ones(200_000)
    assert corrupt_rewards(zeros, rate).mean().item() == pytest.approx(rate, abs=0.004)
    assert corrupt_rewards(ones, rate).mean().item() == pytest.approx(1 - rate, abs=0.004)
    assert set(corrupt_rewards(zeros, rate).unique().tolist()) <= {0.0, 1.0}


def test_log_space_has_no_log_zero():
    logits = torch.tensor([[1000.0, 0.0]])
    assert math.isfinite(behaviour_log_probs(logits, 0.1)[0, 1].item())
