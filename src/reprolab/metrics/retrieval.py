"""Retrieval-based identification metrics against a registry ("gallery") of enrolled identities.

Used for attributing a query to one of the registered sources when the registry holds K samples per
identity, in the open-set identification setting of biometrics (ISO/IEC 19795-1; NIST FRVT 1:N):

* ``identity_scores`` — query × identity similarity from query × gallery-sample similarity (max or mean).
* ``rank_k_accuracy`` — fraction of mated queries whose true identity is among the k best-scored.
* ``mean_average_precision`` — mAP of the gallery ranking, relevant = same identity (torchmetrics AP).
* ``tpir_at_fpir`` — true-positive identification rate at the threshold where the false-positive
  identification rate of non-mated queries (identities not in the registry) equals a target.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torchmetrics.functional.retrieval import retrieval_average_precision


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


def mean_average_precision(similarity: Tensor, query_labels: Tensor, gallery_labels: Tensor) -> float:
    """Mean over queries of the average precision of the gallery ranked by similarity (relevant = same id).

    Queries whose identity has no gallery sample are skipped (their AP is undefined).
    """
    aps = [
        retrieval_average_precision(similarity[q], gallery_labels == query_labels[q])
        for q in range(len(query_labels))
        if bool((gallery_labels == query_labels[q]).any())
    ]
    return float(torch.stack(aps).mean()) if aps else float("nan")


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
