"""Steady 2-D periodic-hills flow, k-omega + implicit ARSM, streamfunction-vorticity: R(q).

Units: hill height h and the bulk velocity over the crest U_b (Xiao et al. 2020: Re = U_b h / nu = 5600), so
nu = 1/Re and the flux between the walls is psi_top - psi_bottom = (H - 1) U_b. Streamfunction-vorticity, as
the duct's cross-plane flow (`duct.py`): u = psi_y, v = -psi_x, Omega = v_x - u_y = -lap psi. It removes the
pressure and with it both the pressure-velocity coupling of a collocated primitive-variable scheme and the
unknown mean pressure gradient of a fixed-flux periodic channel (the flux is the psi jump between the walls),
and it reuses the duct's Thom wall vorticity and node layout. q = [psi, k, omega, Omega], each (nx, ny - 1)
at the interior nodes, row-major; the wall rows carry psi = 0 (hill) and psi = H - 1 (top), k = 0,
omega = 60 nu / (beta_1 d_1^2) (Menter 1994; d_1 the first node's wall-normal distance) and
Omega_w = -2 (psi_1 - psi_w) / d_1^2 (Thom). Equations at every interior node:

    0 = lap psi + Omega
    0 = P - beta* k omega + div((nu + sigma* k/omega) grad k) - u.grad k
    0 = alpha omega/k P - beta omega^2 + div((nu + sigma k/omega) grad omega) - u.grad omega
    0 = div((nu + nu_s) grad Omega)_compact - u.grad Omega + curl div T - div(nu_s grad Omega)_wide

with the turbulent stress T = -k a (the isotropic part has no curl), P = T : grad u, and
curl div T = d/dx(d_x T_xy + d_y T_yy) - d/dy(d_x T_xx + d_y T_xy), the curl of the Reynolds-averaged momentum
(Wilcox 2006, eq. 2.33's stress divergence). The anisotropy a comes from `arsm.planar_anisotropy` (the closed form
of the implicit ARSM for a general 2-D strain and rotation) (tau-scaled, tau = 1/(beta* omega)); the linear closure is a = -2 nu_t S / k.
nu_s = P / (2 S:S) is the closure's effective viscosity: its compact and wide ("d/dx(nu_s d/dx) +
d/dy(nu_s d/dy)") Laplacians are equal in the continuum, so the pair changes nothing there but damps the
odd-even modes that the wide curl-div stencil does not see (a defect correction, as Rhie & Chow's). Each
equation is divided by its implicit diagonal, as in `channel.Channel`. The stencil reaches 4 nodes (the stress
is a second derivative of psi, its curl-div two more): `jacobian` colours accordingly.
"""

from __future__ import annotations

import torch

from experiments.darsm.arsm import planar_anisotropy
from experiments.darsm.channel import BETA_STAR, WILCOX_1988, KOmega, production_factors
from experiments.darsm.curvilinear import Curvilinear
from experiments.darsm.hills_mesh import HillsMesh
from experiments.darsm.stencil import stencil_jacobian

N_VARS = 4
REACH = 4


class Hills:
    """The discretised periodic hills at one Re; `residual(q, closure)` is R(q) in q's layout."""

    n_vars = N_VARS

    def __init__(self, mesh: HillsMesh, re: float = 5600.0, transport: KOmega = WILCOX_1988, upwind: float = 1.0):
        if re <= 0 or not 0.0 <= upwind <= 1.0:
            raise ValueError(f"hills need re > 0 and 0 <= upwind <= 1; got re={re}, upwind={upwind}")
        self.mesh, self.ops, self.nu, self.transport, self.upwind = mesh, Curvilinear(mesh), 1.0 / re, transport, upwind
        self.nx, self.ny = mesh.nx, mesh.ny
        self.shape = (mesh.nx, mesh.ny - 1)
        self.flux = mesh.top - mesh.hill_height
        d_bottom, d_top = mesh.wall_distance
        self.d_bottom, self.d_top = d_bottom, d_top
        self.w_bottom = 60.0 * self.nu / (0.075 * d_bottom ** 2)
        self.w_top = 60.0 * self.nu / (0.075 * d_top ** 2)

    # ---- layout -------------------------------------------------------------------------------------------
    def split(self, q: torch.Tensor):
        return [part.reshape(self.shape) for part in q.reshape(N_VARS, -1)]

    @staticmethod
    def _walls(phi: torch.Tensor, bottom, top) -> torch.Tensor:
        """(nx, ny + 1): the wall values around the interior unknowns (scalars or per-column tensors)."""
        col = lambda v: v[:, None] if isinstance(v, torch.Tensor) else torch.full_like(phi[:, :1], float(v))
        return torch.cat([col(bottom), phi, col(top)], 1)

    def _zero_walls(self, phi: torch.Tensor) -> torch.Tensor:
        return self._walls(phi, 0.0, 0.0)

    # ---- the flow -------------------------------------------------------------------------------------------
    def velocity(self, psi: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(u, v) at the interior nodes from psi (wall values 0 and the flux)."""
        psi_e = self._walls(psi, 0.0, self.flux)
        return self.ops.ddy(psi_e), -self.ops.ddx(psi_e)

    def features(self, q: torch.Tensor) -> dict:
        """Per interior node: k, omega, tau, Re_t, u, v, the tau-scaled 3x3 S and W and their invariants."""
        psi, k, w, _ = self.split(q)
        u, v = self.velocity(psi)
        u_e, v_e = self._zero_walls(u), self._zero_walls(v)
        ux, uy, vx, vy = self.ops.ddx(u_e), self.ops.ddy(u_e), self.ops.ddx(v_e), self.ops.ddy(v_e)
        tau = 1.0 / (BETA_STAR * w)
        sxx, sxy, wxy = 0.5 * (ux - vy), 0.5 * (uy + vx), 0.5 * (uy - vx)
        zero = torch.zeros_like(sxx)
        S = torch.stack([torch.stack([sxx, sxy, zero], -1), torch.stack([sxy, -sxx, zero], -1),
                         torch.stack([zero, zero, zero], -1)], -2)
        W = torch.stack([torch.stack([zero, wxy, zero], -1), torch.stack([-wxy, zero, zero], -1),
                         torch.stack([zero, zero, zero], -1)], -2)
        S_hat, W_hat = tau[..., None, None] * S, tau[..., None, None] * W
        lam1 = (S_hat * S_hat).sum((-1, -2))
        return {"k": k, "w": w, "tau": tau, "re_t": k / (self.nu * w), "u": u, "v": v, "S": S, "S_hat": S_hat,
                "W_hat": W_hat, "lam1": lam1, "lam2": -(W_hat * W_hat).sum((-1, -2)),
                "s": torch.sqrt(0.5 * lam1 + 1e-30)}

    @staticmethod
    def anisotropy(f: dict, closure) -> torch.Tensor:
        """a (..., 3, 3): the implicit ARSM's for a general strain and rotation, or the linear closure's."""
        coefficients = getattr(closure, "coefficients", None)
        if coefficients is None:
            nu_t = closure.eddy_viscosity(f)
            return -2.0 * (nu_t / f["k"].clamp_min(1e-300))[..., None, None] * f["S"]
        return planar_anisotropy(f["S_hat"], f["W_hat"], coefficients(f))

    def stresses(self, f: dict, closure):
        """(T_xx, T_xy, T_yy) = -k a, P / k = -a : S (so omega's production alpha omega P / k never divides by k)
        and the effective viscosity nu_s = P / (2 S:S)."""
        a = self.anisotropy(f, closure)
        k, S = f["k"], f["S"]
        T = -k[..., None, None] * a
        p_over_k = -(a * S).sum((-1, -2))
        nu_s = (k * p_over_k / (2.0 * (S * S).sum((-1, -2)) + 1e-30)).clamp_min(0.0)
        return T[..., 0, 0], T[..., 0, 1], T[..., 1, 1], p_over_k, nu_s

    def initial_state(self) -> torch.Tensor:
        """The fixed cold start: a blunt (1/7-power-like) profile between the walls in each column, k from a
        turbulence intensity of 5 %, omega from a mixing length, Omega = -lap psi."""
        m = self.mesh
        zeta = ((m.y - m.y[:, :1]) / (m.y[:, -1:] - m.y[:, :1]))[:, 1:-1]
        psi = self.flux * (zeta ** 2 * (3 - 2 * zeta)).pow(0.6)
        d = torch.minimum(m.y[:, 1:-1] - m.y[:, :1], m.y[:, -1:] - m.y[:, 1:-1])
        k = 0.0375 * (1 - torch.exp(-d * 5.0 / 0.1)) ** 2 + 1e-8
        w = torch.maximum(k.sqrt() / (BETA_STAR ** 0.25 * 0.41 * d), 6.0 * self.nu / (0.075 * d ** 2))
        vort = -self.ops.diffusion(self._walls(psi, 0.0, self.flux), torch.ones_like(m.y))
        return torch.cat([psi.reshape(-1), k.reshape(-1), w.reshape(-1), vort.reshape(-1)])

    def wall_vorticity(self, psi: torch.Tensor, vort: torch.Tensor) -> torch.Tensor:
        return self._walls(vort, -2.0 * psi[:, 0] / self.d_bottom ** 2,
                           -2.0 * (psi[:, -1] - self.flux) / self.d_top ** 2)

    def residual(self, q: torch.Tensor, closure) -> torch.Tensor:
        c, nu, ops = self.transport, self.nu, self.ops
        psi, k, w, vort = self.split(q)
        f = self.features(q)
        Txx, Txy, Tyy, p_over_k, nu_s = self.stresses(f, closure)
        U, V = ops.contravariant(f["u"], f["v"])
        psi_e, k_e = self._walls(psi, 0.0, self.flux), self._zero_walls(k)
        w_e, vort_e = self._walls(w, self.w_bottom, self.w_top), self.wall_vorticity(psi, vort)
        nus_e = self._zero_walls(nu_s)
        beta_k, beta_w = production_factors(closure, f)
        gamma_k, gamma_w = nu + c.sigma_star * k_e / w_e, nu + c.sigma * k_e / w_e
        ones = torch.ones_like(psi_e)
        r_psi = ops.diffusion(psi_e, ones) + vort
        r_k = beta_k * k * p_over_k - BETA_STAR * k * w + ops.diffusion(k_e, gamma_k) - ops.convection(k_e, U, V, self.upwind)
        r_w = c.alpha * w * (beta_w * p_over_k) - c.beta * w ** 2 + ops.diffusion(w_e, gamma_w) \
            - ops.convection(w_e, U, V, self.upwind)
        zw = self._zero_walls
        curl_div = ops.ddx(zw(ops.ddx(zw(Txy)) + ops.ddy(zw(Tyy)))) - ops.ddy(zw(ops.ddx(zw(Txx)) + ops.ddy(zw(Txy))))
        wide = ops.ddx(zw(nu_s * ops.ddx(vort_e))) + ops.ddy(zw(nu_s * ops.ddy(vort_e)))
        r_vort = ops.diffusion(vort_e, nu + nus_e) - ops.convection(vort_e, U, V, self.upwind) + curl_div - wide
        lap = ops.lap_diag
        return torch.cat([(r_psi / lap).reshape(-1),
                          (r_k / (BETA_STAR * w + gamma_k[:, 1:-1] * lap)).reshape(-1),
                          (r_w / ((c.beta * w + gamma_w[:, 1:-1] * lap) * w)).reshape(-1),
                          (r_vort / ((nu + nu_s) * lap)).reshape(-1)])

    def jacobian(self, residual, q: torch.Tensor):
        """dR/dq, scipy sparse, coloured over the reach-4 stencil, periodic in x."""
        return stencil_jacobian(residual, q, self.shape, N_VARS, reach=REACH, periodic=(True, False))
