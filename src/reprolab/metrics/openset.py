"""Open-set recognition and verification metrics shared by detection / attribution benchmarks.

* ``equal_error_rate`` — the operating point where false-accept rate equals false-reject rate.
* ``open_set_auroc`` — known-vs-unknown separability of a "knownness" score (AUROC, via torchmetrics).
* ``oscr`` — Open-Set Classification Rate (Dhamija et al., NeurIPS 2018, Sec. 4): area under the curve of
  correct-classification rate of knowns, CCR(θ), against false-positive rate of unknowns, FPR(θ);
  ``oscr_arpl`` is the same area as the ARPL code's ``compute_oscr`` draws it (Chen et al. 2021), which many
  open-set papers report and which comes out lower: ``oscr(..., convention="arpl")`` picks it.
* ``clustering_scores`` — Hungarian-matched accuracy, NMI and ARI of a clustering against true labels
  (NMI/ARI from torchmetrics; the optimal one-to-one cluster→class map from scipy's assignment solver).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from torch import Tensor
from torchmetrics.functional.classification import binary_auroc, binary_roc
from torchmetrics.functional.clustering import adjusted_rand_score, normalized_mutual_info_score


def equal_error_rate(scores: Tensor, targets: Tensor) -> tuple[float, float]:
    """EER of a detector whose higher ``scores`` mean "positive" (``targets`` 1); returns (eer, threshold).

    The ROC is piecewise linear between its points, so the EER is the crossing of FPR and FNR = 1 - TPR,
    interpolated linearly between the two ROC points that bracket it.
    """
    fpr, tpr, thresholds = binary_roc(scores.float(), targets.long())
    fnr = 1.0 - tpr
    diff = (fpr - fnr).numpy()
    i = int(np.argmax(diff >= 0))  # first point where FPR >= FNR (FPR rises, FNR falls along the curve)
    if i == 0:
        return float(fpr[0]), float(thresholds[0])
    d0, d1 = diff[i - 1], diff[i]
    w = d0 / (d0 - d1) if d0 != d1 else 0.0
    eer = float(fpr[i - 1] + w * (fpr[i] - fpr[i - 1]))
    threshold = float(thresholds[i - 1] + w * (thresholds[i] - thresholds[i - 1]))
    return eer, threshold


def open_set_auroc(known_scores: Tensor, unknown_scores: Tensor) -> float:
    """AUROC of telling knowns (positives) from unknowns with a knownness score (higher = more known)."""
    scores = torch.cat([known_scores, unknown_scores]).float()
    targets = torch.cat([torch.ones(len(known_scores)), torch.zeros(len(unknown_scores))]).long()
    return float(binary_auroc(scores, targets))


OSCR_CONVENTIONS = ("dhamija", "arpl")


def oscr(known_scores: Tensor, known_correct: Tensor, unknown_scores: Tensor, convention: str = "dhamija") -> float:
    """Open-Set Classification Rate: area under CCR(θ) vs FPR(θ) as θ sweeps all scores.

    CCR(θ) = |{known x : correctly classified and score(x) ≥ θ}| / |known|,
    FPR(θ) = |{unknown x : score(x) ≥ θ}| / |unknown|  (Dhamija et al. 2018, Eq. 6-7).
    A perfect classifier that ranks every known above every unknown scores 1; chance ranking scores
    about the closed-set accuracy / 2. ``convention="arpl"`` returns ``oscr_arpl`` instead.
    """
    if convention not in OSCR_CONVENTIONS:
        raise ValueError(f"OSCR convention must be one of {OSCR_CONVENTIONS}, got {convention!r}")
    if convention == "arpl":
        return oscr_arpl(known_scores, known_correct, unknown_scores)
    scores = torch.cat([known_scores, unknown_scores]).double()
    is_known = torch.cat([torch.ones(len(known_scores)), torch.zeros(len(unknown_scores))])
    correct = torch.cat([known_correct.double(), torch.zeros(len(unknown_scores), dtype=torch.double)])
    order = torch.argsort(scores, descending=True, stable=True)
    scores, is_known, correct = scores[order], is_known[order], correct[order]
    ccr = torch.cumsum(correct, 0) / max(len(known_scores), 1)
    fpr = torch.cumsum(1.0 - is_known, 0) / max(len(unknown_scores), 1)
    # keep only the last point of every run of tied scores: a threshold cannot split ties
    last_of_tie = torch.ones_like(scores, dtype=torch.bool)
    last_of_tie[:-1] = scores[1:] != scores[:-1]
    ccr = torch.cat([torch.zeros(1, dtype=torch.double), ccr[last_of_tie]])
    fpr = torch.cat([torch.zeros(1, dtype=torch.double), fpr[last_of_tie]])
    return float(torch.trapezoid(ccr, fpr))


def oscr_arpl(known_scores: Tensor, known_correct: Tensor, unknown_scores: Tensor) -> float:
    """OSCR as ARPL's ``compute_oscr`` computes it: with all n scores sorted ascending, cut k (k < n−1) counts the
    correct knowns strictly above position k and the unknowns at or above it; the points (0, 0) and (1, 1) are
    added, a last cut is left at (0, 0), and the area is the trapezoid over the points sorted by (FPR, CCR).
    A perfectly separated set with 3 of 4 knowns correct gives 0.6875 here and 0.75 by Dhamija's definition.
    """
    scores = torch.cat([known_scores, unknown_scores]).double()
    correct = torch.cat([known_correct.double(), torch.zeros(len(unknown_scores), dtype=torch.double)])
    unknown = torch.cat([torch.zeros(len(known_scores)), torch.ones(len(unknown_scores))]).double()
    order = torch.argsort(scores, stable=True)
    correct, unknown = correct[order], unknown[order]
    n = len(scores)
    correct_above = correct.flip(0).cumsum(0).flip(0) - correct  # correct knowns at positions > k
    unknown_from = unknown.flip(0).cumsum(0).flip(0)  # unknowns at positions >= k
    ccr = torch.zeros(n + 2, dtype=torch.double)
    fpr = torch.zeros(n + 2, dtype=torch.double)
    ccr[: n - 1] = correct_above[: n - 1] / max(len(known_scores), 1)
    fpr[: n - 1] = unknown_from[: n - 1] / max(len(unknown_scores), 1)
    ccr[n + 1] = fpr[n + 1] = 1.0
    points = sorted(zip(fpr.tolist(), ccr.tolist(), strict=True), reverse=True)
    return sum((f0 - f1) * (c0 + c1) / 2 for (f0, c0), (f1, c1) in zip(points, points[1:], strict=False))


def hungarian_accuracy(preds: Tensor, target: Tensor) -> float:
    """Clustering accuracy under the best one-to-one map of cluster ids onto class ids (Kuhn-Munkres)."""
    pred_ids, pred_idx = torch.unique(preds, return_inverse=True)
    true_ids, true_idx = torch.unique(target, return_inverse=True)
    counts = torch.zeros(len(pred_ids), len(true_ids), dtype=torch.long)
    counts.index_put_((pred_idx, true_idx), torch.ones_like(pred_idx), accumulate=True)
    rows, cols = linear_sum_assignment(counts.numpy(), maximize=True)
    return float(counts[rows, cols].sum()) / len(target)


def clustering_scores(preds: Tensor, target: Tensor) -> dict[str, float]:
    """Hungarian-matched accuracy, normalised mutual information and adjusted Rand index."""
    preds, target = preds.long(), target.long()
    return {
        "acc": hungarian_accuracy(preds, target),
        "nmi": float(normalized_mutual_info_score(preds, target)),
        "ari": float(adjusted_rand_score(preds, target)),
    }
