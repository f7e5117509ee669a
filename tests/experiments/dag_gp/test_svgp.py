"""Kernels and the whitened SVGP conditional against gpytorch; latent correlation and prior draws by sampling."""

from __future__ import annotations

import pytest
import torch

from experiments.dag_gp.kernels import Stationary, build_kernel
from experiments.dag_gp.model import DagGP
from experiments.dag_gp.svgp import NodeGP
from reprolab.cli.errors import ConfigError


@pytest.mark.parametrize("kind,nu", [("rbf", None), ("matern52", 2.5), ("matern32", 1.5), ("matern12", 0.5)])
def test_kernels_match_gpytorch(kind, nu):
    gpytorch = pytest.importorskip("gpytorch", reason="pip install -e '.[dag_gp]'")
    torch.manual_seed(0)
    x1, x2 = torch.randn(5, 2), torch.randn(4, 2)
    ours = Stationary(kind, [0, 1], lengthscale=0.7)
    ref = gpytorch.kernels.RBFKernel(ard_num_dims=2) if nu is None else gpytorch.kernels.MaternKernel(nu, ard_num_dims=2)
    ref.lengthscale = torch.tensor([[0.7, 0.7]])
    assert torch.allclose(ours(x1, x2), ref(x1, x2).to_dense(), atol=1e-5)


def test_whitened_predictive_matches_gpytorch():
    gpytorch = pytest.importorskip("gpytorch", reason="pip install -e '.[dag_gp]'")
    torch.manual_seed(0)
    z, x, m = torch.randn(6, 1), torch.randn(8, 1), 6

    class Ref(gpytorch.models.ApproximateGP):
        def __init__(self):
            dist = gpytorch.variational.CholeskyVariationalDistribution(m)
            super().__init__(gpytorch.variational.VariationalStrategy(self, z, dist, learn_inducing_locations=False))
            self.mean_module, self.covar_module = gpytorch.means.ZeroMean(), gpytorch.kernels.RBFKernel()

        def forward(self, h):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(h), self.covar_module(h))

    ref = Ref()
    ref.covar_module.lengthscale = 1.0
    mean, chol = torch.randn(m), torch.tril(torch.randn(m, m)) * 0.3 + torch.eye(m) * 0.5
    ref.variational_strategy._variational_distribution.variational_mean.data = mean
    ref.variational_strategy._variational_distribution.chol_variational_covar.data = chol
    with gpytorch.settings.cholesky_jitter(1e-5):
        out = ref(x)
    node = NodeGP(Stationary("rbf", [0]), z, jitter=1e-5)
    a = node.projection(x)
    cond_mean, cond_var = node.conditional(x, mean)
    q_var = cond_var + (a @ chol).pow(2).sum(-1)                 # marginalising v ~ N(m, S Sᵀ)
    assert torch.allclose(cond_mean, out.mean, atol=1e-3)
    assert torch.allclose(q_var, out.variance, atol=1e-3)


def test_root_correlation_matches_samples():
    torch.manual_seed(0)
    model = DagGP({"a": ["x"], "b": ["x"], "y": ["a", "b"]}, inputs=["x"], observed=["y"], num_inducing=4, structured=True)
    with torch.no_grad():
        model.posterior.coupling.normal_(0, 0.5)
        model.posterior.raw_scale.mul_(5)
    x = torch.linspace(-1, 1, 3)[:, None]
    with torch.no_grad():
        draws = model(x, 40000)
        corr = model.root_correlation(x, "a", "b")
    empirical = torch.stack([torch.corrcoef(draws[:, i, :2].T)[0, 1] for i in range(3)])
    assert corr.abs().max() > 0.1 and torch.allclose(corr, empirical, atol=0.03)


def test_prior_draws_have_the_kernel_covariance():
    torch.manual_seed(0)
    model = DagGP({"f": ["x"]}, inputs=["x"], observed=[])
    x = torch.tensor([[0.0], [0.5], [2.0]])
    draws = model.prior_sample(x, 20000)[..., 0]
    assert torch.allclose(torch.cov(draws.T).float(), model.gps[0].kernel(x, x).detach(), atol=0.05)


def test_bad_kernel_is_one_line():
    with pytest.raises(ConfigError, match="kernel 'cosine' is not one of"):
        build_kernel("cosine", 1, 1)
    with pytest.raises(ConfigError, match="needs both parent nodes and exogenous inputs"):
        build_kernel("ar1", 1, 0)
