"""Axiom checkers (metrics) and differentiable axiom losses (fine-tuning), vectorised over profiles.

A rule is judged by its lottery `p[B, m]` over candidates: a network's one-hot argmax (checkers), its
softmax (losses), or a classic rule's uniform draw over tied winners. Checkers return a per-profile
violation in [0, 1]; losses are H&T's semantic loss −log P(axiom holds) (arXiv 2410.16170, §3.3) for the
single-profile axioms and DeepVoting's probabilistic No-Show (arXiv 2408.13630, §5): a voter must not gain
expected Borda utility by abstaining. The relational axioms compare a profile with a perturbed copy whose
perturbation (which voter abstains, whose ballot lifts the winner, which permutation) is passed in, so the
task builds training pairs from training profiles only and every rule is tested on the same pairs.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from experiments.voting.embeddings import permute_candidates
from experiments.voting.rules import condorcet_loser, condorcet_winner, pairwise_counts, positions

EPS = 1e-6
Lottery = Callable[[torch.Tensor], torch.Tensor]   # ballots[B, n, m] -> p[B, m]


def pareto_dominated(ballots: torch.Tensor) -> torch.Tensor:
    """Mask of candidates some other candidate beats in every ballot."""
    return (pairwise_counts(ballots) == ballots.shape[-2]).any(dim=-2)


def condorcet_violation(ballots, p):
    cw = condorcet_winner(ballots)
    return cw.any(dim=-1).float() * (1.0 - (p * cw).sum(dim=-1))


def condorcet_loser_violation(ballots, p):
    return (p * condorcet_loser(ballots)).sum(dim=-1)


def pareto_violation(ballots, p):
    return (p * pareto_dominated(ballots)).sum(dim=-1)


def utilities(ballots: torch.Tensor) -> torch.Tensor:
    """u[B, n, c] ∈ [0, 1]: each voter's normalised Borda utility for each candidate."""
    m = ballots.shape[-1]
    return (m - 1 - positions(ballots)).float() / (m - 1)


def without_voter(ballots: torch.Tensor, voters: torch.Tensor) -> torch.Tensor:
    """ballots[B, n, m], voters[B, k] → the k profiles with one voter abstaining: [B*k, n-1, m]."""
    batch, n, m = ballots.shape
    k = voters.shape[1]
    keep = torch.ones(batch, k, n, dtype=torch.bool)
    keep[torch.arange(batch)[:, None], torch.arange(k)[None, :], voters] = False
    return ballots[:, None].expand(-1, k, -1, -1)[keep].view(batch * k, n - 1, m)


def abstention_gain(ballots, voters, p, p_without):
    """Expected-utility gain[B, k] of voter voters[b, j] from abstaining (No-Show when > 0)."""
    batch, k = voters.shape
    u = torch.gather(utilities(ballots), 1, voters[..., None].expand(-1, -1, ballots.shape[-1]))   # [B, k, m]
    return (u * p_without.view(batch, k, -1)).sum(-1) - (u * p[:, None, :]).sum(-1)


def participation_violation(ballots, voters, p, rule: Lottery):
    return (abstention_gain(ballots, voters, p, rule(without_voter(ballots, voters))) > EPS).float().amax(dim=-1)


def lift_winner(ballots: torch.Tensor, winner: torch.Tensor, voter: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Swap `winner` with the candidate just above it in `voter`'s ballot; also says where a lift was possible."""
    rows = torch.arange(ballots.shape[0])
    rank = positions(ballots)[rows, voter, winner]
    can = rank > 0
    above = torch.clamp(rank - 1, min=0)
    lifted = ballots.clone()
    lifted[rows, voter, rank] = ballots[rows, voter, above]
    lifted[rows, voter, above] = winner
    return torch.where(can[:, None, None], lifted, ballots), can


def monotonicity_violation(ballots, voter, p, rule: Lottery):
    """Lifting the chosen candidate in one ballot must not lower its probability."""
    winner = p.argmax(dim=-1)
    lifted, can = lift_winner(ballots, winner, voter)
    drop = p.gather(-1, winner[:, None])[:, 0] - rule(lifted).gather(-1, winner[:, None])[:, 0]
    return (can & (drop > EPS)).float()


def anonymity_violation(ballots, voter_perm, p, rule: Lottery):
    shuffled = torch.gather(ballots, 1, voter_perm[..., None].expand_as(ballots))
    return ((rule(shuffled) - p).abs().sum(-1) > EPS).float()


def neutrality_violation(ballots, cand_perm, p, rule: Lottery):
    """Renaming candidates by cand_perm must rename the outcome alike: p'[perm[c]] = p[c]."""
    renamed = rule(permute_candidates(ballots, cand_perm))
    return ((renamed.gather(-1, cand_perm) - p).abs().sum(-1) > EPS).float()


# --- differentiable losses (p = softmax of the network) -----------------------------------------------

def condorcet_loss(ballots, p, **_):
    cw = condorcet_winner(ballots)
    return -(cw.any(-1).float() * torch.log((p * cw).sum(-1) + EPS)).mean()


def condorcet_loser_loss(ballots, p, **_):
    return -torch.log(1.0 - (p * condorcet_loser(ballots)).sum(-1) + EPS).mean()


def pareto_loss(ballots, p, **_):
    return -torch.log(1.0 - (p * pareto_dominated(ballots)).sum(-1) + EPS).mean()


def participation_loss(ballots, p, voters, rule: Lottery, **_):
    """Probabilistic No-Show: mean positive expected-utility gain from abstaining."""
    return torch.relu(abstention_gain(ballots, voters, p, rule(without_voter(ballots, voters)))).mean()


LOSSES = {"condorcet": condorcet_loss, "condorcet_loser": condorcet_loser_loss, "pareto": pareto_loss,
          "participation": participation_loss}
