"""Embeddings on a hand-made 3-voter profile, normalisation by n, and candidate-permutation equivariance."""

import torch

from experiments.voting.embeddings import (
    PairwiseMargins,
    PairwisePreferences,
    RankPositions,
    RawBallots,
    Tournament,
    permute_candidates,
)

# voters: a>b>c, a>c>b, c>b>a   (a=0, b=1, c=2)
PROFILE = torch.tensor([[[0, 1, 2], [0, 2, 1], [2, 1, 0]]])


def test_pairwise_by_hand():
    # a>b: voters 1,2 -> 2/3; a>c: 2/3; b>a: 1/3; b>c: voter 1 -> 1/3; c>a: 1/3; c>b: 2/3
    expected = torch.tensor([[0, 2, 2], [1, 0, 1], [1, 2, 0]]) / 3
    assert torch.allclose(PairwisePreferences()(PROFILE)[0], expected)


def test_margins_by_hand_are_antisymmetric_and_sign_to_the_tournament():
    # W − Wᵀ of test_pairwise_by_hand: a−b 2/3−1/3, a−c 2/3−1/3, b−c 1/3−2/3
    expected = torch.tensor([[0, 1, 1], [-1, 0, -1], [-1, 1, 0]]) / 3
    margins = PairwiseMargins()(PROFILE)
    assert torch.allclose(margins[0], expected)
    assert torch.equal(margins.sign(), Tournament()(PROFILE))


def test_tournament_by_hand_and_tie_is_zero():
    assert Tournament()(PROFILE)[0].tolist() == [[0, 1, 1], [-1, 0, -1], [-1, 1, 0]]
    tied = torch.tensor([[[0, 1, 2], [1, 0, 2]]])              # even n: a-b tie
    assert Tournament()(tied)[0, 0, 1] == 0


def test_rank_positions_by_hand():
    # a: first twice, last once; b: second twice, last once... per candidate row, per rank column
    expected = torch.tensor([[2, 0, 1], [0, 2, 1], [1, 1, 1]]) / 3
    assert torch.allclose(RankPositions()(PROFILE)[0], expected)


def test_raw_is_one_hot_over_n_and_shapes():
    raw = RawBallots()(PROFILE)
    assert raw.shape == (1, 3, 3, 3) and torch.allclose(raw.sum(), torch.tensor(3.0))  # n voters x m ones / n
    assert raw[0, 2, 0, 2] == 1 / 3                             # voter 3 ranks c first
    assert RawBallots().features(7, 4) == 7 * 16 and PairwisePreferences().features(7, 4) == 16


def test_normalised_by_n_so_copies_of_the_profile_embed_alike():
    doubled = PROFILE.repeat(1, 2, 1)
    for emb in (PairwisePreferences(), PairwiseMargins(), Tournament(), RankPositions()):
        assert torch.allclose(emb(PROFILE), emb(doubled))


def test_permuting_candidates_permutes_the_embeddings():
    torch.manual_seed(0)
    ballots = torch.rand(6, 9, 5).argsort(-1)
    perm = torch.rand(6, 5).argsort(-1)
    moved = permute_candidates(ballots, perm)
    for emb in (PairwisePreferences(), Tournament()):
        a, b = emb(ballots), emb(moved)
        # candidate c in the original is perm[c] in the moved profile: b[perm[i], perm[j]] = a[i, j]
        back = torch.stack([b[k][perm[k]][:, perm[k]] for k in range(6)])
        assert torch.equal(back, a)
    r_a, r_b = RankPositions()(ballots), RankPositions()(moved)
    assert torch.equal(torch.stack([r_b[k][perm[k]] for k in range(6)]), r_a)


def test_pairwise_and_tournament_stacks_both():
    from experiments.voting.embeddings import PairwiseAndTournament
    both = PairwiseAndTournament()(PROFILE)
    assert both.shape == (1, 2, 3, 3) and PairwiseAndTournament().features(3, 3) == 18
    assert torch.equal(both[:, 0], PairwisePreferences()(PROFILE)) and torch.equal(both[:, 1], Tournament()(PROFILE))
