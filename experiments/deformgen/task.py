"""Behaviour cloning on particle states, scored in closed loop in the rope simulator.

Training regresses the demo's action per step: (Δx, Δy) / max_step (in 3-D also Δz) and Δyaw / max_turn by
mean squared error, and the grip command by binary cross-entropy on a logit (the policy's last output). Testing rolls
the policy out from every shared test state (`DeformGenDataModule.test_states`) and logs the success
rate in % per set, `test/success_<set>`, their mean `test/success_mean`, and the arm's data statistics
(`test/n_demos`, `test/accept_rate`) and a numeric fingerprint of each test set (`test/fp_<set>`:
equal across arms exactly when the test states are).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import StagedTask, Task


class BehaviourCloningTask(Task):
    def __init__(self, model, optimizer, scheduler=None, grip_weight: float = 1.0):
        super().__init__(model, optimizer, scheduler)
        self.grip_weight = grip_weight

    def on_fit_start(self) -> None:
        linear = [m for m in self.model.modules() if isinstance(m, torch.nn.Linear)]
        env = self.trainer.datamodule.env
        if linear[0].in_features != env.obs_dim:
            raise ConfigError(f"model.in_features={linear[0].in_features} but the rope observation has {env.obs_dim} "
                              f"features (2 * sim.dim * n_particles + sim.dim + 3); set model.in_features={env.obs_dim}")
        if linear[-1].out_features != env.action_dim:
            raise ConfigError(f"the policy has {linear[-1].out_features} outputs but a sim.dim={env.dim} action has "
                              f"{env.action_dim}; set model.num_classes={env.action_dim}")

    def _scale(self) -> torch.Tensor:
        env = self.trainer.datamodule.env
        return torch.tensor([env.gripper.max_step] * env.dim + [env.gripper.max_turn])

    def _loss(self, batch):
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
        """The closed-loop controller: network outputs back in metres / radians, grip closed when p > 1/2."""
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
