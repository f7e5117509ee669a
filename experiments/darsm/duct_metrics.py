"""What the duct is scored on: U and the secondary velocity (V, W) separately, and the corner vortices.

The secondary flow is ~2 % of the peak velocity, so an error pooled over (U, V, W) would not see it; it gets its
own relative L2. Velocities are divided by their own bulk velocity (the DNS's units are not the model's).
`corner_flow` is the mean secondary velocity toward the wall corner (1, AR) along its bisector, sampled at
wall distances d in [0.05, 0.45] by bilinear interpolation: positive = flow toward the corner, the sign of
Prandtl's corner vortices. `vortex_centres` are the positions of the streamfunction's extrema (the two
corner vortices of the quadrant, one on each side of the bisector).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.interpolate import RegularGridInterpolator

from experiments.darsm.duct import Duct


def with_walls(duct: Duct, field: torch.Tensor) -> np.ndarray:
    """(ny + 1, nz + 1) node values including the walls, where every velocity vanishes."""
    out = np.zeros((duct.ny + 1, duct.nz + 1))
    out[:-1, :-1] = field.detach().cpu().numpy()
    return out


def velocities(duct: Duct, q: torch.Tensor) -> dict:
    """U, V, W per unknown node, each divided by the bulk velocity."""
    f = duct.features(q)
    ub = duct.bulk_velocity(q)
    return {"U": f["U"] / ub, "V": f["V"] / ub, "W": f["W"] / ub}


def relative_l2(duct: Duct, pred: dict, truth: dict, names) -> torch.Tensor:
    num = sum((duct.weight * (pred[n] - truth[n]) ** 2).sum() for n in names)
    den = sum((duct.weight * truth[n] ** 2).sum() for n in names)
    return torch.sqrt(num / den)


def corner_flow(duct: Duct, vel: dict, distances=np.linspace(0.05, 0.45, 9)) -> float:
    points = np.stack([1.0 - distances, duct.aspect - distances], -1)
    grid = (duct.y.cpu().numpy(), duct.z.cpu().numpy())
    V, W = (RegularGridInterpolator(grid, with_walls(duct, vel[n]))(points) for n in ("V", "W"))
    return float(np.mean((V + W) / np.sqrt(2.0)))


def streamfunction(duct: Duct, vel: dict) -> np.ndarray:
    """psi(y, z) = -int_z^AR V dz' (psi = 0 on the wall z = AR), trapezoidal on the nodes: works for any (V, W)
    field, and integrating from the wall keeps the interpolated DNS's noise out of the corner."""
    V = with_walls(duct, vel["V"])
    z = duct.z.cpu().numpy()
    steps = 0.5 * (V[:, 1:] + V[:, :-1]) * np.diff(z)[None, :]
    from_wall = np.cumsum(steps[:, ::-1], 1)[:, ::-1]
    return np.concatenate([-from_wall, np.zeros((V.shape[0], 1))], 1)


def vortex_centres(duct: Duct, vel: dict) -> np.ndarray:
    """[(y, z) of max psi, (y, z) of min psi] within one h of the corner (1, AR): its two corner vortices."""
    psi = streamfunction(duct, vel)
    y, z = duct.y.cpu().numpy(), duct.z.cpu().numpy()
    psi = np.where(np.broadcast_to(z[None, :] >= duct.aspect - 1.0, psi.shape), psi, 0.0)
    out = []
    for index in (np.argmax(psi), np.argmin(psi)):
        i, j = np.unravel_index(index, psi.shape)
        out.append((y[i], z[j]))
    return np.array(out)
