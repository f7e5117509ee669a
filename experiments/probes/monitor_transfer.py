"""A's monitors read on model B through a map fitted on unlabelled paired inputs (Lee & Kondor, abstract, §1).

One scikit-learn estimator, fitted by `task=sklearn_estimator` on the training split of
`SourceStatesDataModule`: records with A's whitened state `a` on every row, B's whitened state `b` on the
paired rows only (NaN elsewhere), and the digit as label.
- `read="transfer"`: the probe bank V and A's monitors are fitted on A with labels (A is the labelled
  source); the alignment G: b → target is fitted on the paired rows from (b, target(a)) alone, never the
  labels. target="quotient" is A's coordinates on span(V) (the probe-visible quotient H/K(V)), "full" A's
  whole state. Monitors then read Â = G(b) lifted back to A's space.
- `read="oracle"`: the same monitors fitted on B with labels (every row must carry b).
- `read="source"`: A's monitors on A's own state, seen through the quotient when target="quotient".
Covered monitors read only A's quotient coordinates; uncovered ones A's whole state.
`predict_proba` returns one positive-class probability per monitor, covered first.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression

from experiments.probes.quotient import visible_basis
from reprolab.cli.errors import ConfigError

READS, TARGETS = ("transfer", "oracle", "source"), ("quotient", "full")


class MonitorTransfer(BaseEstimator):
    def __init__(self, read: str = "transfer", target: str = "quotient", alignment=None, probe=None,
                 bank_digits=(0, 1, 2, 3, 4), covered_monitors=((0, 1),), uncovered_monitors=((5, 6),)):
        self.read, self.target, self.alignment, self.probe = read, target, alignment, probe
        self.bank_digits, self.covered_monitors, self.uncovered_monitors = bank_digits, covered_monitors, uncovered_monitors

    def _probe(self, x, positive) -> LogisticRegression:
        return clone(self.probe if self.probe is not None else LogisticRegression()).fit(x, positive)

    def fit(self, states, digits):
        if self.read not in READS or self.target not in TARGETS:
            raise ConfigError(f"model.read={self.read!r}, model.target={self.target!r}: choose read from {READS} "
                              f"and target from {TARGETS}")
        digits = np.asarray(digits)
        self.monitors_ = [("covered", list(m)) for m in self.covered_monitors] + \
                         [("uncovered", list(m)) for m in self.uncovered_monitors]
        if self.read == "oracle":
            b = states["b"]
            if np.isnan(b).any():
                raise ConfigError("the oracle reads B on every training input: set data.n_pairs=null")
            self.heads_ = [self._probe(b, np.isin(digits, m)) for _, m in self.monitors_]
            return self
        a = states["a"]
        bank = np.stack([self._probe(a, digits == d).coef_[0] for d in self.bank_digits], 1)
        self.basis_ = visible_basis(bank)                                # [d_A, k]: span(V)
        self.heads_ = [self._probe(a @ self.basis_ if group == "covered" else a, np.isin(digits, m))
                       for group, m in self.monitors_]
        if self.read == "transfer":
            paired = ~np.isnan(states["b"]).any(1)
            if paired.sum() < 2:
                raise ConfigError("the alignment needs at least 2 paired inputs: raise data.n_pairs")
            target = a[paired] @ self.basis_ if self.target == "quotient" else a[paired]
            self.alignment_ = clone(self.alignment).fit(states["b"][paired], target)   # no labels
        return self

    def source_estimate(self, states) -> np.ndarray:
        """Â: A's state as the monitors see it (G(b) lifted to A's space for transfer; A itself for source)."""
        if self.read == "transfer":
            mapped = np.asarray(self.alignment_.predict(states["b"]), dtype=np.float64).reshape(len(states), -1)
            return mapped @ self.basis_.T if self.target == "quotient" else mapped
        a = states["a"]
        return a @ self.basis_ @ self.basis_.T if self.target == "quotient" else a

    def predict_proba(self, states) -> np.ndarray:
        if self.read == "oracle":
            return np.stack([h.predict_proba(states["b"])[:, 1] for h in self.heads_], 1)
        a_hat = self.source_estimate(states)
        return np.stack([h.predict_proba(a_hat @ self.basis_ if group == "covered" else a_hat)[:, 1]
                         for h, (group, _) in zip(self.heads_, self.monitors_, strict=True)], 1)

    def predict(self, states) -> np.ndarray:
        return self.predict_proba(states) > 0.5
