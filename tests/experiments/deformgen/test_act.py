"""ACT as DeformGen's policy: the CVAE's KL and chunk targets by hand, temporal ensembling's weights and action on
a hand-made example, the padding mask reaching the style encoder, and the preset through the trainer."""

import math

import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.models.act import ACT, action_chunks, kl_divergence
from reprolab.models.temporal_ensemble import TemporalEnsemble


def test_kl_against_a_standard_normal_by_hand():
    # row 1: mu (1, 0), var (1, 2): -1/2 [(1 + 0 - 1 - 1) + (1 + ln 2 - 0 - 2)] = 1 - ln(2)/2; row 2 is N(0, I): 0
    mu = torch.tensor([[1.0, 0.0], [0.0, 0.0]])
    logvar = torch.tensor([[0.0, math.log(2.0)], [0.0, 0.0]])
    assert kl_divergence(mu, logvar).item() == pytest.approx((1 - math.log(2) / 2) / 2, abs=1e-6)
    assert kl_divergence(mu[1:], logvar[1:]).item() == 0.0


def test_chunk_targets_and_padding_mask_of_a_toy_episode():
    act = torch.tensor([[[1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0]]])   # one episode, T 4, A 2
    chunks, is_pad = action_chunks(act, 3)
    assert chunks.shape == (1, 4, 3, 2) and is_pad.shape == (1, 4, 3)
    assert chunks[0, :, :, 0].tolist() == [[1, 2, 3], [2, 3, 4], [3, 4, 0], [4, 0, 0]]
    assert chunks[0, :, :, 1].tolist() == [[-1, -2, -3], [-2, -3, -4], [-3, -4, 0], [-4, 0, 0]]
    assert is_pad[0].tolist() == [[False, False, False], [False, False, False], [False, False, True],
                                  [False, True, True]]
    assert torch.equal(action_chunks(act, 1)[0][:, :, 0], act)   # k 1 is the single-action data
    with pytest.raises(ValueError, match="k must be >= 1"):
        action_chunks(act, 0)


def test_temporal_ensembling_weights_and_action_by_hand():
    ens = TemporalEnsemble(m=0.5)
    w = [1.0, math.exp(-0.5), math.exp(-1.0)]                  # oldest first
    assert ens.weights(3).tolist() == pytest.approx([x / sum(w) for x in w])
    for t, base in enumerate((10.0, 20.0, 30.0)):             # chunk k 3 predicted at t: base, base + 1, base + 2
        ens.add(t, torch.tensor([[[base], [base + 1], [base + 2]]]))
    # step 2 is predicted by the chunks of t 0 (its 3rd entry, 12), t 1 (21) and t 2 (30)
    assert ens.action(2).item() == pytest.approx((12 * w[0] + 21 * w[1] + 30 * w[2]) / sum(w))
    ens.add(3, torch.tensor([[[40.0], [41.0], [42.0]]]))        # the chunk of t 0 no longer reaches step 3
    assert len(ens.chunks) == 3
    assert ens.action(3).item() == pytest.approx((22 * w[0] + 31 * w[1] + 40 * w[2]) / sum(w))
    flat = TemporalEnsemble(m=0.0)
    flat.add(0, torch.tensor([[[1.0], [5.0]]]))
    flat.add(1, torch.tensor([[[2.0], [9.0]]]))
    assert flat.action(0).item() == 1.0 and flat.action(1).item() == 3.5   # m 0: the plain mean of 5 and 2
    flat.reset()
    with pytest.raises(ValueError, match="no stored chunk predicts step 1"):
        flat.action(1)


def test_act_predicts_a_chunk_ignores_padded_actions_and_uses_z_zero_at_test():
    torch.manual_seed(0)
    model = ACT(in_features=7, num_classes=3, chunk=4, d_model=16, heads=2, ff=32, latent=5, obs_tokens=2).eval()
    obs, act = torch.randn(2, 7), torch.randn(2, 4, 3)
    is_pad = torch.tensor([[False, False, True, True], [False, False, False, False]])
    out, mu, logvar = model(obs, act, is_pad)
    assert out.shape == (2, 4, 3) and mu.shape == logvar.shape == (2, 5)
    changed = act.clone()
    changed[0, 2:] = 100.0                                     # only the padded steps of episode 0
    mu2, _ = model.encode_style(model._obs_tokens(obs), changed, is_pad)
    assert torch.allclose(mu2, mu, atol=1e-5)
    changed[0, 1] = 100.0                                      # a real step: the style changes
    assert not torch.allclose(model.encode_style(model._obs_tokens(obs), changed, is_pad)[0], mu, atol=1e-3)
    test_out, no_mu, _ = model(obs)
    assert no_mu is None and torch.equal(test_out, model(obs)[0])   # z = 0: deterministic


def test_the_act_preset_is_dg_with_the_policy_swapped_and_runs_through_the_trainer(tmp_path):
    dg, act = compose(["experiment=deformgen/dg_cpu"]), compose(["experiment=deformgen/dg_act_cpu"])
    assert act.model._target_ == "reprolab.models.act.ACT" and act.data.chunk == act.model.chunk == 10
    assert {k: v for k, v in act.data.items() if k != "chunk"} == dg.data
    assert act.trainer.max_steps == dg.trainer.max_steps and act.optimizer == dg.optimizer
    assert (act.task.kl_weight, act.task.ensemble_m) == (10.0, 0.01)
    small = ["logger=none", "print_config=false", "data.n_demos=2", "data.gen_batch=4", "data.n_test=2"]
    metrics = run(compose(["experiment=deformgen/dg_act_cpu", *small, "debug=fdr"], output_dir=tmp_path))
    assert metrics["test/n_demos"] == 2.0 and 0.0 <= metrics["test/success_drag"] <= 100.0
    with pytest.raises(ConfigError, match="set data.chunk=10"):
        run(compose(["experiment=deformgen/dg_act_cpu", *small, "data.chunk=5", "trainer.max_steps=1"],
                    output_dir=tmp_path / "mismatch"))


def test_the_source_act_preset_is_the_source_arm_with_act():
    src, act = compose(["experiment=deformgen/source_cpu"]), compose(["experiment=deformgen/source_act_cpu"])
    assert act.data.generator == src.data.generator and act.model == compose(["experiment=deformgen/dg_act_cpu"]).model
