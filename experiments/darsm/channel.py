"""Steady fully developed channel flow with k-omega and an implicit ARSM: the discrete residual R(q).

Units: half-height h and friction velocity u_tau, so nu = 1/Re_tau and the driving pressure gradient is 1.
Nodes y_0 = 0 (wall) < ... < y_n = 1 (centreline, symmetry: a mirror node); unknowns at nodes 1..n,
q = [U, k, omega]. Second-order finite volumes on a tanh-stretched grid:

    0 = 1 + d/dy[(nu + nu_t) dU/dy]
    0 = P - beta* k omega + d/dy[(nu + sigma* k/omega) dk/dy]
    0 = alpha (omega/k) P - beta omega^2 + d/dy[(nu + sigma k/omega) d omega/dy] + sigma_d/omega max(k' omega', 0)

(Wilcox 2006, Turbulence Modeling for CFD, eqs. 4.36-4.42, without the stress limiter; its 1988 set has
sigma_d = 0), P = nu_t U'^2. The ARSM closure gives nu_t = -k a_12 / U' = -k tau b_12 / 2 with
tau = k/eps = 1/(beta* omega) and b_12 from `arsm.pure_shear_anisotropy`; the linear closure nu_t = k/omega.
Walls: U = k = 0 and omega = 60 nu / (beta_1 y_1^2) (Menter 1994). Each equation is divided by its implicit
diagonal scale, so one tolerance fits all three and R = 0 is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from experiments.darsm.arsm import WJ_CONSTANTS, pure_shear_anisotropy
from experiments.darsm.solver import banded_jacobian

BETA_STAR = 0.09


@dataclass(frozen=True)
class KOmega:
    """k-omega transport coefficients; the defaults are Wilcox (1988)."""
    alpha: float = 5.0 / 9.0
    beta: float = 0.075
    sigma: float = 0.5
    sigma_star: float = 0.5
    sigma_d: float = 0.0


WILCOX_1988 = KOmega()
WILCOX_2006 = KOmega(alpha=13.0 / 25.0, beta=0.0708, sigma=0.5, sigma_star=0.6, sigma_d=0.125)
TRANSPORT = {"wilcox1988": WILCOX_1988, "wilcox2006": WILCOX_2006}


def channel_grid(n: int, stretch: float, device=None) -> torch.Tensor:
    """Node positions 0 = y_0 < ... < y_n = 1, clustered at the wall by y = 1 - tanh(g (1 - xi)) / tanh(g)."""
    xi = torch.linspace(0.0, 1.0, n + 1, dtype=torch.float64, device=device)
    return 1.0 - torch.tanh(stretch * (1.0 - xi)) / math.tanh(stretch)


class Channel:
    """The discretised half channel at one Re_tau; `residual(q, closure)` is R(q) in q's layout."""

    n_vars = 3

    def __init__(self, re_tau: float, n: int = 96, stretch: float = 3.5, transport: KOmega = WILCOX_1988,
                 device=None):
        if re_tau <= 0 or n < 8:
            raise ValueError(f"a channel needs re_tau > 0 and n >= 8 nodes; got re_tau={re_tau}, n={n}")
        self.re_tau, self.nu, self.n, self.transport = float(re_tau), 1.0 / re_tau, n, transport
        self.y = channel_grid(n, stretch, device)
        y_ext = torch.cat([self.y, (2.0 - self.y[-2]).reshape(1)])
        self.dy_face = y_ext[1:] - y_ext[:-1]            # faces i+1/2, i = 0..n
        self.vol = 0.5 * (y_ext[2:] - y_ext[:-2])        # control volumes of nodes 1..n
        self.weight = self.vol * torch.cat([torch.ones(n - 1, device=device),
                                                torch.full((1,), 0.5, device=device)])  # quadrature on [0, 1]
        self.omega_wall = 60.0 * self.nu / (0.075 * float(self.y[1]) ** 2)

    def initial_state(self) -> torch.Tensor:
        """The fixed profile every cold solve starts from: a log law, k from y+, omega from a mixing length."""
        y = self.y[1:]
        yp = y * self.re_tau
        U = torch.where(yp < 11.0, yp, torch.log(yp.clamp_min(1.0)) / 0.41 + 5.2)
        k = torch.clamp(yp / 11.0, max=1.0) ** 2 * (1.0 - 0.5 * y) / math.sqrt(BETA_STAR)
        w = (k.sqrt() / (BETA_STAR ** 0.25 * 0.41 * y)).clamp_min(1.0)
        w = torch.maximum(w, 6.0 * self.nu / (0.075 * y ** 2))
        return torch.cat([U, k, w])

    def split(self, q: torch.Tensor):
        n = self.n
        return q[:n], q[n:2 * n], q[2 * n:]

    def _ext(self, phi: torch.Tensor, wall: float) -> torch.Tensor:
        """Nodes 0..n+1: the wall value, the unknowns, the mirror of node n-1."""
        return torch.cat([torch.full((1,), wall, dtype=phi.dtype, device=phi.device), phi, phi[-2:-1]])

    def _ddy(self, phi_ext: torch.Tensor) -> torch.Tensor:
        """Second-order central derivative at nodes 1..n (zero at the centreline by symmetry)."""
        hm, hp = self.dy_face[:-1], self.dy_face[1:]
        return (hm ** 2 * phi_ext[2:] - hp ** 2 * phi_ext[:-2] + (hp ** 2 - hm ** 2) * phi_ext[1:-1]) / (hm * hp * (hm + hp))

    def _diffusion(self, phi_ext: torch.Tensor, gamma_ext: torch.Tensor) -> torch.Tensor:
        flux = 0.5 * (gamma_ext[1:] + gamma_ext[:-1]) * (phi_ext[1:] - phi_ext[:-1]) / self.dy_face
        return (flux[1:] - flux[:-1]) / self.vol

    def features(self, q: torch.Tensor) -> dict:
        """Per node: U, k, omega, U', tau, the shear s = S_12 = W_12 of the tau-scaled tensors, Re_t = k/(nu omega)."""
        U, k, w = self.split(q)
        dU = self._ddy(self._ext(U, 0.0))
        tau = 1.0 / (BETA_STAR * w)
        return {"U": U, "k": k, "w": w, "dU": dU, "tau": tau, "s": 0.5 * tau * dU, "re_t": k / (self.nu * w)}

    def residual(self, q: torch.Tensor, closure) -> torch.Tensor:
        c, nu = self.transport, self.nu
        f = self.features(q)
        k, w, dU = f["k"], f["w"], f["dU"]
        nu_t = closure.eddy_viscosity(f)
        U_ext, k_ext, w_ext = self._ext(f["U"], 0.0), self._ext(k, 0.0), self._ext(w, self.omega_wall)
        P = nu_t * dU ** 2
        beta_k, beta_w = production_factors(closure, f)
        gamma_k = nu + c.sigma_star * k_ext / w_ext
        gamma_w = nu + c.sigma * k_ext / w_ext
        r_U = 1.0 + self._diffusion(U_ext, nu + self._ext(nu_t, 0.0))
        r_k = beta_k * P - BETA_STAR * k * w + self._diffusion(k_ext, gamma_k)
        r_w = c.alpha * w / k.clamp_min(1e-14) * (beta_w * P) - c.beta * w ** 2 + self._diffusion(w_ext, gamma_w)
        if c.sigma_d:
            r_w = r_w + c.sigma_d / w * torch.relu(self._ddy(k_ext) * self._ddy(w_ext))
        inv_vol2 = 1.0 / self.vol ** 2
        return torch.cat([r_U / ((nu + nu_t) * inv_vol2),
                          r_k / (BETA_STAR * w + gamma_k[1:-1] * inv_vol2),
                          r_w / ((c.beta * w + gamma_w[1:-1] * inv_vol2) * w)])

    def bulk_velocity(self, q: torch.Tensor) -> torch.Tensor:
        return (self.weight * self.split(q)[0]).sum()

    @staticmethod
    def jacobian(residual, q: torch.Tensor) -> torch.Tensor:
        """dR/dq, dense from banded colouring (node i couples to |i - j| <= 2)."""
        return banded_jacobian(residual, q)


def production_factors(closure, f: dict):
    """(beta_k, beta_omega): the multipliers a closure puts on the production terms of the k and omega equations
    (the FIML arm's inferred field, `fiml.ProductionMultiplier`); 1 for every other closure."""
    multiplier = getattr(closure, "production_multiplier", None)
    return (1.0, 1.0) if multiplier is None else multiplier(f)


class LinearEddyViscosity:
    """Boussinesq nu_t = k / omega: the isotropic control (no anisotropy, so no duct secondary flow)."""

    def eddy_viscosity(self, f: dict) -> torch.Tensor:
        return f["k"] / f["w"]


class ImplicitARSM:
    """nu_t = -k tau b_12 / 2 from the implicit ARSM with coefficients `coefficients(features)` per node."""

    def __init__(self, coefficients):
        self.coefficients = coefficients

    def anisotropy(self, f: dict):
        return pure_shear_anisotropy(f["s"], self.coefficients(f))

    def eddy_viscosity(self, f: dict) -> torch.Tensor:
        return -f["k"] * f["tau"] * self.anisotropy(f)[0] / 2.0


class ConstantCoefficients:
    """Fixed ARSM coefficients (WJ's by default), plus an optional low-Reynolds damping of A1 (the twin's truth)."""

    def __init__(self, values: dict | None = None, a1_damping: float = 0.0, damping_re_t: float = 1.0):
        self.values = dict(WJ_CONSTANTS if values is None else values)
        self.a1_damping, self.damping_re_t = a1_damping, damping_re_t

    def __call__(self, f: dict) -> dict:
        out = {name: torch.full_like(f["s"], float(v)) for name, v in self.values.items()}
        if self.a1_damping:
            out["A1"] = out["A1"] * (1.0 - self.a1_damping * torch.exp(-f["re_t"] / self.damping_re_t))
        return out
