"""Axiom checkers on hand-made profiles that violate / satisfy them, the vectorised No-Show and
monotonicity checks against a plain loop over voters, and the losses' values and gradients."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from experiments.voting import axioms
from experiments.voting.profiles import impartial_culture
from experiments.voting.rules import RULES, winner_lottery

A, B, C = 0, 1, 2
# a>b>c, a>c>b, b>a>c: a is the Condorcet winner (2-1 over b, 3-0 over c), c the Condorcet loser,
# and every voter ranks a above c (c is Pareto-dominated)
PROFILE = torch.tensor([[[A, B, C], [A, C, B], [B, A, C]]])


def one_hot(c, m=3):
    return F.one_hot(torch.tensor([c]), m).float()


def constant_rule(ballots):
    return F.one_hot(torch.zeros(len(ballots), dtype=torch.long), ballots.shape[-1]).float()


def first_voters_top(ballots):
    return F.one_hot(ballots[:, 0, 0], ballots.shape[-1]).float()


def lottery(name):
    return lambda b: winner_lottery(RULES[name](b))


def test_single_profile_axioms_by_hand():
    assert axioms.condorcet_violation(PROFILE, one_hot(A)).item() == 0
    assert axioms.condorcet_violation(PROFILE, one_hot(B)).item() == 1
    assert axioms.condorcet_violation(PROFILE, torch.tensor([[0.25, 0.75, 0.0]])).item() == 0.75
    assert axioms.condorcet_loser_violation(PROFILE, one_hot(C)).item() == 1
    assert axioms.condorcet_loser_violation(PROFILE, one_hot(B)).item() == 0
    assert axioms.pareto_violation(PROFILE, one_hot(C)).item() == 1
    assert axioms.pareto_violation(PROFILE, one_hot(B)).item() == 0
    cycle = torch.tensor([[[A, B, C], [B, C, A], [C, A, B]]])      # no Condorcet winner: nothing to violate
    assert axioms.condorcet_violation(cycle, one_hot(B)).item() == 0


def test_relational_axioms_on_rules_that_break_them():
    ballots = torch.from_numpy(impartial_culture(np.random.default_rng(0), 50, 5, 4))
    gen = torch.Generator().manual_seed(0)
    voter_perm = torch.rand(50, 5, generator=gen).argsort(-1)
    cand_perm = torch.rand(50, 4, generator=gen).argsort(-1)
    p = constant_rule(ballots)
    assert axioms.anonymity_violation(ballots, voter_perm, p, constant_rule).sum() == 0
    assert axioms.neutrality_violation(ballots, cand_perm, p, constant_rule).sum() > 0    # ignores the names
    assert axioms.monotonicity_violation(ballots, torch.zeros(50, dtype=torch.long), p, constant_rule).sum() == 0
    voters = torch.arange(5).repeat(50, 1)
    assert axioms.participation_violation(ballots, voters, p, constant_rule).sum() == 0
    q = first_voters_top(ballots)
    assert axioms.anonymity_violation(ballots, voter_perm, q, first_voters_top).sum() > 0  # a dictator
    for name in ("borda", "copeland"):                           # anonymous and neutral by definition
        r = lottery(name)(ballots)
        assert axioms.anonymity_violation(ballots, voter_perm, r, lottery(name)).sum() == 0
        assert axioms.neutrality_violation(ballots, cand_perm, r, lottery(name)).sum() == 0


def _utility(ranking, c):
    return (len(ranking) - 1 - list(ranking).index(c)) / (len(ranking) - 1)


@pytest.mark.parametrize("name", ["irv", "black", "copeland"])
def test_no_show_check_equals_a_loop_over_abstaining_voters(name):
    rule = lottery(name)
    ballots = torch.from_numpy(impartial_culture(np.random.default_rng(1), 300, 6, 4))
    voters = torch.arange(6).repeat(300, 1)
    fast = axioms.participation_violation(ballots, voters, rule(ballots), rule)
    slow = []
    for profile in ballots:
        p = rule(profile[None])[0]
        bad = 0.0
        for v in range(6):
            q = rule(torch.cat([profile[:v], profile[v + 1:]])[None])[0]
            gain = sum((q[c] - p[c]).item() * _utility(profile[v].tolist(), c) for c in range(4))
            bad = max(bad, float(gain > 1e-6))
        slow.append(bad)
    assert fast.tolist() == slow
    if name == "irv":
        assert sum(slow) > 0        # IRV shows the No-Show paradox on some of these profiles


def test_monotonicity_check_agrees_with_lifting_by_hand_and_irv_fails_it_somewhere():
    rule = lottery("irv")
    ballots = torch.from_numpy(impartial_culture(np.random.default_rng(2), 600, 9, 3))
    p = rule(ballots)
    flagged = 0
    for v in range(9):
        voter = torch.full((600,), v)
        fast = axioms.monotonicity_violation(ballots, voter, p, rule)
        flagged += int(fast.sum())
        for k in range(0, 600, 7):                                # every 7th profile, lifted by hand
            w = int(p[k].argmax())
            ballot = ballots[k, v].tolist()
            r = ballot.index(w)
            if r == 0:
                assert fast[k] == 0
                continue
            ballot[r - 1], ballot[r] = ballot[r], ballot[r - 1]
            lifted = ballots[k].clone()
            lifted[v] = torch.tensor(ballot)
            assert fast[k] == float(rule(lifted[None])[0, w] < p[k, w] - axioms.EPS)
    assert flagged > 0
    borda = lottery("borda")
    assert axioms.monotonicity_violation(ballots, torch.zeros(600, dtype=torch.long), borda(ballots), borda).sum() == 0


def test_losses_by_hand_and_their_gradients():
    p = torch.tensor([[0.5, 0.25, 0.25]], requires_grad=True)
    assert math.isclose(axioms.condorcet_loss(PROFILE, p).item(), -math.log(0.5 + axioms.EPS), rel_tol=1e-6)
    assert math.isclose(axioms.condorcet_loser_loss(PROFILE, p).item(), -math.log(0.75 + axioms.EPS), rel_tol=1e-6)
    assert math.isclose(axioms.pareto_loss(PROFILE, p).item(), -math.log(0.75 + axioms.EPS), rel_tol=1e-6)
    axioms.condorcet_loss(PROFILE, p).backward()
    assert p.grad[0, A] < 0                                      # raising p(CW) lowers the loss
    logits = torch.randn(4, 3, requires_grad=True)
    ballots = PROFILE.repeat(4, 1, 1)
    voters = torch.tensor([[0, 2]] * 4)
    loss = axioms.participation_loss(ballots, torch.softmax(logits, -1), voters=voters,
                                     rule=lambda b: torch.softmax(logits[: len(b) // 2].repeat_interleave(2, 0) * 0 + 1, -1))
    assert loss.item() >= 0
    const = axioms.participation_loss(ballots, constant_rule(ballots), voters=voters, rule=constant_rule)
    assert const.item() == 0


def test_without_voter_drops_exactly_that_voter():
    ballots = torch.arange(12).view(1, 4, 3)
    out = axioms.without_voter(ballots, torch.tensor([[1, 3]]))
    assert out[0].tolist() == [[0, 1, 2], [6, 7, 8], [9, 10, 11]]
    assert out[1].tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
