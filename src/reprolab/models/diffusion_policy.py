"""Diffusion Policy, CNN-based (Chi, Feng, Du, Xu, Cousineau, Burchfiel, Song, RSS 2023, "Diffusion Policy: Visuomotor
Policy Learning via Action Diffusion"), on a flat observation vector (the paper's low-dimensional variant).

At time t the policy reads the last T_o observations O_t (`n_obs_steps`) and denoises an action sequence A_t of T_p
steps (`horizon`), starting at the first observed step t − T_o + 1 (§III-A, Fig. 3); the closed loop executes T_a of
them (`n_action_steps`, from index T_o − 1, the current step) and then plans again (receding horizon, §III-C;
`receding_horizon.py`, `executor()`). The noise predictor ε_θ(O_t, A_t^k, k) is the 1-D temporal U-Net with FiLM conditioning on
the observation features (§III-B, `conditional_unet1d.py`), the features here being the T_o observations
flattened (the paper's low-dimensional setting: "obs_as_global_cond").

Training (eq. 5; DDPM, Ho et al. 2020, eq. 14): L = MSE(ε^k, ε_θ(O_t, A_t^0 + ε^k, k)) with k uniform over the
`train_steps` (100) steps of a squared-cosine β schedule and A_t^k = √ᾱ_k A_t^0 + √(1 − ᾱ_k) ε^k. Inference
(eq. 4): from A^K ~ N(0, I), `inference_steps` reverse steps of DDPM (the paper's CNN config: 100) or DDIM (η = 0,
`sampler: ddim`; its real-world setting: 10 steps), `noise_schedule.py`. Observations and actions are mapped to
[−1, 1] per dimension by the min and max of the training data (the released `LinearNormalizer`, mode "limits": a
dimension whose range is below 1e-4 is only shifted), `fit_normalizer`; `loss` and `sample` take and give raw values.

Not here: the EMA of the weights the paper evaluates (the trainer has no EMA).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from reprolab.models.conditional_unet1d import ConditionalUnet1D
from reprolab.models.executor import cpu_predictor
from reprolab.models.noise_schedule import NoiseSchedule
from reprolab.models.receding_horizon import RecedingHorizon

SAMPLERS = ("ddpm", "ddim")


class DiffusionPolicy(nn.Module):
    """`loss(obs (B, T_o, D), actions (B, T_p, A))` the ε-prediction loss; `sample(obs) -> (B, T_p, A)` a denoised
    action sequence; `executed(seq)` its T_a actions from the current step. `chunk` (= T_p) and `obs_steps`
    (= T_o) tell the datamodule what to cut."""

    def __init__(self, in_features: int, num_classes: int, horizon: int = 16, n_obs_steps: int = 2,
                 n_action_steps: int = 8, down_dims=(256, 512, 1024), kernel_size: int = 5, n_groups: int = 8,
                 step_embed_dim: int = 256, film_scale: bool = True, train_steps: int = 100,
                 beta_schedule: str = "squaredcos_cap_v2", clip_sample: bool = True, sampler: str = "ddpm",
                 inference_steps: int = 100):
        super().__init__()
        if n_obs_steps < 1 or n_action_steps < 1 or n_obs_steps - 1 + n_action_steps > horizon:
            raise ValueError(f"Diffusion Policy needs n_obs_steps >= 1, n_action_steps >= 1 and n_obs_steps - 1 + "
                             f"n_action_steps <= horizon; got {n_obs_steps}, {n_action_steps}, horizon {horizon}")
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler '{sampler}'; choose from {', '.join(SAMPLERS)}")
        self.in_features, self.num_classes = in_features, num_classes
        self.chunk, self.obs_steps, self.action_steps = horizon, n_obs_steps, n_action_steps
        self.sampler, self.inference_steps = sampler, inference_steps
        self.unet = ConditionalUnet1D(num_classes, n_obs_steps * in_features, tuple(down_dims), kernel_size,
                                      n_groups, step_embed_dim, film_scale)
        self.schedule = NoiseSchedule(train_steps, beta_schedule, clip_sample)
        self.schedule.timesteps(inference_steps)   # checks 1 <= inference_steps <= train_steps now
        for name, size in (("obs", in_features), ("act", num_classes)):   # identity until fit_normalizer
            self.register_buffer(f"{name}_scale", torch.ones(size))
            self.register_buffer(f"{name}_offset", torch.zeros(size))

    @torch.no_grad()
    def fit_normalizer(self, obs: torch.Tensor, actions: torch.Tensor, eps: float = 1e-4) -> None:
        """x ↦ scale · x + offset taking each dimension's [min, max] over the training data (obs (..., D), actions
        (..., A)) to [−1, 1]; a dimension whose range is below `eps`: scale 1, its min to 0 (the released rule)."""
        for name, x in (("obs", obs), ("act", actions)):
            flat = x.reshape(-1, x.shape[-1]).to(self.obs_scale)
            low, high = flat.min(0).values, flat.max(0).values
            flat_dim = (high - low) < eps
            scale = torch.where(flat_dim, torch.ones_like(low), 2 / (high - low).clamp(min=eps))
            offset = torch.where(flat_dim, -low, -1 - scale * low)
            getattr(self, f"{name}_scale").copy_(scale)
            getattr(self, f"{name}_offset").copy_(offset)

    def _cond(self, obs: torch.Tensor) -> torch.Tensor:
        if obs.dim() != 3 or obs.shape[1:] != (self.obs_steps, self.in_features):
            raise ValueError(f"Diffusion Policy reads observations (B, n_obs_steps={self.obs_steps}, "
                             f"{self.in_features}); got {tuple(obs.shape)}")
        return (obs * self.obs_scale + self.obs_offset).flatten(1)

    def loss(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """E_{k, ε} ‖ε − ε_θ(O, √ᾱ_k A + √(1 − ᾱ_k) ε, k)‖² (eq. 5) on the normalised actions, one k and ε per
        sample."""
        a0 = actions * self.act_scale + self.act_offset
        k = torch.randint(0, self.schedule.train_steps, (len(a0),), device=a0.device)
        noise = torch.randn_like(a0)
        return F.mse_loss(self.unet(self.schedule.add_noise(a0, noise, k), k, self._cond(obs)), noise)

    @torch.no_grad()
    def sample(self, obs: torch.Tensor, generator: torch.Generator | None = None, eps_fn=None) -> torch.Tensor:
        """Denoise A^K ~ N(0, I) (B, T_p, A) by `inference_steps` reverse steps (eq. 4), in raw action units.
        `eps_fn(x, k, cond)` replaces the network (tests)."""
        cond = self._cond(obs)
        eps_fn = eps_fn or self.unet
        x = torch.randn(len(obs), self.chunk, self.num_classes, generator=generator, device=obs.device,
                        dtype=obs.dtype)
        steps = self.schedule.timesteps(self.inference_steps)
        for i, k in enumerate(steps):
            prev = steps[i + 1] if i + 1 < len(steps) else -1
            eps = eps_fn(x, torch.tensor([k], device=obs.device), cond)
            if self.sampler == "ddim":
                x = self.schedule.ddim_step(x, eps, k, prev)
            else:
                x = self.schedule.ddpm_step(x, eps, k, prev, generator)
        return (x - self.act_offset) / self.act_scale

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.sample(obs)

    def executed(self, seq: torch.Tensor) -> torch.Tensor:
        """The T_a actions of a sequence that are executed: from index T_o − 1 (the current step) on (§III-C)."""
        return seq[:, self.obs_steps - 1 : self.obs_steps - 1 + self.action_steps]

    def executor(self) -> RecedingHorizon:
        """Closed loop (§III-C): denoise a sequence from the last T_o observations every T_a steps, execute its T_a."""
        return RecedingHorizon(cpu_predictor(self, lambda obs: self.executed(self.sample(obs))), self.obs_steps)


def dp_windows(obs: torch.Tensor, actions: torch.Tensor, n_obs_steps: int, horizon: int):
    """Diffusion Policy's training samples from episodes obs (n, T, D), actions (n, T, A): at every step t the
    observations t − T_o + 1 … t (n, T, T_o, D) and the actions t − T_o + 1 … t − T_o + T_p (n, T, T_p, A), indices
    outside the episode replaced by its first / last frame (the released `SequenceSampler`'s edge padding; LeRobot
    clamps the same way), and is_pad (n, T, T_p), True at the replaced action steps."""
    steps = obs.shape[1]
    if n_obs_steps < 1 or horizon < 1:
        raise ValueError(f"n_obs_steps and horizon must be >= 1; got {n_obs_steps}, {horizon}")
    t = torch.arange(steps)[:, None]
    obs_idx = (t - n_obs_steps + 1 + torch.arange(n_obs_steps)[None]).clamp(0, steps - 1)
    raw = t - n_obs_steps + 1 + torch.arange(horizon)[None]
    act_idx = raw.clamp(0, steps - 1)
    is_pad = (raw < 0) | (raw >= steps)
    return obs[:, obs_idx], actions[:, act_idx], is_pad.expand(len(obs), -1, -1)
