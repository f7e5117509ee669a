"""The four DeepfakeGenome evaluation protocols, as functions of a trained model's test-set outputs.

1. Binary detection — real vs fake, on the seen and on the unseen algorithms: AUC, EER, AP, accuracy@0.5.
2. Closed-set attribution — which seen algorithm made a seen-algorithm fake: accuracy, macro-F1.
3. Open-set attribution — knowns (seen test fakes) vs unknowns (unseen-algorithm fakes): AUROC and OSCR of a
   knownness score (max softmax probability; OSCR by Dhamija et al. or the ARPL code's convention); clustering of the unknowns' embeddings (k-means with k = number
   of unseen algorithms): Hungarian-matched accuracy, NMI, ARI.
4. Retrieval attribution with registration — the blacklist paradigm: every non-distractor algorithm (seen or
   not) registers K samples; a query is attributed to the registered algorithm with the most similar
   registered sample (cosine of embeddings). Rank-1/5 and mAP over mated queries; TPIR@FPIR with the
   distractor algorithms' images as non-mated queries. Queries are fixed across K (the first
   ``registry_pool`` images of each algorithm are the only registration candidates).
"""

from __future__ import annotations

import torch
from sklearn.cluster import KMeans
from torch import Tensor
from torchmetrics.functional.classification import (
    binary_accuracy,
    binary_auroc,
    binary_average_precision,
    multiclass_accuracy,
    multiclass_f1_score,
)

from reprolab.metrics.openset import clustering_scores, equal_error_rate, open_set_auroc, oscr
from reprolab.metrics.retrieval import identity_scores, mean_average_precision, rank_k_accuracy, tpir_at_fpir


def _isin(values: Tensor, ids) -> Tensor:
    return torch.isin(values, torch.as_tensor(list(ids), dtype=values.dtype))


def binary_detection(fake_score: Tensor, algorithm: Tensor, seen, unseen) -> dict[str, float]:
    """Metrics of P(fake) on reals + seen-algorithm fakes (``seen/*``) and reals + unseen fakes (``unseen/*``)."""
    out = {}
    real = algorithm < 0
    for name, ids in (("seen", seen), ("unseen", unseen)):
        mask = real | _isin(algorithm, ids)
        if not bool((mask & ~real).any()) or not bool(real.any()):
            continue
        scores, target = fake_score[mask].float(), (~real[mask]).long()
        out[f"{name}/auc"] = float(binary_auroc(scores, target))
        out[f"{name}/ap"] = float(binary_average_precision(scores, target))
        out[f"{name}/eer"] = equal_error_rate(scores, target)[0]
        out[f"{name}/acc"] = float(binary_accuracy(scores, target, threshold=0.5))
    return out


def detection_by_family(fake_score: Tensor, algorithm: Tensor, families: list[str]) -> dict[str, float]:
    """AUC of reals vs the fakes of each family (seen and unseen algorithms together); ``families[a]`` is
    the family of algorithm ``a``."""
    real = algorithm < 0
    out = {}
    for family in sorted(set(families)):
        members = [a for a, f in enumerate(families) if f == family]
        mask = real | _isin(algorithm, members)
        out[f"{family}/auc"] = float(binary_auroc(fake_score[mask].float(), (~real[mask]).long()))
    return out


def closed_set_attribution(logits: Tensor, label: Tensor, class_family: list[str] | None = None) -> dict[str, float]:
    """Accuracy and macro-F1 over the seen-algorithm fakes (``label >= 0``); with ``class_family`` (the
    family of each class) also ``family_acc``, the share whose predicted algorithm is of the right family."""
    known = label >= 0
    num_classes = logits.shape[1]
    preds, target = logits[known].argmax(1), label[known]
    out = {"acc": float(multiclass_accuracy(preds, target, num_classes, average="micro")),
           "macro_f1": float(multiclass_f1_score(preds, target, num_classes, average="macro"))}
    if class_family is not None:
        out["family_acc"] = sum(class_family[p] == class_family[t] for p, t in zip(preds.tolist(), target.tolist(),
                                                                                    strict=True)) / len(target)
    return out


def open_set_attribution(logits: Tensor, embeddings: Tensor, label: Tensor, algorithm: Tensor, unseen,
                         seed: int = 0, oscr_convention: str = "dhamija") -> dict[str, float]:
    """Unknown-algorithm rejection (AUROC, OSCR with max-softmax knownness) and clustering of the unknowns.

    ``oscr_convention``: ``dhamija`` (Dhamija et al. 2018) or ``arpl`` (ARPL's ``compute_oscr``, lower)."""
    known, unknown = label >= 0, _isin(algorithm, unseen) & (algorithm >= 0)
    if not bool(unknown.any()):
        raise ValueError("the open-set protocol needs unseen-algorithm test images: set data.unseen")
    score = logits.softmax(1).max(1).values
    correct = logits[known].argmax(1) == label[known]
    out = {"auroc": open_set_auroc(score[known], score[unknown]),
           "oscr": oscr(score[known], correct, score[unknown], oscr_convention)}
    k = len(list(unseen))
    if k >= 2:
        feats = embeddings[unknown].double().numpy()
        clusters = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(feats)
        scores = clustering_scores(torch.as_tensor(clusters), algorithm[unknown])
        out.update({f"cluster_{name}": value for name, value in scores.items()})
    return out


def registry_split(algorithm: Tensor, registered, registry_pool: int, seed: int = 0) -> tuple[Tensor, Tensor]:
    """(candidate indices, query indices): per registered algorithm a seeded shuffle of its images, the first
    ``registry_pool`` being registration candidates and the rest mated queries."""
    g = torch.Generator().manual_seed(seed)
    candidates, queries = [], []
    for a in registered:
        idx = torch.nonzero(algorithm == a).flatten()
        idx = idx[torch.randperm(len(idx), generator=g)]
        if len(idx) <= registry_pool:
            raise ValueError(f"algorithm {a} has {len(idx)} test images; the registry needs more than "
                             f"registry_pool={registry_pool} (lower task.registry_pool)")
        candidates.append(idx[:registry_pool])
        queries.append(idx[registry_pool:])
    return torch.stack(candidates), torch.cat(queries)


def retrieval_attribution(embeddings: Tensor, algorithm: Tensor, registered, distractors, seen, k: int,
                          registry_pool: int = 20, fpirs=(0.01, 0.1), reduce: str = "max",
                          seed: int = 0) -> dict[str, float]:
    """Blacklist retrieval with K registered samples per registered algorithm (see module docstring)."""
    registered = list(registered)
    candidates, queries = registry_split(algorithm, registered, registry_pool, seed)
    gallery = candidates[:, :k].flatten()
    slot = {a: i for i, a in enumerate(registered)}  # registry identity ids 0..R-1
    gallery_ids = torch.as_tensor([slot[int(a)] for a in algorithm[gallery]])
    query_ids = torch.as_tensor([slot[int(a)] for a in algorithm[queries]])
    sim = embeddings[queries] @ embeddings[gallery].T
    scores = identity_scores(sim, gallery_ids, len(registered), reduce)
    out = {}
    for name, mask in (("", torch.ones(len(queries), dtype=torch.bool)),
                       ("seen_", _isin(algorithm[queries], seen)),
                       ("unseen_", ~_isin(algorithm[queries], seen))):
        if mask.any():
            ranks = rank_k_accuracy(scores[mask], query_ids[mask], ks=(1, 5))
            out[f"{name}rank1"], out[f"{name}rank5"] = ranks[1], ranks[5]
    out["map"] = mean_average_precision(sim, query_ids, gallery_ids)
    nonmated = torch.nonzero(_isin(algorithm, distractors) & (algorithm >= 0)).flatten()
    if len(nonmated):
        nonmated_scores = identity_scores(embeddings[nonmated] @ embeddings[gallery].T, gallery_ids,
                                          len(registered), reduce)
        for f, value in tpir_at_fpir(scores, query_ids, nonmated_scores, tuple(fpirs)).items():
            out[f"tpir@fpir{f:g}"] = value
    return out
