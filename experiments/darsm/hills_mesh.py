"""The periodic-hills geometry and its body-fitted structured mesh with analytic metric terms.

The hill is Mellen, Froehlich & Rodi's (2000) piecewise-cubic fit of the ERCOFTAC hill (h = 28 mm; the crest
at x = 0, the foot at x = 54 mm = 1.929 h), stretched in x by the slope factor alpha as Xiao et al. (2020, JFM
"Flows over periodic hills of parameterized geometries") do: the descending hill occupies 0 <= x <= 1.929 alpha,
its mirror image ends at the next crest x = L, domain length L = 3.858 alpha + 5.142 (units h) and the flat
top wall at y = H = 3.036. closure-challenge's hills keep the hill and vary L and H (e.g. L = 13.929, H = 2.024):
both are parameters.

Mesh: vertical grid lines x_i = i L / nx (periodic, i = 0..nx-1) and, on each, ny + 1 nodes
y = y_b(x) + (H - y_b(x)) s(eta), eta = j / ny, with s clustered at both walls by
s = (1 + tanh(g (2 eta - 1)) / tanh(g)) / 2. The map (xi, eta) = (i, j) -> (x, y) is analytic, so its metric
terms are too: x_xi = L / nx, x_eta = 0, y_xi = y_b'(x) (1 - s) x_xi, y_eta = (H - y_b) s'(eta) / ny,
J = x_xi y_eta.
"""

from __future__ import annotations

import math

import torch

MM = 28.0          # the hill height in Mellen et al.'s millimetres
FOOT = 54.0 / MM   # 1.929: the descending hill's length in h at alpha = 1
# (upper end of the piece in mm, cubic coefficients c0..c3 in mm) of Mellen et al. (2000), clipped to [0, 28] mm
PIECES = [(9.0, (28.0, 0.0, 6.775070969851e-3, -2.124527775800e-3)),
          (14.0, (25.07355893131, 0.9754803562315, -0.1016116352781, 1.889794677828e-3)),
          (20.0, (25.79601052357, 0.8206693007457, -0.09055370274339, 1.626510569859e-3)),
          (30.0, (40.46435022819, -1.379581654948, 0.01945884504128, -2.070318932190e-4)),
          (40.0, (17.92461334664, 0.8743920332081, -0.05567361123058, 6.277731764683e-4)),
          (54.0, (56.39011190988, -2.010520359035, 0.01644919857549, 2.674976141766e-5))]


def _half_hill(xm: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(height, d height / d x) in mm of the descending hill at 0 <= xm (mm); zero beyond the foot."""
    y = torch.zeros_like(xm)
    dy = torch.zeros_like(xm)
    lower = 0.0
    for upper, (c0, c1, c2, c3) in PIECES:
        inside = (xm >= lower) & (xm < upper)
        value = c0 + c1 * xm + c2 * xm ** 2 + c3 * xm ** 3
        slope = c1 + 2 * c2 * xm + 3 * c3 * xm ** 2
        clipped = (value > MM) | (value < 0.0)
        y = torch.where(inside, value.clamp(0.0, MM), y)
        dy = torch.where(inside & ~clipped, slope, dy)
        lower = upper
    return y, dy


def hill_profile(x: torch.Tensor, alpha: float = 1.0, length: float | None = None, height: float = 1.0):
    """(y_b, dy_b/dx) of the periodic hill at x (units h; crest at x = 0 and x = L); `height` 0 is a flat wall."""
    length = default_length(alpha) if length is None else length
    if alpha <= 0 or length < 2 * FOOT * alpha:
        raise ValueError(f"hills need alpha > 0 and length >= 3.858 alpha (the two half hills); got alpha={alpha}, "
                         f"length={length}")
    x = torch.remainder(x, length)
    down, d_down = _half_hill(x * MM / alpha)
    up, d_up = _half_hill((length - x) * MM / alpha)
    y = torch.where(x <= 0.5 * length, down, up) / MM
    dy = torch.where(x <= 0.5 * length, d_down, -d_up) / alpha
    return height * y, height * dy


def default_length(alpha: float) -> float:
    """Xiao et al.'s domain length 3.858 alpha + 5.142 (units h)."""
    return 3.858 * alpha + 5.142


def wall_clustering(eta: torch.Tensor, stretch: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(s, ds/deta) of the two-sided tanh map [0, 1] -> [0, 1]."""
    t = torch.tanh(stretch * (2 * eta - 1))
    return 0.5 * (1 + t / math.tanh(stretch)), stretch * (1 - t ** 2) / math.tanh(stretch)


class HillsMesh:
    """Nodes (nx, ny + 1) of the body-fitted mesh (j = 0 the hill, j = ny the top wall) and their metrics."""

    def __init__(self, alpha: float = 1.0, nx: int = 48, ny: int = 48, length: float | None = None,
                 top: float = 3.036, stretch: float = 2.0, hill_height: float = 1.0, device=None):
        if nx < 6 or ny < 6:
            raise ValueError(f"a hills mesh needs nx, ny >= 6; got nx={nx}, ny={ny}")
        self.alpha, self.nx, self.ny = float(alpha), nx, ny
        self.length = default_length(alpha) if length is None else float(length)
        self.top, self.hill_height = float(top), float(hill_height)
        if self.top <= self.hill_height:
            raise ValueError(f"the top wall (H = {top}) must lie above the crest (hill_height = {hill_height})")
        kw = {"dtype": torch.float64, "device": device}
        self.x1 = torch.arange(nx, **kw) * self.length / nx
        eta = torch.arange(ny + 1, **kw) / ny
        yb, dyb = hill_profile(self.x1, alpha, self.length, hill_height)
        s, ds = wall_clustering(eta, stretch)
        gap = self.top - yb
        self.x = self.x1[:, None].expand(nx, ny + 1)
        self.y = yb[:, None] + gap[:, None] * s[None, :]
        self.x_xi = torch.full((nx, ny + 1), self.length / nx, **kw)
        self.y_xi = (dyb[:, None] * (1 - s[None, :])) * self.x_xi
        self.y_eta = gap[:, None] * ds[None, :] / ny
        self.jac = self.x_xi * self.y_eta
        self.wall_distance = self._first_node_distance(dyb)

    def _first_node_distance(self, dyb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Normal distance of the first node off each wall (bottom: along the hill's normal)."""
        bottom = (self.y[:, 1] - self.y[:, 0]) / torch.sqrt(1 + dyb ** 2)
        return bottom, self.y[:, -1] - self.y[:, -2]

    def cell_areas(self) -> torch.Tensor:
        """(nx, ny) areas of the quadrilaterals between neighbouring nodes (shoelace; the last column wraps)."""
        x = torch.cat([self.x, self.x[:1] + self.length], 0)
        y = torch.cat([self.y, self.y[:1]], 0)
        corners = [(x[:-1, :-1], y[:-1, :-1]), (x[1:, :-1], y[1:, :-1]), (x[1:, 1:], y[1:, 1:]), (x[:-1, 1:], y[:-1, 1:])]
        area = torch.zeros_like(x[:-1, :-1])
        for (xa, ya), (xb, yb) in zip(corners, corners[1:] + corners[:1], strict=True):
            area = area + 0.5 * (xa * yb - xb * ya)
        return area
