"""Preference-profile samplers: impartial culture, Mallows (φ) and the Pólya–Eggenberger urn.

A batch of profiles is an int64 array `ballots[k, n, m]`: profile k, voter v, rank r → candidate (0 = best).
DeepVoting (arXiv 2408.13630, §4 "Data") trains on profiles from these three cultures; we sample them with
numpy, vectorised over profiles, so generating tens of thousands of profiles takes well under a second.
"""

from __future__ import annotations

import numpy as np

from reprolab.cli.errors import ConfigError

CULTURES = ("ic", "mallows", "urn")


def impartial_culture(rng: np.random.Generator, k: int, n: int, m: int) -> np.ndarray:
    """Every voter's ranking uniform over the m! linear orders, independently."""
    return np.argsort(rng.random((k, n, m), dtype=np.float32), axis=-1)


def mallows(rng: np.random.Generator, k: int, n: int, m: int, phi: float) -> np.ndarray:
    """Mallows model around a uniform random centre per profile: P(σ) ∝ φ^{Kendall-τ(σ, centre)}.

    Repeated insertion: the i-th candidate of the centre goes to position j ≤ i with probability ∝ φ^{i-j},
    which draws exactly from the Mallows distribution (φ = 1 is impartial culture, φ → 0 unanimity).
    """
    if not 0.0 <= phi <= 1.0:
        raise ConfigError(f"data.phi={phi}: the Mallows dispersion must lie in [0, 1]")
    centre = impartial_culture(rng, k, 1, m)[:, 0]                       # [k, m]
    order = np.zeros((k, n, 1), dtype=np.int64)                          # indices into the centre
    for i in range(1, m):
        weights = phi ** (i - np.arange(i + 1, dtype=np.float64))        # insert at position j = 0..i
        cdf = np.cumsum(weights) / weights.sum()
        slot = np.minimum(np.searchsorted(cdf, rng.random((k, n)), side="right"), i)[..., None]
        idx = np.arange(i + 1)
        padded = np.concatenate([order, order[..., :1]], axis=-1)
        shifted = np.take_along_axis(padded, np.where(idx < slot, idx, np.maximum(idx - 1, 0)), axis=-1)
        order = np.where(idx == slot, i, shifted)
    return np.take_along_axis(centre[:, None, :].repeat(n, 1), order, axis=-1)


def urn(rng: np.random.Generator, k: int, n: int, m: int, alpha: float) -> np.ndarray:
    """Pólya–Eggenberger urn: voter t copies a uniformly chosen earlier voter with probability tα / (1 + tα).

    This is the urn that starts with each of the m! orders once and adds α·m! copies of each drawn order.
    """
    if alpha < 0:
        raise ConfigError(f"data.alpha={alpha}: the urn's replacement rate must be >= 0")
    ballots = impartial_culture(rng, k, n, m)
    for t in range(1, n):
        copy = rng.random(k) < t * alpha / (1.0 + t * alpha)
        source = rng.integers(0, t, size=k)
        ballots[copy, t] = ballots[copy, source[copy]]
    return ballots


def sample_profiles(culture: str, rng: np.random.Generator, k: int, n: int, m: int,
                    phi: float = 0.5, alpha: float = 0.1) -> np.ndarray:
    if culture == "ic":
        return impartial_culture(rng, k, n, m)
    if culture == "mallows":
        return mallows(rng, k, n, m, phi)
    if culture == "urn":
        return urn(rng, k, n, m, alpha)
    raise ConfigError(f"data.culture={culture!r} is not one of {', '.join(CULTURES)}")
