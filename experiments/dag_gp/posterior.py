"""q over the whitened inducing outputs v_n (u_n = L_Zn v_n, prior p(v) = N(0, I)) of every node.

Mean-field: q(v) = Π_n N(m_n, S_n S_nᵀ). Structured: the noise of a child also drives its parents,
    v_n = m_n + S_n ε_n + Σ_{c ∈ children(n)} C_nc ε_c,   ε ~ N(0, I),
so q(v) = N(m, L Lᵀ) with L block lower-triangular in reverse topological order (children first). Edges
parent → child couple the two nodes, and two parents of one child (a collider) share its ε_c, which is what
lets q represent explaining-away. C = 0 is mean-field exactly. With L triangular, log|L Lᵀ| = 2 Σ log|diag S_n|,
so KL(q ‖ p) = ½ (‖L‖²_F + ‖m‖² − D − 2 Σ_n log|diag S_n|) needs no solve.
"""

from __future__ import annotations

import torch
from torch import nn


class InducingPosterior(nn.Module):
    def __init__(self, nodes: list[str], edges: list[tuple[str, str]], num_inducing: int, structured: bool,
                 init_scale: float = 1e-2):
        super().__init__()
        self.nodes, self.index = list(nodes), {n: i for i, n in enumerate(nodes)}
        self.edges = list(edges) if structured else []
        self.structured = structured
        n, m = len(nodes), num_inducing
        self.mean = nn.Parameter(torch.zeros(n, m))
        self.raw_scale = nn.Parameter(torch.eye(m).repeat(n, 1, 1) * init_scale)  # lower triangle = S_n
        self.coupling = nn.Parameter(torch.zeros(len(self.edges), m, m))           # C_{parent, child}

    def scale(self) -> torch.Tensor:
        """S_n: lower triangular with a positive diagonal."""
        tril = torch.tril(self.raw_scale, -1)
        diag = torch.diagonal(self.raw_scale, dim1=-2, dim2=-1).abs() + 1e-5
        return tril + torch.diag_embed(diag)

    def sample(self, n_samples: int) -> torch.Tensor:
        """Reparameterised draws of v, shape (samples, nodes, M)."""
        eps = torch.randn(n_samples, *self.mean.shape, dtype=self.mean.dtype, device=self.mean.device)
        own = self.mean + torch.einsum("nij,snj->sni", self.scale(), eps)
        if not self.edges:
            return own
        parts = [[own[:, i]] for i in range(len(self.nodes))]
        for e, (parent, child) in enumerate(self.edges):
            parts[self.index[parent]].append(eps[:, self.index[child]] @ self.coupling[e].T)
        return torch.stack([sum(p) for p in parts], dim=1)

    def covariance(self, a: str, b: str) -> torch.Tensor:
        """Cov_q(v_a, v_b) = Σ_k L_ak L_bkᵀ, over the columns k of L (a node's own ε and its children's)."""
        scale = self.scale()
        cols: dict[str, list[torch.Tensor]] = {}
        for node in (a, b):
            blocks = {node: scale[self.index[node]]}
            for e, (parent, child) in enumerate(self.edges):
                if parent == node:
                    blocks[child] = self.coupling[e]
            cols[node] = blocks
        m = self.mean.shape[1]
        out = torch.zeros(m, m, dtype=self.mean.dtype, device=self.mean.device)
        for k, block in cols[a].items():
            if k in cols[b]:
                out = out + block @ cols[b][k].T
        return out

    def kl(self) -> torch.Tensor:
        scale = self.scale()
        frob = scale.pow(2).sum() + self.coupling.pow(2).sum()
        logdet = 2 * torch.log(torch.diagonal(scale, dim1=-2, dim2=-1)).sum()
        return 0.5 * (frob + self.mean.pow(2).sum() - self.mean.numel() - logdet)
