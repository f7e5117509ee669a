"""Deep GP over a DAG: one sparse variational GP per node, its input the parents' sampled outputs (and the
exogenous inputs for roots, or for every node with `input_connections`, Dunlop et al. 2018 §4.2), samples
propagated down the graph in topological order by reparameterisation (Salimbeni & Deisenroth 2017, §3.1).

The ELBO (eq. of Salimbeni & Deisenroth 2017, eq. 10, with the graph's joint q of `posterior.py`) is
    Σ_i Σ_{n observed at i} E_q[log N(y_in | f_n(x_i), σ_n²)] − KL(q(v) ‖ p(v)),
where a node unobserved at row i (mask 0) contributes nothing. The predictive density of a test row is the
Monte-Carlo mixture p(y_i) ≈ (1/S) Σ_s Π_{n} N(y_in | f_n^s(x_i), σ_n²), never a single moment-matched Gaussian.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn.functional import softplus

from experiments.dag_gp.graph import topological_order
from experiments.dag_gp.kernels import build_kernel
from experiments.dag_gp.posterior import InducingPosterior
from experiments.dag_gp.svgp import NodeGP
from reprolab.cli.errors import ConfigError


class DagGP(nn.Module):
    def __init__(self, graph: dict, inputs: list[str], observed: list[str], kernel: str = "rbf",
                 node_kernels: dict | None = None, base_kernel: str = "rbf", input_connections: bool = False,
                 num_inducing: int = 16, structured: bool = False, noise: float = 0.1, inducing_range: float = 2.0,
                 init_scale: float = 0.1, jitter: float = 1e-5):
        super().__init__()
        self.graph = {str(n): [str(p) for p in (pars or [])] for n, pars in dict(graph).items()}
        self.inputs, self.observed = [str(i) for i in inputs], [str(o) for o in observed]
        missing = [o for o in self.observed if o not in self.graph]
        if missing:
            raise ConfigError(f"data nodes {missing} are not nodes of model.graph {list(self.graph)}; pick a data option "
                              "made for this graph, or set model.graph")
        self.order = topological_order(self.graph, self.inputs)
        node_kernels = dict(node_kernels or {})
        self.node_parents, self.input_parents, gps = {}, {}, []
        for node in self.order:
            pars = self.graph[node]
            self.node_parents[node] = [p for p in pars if p in self.graph]
            ins = [p for p in pars if p in self.inputs]
            if not pars or (input_connections and self.node_parents[node]):
                ins = list(self.inputs)  # a root sees every input; input connections feed them to every node
            self.input_parents[node] = [self.inputs.index(i) for i in ins]
            dim = len(self.node_parents[node]) + len(ins)
            k = build_kernel(node_kernels.get(node, kernel), len(self.node_parents[node]), len(ins), base_kernel)
            z = (torch.rand(num_inducing, dim) * 2 - 1) * inducing_range
            gps.append(NodeGP(k, z, jitter))
        self.gps = nn.ModuleList(gps)
        edges = [(p, n) for n in self.order for p in self.node_parents[n]]
        self.posterior = InducingPosterior(self.order, edges, num_inducing, structured, init_scale)
        self.raw_noise = nn.Parameter(torch.full((len(self.observed),), math.log(math.expm1(noise ** 2))))
        self.column = [self.order.index(o) for o in self.observed]

    def _node_input(self, node: str, x: torch.Tensor, values: dict, n_samples: int) -> torch.Tensor:
        cols = [values[p] for p in self.node_parents[node]]
        cols += [x[:, j].expand(n_samples, -1) for j in self.input_parents[node]]
        return torch.stack(cols, dim=-1)

    def forward(self, x: torch.Tensor, n_samples: int) -> torch.Tensor:
        """Joint draws of every node at the rows of x (B, inputs): shape (S, B, nodes) in topological order."""
        v = self.posterior.sample(n_samples)
        values: dict[str, torch.Tensor] = {}
        for i, node in enumerate(self.order):
            values[node] = self.gps[i].sample(self._node_input(node, x, values, n_samples), v[:, i])
        return torch.stack([values[n] for n in self.order], dim=-1)

    def noise_var(self) -> torch.Tensor:
        return softplus(self.raw_noise) + 1e-6

    def log_lik(self, f: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Σ over observed nodes of log N(y | f, σ²) per sample and row, (S, B); mask 0 removes a node exactly."""
        f_obs, var = f[..., self.column], self.noise_var()
        log_n = -0.5 * (math.log(2 * math.pi) + var.log() + (y - f_obs).pow(2) / var)
        return torch.where(mask.bool(), log_n, torch.zeros_like(log_n)).sum(-1)

    def elbo(self, x, y, mask, n_data: int, n_samples: int) -> torch.Tensor:
        """Doubly stochastic ELBO: the minibatch's expected log-likelihood scaled to n_data, minus the KL."""
        ll = self.log_lik(self(x, n_samples), y, mask).mean(0)
        return ll.sum() * n_data / len(x) - self.posterior.kl()

    def log_predictive(self, x, y, mask, n_samples: int) -> torch.Tensor:
        """log (1/S) Σ_s Π_n N(y_in | f_n^s, σ_n²) per row (the Monte-Carlo mixture over joint draws)."""
        ll = self.log_lik(self(x, n_samples), y, mask)
        return torch.logsumexp(ll, dim=0) - math.log(n_samples)

    def root_correlation(self, x: torch.Tensor, a: str, b: str) -> torch.Tensor:
        """corr_q(f_a(x), f_b(x)) per row for two nodes whose inputs are exogenous only (e.g. collider latents)."""
        ia, ib = self.order.index(a), self.order.index(b)
        if self.node_parents[a] or self.node_parents[b]:
            raise ConfigError(f"root_correlation needs nodes fed by inputs only; '{a}' or '{b}' has node parents")
        proj = {n: self.gps[i].projection(x[:, self.input_parents[n]]) for n, i in ((a, ia), (b, ib))}

        def cov(p: str, q: str) -> torch.Tensor:
            return ((proj[p] @ self.posterior.covariance(p, q)) * proj[q]).sum(-1)

        var = {n: self.gps[i].kernel.diag(x[:, self.input_parents[n]]) - proj[n].pow(2).sum(-1) + cov(n, n)
               for n, i in ((a, ia), (b, ib))}
        return cov(a, b) / (var[a] * var[b]).sqrt()

    @torch.no_grad()
    def prior_sample(self, x: torch.Tensor, n_draws: int) -> torch.Tensor:
        """Exact joint draws from the prior at the rows of x, node by node in float64: (draws, B, nodes).

        The jitter starts at 1e-10 (its noise must stay far below the slopes the collapse analysis measures)
        and grows tenfold only where a Cholesky fails."""
        values: dict[str, torch.Tensor] = {}
        x = x.double()
        for i, node in enumerate(self.order):
            h = self._node_input(node, x, values, n_draws)
            k = self.gps[i].kernel(h, h)
            eye, jitter = torch.eye(k.shape[-1], dtype=k.dtype), 1e-10
            chol, info = torch.linalg.cholesky_ex(k + jitter * eye)
            while bool(info.any()) and jitter < 1e-4:
                jitter *= 10
                chol, info = torch.linalg.cholesky_ex(k + jitter * eye)
            values[node] = (chol @ torch.randn(*k.shape[:-1], 1, dtype=k.dtype)).squeeze(-1)
        return torch.stack([values[n] for n in self.order], dim=-1)
