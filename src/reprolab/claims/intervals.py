"""The interval of a claim's effect over seeds: a two-sided Student-t interval of the mean paired effect.

Why paired t and not a bootstrap: claim checks have 3-10 seeds, where a bootstrap's resampling
distribution takes only a handful of distinct values and its percentile interval is too narrow;
the t interval is exact for normally distributed per-seed effects and honest about small n.
A ratio effect is averaged on the log scale: the t interval of the per-seed log ratios, exponentiated,
around their geometric mean, so a ratio's interval is never negative (pairs whose ratio is not positive
are dropped and counted in the note). A correlation (a single-arm claim with `effect: correlation`) is
averaged on Fisher's z scale: the t interval of atanh(r) over seeds, back-transformed by tanh, so it stays
inside [-1, 1] where the plain t interval of r can pass 1 (Fisher 1921; seeds with |r| = 1 have no z and are
dropped and counted in the note).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from scipy import stats

CONFIDENCE = 0.95


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Mean and the two-sided Student-t interval of the mean (n >= 2)."""
    n = len(values)
    if n < 2:
        raise ValueError("an interval needs at least 2 values")
    mean = statistics.fmean(values)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


def log_t_interval(ratios: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Geometric mean and the t interval of the mean log ratio, exponentiated (every ratio > 0, n >= 2)."""
    if any(r <= 0 for r in ratios):
        raise ValueError("a log-scale interval needs positive ratios")
    mean, low, high = t_interval([math.log(r) for r in ratios], confidence)
    return math.exp(mean), math.exp(low), math.exp(high)


def fisher_z_interval(correlations: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """tanh of the mean Fisher z = atanh(r) and of its t interval (every |r| < 1, n >= 2)."""
    if any(abs(r) >= 1 for r in correlations):
        raise ValueError("a Fisher-z interval needs correlations strictly inside (-1, 1)")
    mean, low, high = t_interval([math.atanh(r) for r in correlations], confidence)
    return math.tanh(mean), math.tanh(low), math.tanh(high)
