"""Second-order finite differences on the hills' body-fitted mesh (`hills_mesh.HillsMesh`), periodic in xi.

Fields live on all nodes (nx, ny + 1) (rows 0 and ny are the walls); every operator returns its value at the
interior rows 1..ny-1. With the metric terms of the map (xi, eta) -> (x, y), x_eta = 0 (vertical grid lines):

    d/dx = (y_eta d/dxi - y_xi d/deta) / J,    d/dy = x_xi d/deta / J,    J = x_xi y_eta,

central in xi and eta. The diffusion div(gamma grad f) is the compact conservative form (Thompson, Warsi &
Mastin 1985, ch. 3): (1/J) [d/dxi(gamma (a f_xi + b f_eta)) + d/deta(gamma (b f_xi + c f_eta))] with
a = y_eta^2 / J, b = -y_xi y_eta / J, c = (x_xi^2 + y_xi^2) / J at the cell faces (means of the nodes'), the
cross derivative averaged onto each face: a 9-point stencil. Convection u.grad f = U f_xi + V f_eta with the
contravariant velocities U = u / x_xi, V = (v x_xi - u y_xi) / J, central, plus `upwind` times the first-order
upwind dissipation -|U| d2f/dxi2 / 2 - |V| d2f/deta2 / 2 (upwind = 1: first-order upwind, 0: central).
"""

from __future__ import annotations

import torch

from experiments.darsm.hills_mesh import HillsMesh


def _face_mean(a: torch.Tensor, axis: int) -> torch.Tensor:
    """Values at the faces i + 1/2 (axis 0, periodic: nx faces) or j + 1/2 (axis 1: ny faces)."""
    if axis == 0:
        return 0.5 * (a + torch.roll(a, -1, 0))
    return 0.5 * (a[:, 1:] + a[:, :-1])


class Curvilinear:
    """The operators of one mesh; inputs (nx, ny + 1), outputs (nx, ny - 1)."""

    def __init__(self, mesh: HillsMesh):
        self.mesh = mesh
        x_xi, y_xi, y_eta, jac = mesh.x_xi, mesh.y_xi, mesh.y_eta, mesh.jac
        self.jac = jac[:, 1:-1]
        self.ddx_xi, self.ddx_eta = (y_eta / jac)[:, 1:-1], (-y_xi / jac)[:, 1:-1]
        self.ddy_eta = (x_xi / jac)[:, 1:-1]
        a, b, c = y_eta ** 2 / jac, -y_xi * y_eta / jac, (x_xi ** 2 + y_xi ** 2) / jac
        self.a_xi, self.b_xi = _face_mean(a, 0)[:, 1:-1], _face_mean(b, 0)[:, 1:-1]   # xi faces of interior rows
        self.b_eta, self.c_eta = _face_mean(b, 1), _face_mean(c, 1)                   # eta faces j + 1/2, j = 0..ny-1
        self.lap_diag = (self.a_xi + torch.roll(self.a_xi, 1, 0) + self.c_eta[:, 1:] + self.c_eta[:, :-1]) / self.jac
        self.x_xi, self.y_xi = x_xi[:, 1:-1], y_xi[:, 1:-1]

    @staticmethod
    def d_xi(f: torch.Tensor) -> torch.Tensor:
        return 0.5 * (torch.roll(f, -1, 0) - torch.roll(f, 1, 0))[:, 1:-1]

    @staticmethod
    def d_eta(f: torch.Tensor) -> torch.Tensor:
        return 0.5 * (f[:, 2:] - f[:, :-2])

    def ddx(self, f: torch.Tensor) -> torch.Tensor:
        return self.ddx_xi * self.d_xi(f) + self.ddx_eta * self.d_eta(f)

    def ddy(self, f: torch.Tensor) -> torch.Tensor:
        return self.ddy_eta * self.d_eta(f)

    def diffusion(self, f: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
        """div(gamma grad f) (compact, conservative); f and gamma on all nodes."""
        f_up = torch.roll(f, -1, 0)
        cross_xi = 0.25 * (f_up[:, 2:] - f_up[:, :-2] + f[:, 2:] - f[:, :-2])          # f_eta at xi faces
        flux_xi = _face_mean(gamma, 0)[:, 1:-1] * (self.a_xi * (f_up - f)[:, 1:-1] + self.b_xi * cross_xi)
        f_xi = 0.5 * (torch.roll(f, -1, 0) - torch.roll(f, 1, 0))                         # all rows
        flux_eta = _face_mean(gamma, 1) * (self.b_eta * _face_mean(f_xi, 1) + self.c_eta * (f[:, 1:] - f[:, :-1]))
        return (flux_xi - torch.roll(flux_xi, 1, 0) + flux_eta[:, 1:] - flux_eta[:, :-1]) / self.jac

    def contravariant(self, u: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(U, V) per unit xi and eta at the interior nodes from (u, v) there."""
        return u / self.x_xi, (v * self.x_xi - u * self.y_xi) / self.jac

    def convection(self, f: torch.Tensor, U: torch.Tensor, V: torch.Tensor, upwind: float) -> torch.Tensor:
        """u.grad f, central with `upwind` x first-order upwind dissipation."""
        out = U * self.d_xi(f) + V * self.d_eta(f)
        if upwind:
            d2_xi = (torch.roll(f, -1, 0) - 2 * f + torch.roll(f, 1, 0))[:, 1:-1]
            d2_eta = f[:, 2:] - 2 * f[:, 1:-1] + f[:, :-2]
            out = out - 0.5 * upwind * (_smooth_abs(U) * d2_xi + _smooth_abs(V) * d2_eta)
        return out


def _smooth_abs(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """|x|, differentiable at 0 (the Newton Jacobian of the upwind term)."""
    return torch.sqrt(x * x + eps * eps)
