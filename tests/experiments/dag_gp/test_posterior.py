"""The structured q: KL and covariances against the dense Gaussian it defines; C = 0 is mean-field."""

from __future__ import annotations

import torch
from torch.distributions import MultivariateNormal, kl_divergence

from experiments.dag_gp.posterior import InducingPosterior

NODES, EDGES, M = ["a", "b", "y"], [("a", "y"), ("b", "y")], 3


def dense_factor(q: InducingPosterior) -> torch.Tensor:
    """L with rows (node, i) and columns (node's ε, j): diagonal blocks S_n, block (parent, child) = C."""
    n = len(q.nodes)
    big = torch.zeros(n * M, n * M)
    scale = q.scale()
    for i in range(n):
        big[i * M:(i + 1) * M, i * M:(i + 1) * M] = scale[i]
    for e, (p, c) in enumerate(q.edges):
        i, j = q.index[p], q.index[c]
        big[i * M:(i + 1) * M, j * M:(j + 1) * M] = q.coupling[e]
    return big


def random_posterior(structured: bool) -> InducingPosterior:
    torch.manual_seed(0)
    q = InducingPosterior(NODES, EDGES, M, structured)
    with torch.no_grad():
        q.mean.normal_()
        q.raw_scale.normal_(0, 0.5)
        q.coupling.normal_(0, 0.5)
    return q


def test_kl_matches_dense_gaussian():
    q = random_posterior(structured=True)
    big = dense_factor(q)
    dense = MultivariateNormal(q.mean.flatten(), scale_tril=None, covariance_matrix=big @ big.T)
    prior = MultivariateNormal(torch.zeros(len(NODES) * M), torch.eye(len(NODES) * M))
    assert torch.allclose(q.kl(), kl_divergence(dense, prior), rtol=1e-4)


def test_covariance_blocks_match_dense_and_collider_parents_are_coupled():
    q = random_posterior(structured=True)
    big = dense_factor(q)
    cov = big @ big.T
    a, b = q.index["a"] * M, q.index["b"] * M
    assert torch.allclose(q.covariance("a", "b"), cov[a:a + M, b:b + M], atol=1e-6)
    assert torch.allclose(q.covariance("a", "a"), cov[a:a + M, a:a + M], atol=1e-6)
    assert q.covariance("a", "b").abs().max() > 1e-2          # explaining-away is representable
    torch.manual_seed(1)
    v = q.sample(40000).flatten(1)
    assert torch.allclose(torch.cov(v.T), cov, atol=0.08)


def test_zero_coupling_is_mean_field():
    structured, mean_field = random_posterior(True), random_posterior(False)
    with torch.no_grad():
        structured.coupling.zero_()
    assert torch.allclose(structured.kl(), mean_field.kl())
    torch.manual_seed(3)
    first = structured.sample(5)
    torch.manual_seed(3)
    assert torch.allclose(first, mean_field.sample(5))
    assert structured.covariance("a", "b").abs().max() == 0 and mean_field.covariance("a", "b").abs().max() == 0
