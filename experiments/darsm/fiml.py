"""Field inversion and machine learning (FIML): a multiplier field beta(x) on a source term of the baseline model.

Parish & Duraisamy (2016, JCP 305, "A paradigm for data-driven predictive modeling using field inversion and
machine learning") and Singh, Medida & Duraisamy (2017): (1) field inversion: per training case, a free field
beta(x), one value per node, multiplies a source term of the baseline RANS model and is optimised through the
solve (our discrete adjoint) to fit the truth's velocity, with the prior penalty lambda * mean((beta - 1)^2);
(2) learning: a small network maps the local invariant features (the DARSM network's, `model.invariant_inputs`)
to the inverted beta; (3) prediction: the solve with beta = network(features(q)) evaluated at the current state.

The term is the production of the omega equation (`source: omega`, alpha omega/k P -> beta alpha omega/k P), the
one Parish & Duraisamy correct in their k-omega channel; `source: k` puts beta on the k equation's production
instead. The baseline model is the baseline ARSM (k-omega + Wallin-Johansson's constants), so beta = 1 is it
exactly.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from experiments.darsm.channel import ConstantCoefficients, ImplicitARSM
from experiments.darsm.model import invariant_inputs, invariant_mlp
from reprolab.cli.errors import ConfigError

SOURCES = ("omega", "k")


def baseline_arsm() -> ImplicitARSM:
    """The model FIML corrects: the implicit ARSM with Wallin & Johansson's constants."""
    return ImplicitARSM(ConstantCoefficients())


class ProductionMultiplier:
    """A closure (`base`'s nu_t and anisotropy) whose production term in the `source` equation is multiplied by
    `beta(features)`, a field shaped like the nodes (`channel.production_factors` reads it)."""

    def __init__(self, base, beta, source: str = "omega"):
        if source not in SOURCES:
            raise ConfigError(f"task.source '{source}' unknown; one of {', '.join(SOURCES)}")
        self.base, self.beta, self.source = base, beta, source

    def eddy_viscosity(self, f: dict) -> torch.Tensor:
        return self.base.eddy_viscosity(f)

    def anisotropy(self, f: dict):
        return self.base.anisotropy(f)

    def production_multiplier(self, f: dict):
        beta = self.beta(f)
        return (1.0, beta) if self.source == "omega" else (beta, 1.0)


def case_name(key) -> str:
    """A training case's name as the data modules give it: Re_tau 180.0 -> 're180', 'AR_1_Ret_360' -> 'ar_1_ret_360'."""
    return key.lower() if isinstance(key, str) else f"re{int(round(float(key)))}"


class BetaFields(nn.Module):
    """Stage 1's parameters: one free beta field per training case (`cases`: the data's training keys), each of the
    grid's `shape` flattened, starting at 1; the checkpoint holds them by case name."""

    def __init__(self, cases=(), shape=()):
        super().__init__()
        nodes = math.prod(int(n) for n in shape)
        if not cases or nodes < 1:
            raise ValueError(f"model.cases and model.shape must name the training cases and the grid; got {cases}, {shape}")
        self.fields = nn.ParameterDict({case_name(c): nn.Parameter(torch.ones(nodes, dtype=torch.float64))
                                        for c in cases})

    def field(self, name: str, like: torch.Tensor) -> torch.Tensor:
        return self.fields[name].view_as(like)


class BetaNet(nn.Module):
    """Stage 2's network: the invariant features -> beta = exp(max_log_beta tanh(o / max_log_beta)) > 0, bounded so
    a predicted field keeps the solve well posed (beta in [e^-m, e^m]); ~ exp(o) for |o| << m."""

    def __init__(self, hidden: int = 16, depth: int = 2, max_log_beta: float = 2.0, zero_init: bool = False):
        super().__init__()
        if max_log_beta <= 0:
            raise ValueError(f"model.max_log_beta must be > 0; got {max_log_beta}")
        self.body, self.head = invariant_mlp(1, hidden, depth, zero_init)
        self.max_log_beta = max_log_beta

    def log_beta(self, inputs: torch.Tensor) -> torch.Tensor:
        o = self.head(self.body(inputs.to(self.head.weight.dtype)))[..., 0]
        return self.max_log_beta * torch.tanh(o / self.max_log_beta)

    def forward(self, f: dict) -> torch.Tensor:
        return torch.exp(self.log_beta(invariant_inputs(f)))
