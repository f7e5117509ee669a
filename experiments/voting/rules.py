"""Classic voting rules, vectorised over a batch of profiles; each returns the mask of (tied) winners.

`ballots[B, n, m]` lists each voter's candidates best first. Definitions follow pref-voting (the tests
hold every rule equal to its pref-voting implementation on random profiles with odd and even n):
ties are kept (all tied candidates win), IRV and Nanson drop all tied losers of a round at once.
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError


def positions(ballots: torch.Tensor) -> torch.Tensor:
    """rank[B, n, c]: the position (0 = top) at which each voter ranks candidate c."""
    return torch.argsort(ballots, dim=-1)


def pairwise_counts(ballots: torch.Tensor) -> torch.Tensor:
    """N[B, a, b]: the number of voters who rank a above b (the weighted-majority matrix)."""
    rank = positions(ballots)
    return (rank[..., :, None] < rank[..., None, :]).sum(dim=-3)


def rank_counts(ballots: torch.Tensor) -> torch.Tensor:
    """R[B, c, r]: the number of voters who rank candidate c at position r."""
    m = ballots.shape[-1]
    return torch.nn.functional.one_hot(positions(ballots), m).sum(dim=-3)


def _argmax_mask(scores: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
    if active is not None:
        scores = scores.masked_fill(~active, float("-inf"))
    return scores == scores.max(dim=-1, keepdim=True).values


def plurality(ballots):
    return _argmax_mask(rank_counts(ballots)[..., 0].float())


def borda_scores(ballots):
    return pairwise_counts(ballots).sum(dim=-1)


def borda(ballots):
    return _argmax_mask(borda_scores(ballots).float())


def margins(ballots):
    counts = pairwise_counts(ballots)
    return counts - counts.transpose(-1, -2)


def copeland(ballots):
    """Wins minus losses in pairwise majority contests (ties count 0)."""
    return _argmax_mask(margins(ballots).sign().sum(dim=-1).float())


def minimax(ballots):
    """The candidates whose largest pairwise defeat margin is smallest (Simpson–Kramer)."""
    worst_defeat = margins(ballots).transpose(-1, -2).max(dim=-1).values   # max_b margin(b over c)
    return _argmax_mask(-worst_defeat.float())


def condorcet_winner(ballots) -> torch.Tensor:
    """Mask of the candidate who beats every other by a strict majority (all False when there is none)."""
    m = ballots.shape[-1]
    return (margins(ballots) > 0).sum(dim=-1) == m - 1


def condorcet_loser(ballots) -> torch.Tensor:
    m = ballots.shape[-1]
    return (margins(ballots) < 0).sum(dim=-1) == m - 1


def black(ballots):
    """The Condorcet winner when there is one, else the Borda winners."""
    cw = condorcet_winner(ballots)
    return torch.where(cw.any(dim=-1, keepdim=True), cw, borda(ballots))


def instant_runoff(ballots):
    """Drop every candidate with the fewest first places among those left until one has a strict majority."""
    rank = positions(ballots)
    batch, n, m = rank.shape
    active = torch.ones(batch, m, dtype=torch.bool)
    winners = torch.zeros(batch, m, dtype=torch.bool)
    done = torch.zeros(batch, dtype=torch.bool)
    for _ in range(m):
        masked_rank = rank.masked_fill(~active[:, None, :], m)
        firsts = torch.nn.functional.one_hot(masked_rank.argmin(dim=-1), m).sum(dim=1)
        majority = (2 * firsts > n) & active
        fewest = firsts.masked_fill(~active, n + 1).min(dim=-1, keepdim=True).values
        losers = active & (firsts == fewest)
        all_tied = (losers == active).all(dim=-1)
        finish = ~done & (majority.any(dim=-1) | all_tied)
        winners[finish] = torch.where(majority.any(dim=-1, keepdim=True), majority, active)[finish]
        done |= finish
        active = active & ~(losers & ~done[:, None])
    return winners


def strict_nanson(ballots):
    """Drop every candidate whose Borda score (among those left) is strictly below the mean, until all tie."""
    counts = pairwise_counts(ballots)
    batch, m = counts.shape[0], counts.shape[-1]
    active = torch.ones(batch, m, dtype=torch.bool)
    for _ in range(m):
        score = (counts * active[:, None, :]).sum(dim=-1)                 # Borda restricted to the active set
        k = active.sum(dim=-1, keepdim=True)
        total = (score * active).sum(dim=-1, keepdim=True)
        below = active & (score * k < total)                              # score < mean, in integers
        active = active & ~below
    return active


RULES = {
    "plurality": plurality,
    "borda": borda,
    "copeland": copeland,
    "minimax": minimax,
    "black": black,
    "irv": instant_runoff,
    "nanson": strict_nanson,
}


def rule_by_name(name: str):
    if name not in RULES:
        raise ConfigError(f"rule {name!r} is not one of {', '.join(RULES)}")
    return RULES[name]


def winner_lottery(mask: torch.Tensor) -> torch.Tensor:
    """The training target: probability uniform over the tied winners (DeepVoting §3, probabilistic SCFs)."""
    mask = mask.float()
    return mask / mask.sum(dim=-1, keepdim=True)
