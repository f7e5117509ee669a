"""MTL summary metrics: Δm% (Nash-MTL / FAMO protocol), mean rank, and LibMTL's Δp (a different number).

Δm% = (1/K) Σ_k (−1)^{δ_k} (M_{m,k} − M_{b,k}) / M_{b,k} × 100 over all K metrics, δ_k = 1 when higher is
better, against single-task baselines M_b: *lower is better* (Navon et al. 2022, §6).
Δp = (1/T) Σ_t (1/N_t) Σ_i (−1)^{s_{t,i}} (M_{m,t,i} − M_{b,t,i}) / M_{b,t,i} × 100 with s = 1 when lower is
better: averaged per task first, *higher is better* (Lin & Zhang, LibMTL, JMLR 2023).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

# name → True when higher is better. Single-task baselines: the BASE arrays of the Nash-MTL code
# (AvivNavon/nash-mtl, experiments/*/utils.py; NYUv2 from CAGrad) and Nash-MTL's Table for Cityscapes.
# Re-measure with the STL presets before relying on them.
NYUV2_HIGHER = {"seg_miou": True, "seg_pixacc": True, "depth_abs": False, "depth_rel": False,
                "normal_mean": False, "normal_median": False, "normal_11.25": True, "normal_22.5": True,
                "normal_30": True}
NYUV2_STL = {"seg_miou": 38.30, "seg_pixacc": 63.76, "depth_abs": 0.6754, "depth_rel": 0.2780,
             "normal_mean": 25.01, "normal_median": 19.21, "normal_11.25": 30.14, "normal_22.5": 57.20,
             "normal_30": 69.15}
CITYSCAPES_HIGHER = {"seg_miou": True, "seg_pixacc": True, "depth_abs": False, "depth_rel": False}
CITYSCAPES_STL = {"seg_miou": 74.01, "seg_pixacc": 93.16, "depth_abs": 0.0125, "depth_rel": 27.77}
QM9_TARGETS = ("mu", "alpha", "homo", "lumo", "r2", "zpve", "u0", "u", "h", "g", "cv")
QM9_HIGHER = {k: False for k in QM9_TARGETS}  # MAE per target
QM9_STL = dict(zip(QM9_TARGETS, (0.0671, 0.1814, 60.576, 53.915, 0.5027, 4.539, 58.838, 64.244, 63.852,
                                    66.223, 0.07212), strict=True))


def _check(method: Mapping[str, float], base: Mapping[str, float], higher: Mapping[str, bool]) -> list[str]:
    keys = list(higher)
    missing = [k for k in keys if k not in method or k not in base]
    if missing:
        raise KeyError(f"metrics {missing} missing from the method or the baseline")
    zero = [k for k in keys if base[k] == 0]
    if zero:
        raise ValueError(f"baseline metrics {zero} are 0; Δm divides by them")
    return keys


def delta_m(method: Mapping[str, float], base: Mapping[str, float], higher: Mapping[str, bool]) -> float:
    """Δm% over all metrics named in `higher` (lower is better)."""
    keys = _check(method, base, higher)
    terms = [(-1.0 if higher[k] else 1.0) * (method[k] - base[k]) / base[k] for k in keys]
    return 100.0 * float(np.mean(terms))


def delta_p(method: Mapping[str, float], base: Mapping[str, float], higher: Mapping[str, bool],
            tasks: Mapping[str, Sequence[str]]) -> float:
    """LibMTL's Δp% (higher is better): per-task mean of relative improvements, then mean over tasks."""
    _check(method, base, higher)
    per_task = []
    for names in tasks.values():
        terms = [(1.0 if higher[k] else -1.0) * (method[k] - base[k]) / base[k] for k in names]
        per_task.append(float(np.mean(terms)))
    return 100.0 * float(np.mean(per_task))


def mean_rank(results: Mapping[str, Mapping[str, float]], higher: Mapping[str, bool]) -> dict[str, float]:
    """Average over metrics of each method's rank (1 = best; ties share the mean rank)."""
    from scipy.stats import rankdata

    methods = list(results)
    ranks = np.zeros(len(methods))
    for k, hi in higher.items():
        vals = np.array([results[m][k] for m in methods], dtype=float)
        ranks += rankdata(-vals if hi else vals, method="average")
    return dict(zip(methods, (ranks / len(higher)).tolist(), strict=True))
