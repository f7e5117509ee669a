"""dR/dq (scipy sparse) of a residual on a 2-D node grid whose node (i, j) couples to |di|, |dj| <= reach.

Curtis-Powell-Reid colouring in two dimensions: nodes of one colour (i mod c_i, j mod c_j) never share a row's
stencil when c >= 2 reach + 1, so one forward-mode JVP per (variable, colour) recovers all of their columns:
n_vars c_i c_j JVPs for the whole Jacobian (the 2-D counterpart of `solver.banded_jacobian`). A periodic axis
(the hills' streamwise direction) wraps its neighbours; its colour count is the smallest divisor of its length
that is >= 2 reach + 1, so the colouring stays valid across the wrap.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from torch.func import jvp, vmap


def colour_count(n: int, reach: int, periodic: bool) -> int:
    """Colours along one axis: 2 reach + 1, or on a periodic axis the smallest divisor of n at least that."""
    c = 2 * reach + 1
    if not periodic:
        return c
    return next((d for d in range(c, n) if n % d == 0), n)


def stencil_jacobian(residual, q: torch.Tensor, shape: tuple[int, int], n_vars: int, reach: int = 2,
                     periodic: tuple[bool, bool] = (False, False)):
    ny, nz = shape
    m = ny * nz
    ci, cj = (colour_count(n, reach, p) for n, p in zip(shape, periodic, strict=True))
    ii, jj = np.meshgrid(np.arange(ny), np.arange(nz), indexing="ij")
    colour = ((ii % ci) * cj + jj % cj).reshape(-1)
    seeds = torch.zeros(n_vars, ci * cj, n_vars, m, dtype=q.dtype, device=q.device)
    for v in range(n_vars):
        for col in range(ci * cj):
            seeds[v, col, v, torch.as_tensor(colour == col)] = 1.0
    columns = vmap(lambda e: jvp(residual, (q,), (e,))[1])(seeds.reshape(n_vars * ci * cj, -1))
    columns = columns.reshape(n_vars, ci * cj, n_vars * m).detach().cpu().numpy()
    rows, cols, vals = [], [], []
    node = np.arange(m).reshape(ny, nz)
    for di in range(-reach, reach + 1):
        for dj in range(-reach, reach + 1):
            i2, j2 = ii + di, jj + dj
            i2 = i2 % ny if periodic[0] else i2
            j2 = j2 % nz if periodic[1] else j2
            ok = (i2 >= 0) & (i2 < ny) & (j2 >= 0) & (j2 < nz)
            out_node, in_node = node[ok], node[i2[ok], j2[ok]]
            in_colour = colour[in_node]
            for v_in in range(n_vars):
                for v_out in range(n_vars):
                    r = v_out * m + out_node
                    rows.append(r)
                    cols.append(v_in * m + in_node)
                    vals.append(columns[v_in, in_colour, r])
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    keep = vals != 0.0
    return sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n_vars * m, n_vars * m))
