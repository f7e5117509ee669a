"""Open-set metrics against hand-computed cases."""

import math

import numpy as np
import pytest
import torch

from reprolab.metrics.openset import (
    clustering_scores,
    equal_error_rate,
    hungarian_accuracy,
    open_set_auroc,
    oscr,
    oscr_arpl,
)


def test_eer_perfect_and_inverted_detectors():
    targets = torch.tensor([0, 0, 1, 1])
    assert equal_error_rate(torch.tensor([0.1, 0.2, 0.8, 0.9]), targets)[0] == pytest.approx(0.0)
    assert equal_error_rate(torch.tensor([0.9, 0.8, 0.2, 0.1]), targets)[0] == pytest.approx(1.0)


def test_eer_hand_case():
    # negatives 0.1, 0.6 ; positives 0.4, 0.9 -> at threshold in (0.4, 0.6]: FPR=1/2, FNR=1/2
    eer, _ = equal_error_rate(torch.tensor([0.1, 0.6, 0.4, 0.9]), torch.tensor([0, 0, 1, 1]))
    assert eer == pytest.approx(0.5)


def test_open_set_auroc_hand_case():
    assert open_set_auroc(torch.tensor([0.9, 0.8]), torch.tensor([0.1, 0.2])) == pytest.approx(1.0)
    # pairs (known, unknown): (0.9>0.5), (0.9>0.7), (0.6>0.5), (0.6<0.7) -> 3/4
    assert open_set_auroc(torch.tensor([0.9, 0.6]), torch.tensor([0.5, 0.7])) == pytest.approx(0.75)


def test_oscr_perfect_separation_equals_accuracy_plateau():
    known = torch.tensor([0.9, 0.8, 0.7, 0.6])
    correct = torch.tensor([True, True, False, True])
    unknown = torch.tensor([0.1, 0.2])
    # every known is accepted before any unknown: CCR reaches 3/4 at FPR 0 and stays -> area 0.75
    assert oscr(known, correct, unknown) == pytest.approx(0.75)


def test_oscr_hand_case_interleaved():
    # order: k(0.9, correct), u(0.8), k(0.7, correct), u(0.6)
    # points (FPR, CCR): (0,0) (0,.5) (.5,.5) (.5,1) (1,1) -> area = .5*.5 + .5*1 = 0.75
    value = oscr(torch.tensor([0.9, 0.7]), torch.tensor([True, True]), torch.tensor([0.8, 0.6]))
    assert value == pytest.approx(0.75)


def test_oscr_ties_between_known_and_unknown_are_not_split():
    # one known (correct) and one unknown share a score: the curve jumps diagonally -> area 0.5
    assert oscr(torch.tensor([0.5]), torch.tensor([True]), torch.tensor([0.5])) == pytest.approx(0.5)


def arpl_reference(known, correct, unknown) -> float:
    """ARPL's compute_oscr as a plain loop (its conventions, written from the algorithm): scores sorted ascending,
    cut k < n-1 counts correct knowns strictly above k and unknowns at or above k; (0,0) and (1,1) added."""
    scores = np.concatenate([known, unknown])
    is_correct = np.concatenate([correct.astype(float), np.zeros(len(unknown))])
    is_unknown = np.concatenate([np.zeros(len(known)), np.ones(len(unknown))])
    order = scores.argsort(kind="stable")
    n = len(scores)
    ccr, fpr = [0.0] * (n + 2), [0.0] * (n + 2)
    for k in range(n - 1):
        ccr[k] = is_correct[order][k + 1:].sum() / len(known)
        fpr[k] = is_unknown[order][k:].sum() / len(unknown)
    ccr[n + 1] = fpr[n + 1] = 1.0
    points = sorted(zip(fpr, ccr, strict=True), reverse=True)
    return sum((points[j][0] - points[j + 1][0]) * (points[j][1] + points[j + 1][1]) / 2 for j in range(n + 1))


def test_oscr_arpl_convention_on_the_perfectly_separated_case():
    known, unknown = torch.tensor([0.9, 0.8, 0.7, 0.6]), torch.tensor([0.1, 0.2])
    correct = torch.tensor([True, True, False, True])
    assert oscr(known, correct, unknown, convention="arpl") == pytest.approx(0.6875)
    assert oscr(known, correct, unknown, convention="dhamija") == pytest.approx(0.75)
    with pytest.raises(ValueError, match="convention"):
        oscr(known, correct, unknown, convention="roc")


@pytest.mark.parametrize("seed", range(4))
def test_oscr_arpl_equals_its_loop_reference(seed):
    g = torch.Generator().manual_seed(seed)
    known, unknown = torch.rand(9, generator=g), torch.rand(5, generator=g) * 0.8
    correct = torch.rand(9, generator=g) < 0.7
    expected = arpl_reference(known.numpy(), correct.numpy(), unknown.numpy())
    assert oscr_arpl(known, correct, unknown) == pytest.approx(expected)


def test_hungarian_accuracy_is_permutation_invariant():
    target = torch.tensor([0, 0, 1, 1, 2, 2])
    assert hungarian_accuracy(torch.tensor([2, 2, 0, 0, 1, 1]), target) == 1.0
    # clusters {0,0,1} {1,2,2}: best map gets 2 + 2 = 4 of 6
    assert hungarian_accuracy(torch.tensor([5, 5, 5, 7, 7, 7]), target) == pytest.approx(4 / 6)


def test_clustering_scores_perfect_and_degenerate():
    target = torch.tensor([0, 0, 1, 1])
    perfect = clustering_scores(torch.tensor([1, 1, 0, 0]), target)
    assert perfect == pytest.approx({"acc": 1.0, "nmi": 1.0, "ari": 1.0})
    one_cluster = clustering_scores(torch.tensor([0, 0, 0, 0]), target)
    assert one_cluster["acc"] == 0.5 and one_cluster["ari"] == pytest.approx(0.0)
    assert math.isclose(one_cluster["nmi"], 0.0, abs_tol=1e-6)
