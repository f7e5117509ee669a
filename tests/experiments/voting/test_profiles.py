"""Samplers: rankings are permutations, Mallows matches its closed form, the urn copies, bad values fail."""

from collections import Counter

import numpy as np
import pytest

from experiments.voting.profiles import impartial_culture, mallows, sample_profiles, urn
from reprolab.cli.errors import ConfigError


def _is_permutation(ballots):
    return (np.sort(ballots, axis=-1) == np.arange(ballots.shape[-1])).all()


def test_every_ballot_is_a_ranking():
    rng = np.random.default_rng(0)
    for culture in ("ic", "mallows", "urn"):
        assert _is_permutation(sample_profiles(culture, rng, 50, 6, 5))


def test_mallows_probabilities_match_phi_to_the_kendall_distance():
    rng = np.random.default_rng(1)
    ballots = mallows(rng, 1, 40000, 3, 0.5)[0]
    counts = Counter(map(tuple, ballots.tolist()))
    centre = max(counts, key=counts.get)
    # Kendall distances 0,1,1,2,2,3 with Z = 1 + 2φ + 2φ² + φ³ = 2.625 at φ = 0.5
    assert abs(counts[centre] / 40000 - 1 / 2.625) < 0.015
    assert abs(counts[tuple(reversed(centre))] / 40000 - 0.125 / 2.625) < 0.01


def test_mallows_phi_zero_is_unanimous_and_one_is_uniform():
    rng = np.random.default_rng(2)
    same = mallows(rng, 5, 7, 4, 0.0)
    assert (same == same[:, :1]).all()
    tops = mallows(rng, 1, 20000, 4, 1.0)[0, :, 0]
    assert np.allclose(np.bincount(tops) / 20000, 0.25, atol=0.02)


def test_urn_with_large_alpha_copies_and_zero_is_ic():
    rng = np.random.default_rng(3)
    herd = urn(rng, 200, 10, 5, 100.0)
    assert np.mean([(p == p[0]).all() for p in herd]) > 0.8
    assert _is_permutation(urn(rng, 10, 10, 5, 0.0)) and _is_permutation(impartial_culture(rng, 2, 3, 4))


def test_bad_config_values_are_one_line():
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="data.culture"):
        sample_profiles("spatial", rng, 1, 3, 3)
    with pytest.raises(ConfigError, match="data.phi"):
        mallows(rng, 1, 3, 3, 1.5)
