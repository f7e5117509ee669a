"""The probe-visible quotient and the monitor transfer on a made-up case where the answers are known."""

import torch

from experiments.probes.quotient import in_digits, least_squares_probe, probe_scores, visible_basis


def test_visible_basis_spans_the_bank_and_drops_dependent_probes():
    bank = torch.tensor([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])   # columns: w1, 2·w1, w3
    basis = visible_basis(bank)
    assert basis.shape == (3, 2)
    torch.testing.assert_close(basis.T @ basis, torch.eye(2))
    projector = basis @ basis.T
    torch.testing.assert_close(projector @ bank, bank)                         # the bank is inside
    torch.testing.assert_close(projector @ torch.tensor([0.0, 1.0, 0.0]), torch.zeros(3))   # e2 is in K(V)


def test_least_squares_probe_recovers_a_linear_rule_with_intercept():
    x = torch.tensor([[0.0], [1.0], [2.0], [3.0]], dtype=torch.float64)
    probe = least_squares_probe(x, x[:, 0] > 1.5)                               # t = -1, -1, 1, 1
    torch.testing.assert_close(probe, torch.tensor([0.8, -1.2], dtype=torch.float64))   # hand-worked OLS
    assert (probe_scores(x, probe) > 0).tolist() == [False, False, True, True]


def test_quotient_transfer_keeps_covered_monitors_and_loses_uncovered_ones():
    """A = (s, n) with s the bank's concept and n noise to the bank; B = an invertible mix of A.
    The map B → A's quotient fitted on unlabelled pairs recovers s exactly, so a covered monitor transfers
    perfectly, while a monitor reading n (outside the quotient) is left with nothing."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(400, 2, generator=g, dtype=torch.float64)
    b = a @ torch.tensor([[2.0, 1.0], [0.5, -1.0]], dtype=torch.float64).T
    bank = least_squares_probe(a, a[:, 0] > 0)[:-1, None]
    basis = visible_basis(bank)
    assert abs(basis[0, 0].item()) > 0.99                                      # the quotient is the s axis
    quotient = a @ basis
    fit = torch.linalg.lstsq(torch.cat([b[:100], torch.ones(100, 1, dtype=b.dtype)], 1), quotient[:100]).solution
    mapped = torch.cat([b[100:], torch.ones(300, 1, dtype=b.dtype)], 1) @ fit
    torch.testing.assert_close(mapped, quotient[100:])
    uncovered = torch.tensor([0.0, 1.0], dtype=torch.float64)                  # reads n only
    assert (basis.T @ uncovered).abs().item() < 0.1                            # what the quotient lets through


def test_in_digits():
    assert in_digits(torch.tensor([0, 5, 3, 9]), [3, 9]).tolist() == [False, False, True, True]
