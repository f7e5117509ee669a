"""The delta-rule momentum memory DeltaSGD and DeltaAdamW share: κ, the scale-free key covariance Ĉ,
the recall R = M·Ĉ and the buffer update of eq. (1) (see reprolab.optim.delta for the method)."""

from __future__ import annotations

import math

import torch
from torch import nn

from reprolab.optim.build import param_groups
from reprolab.optim.key_hooks import KeyCapture, KeyCovariance, top_eigenvalue, top_eigenvalue_exact

ETA_SCALES = ("lmax", "trace", "none")
KAPPAS = ("1-beta", "1-beta+eta", "1")


def resolve_kappa(kappa: str | float, beta: float, eta_eff: float) -> float:
    """κ of eq. (1): "1-beta" (η=0 is the EMA), "1-beta+eta" (unit gain for a key with λ=1), "1", or a number.

    ``eta_eff`` is the coefficient of M·Ĉ as applied: η in (1), β·η in the gated (1'). The stationary
    point of both is M* = κ·G·((1 − β)I + η_eff·Ĉ)⁻¹ (eq. 2; for (1'): M(I − βI + βηĈ) = κG), so the
    gain along an eigendirection with λ = 1 is κ / (1 − β + η_eff), and "1-beta+eta" means
    κ = 1 − β + η_eff: unit gain in both forms (with the raw η the gated gain would be
    (1 − β + η)/(1 − β + βη), 1.0909 at β = 0.9, η = 0.5).
    """
    if isinstance(kappa, int | float):
        return float(kappa)
    table = {"1-beta": 1.0 - beta, "1-beta+eta": 1.0 - beta + eta_eff, "1": 1.0}
    if kappa not in table:
        raise ValueError(f"kappa must be a number or one of {KAPPAS}, got {kappa!r}")
    return table[kappa]


class DeltaMomentumBase(torch.optim.Optimizer):
    """Key capture, the normalised key covariance per Gram and the recall M·C shared by both optimizers."""

    def __init__(self, model: nn.Module, defaults: dict, *, eta_scale: str, power_iters: int, power_tol: float,
                 exact_eig_max_dim: int, max_eta_lambda: float | None, exclude, share_grams: bool,
                 foreach: bool, max_keys: int | None = None):
        if eta_scale not in ETA_SCALES:
            raise ValueError(f"eta_scale must be one of {ETA_SCALES}, got {eta_scale!r}")
        if not isinstance(model, nn.Module):
            raise TypeError(f"{type(self).__name__} needs the model (for its key hooks), got {type(model)}")
        if max_eta_lambda is not None and max_eta_lambda <= 0:
            raise ValueError(f"max_eta_lambda must be positive or null (off), got {max_eta_lambda}")
        resolve_kappa(defaults["kappa"], 0.0, 0.0)  # validate early
        super().__init__(param_groups(model), defaults)
        self.eta_scale = eta_scale
        self.power_iters, self.power_tol, self.exact_eig_max_dim = power_iters, power_tol, exact_eig_max_dim
        self.max_eta_lambda = max_eta_lambda
        self.foreach = foreach
        self.keys = KeyCapture(model, exclude=tuple(exclude), share=share_grams, max_keys=max_keys,
                               active=self._keyed)
        self.key_scales: dict[str, torch.Tensor] = {}  # last divisor s per Gram (λ̂max for "lmax")
        self._covs: dict[nn.Parameter, tuple[torch.Tensor, torch.Tensor | None]] = {}  # this step's Ĉ, clip

    def _keyed(self) -> bool:
        return any(group["eta"] != 0 for group in self.param_groups)

    def _eta_eff(self, group) -> float:
        """The coefficient of M·Ĉ as applied: η (eq. 1) or β·η (gated, eq. 1')."""
        beta = group["betas"][0] if "betas" in group else group["momentum"]
        return group["eta"] * (beta if group["gated"] else 1.0)

    def lambda_max(self, gram: KeyCovariance, cov: torch.Tensor) -> torch.Tensor:
        """λ̂max(C): eigvalsh for d_in ≤ exact_eig_max_dim, else warm power iteration to ``power_tol``."""
        if gram.dim <= self.exact_eig_max_dim:
            return top_eigenvalue_exact(cov)
        if gram.top_vector is None:
            gen = torch.Generator().manual_seed(0)
            gram.top_vector = torch.randn(gram.dim, generator=gen).to(cov)
            gram.top_vector /= gram.top_vector.norm()
        lam, gram.top_vector = top_eigenvalue(cov, gram.top_vector, self.power_iters, self.power_tol)
        return lam

    def _normalised_covariance(self, gram: KeyCovariance) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(Ĉ = C / s, s, λ̂max(Ĉ) or None) with s = λ̂max, tr C, or 1 (``eta_scale``); all-zero keys give Ĉ = 0.

        λ̂max(Ĉ) is only computed when ``max_eta_lambda`` needs it (it is 1 for "lmax").
        """
        cov = gram.mean()
        lam = None
        if self.eta_scale == "none":
            scale = cov.new_ones(())
        elif self.eta_scale == "trace":
            scale = cov.diagonal().sum()
        else:
            scale = lam = self.lambda_max(gram, cov)
        if self.max_eta_lambda is not None and lam is None:
            lam = self.lambda_max(gram, cov)
        scale_safe = scale.clamp_min(1e-30)
        return cov / scale_safe, scale, None if lam is None else lam / scale_safe

    def _recalls(self, buffers: dict[nn.Parameter, torch.Tensor]) -> dict[nn.Parameter, torch.Tensor]:
        """R = M·Ĉ for every keyed weight, from the buffers *before* this step's update (eq. 1)."""
        self._covs = {}
        if not self._keyed():
            return {}  # plain EMA: the hooks did no Gram work either
        eta_of = {p: self._eta_eff(group) for group in self.param_groups for p in group["params"]}
        self.keys.missing([p for p in buffers if eta_of.get(p)])
        grams = self.keys.grams()
        self.keys.all_reduce(list(grams))
        for gram, weights in grams.items():
            weights = [w for w in weights if w in buffers]
            if not weights:
                continue
            cov, scale, lam = self._normalised_covariance(gram)
            self.key_scales[self.keys.layers[weights[0]].name] = scale
            for w in weights:  # optional clip: η_eff·λmax(Ĉ) ≤ max_eta_lambda, by shrinking this weight's Ĉ
                clip = None if self.max_eta_lambda is None or not eta_of[w] else \
                    (self.max_eta_lambda / (eta_of[w] * lam).clamp_min(1e-30)).clamp(max=1.0)
                self._covs[w] = (cov, clip)
        return self.recall({w: buffers[w] for w in self._covs})

    def recall(self, memories: dict[nn.Parameter, torch.Tensor]) -> dict[nn.Parameter, torch.Tensor]:
        """R = M·Ĉ (times the clip factor) with this step's Ĉ, one product per shared Gram under foreach."""
        by_cov: dict[int, list[nn.Parameter]] = {}
        for w in memories:
            by_cov.setdefault(id(self._covs[w][0]), []).append(w)
        recalls = {}
        for weights in by_cov.values():
            cov = self._covs[weights[0]][0]
            mats = [memories[w].reshape(w.shape[0], -1) for w in weights]
            if self.foreach and len(mats) > 1:  # one product for all layers sharing this Gram
                parts = torch.split(torch.cat(mats) @ cov.to(mats[0].dtype), [m.shape[0] for m in mats])
            else:
                parts = [m @ cov.to(m.dtype) for m in mats]
            for w, r in zip(weights, parts, strict=True):
                clip = self._covs[w][1]
                recalls[w] = (r if clip is None else r * clip.to(r.dtype)).view_as(w)
        return recalls

    def _finish_step(self) -> None:
        self.keys.reset()


def _update_memory(m, g, recall, beta, kappa, eta_eff):
    """Eq. (1) for one tensor; lerp when κ = 1 − β so η = 0 is bit-for-bit torch's EMA."""
    if math.isclose(kappa, 1.0 - beta):
        m.lerp_(g, 1.0 - beta)
    else:
        m.mul_(beta).add_(g, alpha=kappa)
    if recall is not None:
        m.sub_(recall, alpha=eta_eff)


def _update_memory_foreach(ms, gs, keyed, recalls, beta, kappa, eta_eff):
    if math.isclose(kappa, 1.0 - beta):
        torch._foreach_lerp_(ms, gs, 1.0 - beta)
    else:
        torch._foreach_mul_(ms, beta)
        torch._foreach_add_(ms, gs, alpha=kappa)
    if keyed:
        torch._foreach_add_(keyed, recalls, alpha=-eta_eff)
