"""MTL weightings: `build_weighting(name, n_tasks, **kwargs)` returns one by its short name.

Loss-based: EW, UW, DWA, RLW, FAMO, and `single` (one task only: the STL baseline of Δm%). Gradient-based,
written here and held to the papers' equations and the authors' code by `tests/core/mtl/test_reference.py`:
MGDA (exact min-norm point), PCGrad, GradDrop, IMTL (-G, -L, hybrid), CAGrad, Aligned-MTL, GradNorm, DB-MTL.
Wrapped from torchjd 0.18: GradVac, Nash-MTL, FairGrad.
"""

from __future__ import annotations

import inspect

from reprolab.mtl.weightings.aggregators import Aggregated, make_aggregator
from reprolab.mtl.weightings.aligned import AlignedMTL
from reprolab.mtl.weightings.base import Combination, Weighting
from reprolab.mtl.weightings.cagrad import CAGrad
from reprolab.mtl.weightings.graddrop import GradDrop
from reprolab.mtl.weightings.gradient_based import DBMTL, GradNorm
from reprolab.mtl.weightings.imtl import IMTL
from reprolab.mtl.weightings.loss_based import DWA, EW, FAMO, RLW, UW, SingleTask
from reprolab.mtl.weightings.mgda import MGDA
from reprolab.mtl.weightings.pcgrad import PCGrad

OWN = {"ew": EW, "uw": UW, "dwa": DWA, "rlw": RLW, "famo": FAMO, "gradnorm": GradNorm, "dbmtl": DBMTL,
       "single": SingleTask, "mgda": MGDA, "pcgrad": PCGrad, "graddrop": GradDrop, "imtl": IMTL, "cagrad": CAGrad,
       "alignedmtl": AlignedMTL}
TORCHJD = ("gradvac", "nashmtl", "fairgrad")
NAMES = tuple(sorted((*OWN, *TORCHJD)))


def build_weighting(name: str, n_tasks: int, **kwargs) -> Weighting:
    key = name.lower().replace("-", "").replace("_", "")
    if key not in OWN and key not in TORCHJD:
        raise ValueError(f"unknown MTL weighting {name!r}; choose from {', '.join(NAMES)}")
    if key in OWN:
        accepted = [p for p in inspect.signature(OWN[key]).parameters if p != "n_tasks"]
        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            raise ValueError(f"weighting {name!r} has no option {', '.join(unknown)}; its task.weighting_kwargs are "
                             f"{', '.join(accepted) or 'none'}")
        return OWN[key](n_tasks, **kwargs)
    return Aggregated(n_tasks, key, **kwargs)


__all__ = ["Aggregated", "AlignedMTL", "CAGrad", "Combination", "DBMTL", "DWA", "EW", "FAMO", "GradDrop", "GradNorm",
           "IMTL", "MGDA", "NAMES", "PCGrad", "RLW", "SingleTask", "UW", "Weighting", "build_weighting",
           "make_aggregator"]
