"""Retrieval-based identification metrics against a registry ("gallery") of enrolled identities.

Used for attributing a query to one of the registered sources when the registry holds K samples per
identity, in the open-set identification setting of biometrics (ISO/IEC 19795-1; NIST FRVT 1:N):

* ``identity_scores`` — query × identity similarity from query × gallery-sample similarity (max or mean).
* ``rank_k_accuracy`` — fraction of mated queries whose true identity is among the k best-scored.
* ``average_precision`` / ``mean_average_precision`` — AP of the gallery ranking, relevant = same identity,
  for scores of any sign with ties as one threshold (sklearn's ``average_precision_score``; torchmetrics'
  retrieval AP drops relevant items scored ≤ 0, which cosines in [-1, 1] often are).
* ``tpir_at_fpir`` — true-positive identification rate at the threshold where the false-positive
  identification rate of non-mated queries (identities not in the registry) equals a target.
"""

from __future__ import annotations

import torch
from torch import Tensor


def identity_scores(similarity: Tensor, gallery_labels: Tensor, num_ids: int, reduce: str = "max") -> Tensor:
    """Collapse a [Q, G] query × gallery similarity into [Q, num_ids] by max or mean over each id's samples.

    Identities with no gallery sample get -inf so they are never retrieved.
    """
    if reduce not in ("max", "mean"):
        raise ValueError(f"reduce must be 'max' or 'mean', got {reduce!r}")
    out = torch.full((similarity.shape[0], num_ids), float("-inf"), dtype=similarity.dtype)
    for identity in torch.unique(gallery_labels).tolist():
        cols = similarity[:, gallery_labels == identity]
        out[:, identity] = cols.max(dim=1).values if reduce == "max" else cols.mean(dim=1)
    return out


def rank_k_accuracy(scores: Tensor, target: Tensor, ks: tuple[int, ...] = (1, 5)) -> dict[int, float]:
    """Rank-k identification rate of mated queries: ``scores`` [Q, C] (higher = closer), ``target`` [Q]."""
    order = torch.argsort(scores, dim=1, descending=True, stable=True)
    hit_position = (order == target[:, None]).float().argmax(dim=1)  # 0 = retrieved first
    return {k: float((hit_position < k).float().mean()) for k in ks}


def average_precision(scores: Tensor, relevant: Tensor) -> Tensor:
    """AP of each row of ``scores`` [Q, G] with ``relevant`` [Q, G]: Σ_n (R_n − R_{n−1}) P_n over the distinct
    score thresholds (sklearn's step-wise AP). Ties share one threshold; scores may be negative. NaN for a row
    with no relevant item."""
    scores, relevant = torch.as_tensor(scores, dtype=torch.float64), torch.as_tensor(relevant).double()
    order = torch.argsort(scores, dim=1, descending=True, stable=True)
    scores, relevant = scores.gather(1, order), relevant.gather(1, order)
    hits = torch.cumsum(relevant, dim=1)
    positions = torch.arange(scores.shape[1]).expand_as(scores)
    ends_tie = torch.ones_like(scores, dtype=torch.bool)
    ends_tie[:, :-1] = scores[:, 1:] != scores[:, :-1]
    # each item is counted at the last position of its tie group: the threshold cannot split a tie
    group_end = torch.where(ends_tie, positions, scores.shape[1]).flip(1).cummin(dim=1).values.flip(1)
    precision_at_end = hits.gather(1, group_end) / (group_end + 1)
    return (relevant * precision_at_end).sum(1) / relevant.sum(1)


def mean_average_precision(similarity: Tensor, query_labels: Tensor, gallery_labels: Tensor) -> float:
    """Mean over queries of the average precision of the gallery ranked by similarity (relevant = same id).

    Queries whose identity has no gallery sample are skipped (their AP is undefined).
    """
    relevant = query_labels[:, None] == gallery_labels[None, :]
    mated = relevant.any(dim=1)
    if not bool(mated.any()):
        return float("nan")
    return float(average_precision(similarity[mated], relevant[mated]).mean())


def tpir_at_fpir(
    mated_scores: Tensor, mated_target: Tensor, nonmated_scores: Tensor, fpirs: tuple[float, ...] = (0.01, 0.1)
) -> dict[float, float]:
    """TPIR at fixed FPIR for open-set identification.

    A search returns its top identity if that identity's score exceeds a threshold T.
    FPIR(T) = fraction of non-mated searches (query identity not registered) returning anything;
    TPIR(T) = fraction of mated searches returning their true identity. For each target FPIR f we take
    the lowest T with FPIR(T) ≤ f (strict ">" so ties never push FPIR above f).
    """
    mated_top, mated_arg = mated_scores.max(dim=1)
    mated_hit = mated_arg == mated_target
    nonmated_top = torch.sort(nonmated_scores.max(dim=1).values, descending=True).values
    n = len(nonmated_top)
    out = {}
    for f in fpirs:
        allowed = int(f * n + 1e-9)  # how many non-mated searches may pass
        threshold = nonmated_top[allowed] if allowed < n else torch.tensor(float("-inf"))
        out[f] = float((mated_hit & (mated_top > threshold)).float().mean())
    return out
