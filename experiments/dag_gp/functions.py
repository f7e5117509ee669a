"""Synthetic ground truths: Forrester et al. (2008, §3.1) two-fidelity pair and the latent collider."""

from __future__ import annotations

import numpy as np


def forrester_high(x: np.ndarray) -> np.ndarray:
    """f_h(x) = (6x − 2)² sin(12x − 4) on [0, 1]."""
    return (6 * x - 2) ** 2 * np.sin(12 * x - 4)


def forrester_low(x: np.ndarray) -> np.ndarray:
    """f_l(x) = 0.5 f_h(x) + 10 (x − 0.5) − 5 (A = 0.5, B = 10, C = −5)."""
    return 0.5 * forrester_high(x) + 10 * (x - 0.5) - 5


def collider(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Latents a(x) = sin(1.5x), b(x) = 0.5x (both feed y), and the observed child y = a + b + 0.3 a b."""
    a, b = np.sin(1.5 * x), 0.5 * x
    return a, b, a + b + 0.3 * a * b
