"""The probe-visible quotient of a representation and least-squares linear probes on it (Lee & Kondor §1).

For a bank V of linear probes read on whitened coordinates, K(V) = ∩ ker(w), w ∈ V, is what no probe in the
bank can see; H/K(V) is represented by coordinates on an orthonormal basis of span(V). A monitor is covered
when it reads only those coordinates. The bank's probes are least-squares fits (±1 targets, intercept):
closed-form, affine-equivariant, and the same estimator for A's monitors and for B's labelled oracle.
"""

from __future__ import annotations

import torch


def with_intercept(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], 1)


def least_squares_probe(x: torch.Tensor, positive: torch.Tensor, ridge: float = 0.0) -> torch.Tensor:
    """(w, c) minimising ‖xw + c − t‖² + ridge‖w‖², t = ±1 for `positive`; returns the stacked [w; c]."""
    design, target = with_intercept(x), positive.to(x.dtype) * 2 - 1
    gram = design.T @ design + ridge * torch.diag(torch.cat([torch.ones(x.shape[1]), torch.zeros(1)])).to(x.dtype)
    return torch.linalg.lstsq(gram, design.T @ target).solution


def probe_scores(x: torch.Tensor, probe: torch.Tensor) -> torch.Tensor:
    return with_intercept(x) @ probe


def visible_basis(bank: torch.Tensor, rel_tol: float = 1e-6) -> torch.Tensor:
    """Orthonormal basis (columns) of the span of the bank's weight vectors (`bank`: [dim, k], intercepts dropped)."""
    u, s, _ = torch.linalg.svd(bank, full_matrices=False)
    return u[:, s > rel_tol * s.max()]


def in_digits(labels: torch.Tensor, digits) -> torch.Tensor:
    return torch.isin(labels, torch.as_tensor(list(digits)))
