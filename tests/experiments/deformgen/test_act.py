"""ACT as DeformGen's policy: the CVAE's KL, chunk targets and loss by hand, temporal ensembling's weights and action
on a hand-made example, the padding mask reaching the style encoder, and the presets through the trainer; at paper
scale, the LeRobot loader's chunks of hand-made episodes and the first-action metric at z = 0."""

import math

import pytest
import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.data.fake import fake_config
from reprolab.models.act import ACT, action_chunks, chunk_loss, kl_divergence
from reprolab.models.temporal_ensemble import TemporalEnsemble
from tests.experiments.deformgen.test_presets import SMALL_RUN


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
    ens = TemporalEnsemble(predict=None, m=0.5)
    w = [1.0, math.exp(-0.5), math.exp(-1.0)]                  # oldest first
    assert ens.weights(3).tolist() == pytest.approx([x / sum(w) for x in w])
    for t, base in enumerate((10.0, 20.0, 30.0)):             # chunk k 3 predicted at t: base, base + 1, base + 2
        ens.add(t, torch.tensor([[[base], [base + 1], [base + 2]]]))
    # step 2 is predicted by the chunks of t 0 (its 3rd entry, 12), t 1 (21) and t 2 (30)
    assert ens.action(2).item() == pytest.approx((12 * w[0] + 21 * w[1] + 30 * w[2]) / sum(w))
    ens.add(3, torch.tensor([[[40.0], [41.0], [42.0]]]))        # the chunk of t 0 no longer reaches step 3
    assert len(ens.chunks) == 3
    assert ens.action(3).item() == pytest.approx((22 * w[0] + 31 * w[1] + 40 * w[2]) / sum(w))
    flat = TemporalEnsemble(predict=None, m=0.0)
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
    assert (act.task.kl_weight, act.model.ensemble_m) == (10.0, 0.01)
    metrics = run(compose(["experiment=deformgen/dg_act_cpu", *SMALL_RUN, "debug=fdr"], output_dir=tmp_path))
    assert metrics["test/n_demos"] == 2.0 and 0.0 <= metrics["test/success_drag"] <= 100.0
    with pytest.raises(ConfigError, match="set data.chunk=10"):
        run(compose(["experiment=deformgen/dg_act_cpu", *SMALL_RUN, "data.chunk=5", "trainer.max_steps=1"],
                    output_dir=tmp_path / "mismatch"))


def test_the_source_act_preset_is_the_source_arm_with_act():
    src, act = compose(["experiment=deformgen/source_cpu"]), compose(["experiment=deformgen/source_act_cpu"])
    assert act.data.generator == src.data.generator and act.model == compose(["experiment=deformgen/dg_act_cpu"]).model


def test_act_loss_by_hand_over_the_real_steps_with_and_without_a_grip_logit():
    out = torch.tensor([[[1.0, 0.0], [3.0, 0.0], [50.0, 9.0]]])       # B 1, k 3, A 2; step 2 is padding
    target = torch.tensor([[[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]])
    is_pad = torch.tensor([[False, False, True]])
    mu, logvar = torch.tensor([[1.0, 0.0]]), torch.zeros(1, 2)       # KL = mu^2 / 2 = 0.5
    loss, l1, grip = chunk_loss(out, target, is_pad, mu, logvar, kl_weight=10.0)
    # every output under L1: step 0 (|1| + |-1|) / 2 = 1, step 1 (2 + 0) / 2 = 1, mean 1; + 10 * 0.5
    assert (l1.item(), grip.item(), loss.item()) == (1.0, 0.0, 6.0)
    loss, l1, grip = chunk_loss(out, target, is_pad, mu, logvar, kl_weight=10.0, grip_weight=2.0)
    bce = (F.softplus(torch.tensor(-0.0)) + F.softplus(torch.tensor(0.0))) / 2   # logit 0 vs targets 1 and 0: ln 2
    assert l1.item() == 1.5 and grip.item() == pytest.approx(bce.item())          # motion |1|, |2|
    assert loss.item() == pytest.approx(1.5 + 2 * math.log(2) + 5.0)


def write_episodes(folder, files):
    """LeRobot parquet files, each a list of (episode, frame, action) rows: state = [10 * episode + frame]."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    out = folder / "data" / "chunk-000"
    out.mkdir(parents=True)
    for i, rows in enumerate(files):
        pq.write_table(pa.table({"observation.state": [[10.0 * e + t] for e, t, _ in rows],
                                 "action": [[a, -a] for _, _, a in rows], "episode_index": [e for e, _, _ in rows]}),
                       out / f"file_{i:03d}.parquet")


def test_the_lerobot_loader_gives_each_frame_the_next_actions_of_its_own_episode(tmp_path):
    from experiments.deformgen.lerobot_data import LeRobotDemoDataModule

    ep0, ep1, ep2 = [(0, t, t + 1.0) for t in range(4)], [(1, t, 10.0 * (t + 1)) for t in range(2)], \
        [(2, t, 100.0 * (t + 1)) for t in range(3)]
    write_episodes(tmp_path / "rope" / "train1000_yawonly", [ep1[:1] + ep0[:2], ep2 + ep0[2:] + ep1[1:]])  # interleaved
    dm = LeRobotDemoDataModule(str(tmp_path), val_episodes=1, test_episodes=1, chunk=3)
    dm.setup()
    got = {}
    for split in dm.splits.values():
        for state, chunk, pad in zip(*split.tensors, strict=True):
            got[int(state.item())] = (chunk[:, 0].tolist(), pad.tolist())
            assert torch.equal(chunk[:, 1], -chunk[:, 0])
    F_, T_ = False, True
    assert got == {0: ([1, 2, 3], [F_, F_, F_]), 1: ([2, 3, 4], [F_, F_, F_]), 2: ([3, 4, 0], [F_, F_, T_]),
                   3: ([4, 0, 0], [F_, T_, T_]),
                   10: ([10, 20, 0], [F_, F_, T_]), 11: ([20, 0, 0], [F_, T_, T_]),
                   20: ([100, 200, 300], [F_, F_, F_]), 21: ([200, 300, 0], [F_, F_, T_]), 22: ([300, 0, 0], [F_, T_, T_])}
    assert sorted(len(s) for s in dm.splits.values()) == [2, 3, 4]   # one episode per split
    pairs = LeRobotDemoDataModule(str(tmp_path), val_episodes=1, test_episodes=1)   # chunk 0: the frames as read
    pairs.setup()
    states, actions, episodes = pairs.read()
    for name, split in pairs.splits.items():
        mask = torch.isin(episodes, torch.unique(episodes[torch.isin(states[:, 0], split.tensors[0][:, 0])]))
        assert torch.equal(split.tensors[0], states[mask]) and torch.equal(split.tensors[1], actions[mask]), name
    with pytest.raises(ConfigError, match="data.chunk must be 0"):
        LeRobotDemoDataModule(str(tmp_path), chunk=-1)


def test_the_paper_act_metric_is_the_first_action_at_z_zero():
    from experiments.deformgen.task import StateActionRegressionTask

    torch.manual_seed(0)
    model = ACT(in_features=3, num_classes=2, chunk=4, d_model=16, heads=2, ff=32, latent=5, obs_tokens=1).eval()
    task, logged = StateActionRegressionTask(model, optimizer=None, kl_weight=10.0), {}
    task.log = lambda name, value, **kw: logged.__setitem__(name, value)
    state, chunk = torch.randn(5, 3), torch.randn(5, 4, 2)
    is_pad = torch.zeros(5, 4, dtype=torch.bool)
    is_pad[0, 2:] = True
    task.step((state, chunk, is_pad), "test")
    with torch.no_grad():
        first = model(state)[0][:, 0]
    assert logged["test/action_mse"].item() == pytest.approx(F.mse_loss(first, chunk[:, 0]).item(), rel=1e-6)
    task.step((state, chunk, is_pad), "val")
    assert logged["val/loss"].item() == pytest.approx(logged["test/action_mse"].item(), rel=1e-6)


def test_the_paper_act_preset_is_rope_dg_with_the_papers_act_and_checks_the_chunk(tmp_path):
    dg = compose(["experiment=deformgen/rope_dg"], output_dir=tmp_path)
    act = compose(["experiment=deformgen/rope_dg_act"], output_dir=tmp_path)
    assert act.model._target_ == "reprolab.models.act.ACT" and act.data.chunk == act.model.chunk == 100
    sizes = ("d_model", "heads", "enc_layers", "dec_layers", "ff", "latent", "dropout")
    assert [act.model[k] for k in sizes] == [512, 8, 4, 7, 3200, 32, 0.1]
    assert {k: v for k, v in act.data.items() if k != "chunk"} == dg.data and act.task.kl_weight == 10.0
    assert (act.optimizer.lr, act.optimizer.weight_decay) == (1e-5, 1e-4) and act.trainer == dg.trainer
    assert act.scheduler == dg.scheduler and act.task._target_ == dg.task._target_ and act.monitor == dg.monitor
    small = ["device=cpu", "logger=none", "print_config=false", "data.episodes=12", "data.frames_per_episode=4",
             "data.num_workers=0", "data.val_episodes=2", "data.test_episodes=2", "model.d_model=16",
             "model.heads=2", "model.ff=32", "trainer.max_steps=1"]
    with pytest.raises(ConfigError, match="set data.chunk=100"):
        run(fake_config(compose(["experiment=deformgen/rope_dg_act", *small, "data.chunk=5"], output_dir=tmp_path)))
