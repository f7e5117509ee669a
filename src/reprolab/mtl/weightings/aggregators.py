"""Gradient aggregators taken from torchjd 0.18 behind the weighting interface: GradVac (Wang et al. 2021),
Nash-MTL (Navon et al. 2022), FairGrad (Ban & Ji 2024). On identical gradients they agree with LibMTL and the
authors' code to 1e-5 (issue 47), so we do not re-implement them. Heads keep their own loss (Nash-MTL's code
weighs its heads by α: `task.heads=weighted`). torchjd's UPGrad needs `quadprog`, not installed, so it is not
offered.

Each is handed the Jacobian scaled to unit Frobenius norm (J/√s, s = tr G) and its weights are mapped back by
the method's own scaling law w(J) = s^{p/2} w(J/√s): p = 0 for GradVac (its weights depend on cosines and norm
ratios only), p = −1 for Nash-MTL (Gα = 1/α), p = −2a/(1+a) for FairGrad ((Gw)_t = w_t^{−1/a}). In exact
arithmetic this changes nothing; in floating point it keeps the absolute constants inside torchjd (GradVac's
ε = 1e-8 in its cosines, the solvers' stopping tolerances, FairGrad's start at uniform weights) from making the
update depend on the gradients' scale (at 1e-3 GradVac moved by 2 %, FairGrad's least squares stopped far off).
"""

from __future__ import annotations

import torch
from torch import Tensor
from torchjd import aggregation as jd

from reprolab.config.extras import require
from reprolab.mtl.weightings.base import Combination, Weighting, gramian

SOLVERS = {"nashmtl": ("cvxpy", "ecos")}   # torchjd imports these only when present


def make_aggregator(name: str, n_tasks: int, **kwargs) -> jd.Aggregator:
    """torchjd aggregator for `name`, with the hyper-parameters the original papers used on NYUv2."""
    factories = {
        "gradvac": lambda: jd.GradVac(**{"beta": 0.5, **kwargs}),
        "nashmtl": lambda: jd.NashMTL(n_tasks=n_tasks, **{"max_norm": 1.0, "update_weights_every": 1, "optim_niter": 20, **kwargs}),
        "fairgrad": lambda: jd.FairGrad(**{"alpha": 1.0, **kwargs}),
    }
    if name not in factories:
        raise ValueError(f"unknown torchjd aggregator {name!r}; choose from {sorted(factories)}")
    for module in SOLVERS.get(name, ()):
        require(module, "apt")
    return factories[name]()


class Aggregated(Weighting):
    """A torchjd weighted aggregator as a weighting: shared gradient = wᵀJ for the weights w it reports."""

    needs_jacobian = True
    on_representation = True

    def __init__(self, n_tasks: int, aggregator: str, **kwargs):
        super().__init__(n_tasks)
        self.name = aggregator
        self.aggregator = make_aggregator(aggregator, n_tasks, **kwargs)

    def scaling_power(self) -> float:
        """p in w(kJ) = k^p w(J)."""
        if self.name == "nashmtl":
            return -1.0
        if self.name == "fairgrad":
            a = self.aggregator.gramian_weighting.alpha
            return -2.0 * a / (1.0 + a)
        return 0.0

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        gram = gramian(jac, gram)
        total = float(gram.diagonal().sum())
        if total <= 0.0:  # every task gradient is zero: so is the update
            weights = torch.zeros_like(losses).to(jac)
        else:
            agg = self.aggregator
            if isinstance(agg, jd.GramianWeightedAggregator):  # reuse the engine's Gramian J Jᵀ
                unit = agg.gramian_weighting(gram / total)
            else:
                unit = agg.weighting(jac / total**0.5)
            weights = unit.to(jac) * total ** (self.scaling_power() / 2)
        return Combination(loss_weights=weights, shared_grad=weights @ jac, head_weights=torch.ones_like(weights))
