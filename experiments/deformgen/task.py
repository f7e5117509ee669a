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
is a binary command, as for the MLP), plus `kl_weight` (β) times the CVAE's KL.

With Diffusion Policy (`model: deformgen_dp`; Chi et al. 2023; `data.chunk` = its T_p, `data.obs_steps` = its T_o)
the task trains on (T_o observations, T_p actions from t − T_o + 1) by the ε-prediction loss of the policy (eq. 5)
on the same scaled motion with the grip as ±1 (so an output > 0 closes the gripper, as a logit > 0 does), after
fitting the policy's min-max normaliser on the training split.

In closed loop the policy's own `executor()` decides which network output is executed at each step (one query per
step for the MLP; ACT's temporal ensemble of overlapping chunks, rate `model.ensemble_m`, with z = 0; Diffusion
Policy's receding horizon, T_a of every T_p, §III-C); the task maps that output (scaled motion, grip logit or ±1) to
an action, so it holds no per-policy execution rule.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError
from reprolab.models.act import chunk_loss, masked_l1
from reprolab.models.diffusion_policy import DiffusionPolicy
from reprolab.tasks.base import StagedTask, Task


def check_chunk(model, dm) -> None:
    """The datamodule's chunk length (0: single actions) and observation steps (0: one observation, no history)
    must be the policy's."""
    policy, data = getattr(model, "chunk", 0), dm.chunk
    if data != policy:
        raise ConfigError(f"the policy predicts chunks of {policy} actions but data.chunk={data}; set data.chunk={policy}")
    policy, data = getattr(model, "obs_steps", 0), getattr(dm, "obs_steps", 0)
    if data != policy:
        raise ConfigError(f"the policy reads {policy} observation steps but data.obs_steps={data}; "
                          f"set data.obs_steps={policy}")


def fit_diffusion_normalizer(model, dm, target=lambda a: a) -> None:
    """Diffusion Policy's min-max normaliser, fitted on the training split's observations and (target) actions."""
    if isinstance(model, DiffusionPolicy):
        obs, act = dm.splits["train"].tensors[:2]
        model.fit_normalizer(obs, target(act))


class BehaviourCloningTask(Task):
    def __init__(self, model, optimizer, scheduler=None, grip_weight: float = 1.0, kl_weight: float = 10.0):
        super().__init__(model, optimizer, scheduler)
        if not hasattr(model, "executor"):
            raise ConfigError(f"{type(model).__name__} has no executor() (its closed-loop rule); use a policy model "
                              "from reprolab.models (mlp.MLP, act.ACT, diffusion_policy.DiffusionPolicy)")
        self.grip_weight, self.kl_weight = grip_weight, kl_weight
        self.chunk = getattr(model, "chunk", 0)
        self.diffusion = isinstance(model, DiffusionPolicy)
        self.executor = model.executor()

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
        check_chunk(self.model, dm)
        fit_diffusion_normalizer(self.model, dm, self._diffusion_target)

    def _scale(self) -> torch.Tensor:
        env = self.trainer.datamodule.env
        return torch.tensor([env.gripper.max_step] * env.dim + [env.gripper.max_turn])

    def _chunk_loss(self, batch):
        """ACT's loss: masked L1 on the scaled motion + grip BCE over the chunk's real steps + β KL."""
        obs, act, is_pad = batch
        scaled = act / torch.cat([self._scale(), torch.ones(1)]).to(act)
        out, mu, logvar = self.model(obs, scaled, is_pad)
        return chunk_loss(out, scaled, is_pad, mu, logvar, self.kl_weight, self.grip_weight)

    def _diffusion_target(self, act: torch.Tensor) -> torch.Tensor:
        """Diffusion Policy's targets: the scaled motion and the grip as −1 (open) / +1 (closed)."""
        return torch.cat([act[..., :-1] / self._scale().to(act), 2 * act[..., -1:] - 1], -1)

    def _loss(self, batch):
        if self.diffusion:
            obs, act, _ = batch
            loss = self.model.loss(obs, self._diffusion_target(act))
            return loss, loss, loss.new_zeros(())
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
        """The closed-loop controller: the policy's executor gives the output executed at step t (a new episode at
        t = 0), mapped back to metres / radians, the grip closed when its output is > 0 (p > 1/2, or +1)."""
        if t == 0:
            self.executor.reset()
        out = self.executor.act(obs)
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
    the test metric is the held-out `test/action_mse` (closed-loop success needs the reference's simulator).

    With a chunking policy (`model: deformgen_state_act`, ACT, and `data.chunk` = its k) training takes ACT's
    loss (Zhao et al. 2023, §IV-B; `reprolab.models.act.chunk_loss`, the CPU task's too): L1 on every output
    of the chunk's real steps + `kl_weight` (β) · KL, every action dimension a continuous target as in the
    paper. Validation and test query the policy with z = 0 and score the first action of its chunk (the one
    executed at that frame) by the same MSE, so `val/loss` and `test/action_mse` compare with the MLP's; they
    also log the L1 over the whole chunk's real steps (`{stage}/chunk_l1`).

    With Diffusion Policy (`model: deformgen_state_dp`, `data.chunk` = T_p, `data.obs_steps` = T_o) training and
    validation take its ε-prediction loss (Chi et al. 2023, eq. 5; `val/loss` is that loss, for checkpoint
    selection only); the test denoises a sequence per frame and scores its action at the current step (index
    T_o − 1, the first one executed) by the same MSE, `test/action_mse`, comparable with the MLP's and ACT's."""

    def __init__(self, model, optimizer, scheduler=None, kl_weight: float = 10.0):
        super().__init__(model, optimizer, scheduler)
        self.kl_weight = kl_weight
        self.chunk = getattr(model, "chunk", 0)

    def on_fit_start(self) -> None:
        check_chunk(self.model, self.trainer.datamodule)
        fit_diffusion_normalizer(self.model, self.trainer.datamodule)

    def _log(self, stage: str, name: str, value, size: int) -> None:
        self.log(f"{stage}/{name}", value, prog_bar=name != "chunk_l1", batch_size=size, on_step=stage == "train",
                 on_epoch=stage != "train")

    def step(self, batch, stage: str):
        if isinstance(self.model, DiffusionPolicy):
            return self._diffusion_step(batch, stage)
        if self.chunk:
            return self._chunk_step(batch, stage)
        state, action = batch
        loss = F.mse_loss(self.model(state), action)
        self._log(stage, "loss" if stage != "test" else "action_mse", loss, len(state))
        return loss

    def _chunk_step(self, batch, stage: str):
        state, chunk, is_pad = batch
        if stage == "train":
            out, mu, logvar = self.model(state, chunk, is_pad)
            loss = chunk_loss(out, chunk, is_pad, mu, logvar, self.kl_weight)[0]
            self._log(stage, "loss", loss, len(state))
            return loss
        out = self.model(state)[0]
        first = F.mse_loss(out[:, 0], chunk[:, 0])             # step 0 of a chunk is never padded
        self._log(stage, "loss" if stage != "test" else "action_mse", first, len(state))
        self._log(stage, "chunk_l1", masked_l1(out, chunk, is_pad), len(state))
        return first

    def _diffusion_step(self, batch, stage: str):
        obs, seq, is_pad = batch
        if stage != "test":
            loss = self.model.loss(obs, seq)
            self._log(stage, "loss", loss, len(obs))
            return loss
        out = self.model.sample(obs)
        now = self.model.obs_steps - 1                          # the current frame: never padded
        mse = F.mse_loss(out[:, now], seq[:, now])
        self._log(stage, "action_mse", mse, len(obs))
        self._log(stage, "chunk_l1", masked_l1(out, seq, is_pad), len(obs))
        return mse
