"""Diffusion Policy (Chi et al. 2023): the squared-cosine schedule's ᾱ on hand-worked numbers, the forward process,
DDIM and DDPM returning the clean sequence from a perfect ε-predictor, the min-max normaliser by hand, the U-Net's
shapes and FiLM conditioning, the loss falling while the policy learns a constant sequence, the training windows of a
toy episode and the receding-horizon executor."""

import math

import pytest
import torch

from reprolab.models.conditional_unet1d import ConditionalUnet1D
from reprolab.models.diffusion_policy import DiffusionPolicy, dp_windows
from reprolab.models.noise_schedule import NoiseSchedule
from reprolab.models.receding_horizon import RecedingHorizon

S = 0.008


def f(u: float) -> float:
    return math.cos((u + S) / (1 + S) * math.pi / 2) ** 2


def test_squared_cosine_alpha_bar_of_two_steps_by_hand():
    # f(0) = cos²(0.0124666) = 0.9998446, f(1/2) = cos²(0.7916317) = 0.4937668, f(1) = cos²(π/2) = 0:
    # β_0 = 1 − f(1/2) / f(0) = 0.5061564, β_1 = 1 − 0 → capped at 0.999; ᾱ_0 = 0.4938436, ᾱ_1 = ᾱ_0 · 0.001
    s = NoiseSchedule(train_steps=2)
    assert s.betas.tolist() == pytest.approx([0.5061564, 0.999], abs=1e-7)
    assert s.alphas_cumprod.tolist() == pytest.approx([0.4938436, 0.0004938436], rel=1e-6)
    lin = NoiseSchedule(train_steps=2, schedule="linear")     # DDPM's 1e-4 … 0.02: ᾱ = 0.9999, 0.9999 · 0.98
    assert lin.alphas_cumprod.tolist() == pytest.approx([0.9999, 0.979902], rel=1e-9)
    with pytest.raises(ValueError, match="unknown beta schedule 'cosine'; choose from squaredcos_cap_v2, linear"):
        NoiseSchedule(schedule="cosine")


def test_squared_cosine_alpha_bar_telescopes_to_f_over_f0():
    s = NoiseSchedule(train_steps=100)
    want = [f((t + 1) / 100) / f(0) for t in range(99)]        # the product of (1 − β) telescopes, uncapped steps
    assert s.alphas_cumprod[:99].tolist() == pytest.approx(want, rel=1e-9)
    assert s.alphas_cumprod[49].item() == pytest.approx(0.4938436, rel=1e-6)   # f(1/2) / f(0), as ᾱ_0 of T = 2
    assert s.betas[-1].item() == 0.999 and bool((s.alphas_cumprod.diff() < 0).all())
    assert s.alpha_bar(-1).item() == 1.0                       # the clean sample
    assert s.timesteps(10) == [90, 80, 70, 60, 50, 40, 30, 20, 10, 0] and s.timesteps(100)[-3:] == [2, 1, 0]
    with pytest.raises(ValueError, match="inference_steps must be in 1..train_steps=100; got 101"):
        s.timesteps(101)


def test_forward_process_by_hand():
    s = NoiseSchedule(train_steps=2)
    x = s.add_noise(torch.tensor([[1.0], [1.0]]), torch.tensor([[1.0], [-1.0]]), torch.tensor([0, 1]))
    a0, a1 = 0.4938436, 0.0004938436
    assert x[:, 0].tolist() == pytest.approx([math.sqrt(a0) + math.sqrt(1 - a0), math.sqrt(a1) - math.sqrt(1 - a1)],
                                             rel=1e-6)


def perfect_eps(policy: DiffusionPolicy, clean: torch.Tensor):
    """ε(x_k, k) = (x_k − √ᾱ_k x_0) / √(1 − ᾱ_k): the noise a perfect predictor reads off x_k."""
    def eps(x, k, cond):
        a = float(policy.schedule.alpha_bar(int(k)))
        return (x - math.sqrt(a) * clean) / math.sqrt(1 - a)
    return eps


@pytest.mark.parametrize("sampler,steps", [("ddim", 10), ("ddim", 100), ("ddpm", 100), ("ddpm", 7)])
def test_a_perfect_eps_predictor_gives_back_the_clean_sequence(sampler, steps):
    torch.manual_seed(0)
    policy = DiffusionPolicy(in_features=3, num_classes=2, horizon=4, n_obs_steps=2, n_action_steps=2,
                             down_dims=(8,), step_embed_dim=8, sampler=sampler, inference_steps=steps)
    clean = torch.rand(5, 4, 2) * 1.8 - 0.9                     # inside [−1, 1], where the sampler clips x̂_0
    out = policy.sample(torch.randn(5, 2, 3), eps_fn=perfect_eps(policy, clean))
    assert torch.allclose(out, clean, atol=1e-5)


def test_the_normaliser_maps_the_training_range_to_plus_minus_one_by_hand():
    policy = DiffusionPolicy(in_features=2, num_classes=2, horizon=4, n_obs_steps=1, n_action_steps=1,
                             down_dims=(8,), step_embed_dim=8, sampler="ddim", inference_steps=5)
    obs = torch.tensor([[[0.0, 3.0]], [[4.0, 3.0]]])           # dim 1 constant: scale 1, shifted to 0
    actions = torch.tensor([[[0.0, 5.0]] * 4, [[10.0, 5.0]] * 4])
    policy.fit_normalizer(obs, actions)
    assert policy.obs_scale.tolist() == [0.5, 1.0] and policy.obs_offset.tolist() == [-1.0, -3.0]
    assert policy.act_scale.tolist() == pytest.approx([0.2, 1.0]) and policy.act_offset.tolist() == [-1.0, -5.0]
    raw = torch.tensor([[[2.5, 5.0], [7.5, 5.0], [10.0, 5.0], [0.0, 5.0]]])   # normalised: (−0.5, 0), (0.5, 0), …
    normalised = raw * policy.act_scale + policy.act_offset
    out = policy.sample(torch.zeros(1, 1, 2), eps_fn=perfect_eps(policy, normalised))
    assert torch.allclose(out, raw, atol=1e-4)                  # sample returns raw units


def test_the_unet_keeps_the_sequence_shape_and_is_conditioned_by_film():
    torch.manual_seed(0)
    net = ConditionalUnet1D(action_dim=3, cond_dim=10, down_dims=(8, 16, 32), kernel_size=5, n_groups=8,
                            step_embed_dim=8).eval()
    x, k, cond = torch.randn(4, 16, 3), torch.tensor([7]), torch.randn(4, 10)
    out = net(x, k, cond)
    assert out.shape == (4, 16, 3)
    assert not torch.allclose(net(x, k, cond + 1), out, atol=1e-4)      # the observation features matter
    assert not torch.allclose(net(x, torch.tensor([70]), cond), out, atol=1e-4)   # and the diffusion step
    assert torch.allclose(net(x[:1], k, cond[:1]), out[:1], atol=1e-5)  # per sample
    with pytest.raises(ValueError, match="horizon 10 must be divisible by 2"):
        net(torch.randn(1, 10, 3), k, cond[:1])
    with pytest.raises(ValueError, match="divisible by n_groups=8"):
        ConditionalUnet1D(3, 10, down_dims=(12, 16))
    with pytest.raises(ValueError, match="n_obs_steps - 1 \\+ n_action_steps <= horizon"):
        DiffusionPolicy(3, 2, horizon=8, n_obs_steps=2, n_action_steps=8)
    with pytest.raises(ValueError, match="unknown sampler 'euler'"):
        DiffusionPolicy(3, 2, sampler="euler")


def test_the_loss_falls_as_the_policy_learns_a_constant_sequence():
    torch.manual_seed(0)
    policy = DiffusionPolicy(in_features=3, num_classes=2, horizon=8, n_obs_steps=2, n_action_steps=4,
                             down_dims=(16, 32), step_embed_dim=16, train_steps=20, sampler="ddim", inference_steps=10)
    obs = torch.randn(64, 2, 3)
    target = torch.stack([torch.linspace(-0.6, 0.6, 8), torch.linspace(0.5, -0.5, 8)], -1)
    actions = target.expand(64, -1, -1)
    opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)

    def mean_loss():
        torch.manual_seed(123)                               # the same k and ε each time
        with torch.no_grad():
            return sum(policy.loss(obs, actions).item() for _ in range(10)) / 10

    before = mean_loss()
    for _ in range(600):
        loss = policy.loss(obs, actions)
        opt.zero_grad()
        loss.backward()
        opt.step()
    after = mean_loss()
    assert before > 0.5 and after < 0.25 * before
    error = (policy.sample(obs[:16], generator=g) - target).abs().amax((1, 2))   # per sample, in [-1, 1] units
    assert error.median().item() < 0.1 and error.max().item() < 0.3           # an untrained net: ~1


def test_training_windows_of_a_toy_episode_by_hand():
    obs = torch.tensor([[[0.0], [1.0], [2.0], [3.0]]])          # one episode, T 4
    act = torch.tensor([[[10.0], [20.0], [30.0], [40.0]]])
    hist, seq, is_pad = dp_windows(obs, act, n_obs_steps=2, horizon=4)
    assert hist.shape == (1, 4, 2, 1) and seq.shape == (1, 4, 4, 1) and is_pad.shape == (1, 4, 4)
    assert hist[0, :, :, 0].tolist() == [[0, 0], [0, 1], [1, 2], [2, 3]]   # the first frame repeated before t 0
    assert seq[0, :, :, 0].tolist() == [[10, 10, 20, 30], [10, 20, 30, 40], [20, 30, 40, 40], [30, 40, 40, 40]]
    F_, T_ = False, True
    assert is_pad[0].tolist() == [[T_, F_, F_, F_], [F_, F_, F_, F_], [F_, F_, F_, T_], [F_, F_, T_, T_]]
    one, seq1, _ = dp_windows(obs, act, n_obs_steps=1, horizon=2)     # T_o 1: ACT's windows, edge-padded
    assert one[0, :, 0, 0].tolist() == [0, 1, 2, 3] and seq1[0, :, :, 0].tolist()[-1] == [40, 40]


def test_receding_horizon_pads_the_history_and_replans_every_t_a_steps():
    policy = DiffusionPolicy(in_features=1, num_classes=1, horizon=8, n_obs_steps=2, n_action_steps=3,
                             down_dims=(8,), step_embed_dim=8)
    seq = torch.arange(8.0).view(1, 8, 1)
    assert policy.executed(seq)[0, :, 0].tolist() == [1.0, 2.0, 3.0]   # from index T_o − 1, the current step
    plans = []

    def predict(history):                       # a plan made at step t: seq + 10 t, its T_a executed
        plans.append(history[0, :, 0].tolist())
        return policy.executed(seq + 10 * history[0, -1, 0])

    ex = RecedingHorizon(predict, n_obs_steps=2)
    with pytest.raises(ValueError, match="no observation yet"):
        ex.history()
    done = [ex.act(torch.tensor([[float(t)]])).item() for t in range(7)]
    assert plans == [[0.0, 0.0], [2.0, 3.0], [5.0, 6.0]]    # planned at steps 0, 3, 6 only
    assert done == [1, 2, 3, 31, 32, 33, 61]
    ex.reset()
    assert ex.due() and ex.seen == []
