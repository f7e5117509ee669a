"""Gradient aggregators from torchjd 0.18 behind the weighting interface (we do not re-implement them).

MGDA (Sener & Koltun 2018; torchjd's Frank–Wolfe min-norm solver), PCGrad (Yu et al. 2020), GradVac
(Wang et al. 2021), GradDrop (Chen et al. 2020), IMTL-G (Liu et al. 2021; the gradient half of IMTL),
CAGrad (Liu et al. 2021), Nash-MTL (Navon et al. 2022), Aligned-MTL (Senushkin et al. 2023),
FairGrad (Ban & Ji 2024). (torchjd's UPGrad needs `quadprog`, not installed, so it is not offered.)
Weighted aggregators also give their task weights, used for the heads; GradDrop gives none (heads: 1).
"""

from __future__ import annotations

import torch
from torch import Tensor
from torchjd import aggregation as jd

from reprolab.config.extras import require
from reprolab.mtl.weightings.base import Combination, Weighting

SOLVERS = {"cagrad": ("cvxpy",), "nashmtl": ("cvxpy", "ecos")}   # torchjd imports these only when present


def make_aggregator(name: str, n_tasks: int, **kwargs) -> jd.Aggregator:
    """torchjd aggregator for `name`, with the hyper-parameters the original papers used on NYUv2."""
    factories = {
        "mgda": lambda: jd.MGDA(**kwargs),
        "pcgrad": lambda: jd.PCGrad(),
        "gradvac": lambda: jd.GradVac(**{"beta": 0.5, **kwargs}),
        "graddrop": lambda: jd.GradDrop(**kwargs),
        "imtl": lambda: jd.IMTLG(),
        "cagrad": lambda: jd.CAGrad(**{"c": 0.4, **kwargs}),
        "nashmtl": lambda: jd.NashMTL(n_tasks=n_tasks, **{"max_norm": 1.0, "update_weights_every": 1, "optim_niter": 20, **kwargs}),
        "alignedmtl": lambda: jd.AlignedMTL(**kwargs),
        "fairgrad": lambda: jd.FairGrad(**{"alpha": 1.0, **kwargs}),
    }
    if name not in factories:
        raise ValueError(f"unknown torchjd aggregator {name!r}; choose from {sorted(factories)}")
    for module in SOLVERS.get(name, ()):
        require(module, "apt")
    return factories[name]()


class Aggregated(Weighting):
    """Any torchjd aggregator as a weighting: shared gradient = A(J); head weights = its weights if it has them."""

    needs_jacobian = True

    def __init__(self, n_tasks: int, aggregator: str, **kwargs):
        super().__init__(n_tasks)
        self.name = aggregator
        self.aggregator = make_aggregator(aggregator, n_tasks, **kwargs)

    @property
    def gives_task_weights(self) -> bool:
        """Whether A(J) = wᵀJ for weights it reports (all but GradDrop): what an MGDA-UB-style step needs."""
        return isinstance(self.aggregator, jd.WeightedAggregator | jd.GramianWeightedAggregator)

    def forward(self, losses: Tensor, jac: Tensor | None = None, gram: Tensor | None = None) -> Combination:
        self.check(losses, jac)
        agg = self.aggregator
        if isinstance(agg, jd.GramianWeightedAggregator):  # reuse the engine's Gramian J Jᵀ
            weights = agg.gramian_weighting(jac @ jac.T if gram is None else gram).to(jac)
            return Combination(loss_weights=weights, shared_grad=weights @ jac)
        if isinstance(agg, jd.WeightedAggregator):
            weights = agg.weighting(jac).to(jac)
            return Combination(loss_weights=weights, shared_grad=weights @ jac)
        return Combination(loss_weights=torch.ones_like(losses), shared_grad=agg(jac))
