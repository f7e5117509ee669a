"""MTL weightings: `build_weighting(name, n_tasks, **kwargs)` returns one by its short name.

Own implementations: EW, UW, DWA, RLW, FAMO (loss-based), GradNorm, DB-MTL (gradient-based), and `single`
(one task only: the STL baseline of Δm%).
Wrapped from torchjd 0.18: MGDA, PCGrad, GradVac, GradDrop, IMTL(-G), CAGrad, Nash-MTL, Aligned-MTL,
FairGrad.
"""

from __future__ import annotations

from reprolab.mtl.weightings.aggregators import Aggregated, make_aggregator
from reprolab.mtl.weightings.base import Combination, Weighting
from reprolab.mtl.weightings.gradient_based import DBMTL, GradNorm
from reprolab.mtl.weightings.loss_based import DWA, EW, FAMO, RLW, UW, SingleTask

OWN = {"ew": EW, "uw": UW, "dwa": DWA, "rlw": RLW, "famo": FAMO, "gradnorm": GradNorm, "dbmtl": DBMTL,
       "single": SingleTask}
TORCHJD = ("mgda", "pcgrad", "gradvac", "graddrop", "imtl", "cagrad", "nashmtl", "alignedmtl", "fairgrad")
NAMES = tuple(sorted((*OWN, *TORCHJD)))


def build_weighting(name: str, n_tasks: int, **kwargs) -> Weighting:
    key = name.lower().replace("-", "").replace("_", "")
    if key in OWN:
        return OWN[key](n_tasks, **kwargs)
    if key in TORCHJD:
        return Aggregated(n_tasks, key, **kwargs)
    raise ValueError(f"unknown MTL weighting {name!r}; choose from {', '.join(NAMES)}")


__all__ = ["Aggregated", "Combination", "DBMTL", "DWA", "EW", "FAMO", "GradNorm", "NAMES", "RLW", "SingleTask", "UW",
           "Weighting", "build_weighting", "make_aggregator"]
