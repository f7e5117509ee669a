"""The deep Koopman losses of Lusch, Kutz & Brunton (2018, Eqs. 8–13) on a window x_0..x_T.

L = α1 (L_recon + L_pred) + L_lin + α2 L_inf, with
  L_recon = ‖x_0 − ψ⁻¹(ψ(x_0))‖²,  L_pred = mean_{m=1..S_p} ‖x_m − ψ⁻¹(K^m ψ(x_0))‖²,
  L_lin = mean_{m=1..T} ‖ψ(x_m) − K^m ψ(x_0)‖²,  L_inf = ‖x_0 − ψ⁻¹ψ(x_0)‖_∞ + ‖x_1 − ψ⁻¹Kψ(x_0)‖_∞
(squared norms as means over coordinates; the weight penalty α3‖W‖² is the optimizer's weight decay).
"""

from __future__ import annotations

import torch

from experiments.koopman.model import DeepKoopman


def koopman_losses(model: DeepKoopman, window: torch.Tensor, pred_steps: int, recon_weight: float = 0.1,
                   inf_weight: float = 1e-7) -> dict[str, torch.Tensor]:
    """window: (batch, T + 1, d). Returns the total `loss` and its parts, plus `pred_rel` (the k-step
    prediction error over the states' variance, a scale-free score)."""
    x0, future = window[:, 0], window[:, 1:]
    steps = future.shape[1]
    z0 = model.encode(x0)
    latents = model.advance(z0, steps)                                   # K^m ψ(x_0), m = 1..T
    recon0 = model.decode(z0)
    pred = model.decode(latents[:, :pred_steps])
    recon = (x0 - recon0).pow(2).mean()
    prediction, pred_rel = prediction_error(future[:, :pred_steps], pred)
    linearity = (model.encode(future.flatten(0, 1)).view_as(latents) - latents).pow(2).mean()
    inf = (x0 - recon0).abs().amax() + (future[:, 0] - pred[:, 0]).abs().amax()
    total = recon_weight * (recon + prediction) + linearity + inf_weight * inf
    return {"loss": total, "recon": recon, "pred": prediction, "lin": linearity, "inf": inf, "pred_rel": pred_rel}


def prediction_error(future: torch.Tensor, pred: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, steps, d) true and predicted states → (the k-step prediction MSE, that MSE over the states' variance)."""
    prediction = (future - pred).pow(2).mean()
    spread = (future - future.mean((0, 1))).pow(2).mean()
    return prediction, prediction / spread.clamp_min(1e-12)
