"""dR/dq (scipy sparse) of a residual on a 2-D node grid whose node (i, j) couples to |di|, |dj| <= reach.

Curtis-Powell-Reid colouring in two dimensions: nodes of one colour (i mod c, j mod c), c = 2 reach + 1, never
share a row's stencil, so one forward-mode JVP per (variable, colour) recovers all of their columns:
n_vars c^2 JVPs for the whole Jacobian (the 2-D counterpart of `solver.banded_jacobian`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from torch.func import jvp, vmap


def stencil_jacobian(residual, q: torch.Tensor, shape: tuple[int, int], n_vars: int, reach: int = 2):
    ny, nz = shape
    m, c = ny * nz, 2 * reach + 1
    ii, jj = np.meshgrid(np.arange(ny), np.arange(nz), indexing="ij")
    colour = ((ii % c) * c + jj % c).reshape(-1)
    seeds = torch.zeros(n_vars, c * c, n_vars, m, dtype=q.dtype, device=q.device)
    for v in range(n_vars):
        for col in range(c * c):
            seeds[v, col, v, torch.as_tensor(colour == col)] = 1.0
    columns = vmap(lambda e: jvp(residual, (q,), (e,))[1])(seeds.reshape(n_vars * c * c, -1))
    columns = columns.reshape(n_vars, c * c, n_vars * m).detach().cpu().numpy()
    rows, cols, vals = [], [], []
    node = np.arange(m).reshape(ny, nz)
    for di in range(-reach, reach + 1):
        for dj in range(-reach, reach + 1):
            i2, j2 = ii + di, jj + dj
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
