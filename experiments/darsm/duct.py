"""Fully developed turbulent flow in a rectangular duct, one quadrant (y, z), k-omega + implicit ARSM: R(q).

Units: half-height h and the mean friction velocity, so nu = 1/Re_tau and the streamwise pressure gradient
balancing the mean wall shear is (1 + AR)/AR (AR = half-width / half-height). Quadrant 0 <= y <= 1,
0 <= z <= AR: symmetry planes y = 0 and z = 0 (centre at the origin, as closure-challenge's data), walls
y = 1 and z = AR. Nodes on tanh grids clustered at the walls; unknowns at every non-wall node,
q = [U, k, omega, psi, Omega], each (ny, nz) row-major. The cross-plane flow is a streamfunction-vorticity
pair, V = d psi/dz, W = -d psi/dy, Omega = dW/dy - dV/dz = -lap psi, with

    0 = (1 + AR)/AR + div((nu + nu_t) grad U) - (V U_y + W U_z)
    0 = P - beta* k omega + div((nu + sigma* k/omega) grad k) - (V, W).grad k,     P = nu_t |grad U|^2
    0 = alpha omega/k P - beta omega^2 + div((nu + sigma k/omega) grad omega) - (V, W).grad omega
    0 = lap psi + Omega
    0 = div((nu + nu_t) grad Omega) - (V, W).grad Omega + d2/dydz (vv - ww) + (d2/dz2 - d2/dy2) vw

(the streamwise-vorticity equation of the Reynolds-averaged cross-plane momentum; Prandtl's secondary flow
of the second kind comes only from the anisotropy terms, so a linear eddy viscosity gives psi = 0). The
ARSM (`arsm.pure_shear_anisotropy`) is evaluated in the frame of the streamwise shear grad U: with
G = |grad U|, s = tau G / 2 and n = grad U / G it gives uv = -nu_t U_y, uw = -nu_t U_z (nu_t = -k tau b_12 / 2
as in the channel) and the normal-stress part a_yy - a_zz = (a_nn - a_tt)(n_y^2 - n_z^2),
a_yz = (a_nn - a_tt) n_y n_z. The response to the small secondary strains is taken isotropic (nu_t in the
vorticity diffusion), the usual effective-viscosity split; a test holds the rotated form equal to the
general 9x9 ARSM solve for an oblique shear. Walls: U = k = psi = 0, omega = 60 nu / (beta_1 d_1^2)
(Menter 1994), Thom's wall vorticity Omega_w = -2 psi_1 / d_1^2. On the symmetry planes U, k, omega are
even and psi, Omega odd (their rows there read psi = 0, Omega = 0). Each equation is divided by its implicit
diagonal, as in `channel.Channel`.
"""

from __future__ import annotations

import math

import torch

from experiments.darsm.channel import BETA_STAR, WILCOX_1988, KOmega, channel_grid, production_factors
from experiments.darsm.stencil import stencil_jacobian

N_VARS = 5


def wall_grid(n: int, stretch: float, length: float, device=None) -> torch.Tensor:
    """0 = x_0 < ... < x_n = length, clustered at the wall x = length (the channel's grid, mirrored)."""
    return length * (1.0 - channel_grid(n, stretch, device).flip(0))


def _centred(f: torch.Tensor, h: torch.Tensor, axis: int) -> torch.Tensor:
    """Second-order first derivative along `axis` at the interior points of f (length n + 2 -> n)."""
    hm, hp = h[:-1], h[1:]
    if axis == 1:
        hm, hp = hm[None, :], hp[None, :]
        lo, mid, hi = f[:, :-2], f[:, 1:-1], f[:, 2:]
    else:
        hm, hp = hm[:, None], hp[:, None]
        lo, mid, hi = f[:-2], f[1:-1], f[2:]
    return (hm ** 2 * hi - hp ** 2 * lo + (hp ** 2 - hm ** 2) * mid) / (hm * hp * (hm + hp))


def _divergence(f: torch.Tensor, gamma: torch.Tensor, h: torch.Tensor, vol: torch.Tensor, axis: int):
    """d/dx(gamma df/dx) along `axis` in finite-volume form (face gamma = mean of its two nodes)."""
    if axis == 1:
        flux = 0.5 * (gamma[:, 1:] + gamma[:, :-1]) * (f[:, 1:] - f[:, :-1]) / h[None, :]
        return (flux[:, 1:] - flux[:, :-1]) / vol[None, :]
    flux = 0.5 * (gamma[1:] + gamma[:-1]) * (f[1:] - f[:-1]) / h[:, None]
    return (flux[1:] - flux[:-1]) / vol[:, None]


class Duct:
    """The discretised duct quadrant at one (Re_tau, AR); `residual(q, closure)` is R(q) in q's layout."""

    n_vars = N_VARS

    def __init__(self, re_tau: float, aspect: float = 1.0, ny: int = 24, nz: int = 24, stretch: float = 2.0,
                 transport: KOmega = WILCOX_1988, device=None):
        if re_tau <= 0 or aspect < 1 or min(ny, nz) < 6:
            raise ValueError(f"a duct needs re_tau > 0, aspect >= 1 and ny, nz >= 6; got re_tau={re_tau}, "
                             f"aspect={aspect}, ny={ny}, nz={nz}")
        self.re_tau, self.nu, self.aspect, self.transport = float(re_tau), 1.0 / re_tau, float(aspect), transport
        self.ny, self.nz, self.shape = ny, nz, (ny, nz)
        self.forcing = (1.0 + aspect) / aspect
        self.y, self.z = wall_grid(ny, stretch, 1.0, device), wall_grid(nz, stretch, aspect, device)
        self.hy, self.vy = self._spacing(self.y)
        self.hz, self.vz = self._spacing(self.z)
        self.dy1, self.dz1 = float(self.y[-1] - self.y[-2]), float(self.z[-1] - self.z[-2])
        self.w_wall_y = 60.0 * self.nu / (0.075 * self.dy1 ** 2)
        self.w_wall_z = 60.0 * self.nu / (0.075 * self.dz1 ** 2)
        self.lap_diag = ((1 / self.hy[:-1] + 1 / self.hy[1:]) / self.vy)[:, None] \
            + ((1 / self.hz[:-1] + 1 / self.hz[1:]) / self.vz)[None, :]
        wy, wz = self.vy.clone(), self.vz.clone()
        wy[0], wz[0] = 0.5 * wy[0], 0.5 * wz[0]
        self.weight = wy[:, None] * wz[None, :]      # quadrature on the quadrant (wall nodes carry U = 0)

    @staticmethod
    def _spacing(x: torch.Tensor):
        """Face spacings of [mirror, nodes 0..n] and control volumes of the unknown nodes 0..n-1."""
        x_ext = torch.cat([-x[1:2], x])
        return x_ext[1:] - x_ext[:-1], 0.5 * (x_ext[2:] - x_ext[:-2])

    # ---- layout and ghosts --------------------------------------------------------------------------------
    def split(self, q: torch.Tensor):
        return [part.reshape(self.shape) for part in q.reshape(N_VARS, -1)]

    @staticmethod
    def _ext_y(phi: torch.Tensor, parity: float, wall) -> torch.Tensor:
        wall_row = wall if isinstance(wall, torch.Tensor) else torch.full_like(phi[:1], float(wall))
        return torch.cat([parity * phi[1:2], phi, wall_row], 0)

    @staticmethod
    def _ext_z(phi: torch.Tensor, parity: float, wall) -> torch.Tensor:
        wall_col = wall if isinstance(wall, torch.Tensor) else torch.full_like(phi[:, :1], float(wall))
        return torch.cat([parity * phi[:, 1:2], phi, wall_col], 1)

    def _ext(self, phi, parity: float, wall_y=0.0, wall_z=0.0):
        """(ny + 2, nz + 2): the mirror row/column, the unknowns, the wall row/column."""
        return self._ext_z(self._ext_y(phi, parity, wall_y), parity, wall_z)

    def _grad(self, f_ext):
        return _centred(f_ext[:, 1:-1], self.hy, 0), _centred(f_ext[1:-1], self.hz, 1)

    def _div(self, f_ext, gamma_ext):
        return _divergence(f_ext[:, 1:-1], gamma_ext[:, 1:-1], self.hy, self.vy, 0) \
            + _divergence(f_ext[1:-1], gamma_ext[1:-1], self.hz, self.vz, 1)

    # ---- the model --------------------------------------------------------------------------------------
    def initial_state(self) -> torch.Tensor:
        """The fixed state every cold solve starts from: the channel's log-law start in the wall distance, no
        secondary flow."""
        yy, zz = torch.meshgrid(self.y[:-1], self.z[:-1], indexing="ij")
        d = torch.minimum(1.0 - yy, self.aspect - zz)
        dp = d * self.re_tau
        U = torch.where(dp < 11.0, dp, torch.log(dp.clamp_min(1.0)) / 0.41 + 5.2)
        k = torch.clamp(dp / 11.0, max=1.0) ** 2 * (1.0 - 0.5 * d.clamp(max=1.0)) / math.sqrt(BETA_STAR)
        w = (k.sqrt() / (BETA_STAR ** 0.25 * 0.41 * d)).clamp_min(1.0)
        w = torch.maximum(w, 6.0 * self.nu / (0.075 * d ** 2))
        return torch.cat([U.reshape(-1), k.reshape(-1), w.reshape(-1), torch.zeros(2 * U.numel(), dtype=U.dtype,
                                                                                      device=U.device)])

    def features(self, q: torch.Tensor) -> dict:
        """Per node: the channel's features (s = tau |grad U| / 2 plays S_12) plus U_y, U_z and V, W."""
        U, k, w, psi, _ = self.split(q)
        Uy, Uz = self._grad(self._ext(U, 1.0))
        psi_z = _centred(self._ext(psi, -1.0)[1:-1], self.hz, 1)
        psi_y = _centred(self._ext(psi, -1.0)[:, 1:-1], self.hy, 0)
        tau = 1.0 / (BETA_STAR * w)
        s = torch.sqrt((0.5 * tau) ** 2 * (Uy ** 2 + Uz ** 2) + 1e-30)
        return {"U": U, "k": k, "w": w, "tau": tau, "s": s, "re_t": k / (self.nu * w), "Uy": Uy, "Uz": Uz,
                "V": psi_z, "W": -psi_y}

    def stresses(self, f: dict, closure):
        """nu_t and the ARSM's secondary-flow stresses (vv - ww, vw) per node (zero for a linear closure)."""
        if not hasattr(closure, "anisotropy"):
            zero = torch.zeros_like(f["k"])
            return closure.eddy_viscosity(f), zero, zero
        b12, a, _ = closure.anisotropy(f)
        nu_t = -f["k"] * f["tau"] * b12 / 2.0
        per_gradient = f["k"] * (a[..., 1, 1] - a[..., 2, 2]) / f["s"] ** 2 * (0.5 * f["tau"]) ** 2
        return nu_t, per_gradient * (f["Uy"] ** 2 - f["Uz"] ** 2), per_gradient * f["Uy"] * f["Uz"]

    def vorticity_ext(self, psi: torch.Tensor, vort: torch.Tensor) -> torch.Tensor:
        psi_y = self._ext_y(psi, -1.0, 0.0)
        return self._ext_z(self._ext_y(vort, -1.0, -2.0 * psi[-1:] / self.dy1 ** 2), -1.0,
                           -2.0 * psi_y[:, -1:] / self.dz1 ** 2)

    def residual(self, q: torch.Tensor, closure) -> torch.Tensor:
        c, nu = self.transport, self.nu
        U, k, w, psi, vort = self.split(q)
        f = self.features(q)
        nu_t, d_nn, d_yz = self.stresses(f, closure)
        V, W = f["V"], f["W"]
        U_e, k_e, nt_e = self._ext(U, 1.0), self._ext(k, 1.0), self._ext(nu_t, 1.0)
        w_e = self._ext(w, 1.0, self.w_wall_y, self.w_wall_z)
        psi_e, vort_e = self._ext(psi, -1.0), self.vorticity_ext(psi, vort)

        def convection(phi_e):
            gy, gz = self._grad(phi_e)
            return V * gy + W * gz

        P = nu_t * (f["Uy"] ** 2 + f["Uz"] ** 2)
        beta_k, beta_w = production_factors(closure, f)
        gamma_k, gamma_w = nu + c.sigma_star * k_e / w_e, nu + c.sigma * k_e / w_e
        r_U = self.forcing + self._div(U_e, nu + nt_e) - convection(U_e)
        r_k = beta_k * P - BETA_STAR * k * w + self._div(k_e, gamma_k) - convection(k_e)
        r_w = c.alpha * w / k.clamp_min(1e-14) * (beta_w * P) - c.beta * w ** 2 + self._div(w_e, gamma_w) - convection(w_e)
        r_psi = self._div(psi_e, torch.ones_like(psi_e)) + vort
        nn_e, yz_e = self._ext(d_nn, 1.0), self._ext(d_yz, -1.0)
        ones = torch.ones_like(yz_e)
        cross = _centred(_centred(nn_e, self.hz, 1), self.hy, 0)
        source = cross + _divergence(yz_e[1:-1], ones[1:-1], self.hz, self.vz, 1) \
            - _divergence(yz_e[:, 1:-1], ones[:, 1:-1], self.hy, self.vy, 0)
        r_vort = self._div(vort_e, nu + nt_e) - convection(vort_e) + source
        lap = self.lap_diag
        r_psi, r_vort = self._odd_rows(r_psi / lap, psi), self._odd_rows(r_vort / ((nu + nu_t) * lap), vort)
        return torch.cat([(r_U / ((nu + nu_t) * lap)).reshape(-1),
                          (r_k / (BETA_STAR * w + gamma_k[1:-1, 1:-1] * lap)).reshape(-1),
                          (r_w / ((c.beta * w + gamma_w[1:-1, 1:-1] * lap) * w)).reshape(-1),
                          r_psi.reshape(-1), r_vort.reshape(-1)])

    @staticmethod
    def _odd_rows(r: torch.Tensor, phi: torch.Tensor) -> torch.Tensor:
        """On the symmetry planes an odd field is zero: its rows there read -phi = 0 (a stable PTC sign)."""
        on_plane = torch.zeros_like(r, dtype=torch.bool)
        on_plane[0, :] = True
        on_plane[:, 0] = True
        return torch.where(on_plane, -phi, r)

    def jacobian(self, residual, q: torch.Tensor):
        """dR/dq, scipy sparse (the 9-point cross derivative of the ARSM stresses reaches two nodes)."""
        return stencil_jacobian(residual, q, self.shape, N_VARS, reach=2)

    def bulk_velocity(self, q: torch.Tensor) -> torch.Tensor:
        return (self.weight * self.split(q)[0]).sum() / self.aspect
