"""The probe-visible quotient of a representation (Lee & Kondor §1): H/K(V) for a bank V of linear probes.

K(V) = ∩ ker(w), w ∈ V, is what no probe in the bank can see; H/K(V) is represented by coordinates on an
orthonormal basis of span(V). A monitor is covered when it reads only those coordinates.
"""

from __future__ import annotations

import numpy as np


def visible_basis(bank: np.ndarray, rel_tol: float = 1e-6) -> np.ndarray:
    """Orthonormal basis (columns) of the span of the bank's weight vectors (`bank`: [dim, k], intercepts dropped)."""
    u, s, _ = np.linalg.svd(np.asarray(bank, dtype=np.float64), full_matrices=False)
    return u[:, s > rel_tol * s.max()]
