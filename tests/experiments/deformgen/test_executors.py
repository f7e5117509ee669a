"""Each policy's closed-loop executor (`executor()`), on hand-made outputs: the MLP executes one query per step, ACT
the exp(−m i) temporal ensemble of the overlapping chunks (Zhao et al. 2023, §IV-A), Diffusion Policy T_a actions of
every T_p plan (Chi et al. 2023, §III-C); and the closed-loop task takes its rule from the policy."""

import math

import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.models.act import ACT
from reprolab.models.diffusion_policy import DiffusionPolicy
from reprolab.models.mlp import MLP
from reprolab.models.temporal_ensemble import TemporalEnsemble


def test_the_mlp_executes_one_fresh_query_per_step():
    torch.manual_seed(0)
    model = MLP(in_features=3, hidden=8, depth=1, num_classes=2)
    ex, obs = model.executor(), torch.randn(4, 2, 3)
    ex.reset()
    got = [ex.act(o) for o in obs]
    with torch.no_grad():
        want = [model(o).double() for o in obs]
    assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True)) and got[0].dtype == torch.float64
    assert torch.equal(ex.act(obs[0]), got[0])              # no memory: the same observation, the same output


def test_the_temporal_ensemble_executes_exp_minus_m_i_weights_over_the_overlapping_chunks():
    # chunk k 3 predicted at step t from obs t: (100 t, 100 t + 1, 100 t + 2); m 1 makes the weights far apart
    ex = TemporalEnsemble(lambda o: o[:, None, :] + torch.tensor([0.0, 1.0, 2.0])[None, :, None], m=1.0)
    w = [math.exp(-i) for i in range(3)]                    # i = 0 the OLDEST chunk predicting the step
    got = [ex.act(torch.tensor([[100.0 * t]])).item() for t in range(4)]
    assert got[0] == 0.0
    assert got[1] == pytest.approx((1 * w[0] + 100 * w[1]) / (w[0] + w[1]))
    assert got[2] == pytest.approx((2 * w[0] + 101 * w[1] + 200 * w[2]) / sum(w))
    assert got[3] == pytest.approx((102 * w[0] + 201 * w[1] + 300 * w[2]) / sum(w))   # chunk of t 0 is past its end
    ex.reset()
    assert ex.act(torch.tensor([[7.0]])).item() == 7.0      # a new episode: no chunk of the old one survives


def test_act_executes_the_ensemble_of_its_z_zero_chunks_at_its_own_rate():
    torch.manual_seed(0)
    model = ACT(in_features=5, num_classes=2, chunk=3, d_model=8, heads=2, ff=16, latent=4, obs_tokens=1,
                ensemble_m=0.7).eval()
    ex, obs = model.executor(), torch.randn(2, 1, 5)
    assert isinstance(ex, TemporalEnsemble) and ex.m == 0.7
    with torch.no_grad():                                   # as in the test loop (the transformer's fast path)
        first, second = ex.act(obs[0]), ex.act(obs[1])
        c0, c1 = model(obs[0])[0].double(), model(obs[1])[0].double()
    assert torch.equal(first, c0[:, 0])
    assert torch.allclose(second, (c0[:, 1] + math.exp(-0.7) * c1[:, 0]) / (1 + math.exp(-0.7)))
    with pytest.raises(ValueError, match="ensembling rate m must be >= 0"):
        ACT(in_features=5, num_classes=2, chunk=3, d_model=8, heads=2, ff=16, ensemble_m=-1.0).executor()


def test_diffusion_policy_executes_t_a_of_each_t_p_plan_from_the_current_step():
    torch.manual_seed(0)
    model = DiffusionPolicy(in_features=3, num_classes=2, horizon=6, n_obs_steps=2, n_action_steps=3,
                            down_dims=(8,), step_embed_dim=8, sampler="ddim", inference_steps=2)
    obs = torch.randn(4, 1, 3)
    torch.manual_seed(1)
    ex = model.executor()
    got = [ex.act(o) for o in obs]
    torch.manual_seed(1)                                    # the same noise: the plans the executor made
    plan0 = model.sample(torch.stack([obs[0], obs[0]], 1)).double()   # history padded with the first observation
    plan1 = model.sample(torch.stack([obs[2], obs[3]], 1)).double()   # the next plan at step T_a = 3
    assert all(torch.equal(got[i], plan0[:, 1 + i]) for i in range(3))   # indices T_o - 1 ... T_o - 1 + T_a - 1
    assert torch.equal(got[3], plan1[:, 1])


def test_the_closed_loop_task_needs_a_policy_with_an_executor():
    from experiments.deformgen.task import BehaviourCloningTask

    with pytest.raises(ConfigError, match="has no executor"):
        BehaviourCloningTask(torch.nn.Linear(3, 2), optimizer=None)
