"""The noise schedule and samplers of a denoising diffusion model (DDPM, Ho, Jain, Abbeel 2020; DDIM, Song, Meng,
Ermon 2021), as Diffusion Policy (Chi et al., RSS 2023, §III-A) uses them through diffusers' `DDPMScheduler` /
`DDIMScheduler`: ε-prediction, `clip_sample` to [-1, 1], the "fixed_small" posterior variance.

Forward process (DDPM eq. 4): x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε, ᾱ_t = Π_{s ≤ t} (1 − β_s), t = 0 … T − 1.
β schedules: `squaredcos_cap_v2` (Nichol & Dhariwal 2021, eq. 17: f(u) = cos²((u + s) / (1 + s) · π/2), s = 0.008,
β_t = min(1 − f((t + 1) / T) / f(t / T), 0.999); Diffusion Policy's choice) and `linear` (DDPM's, 1e-4 … 0.02).
"""

from __future__ import annotations

import math

import torch

SCHEDULES = ("squaredcos_cap_v2", "linear")


def squared_cosine_betas(steps: int, s: float = 0.008, max_beta: float = 0.999) -> torch.Tensor:
    """β_t = min(1 − f((t + 1) / T) / f(t / T), max_beta), f(u) = cos²((u + s) / (1 + s) · π / 2) (Nichol & Dhariwal
    2021, eq. 17; diffusers' `betas_for_alpha_bar`, float64 here)."""
    f = lambda u: math.cos((u + s) / (1 + s) * math.pi / 2) ** 2  # noqa: E731
    return torch.tensor([min(1 - f((t + 1) / steps) / f(t / steps), max_beta) for t in range(steps)],
                        dtype=torch.float64)


def make_betas(schedule: str, steps: int, beta_start: float = 1e-4, beta_end: float = 0.02) -> torch.Tensor:
    if steps < 1:
        raise ValueError(f"the diffusion needs >= 1 training step; got train_steps={steps}")
    if schedule == "squaredcos_cap_v2":
        return squared_cosine_betas(steps)
    if schedule == "linear":
        return torch.linspace(beta_start, beta_end, steps, dtype=torch.float64)
    raise ValueError(f"unknown beta schedule '{schedule}'; choose from {', '.join(SCHEDULES)}")


class NoiseSchedule:
    """β, α = 1 − β and ᾱ (float64) of `train_steps` steps; `add_noise` (the forward process), `timesteps` (the
    inference steps, evenly spaced as diffusers' "leading" spacing: t = i · T / n, descending) and one reverse
    step of DDPM (`ddpm_step`) or deterministic DDIM (η = 0, `ddim_step`)."""

    def __init__(self, train_steps: int = 100, schedule: str = "squaredcos_cap_v2", clip_sample: bool = True):
        self.train_steps, self.clip_sample = train_steps, clip_sample
        self.betas = make_betas(schedule, train_steps)
        self.alphas = 1 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, 0)

    def alpha_bar(self, t: torch.Tensor | int) -> torch.Tensor:
        """ᾱ_t, with ᾱ_{−1} = 1 (the clean sample: diffusers' `set_alpha_to_one`)."""
        t = torch.as_tensor(t)
        return torch.where(t >= 0, self.alphas_cumprod[t.clamp(min=0)], torch.ones((), dtype=torch.float64))

    def add_noise(self, x0: torch.Tensor, noise: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε (DDPM eq. 4), t (B,) per sample."""
        a = self.alpha_bar(t).to(x0).view(-1, *([1] * (x0.dim() - 1)))
        return a.sqrt() * x0 + (1 - a).sqrt() * noise

    def timesteps(self, n: int) -> list[int]:
        if not 1 <= n <= self.train_steps:
            raise ValueError(f"inference_steps must be in 1..train_steps={self.train_steps}; got {n}")
        ratio = self.train_steps // n
        return [i * ratio for i in reversed(range(n))]

    def predict_x0(self, x_t: torch.Tensor, eps: torch.Tensor, t: int) -> torch.Tensor:
        """x̂_0 = (x_t − √(1 − ᾱ_t) ε̂) / √ᾱ_t (DDPM eq. 15), clipped to [−1, 1] with `clip_sample`."""
        a = float(self.alpha_bar(t))
        x0 = (x_t - math.sqrt(1 - a) * eps) / math.sqrt(a)
        return x0.clamp(-1, 1) if self.clip_sample else x0

    def ddpm_step(self, x_t: torch.Tensor, eps: torch.Tensor, t: int, prev_t: int,
                  generator: torch.Generator | None = None) -> torch.Tensor:
        """x_{t'} ~ q(x_{t'} | x_t, x̂_0) (DDPM eqs. 6-7 with t' = prev_t): mean √ᾱ_{t'} β / (1 − ᾱ_t) x̂_0 +
        √α (1 − ᾱ_{t'}) / (1 − ᾱ_t) x_t, α = ᾱ_t / ᾱ_{t'}, β = 1 − α; variance (1 − ᾱ_{t'}) / (1 − ᾱ_t) β
        ("fixed_small"), no noise at the last step."""
        a_t, a_prev = float(self.alpha_bar(t)), float(self.alpha_bar(prev_t))
        alpha = a_t / a_prev
        beta = 1 - alpha
        x0 = self.predict_x0(x_t, eps, t)
        mean = (math.sqrt(a_prev) * beta / (1 - a_t)) * x0 + (math.sqrt(alpha) * (1 - a_prev) / (1 - a_t)) * x_t
        if t == 0:
            return mean
        var = max((1 - a_prev) / (1 - a_t) * beta, 1e-20)
        noise = torch.randn(x_t.shape, generator=generator, dtype=x_t.dtype, device=x_t.device)
        return mean + math.sqrt(var) * noise

    def ddim_step(self, x_t: torch.Tensor, eps: torch.Tensor, t: int, prev_t: int) -> torch.Tensor:
        """x_{t'} = √ᾱ_{t'} x̂_0 + √(1 − ᾱ_{t'}) ε̂ (DDIM eq. 12, η = 0)."""
        a_prev = float(self.alpha_bar(prev_t))
        return math.sqrt(a_prev) * self.predict_x0(x_t, eps, t) + math.sqrt(1 - a_prev) * eps
