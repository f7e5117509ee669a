"""Every classic rule against pref-voting's implementation on random profiles (odd and even n), and ties."""

import numpy as np
import pytest
import torch

from experiments.voting import rules
from experiments.voting.profiles import impartial_culture, urn

pv = pytest.importorskip("pref_voting", reason="pip install -e '.[voting]' for the pref-voting reference")
from pref_voting import voting_methods as vm  # noqa: E402
from pref_voting.profiles import Profile  # noqa: E402

REFERENCE = {
    "plurality": vm.plurality, "borda": vm.borda, "copeland": vm.copeland, "minimax": vm.minimax,
    "black": vm.blacks, "irv": vm.instant_runoff, "nanson": vm.strict_nanson,
}


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("m", [3, 4, 5])
def test_rules_match_pref_voting(n, m):
    rng = np.random.default_rng(100 * n + m)
    ballots = np.concatenate([impartial_culture(rng, 40, n, m), urn(rng, 20, n, m, 0.3)])
    masks = {name: rule(torch.from_numpy(ballots)) for name, rule in rules.RULES.items()}
    for k, profile in enumerate(ballots):
        prof = Profile([list(map(int, b)) for b in profile])
        for name, reference in REFERENCE.items():
            ours = torch.nonzero(masks[name][k]).flatten().tolist()
            assert ours == sorted(reference(prof)), (name, profile.tolist())


def test_even_n_pairwise_tie_gives_copeland_tie_and_uniform_labels():
    # 2 voters a>b>c, 2 voters b>a>c: a-b tie, both beat c -> Copeland and Borda tie between a and b
    ballots = torch.tensor([[[0, 1, 2], [0, 1, 2], [1, 0, 2], [1, 0, 2]]])
    for rule in (rules.copeland, rules.borda, rules.minimax):
        assert rule(ballots).tolist() == [[True, True, False]]
    assert rules.winner_lottery(rules.copeland(ballots)).tolist() == [[0.5, 0.5, 0.0]]
    assert not rules.condorcet_winner(ballots).any()


def test_hand_worked_borda_and_pairwise_counts():
    ballots = torch.tensor([[[0, 1, 2], [1, 2, 0], [2, 0, 1]]])   # the Condorcet cycle
    assert rules.pairwise_counts(ballots)[0].tolist() == [[0, 2, 1], [1, 0, 2], [2, 1, 0]]
    assert rules.borda_scores(ballots).tolist() == [[3, 3, 3]]
    assert rules.copeland(ballots).all()


def test_unknown_rule_is_one_clear_line():
    from reprolab.cli.errors import ConfigError
    with pytest.raises(ConfigError, match="not one of"):
        rules.rule_by_name("kemeny")
