"""Behaviour cloning on particle states, scored in closed loop in the rope simulator.

Training regresses the demo's action per step: (Δx, Δy) / max_step (in 3-D also Δz) and Δyaw / max_turn by
mean squared error, and the grip command by binary cross-entropy on a logit (the policy's last output). Testing rolls
the policy out from every shared test state (`DeformGenDataModule.test_states`) and logs the success
rate in % per set, `test/success_<set>`, their mean `test/success_mean`, and the arm's data statistics
(`test/n_demos`, `test/accept_rate`) and a numeric fingerprint of each test set (`test/fp_<set>`:
equal across arms exactly when the test states are).

With a chunking policy (`model: act`, ACT, and `data.chunk` = its k) the same task trains on (observation,
k-action chunk, is_pad) triples by ACT's loss (Zhao et al. 2023, §IV): L1 on the scaled motion of every
unpadded step, the grip's BCE on its logit (the paper's gripper is a continuous joint under the same L1; ours
is a binary command, as for the MLP), plus `kl_weight` (β) times the CVAE's KL; in closed loop it queries the
policy at every step with z = 0 and executes the temporal ensemble of the overlapping chunks (rate
`ensemble_m`), averaging the network outputs (scaled motion and grip logit) before they become an action.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.models.act import kl_divergence
from reprolab.models.temporal_ensemble import TemporalEnsemble
from reprolab.tasks.base import StagedTask, Task


class BehaviourCloningTask(Task):
    def __init__(self, model, optimizer, scheduler=None, grip_weight: float = 1.0, kl_weight: float = 10.0,
                 ensemble_m: float = 0.01):
        super().__init__(model, optimizer, scheduler)
        self.grip_weight, self.kl_weight = grip_weight, kl_weight
        self.chunk = getattr(model, "chunk", 0)
        self.ensemble = TemporalEnsemble(ensemble_m) if self.chunk else None

    def on_fit_start(self) -> None:
        linear = [m for m in self.model.modules() if isinstance(m, torch.nn.Linear)]
        dm = self.trainer.datamodule
        env = dm.env
        n_in = getattr(self.model, "in_features", linear[0].in_features)
        n_out = getattr(self.model, "num_classes", linear[-1].out_features)
        if n_in != env.obs_dim:
            raise ConfigError(f"model.in_features={n_in} but the rope observation has {env.obs_dim} "
                              f"features (2 * sim.dim * n_particles + sim.dim + 3); set model.in_features={env.obs_dim}")
        if n_out != env.action_dim:
            raise ConfigError(f"the policy has {n_out} outputs but a sim.dim={env.dim} action has "
                              f"{env.action_dim}; set model.num_classes={env.action_dim}")
        if dm.chunk != self.chunk:
            raise ConfigError(f"the policy predicts chunks of {self.chunk} actions but data.chunk={dm.chunk}; "
                              f"set data.chunk={self.chunk}")

    def _scale(self) -> torch.Tensor:
        env = self.trainer.datamodule.env
        return torch.tensor([env.gripper.max_step] * env.dim + [env.gripper.max_turn])

    def _chunk_loss(self, batch):
        """ACT's loss: masked L1 on the scaled motion + grip BCE over the chunk's real steps + β KL."""
        obs, act, is_pad = batch
        out, mu, logvar = self.model(obs, act / torch.cat([self._scale(), torch.ones(1)]).to(act), is_pad)
        real = (~is_pad).to(out)
        motion_l1 = (out[..., :-1] - act[..., :-1] / self._scale().to(out)).abs().mean(-1)
        motion = (motion_l1 * real).sum() / real.sum()
        grip = (F.binary_cross_entropy_with_logits(out[..., -1], act[..., -1], reduction="none") * real).sum() / real.sum()
        return motion + self.grip_weight * grip + self.kl_weight * kl_divergence(mu, logvar), motion, grip

    def _loss(self, batch):
        if self.chunk:
            return self._chunk_loss(batch)
        obs, act = batch
        out = self.model(obs)
        scale = self._scale().to(out)
        motion = F.mse_loss(out[:, :-1], act[:, :-1] / scale)
        grip = F.binary_cross_entropy_with_logits(out[:, -1], act[:, -1])
        return motion + self.grip_weight * grip, motion, grip

    def training_step(self, batch, batch_idx):
        loss, motion, grip = self._loss(batch)
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss, motion, grip = self._loss(batch)
        size = len(batch[0])
        self.log("val/loss", loss, prog_bar=True, batch_size=size)
        self.log("val/motion_mse", motion, batch_size=size)
        self.log("val/grip_bce", grip, batch_size=size)

    def policy(self, obs: torch.Tensor, t: int) -> torch.Tensor:
        """The closed-loop controller: network outputs back in metres / radians, grip closed when p > 1/2. A
        chunking policy is queried with z = 0 at every step and its chunks ensembled (a new episode at t = 0)."""
        if self.chunk:
            if t == 0:
                self.ensemble.reset()
            self.ensemble.add(t, self.model(obs.to(self.device))[0].double().cpu())
            out = self.ensemble.action(t)
        else:
            out = self.model(obs.to(self.device)).double().cpu()
        return torch.cat([out[:, :-1] * self._scale().double(), (out[:, -1:] > 0).double()], 1)

    def test_step(self, batch, batch_idx):
        set_ids, states = batch
        dm = self.trainer.datamodule
        success = dm.env.rollout(states.cpu(), self.policy)["success"].float()
        rates = []
        for i, name in enumerate(dm.test_names):
            rate = success[set_ids.cpu() == i].mean() * 100
            rates.append(rate)
            self.log(f"test/success_{name}", rate, batch_size=1)
            self.log(f"test/fp_{name}", float(int(dm.fingerprints[name][:7], 16)), batch_size=1)
        self.log("test/success_mean", torch.stack(rates).mean(), batch_size=1)
        for key, value in dm.stats.items():
            self.log(f"test/{key}", value, batch_size=1)


class StateActionRegressionTask(StagedTask):
    """Paper scale on the released LeRobot datasets: behaviour cloning state → action by mean squared error;
    the test metric is the held-out `test/action_mse` (closed-loop success needs the reference's simulator)."""

    def step(self, batch, stage: str):
        state, action = batch
        loss = F.mse_loss(self.model(state), action)
        self.log(f"{stage}/{'loss' if stage != 'test' else 'action_mse'}", loss, prog_bar=True, batch_size=len(state),
                 on_step=stage == "train", on_epoch=stage != "train")
        return loss
