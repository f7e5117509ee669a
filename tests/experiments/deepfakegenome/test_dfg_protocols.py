"""The four protocols on planted outputs whose right answers are known."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from experiments.deepfakegenome.data import ProtocolSplit
from experiments.deepfakegenome.protocols import (
    binary_detection,
    closed_set_attribution,
    detection_by_family,
    open_set_attribution,
    registry_split,
    retrieval_attribution,
)
from experiments.deepfakegenome.task import score_attribution

SEEN, UNSEEN, DISTRACTORS = list(range(6)), [6, 7, 8, 9], [8, 9]


def planted(noise: float = 0.0, per_algorithm: int = 30, seed: int = 0):
    """10 algorithms (6 seen) x ``per_algorithm`` images + 20 reals, each algorithm its own embedding axis."""
    g = torch.Generator().manual_seed(seed)
    algorithm = torch.cat([torch.arange(10).repeat_interleave(per_algorithm), torch.full((20,), -1)])
    embeddings = F.normalize(torch.eye(16)[algorithm.clamp(min=0)] + noise * torch.randn(len(algorithm), 16,
                                                                                         generator=g), dim=1)
    label = torch.where(algorithm < 6, algorithm, -1)
    logits = torch.where(label[:, None] >= 0, 10 * F.one_hot(label.clamp(min=0), 6).float(), torch.zeros(1, 6))
    return {"algorithm": algorithm, "label": label, "embeddings": embeddings, "logits": logits}


def test_binary_detection_perfect_and_chance():
    out = planted()
    perfect = binary_detection((out["algorithm"] >= 0).float(), out["algorithm"], SEEN, UNSEEN)
    assert perfect == pytest.approx({f"{s}/{m}": v for s in ("seen", "unseen")
                                     for m, v in (("auc", 1.0), ("ap", 1.0), ("eer", 0.0), ("acc", 1.0))})
    constant = binary_detection(torch.full((len(out["algorithm"]),), 0.7), out["algorithm"], SEEN, UNSEEN)
    assert constant["seen/auc"] == pytest.approx(0.5) and constant["seen/acc"] == pytest.approx(180 / 200)


def test_closed_set_attribution_counts_only_seen_fakes():
    out = planted()
    assert closed_set_attribution(out["logits"], out["label"]) == pytest.approx({"acc": 1.0, "macro_f1": 1.0})
    wrong = out["logits"].roll(1, dims=1)  # every seen fake predicted as the next class
    assert closed_set_attribution(wrong, out["label"])["acc"] == 0.0


def test_open_set_perfect_rejection_and_clustering():
    out = planted(noise=0.05)
    scores = open_set_attribution(out["logits"], out["embeddings"], out["label"], out["algorithm"], UNSEEN)
    assert scores == pytest.approx({"auroc": 1.0, "oscr": 1.0, "cluster_acc": 1.0, "cluster_nmi": 1.0,
                                    "cluster_ari": 1.0}, abs=1e-6)
    with pytest.raises(ValueError, match="data.unseen"):
        open_set_attribution(out["logits"], out["embeddings"], out["label"], out["algorithm"], [])


def test_retrieval_with_separable_embeddings_is_perfect():
    out = planted(noise=0.05)
    registered = [a for a in range(10) if a not in DISTRACTORS]
    scores = retrieval_attribution(out["embeddings"], out["algorithm"], registered, DISTRACTORS, SEEN, k=3,
                                   registry_pool=10, fpirs=(0.01, 0.1))
    assert scores["rank1"] == scores["seen_rank1"] == scores["unseen_rank1"] == 1.0
    assert scores["map"] == pytest.approx(1.0) and scores["tpir@fpir0.01"] == 1.0


def test_retrieval_on_noise_is_near_chance_and_grows_with_k():
    out = planted(noise=3.0, per_algorithm=60)
    registered = [a for a in range(10) if a not in DISTRACTORS]
    rank1 = [retrieval_attribution(out["embeddings"], out["algorithm"], registered, DISTRACTORS, SEEN, k=k,
                                   registry_pool=20)["rank1"] for k in (1, 20)]
    assert rank1[0] < 0.5 and rank1[1] > rank1[0]


def test_registry_split_keeps_queries_fixed_and_rejects_small_algorithms():
    algorithm = torch.arange(3).repeat_interleave(8)
    candidates, queries = registry_split(algorithm, [0, 1, 2], registry_pool=5, seed=1)
    assert candidates.shape == (3, 5) and len(queries) == 9
    assert not set(candidates.flatten().tolist()) & set(queries.tolist())
    with pytest.raises(ValueError, match="registry_pool"):
        registry_split(algorithm, [0], registry_pool=8)


def test_score_attribution_flat_keys():
    split = ProtocolSplit([f"a{i}" for i in range(10)], ["f"] * 10, SEEN, UNSEEN, DISTRACTORS)
    assert split.registered == [0, 1, 2, 3, 4, 5, 6, 7]
    scores = score_attribution(planted(noise=0.05), split, registry_k=(1, 5), registry_pool=10)
    assert {"closed/acc", "open/oscr", "open/cluster_nmi", "retrieval_k1/rank1", "retrieval_k5/map",
            "retrieval_k5/tpir@fpir0.01"} <= set(scores)


def test_detection_by_family_and_family_level_attribution():
    out = planted()
    families = ["a", "a", "b", "b", "c", "c", "a", "b", "c", "c"]
    score = (out["algorithm"] >= 0).float()
    score[(out["algorithm"] == 2) | (out["algorithm"] == 3) | (out["algorithm"] == 7)] = 0.0  # family b missed
    by_family = detection_by_family(score, out["algorithm"], families)
    assert by_family == pytest.approx({"a/auc": 1.0, "b/auc": 0.5, "c/auc": 1.0})
    # predict the other member of the pair: wrong algorithm, right family, for classes 0<->1, 2<->3, 4<->5
    swapped = out["logits"][:, [1, 0, 3, 2, 5, 4]]
    closed = closed_set_attribution(swapped, out["label"], class_family=families[:6])
    assert closed["acc"] == 0.0 and closed["family_acc"] == 1.0
