"""Retrieval / open-set identification metrics against hand-computed cases."""

import numpy as np
import pytest
import torch
from sklearn.metrics import average_precision_score

from reprolab.metrics.retrieval import (
    average_precision,
    identity_scores,
    mean_average_precision,
    rank_k_accuracy,
    tpir_at_fpir,
)


def test_identity_scores_max_and_mean():
    sim = torch.tensor([[0.9, 0.1, 0.5, 0.3]])
    labels = torch.tensor([0, 0, 1, 1])
    assert identity_scores(sim, labels, 3, "max").tolist()[0][:2] == pytest.approx([0.9, 0.5])
    assert identity_scores(sim, labels, 3, "mean").tolist()[0][:2] == pytest.approx([0.5, 0.4])
    assert identity_scores(sim, labels, 3)[0, 2] == float("-inf")  # identity with no gallery sample
    with pytest.raises(ValueError, match="reduce"):
        identity_scores(sim, labels, 3, "median")


def test_rank_k_hand_case():
    scores = torch.tensor([[0.9, 0.1, 0.0], [0.2, 0.3, 0.9], [0.5, 0.4, 0.3]])
    target = torch.tensor([0, 1, 2])  # ranks: 1st, 2nd, 3rd
    assert rank_k_accuracy(scores, target, ks=(1, 2, 3)) == pytest.approx({1: 1 / 3, 2: 2 / 3, 3: 1.0})


def test_map_hand_case():
    # gallery ranked for the query: rel, non, rel -> AP = (1/1 + 2/3) / 2
    sim = torch.tensor([[0.9, 0.8, 0.7]])
    ap = mean_average_precision(sim, torch.tensor([0]), torch.tensor([0, 1, 0]))
    assert ap == pytest.approx((1 + 2 / 3) / 2)
    # a query whose identity is absent from the gallery is skipped
    two = mean_average_precision(sim.repeat(2, 1), torch.tensor([0, 5]), torch.tensor([0, 1, 0]))
    assert two == pytest.approx(ap)


def test_tpir_at_fpir_hand_case():
    mated = torch.tensor([[0.9, 0.1], [0.6, 0.2], [0.1, 0.4], [0.3, 0.8]])
    target = torch.tensor([0, 0, 1, 0])  # last one is a wrong top-1
    nonmated = torch.tensor([[0.7, 0.0], [0.5, 0.0], [0.2, 0.0], [0.1, 0.0]])
    out = tpir_at_fpir(mated, target, nonmated, fpirs=(0.0, 0.25, 0.5, 1.0))
    # FPIR 0: T=0.7 -> only 0.9 correct passes: 1/4 ; FPIR .25: T=0.5 -> 0.9,0.6 : 2/4
    # FPIR .5: T=0.2 -> 0.9,0.6,0.4 : 3/4 ; FPIR 1: no threshold -> all correct top-1: 3/4
    assert out == pytest.approx({0.0: 0.25, 0.25: 0.5, 0.5: 0.75, 1.0: 0.75})


def test_map_counts_relevant_items_with_negative_similarity():
    # rel (0.9), non (0.5), rel (-0.3): AP = (1/1 + 2/3) / 2, whatever the sign of the last cosine
    sim = torch.tensor([[0.9, 0.5, -0.3]])
    assert mean_average_precision(sim, torch.tensor([0]), torch.tensor([0, 1, 0])) == pytest.approx(0.8333333)
    # a lone relevant item at rank 2 with cosine -0.1: AP = 1/2
    sim = torch.tensor([[0.4, -0.1, -0.6]])
    assert mean_average_precision(sim, torch.tensor([0]), torch.tensor([1, 0, 2])) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(5))
def test_average_precision_equals_sklearn_with_negative_and_tied_scores(seed):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randint(-4, 5, (6, 12), generator=g).float() / 4  # many ties, half of them ≤ 0
    relevant = torch.rand(6, 12, generator=g) < 0.3
    relevant[:, 0] = True  # every row has a relevant item
    ours = average_precision(scores, relevant)
    reference = [average_precision_score(r.numpy(), s.numpy()) for s, r in zip(scores, relevant, strict=True)]
    np.testing.assert_allclose(ours.numpy(), reference, rtol=1e-12)


def test_average_precision_of_a_row_without_relevant_items_is_nan():
    assert torch.isnan(average_precision(torch.tensor([[0.3, -0.2]]), torch.tensor([[False, False]])))[0]
