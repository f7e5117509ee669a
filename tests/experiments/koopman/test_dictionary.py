"""The readout's parts: libraries, STLSQ on a known sparse model, threshold choice, dictionary scores."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.koopman.dictionary import (
    active_terms,
    closure_residual,
    fourier_library,
    jaccard_recall,
    polynomial_library,
    select_threshold,
    stlsq,
    whiten,
)
from experiments.koopman.edmd import EDMD, relative_prediction_error

pytest.importorskip("pysindy", reason="the readout needs pysindy (pip install -e '.[koopman]')")


def test_polynomial_library_names_and_values():
    s = np.array([[2.0, 3.0, 5.0]])
    lib, names, orders = polynomial_library(s, ["x", "y", "z"], 2)
    assert names == ["1", "x", "y", "z", "x^2", "xy", "xz", "y^2", "yz", "z^2"]
    np.testing.assert_allclose(lib[0], [1, 2, 3, 5, 4, 6, 10, 9, 15, 25])
    assert orders == [0, 1, 1, 1, 2, 2, 2, 2, 2, 2]


def test_fourier_library_has_one_of_each_frequency_pair():
    lib, names, orders = fourier_library(np.array([[0.3, 1.1]]), ["th", "p"], 2)
    assert len(names) == 1 + 2 * 6 and names.count("cos(1th)") == 1 and "sin(1th-1p)" in names
    np.testing.assert_allclose(lib[0, names.index("sin(1th-1p)")], np.sin(0.3 - 1.1))
    assert max(orders) == 2


def test_stlsq_recovers_a_known_sparse_model_under_mixing():
    rng = np.random.default_rng(0)
    s = rng.uniform(-1, 1, size=(2000, 3))
    lib, names, _ = polynomial_library(s, ["x", "y", "z"], 2)
    truth = np.stack([lib[:, 1] + 0.5 * lib[:, 5], lib[:, 3] - lib[:, 6]], 1)   # span of {x, xy, z, xz}
    latents = truth @ np.array([[1.0, 2.0], [-1.0, 0.5]]) + 3.0 + 1e-3 * rng.normal(size=truth.shape)
    y, = whiten(latents)
    coef = stlsq(lib / np.where(np.arange(lib.shape[1]) == 0, 1.0, lib.std(0)), y, threshold=0.05)
    assert sorted(active_terms(coef, names)) == ["x", "xy", "xz", "z"]


def test_threshold_is_chosen_on_heldout_error_only():
    rng = np.random.default_rng(1)
    lib = rng.normal(size=(400, 6))
    y = (lib[:, :2] @ np.array([1.0, 0.5]) + 0.01 * rng.normal(size=400))[:, None]
    t, coef, err = select_threshold((lib[:300], y[:300]), (lib[300:], y[300:]), [0.01, 0.1, 0.3, 0.8], tolerance=0.01)
    assert t == 0.3 and np.count_nonzero(coef) == 2 and err < 1e-3    # 0.8 drops the 0.5 term


def test_jaccard_and_recall_on_made_up_dictionaries():
    target = ["x", "y", "z", "xy", "xz"]
    assert jaccard_recall(["x", "y", "z", "xy", "xz", "yz"], target) == (5 / 6, 1.0)
    assert jaccard_recall(["x", "y"], target) == (2 / 5, 2 / 5)
    assert jaccard_recall([], target) == (0.0, 0.0)


def test_closure_residual_and_edmd_on_a_linear_map():
    rng = np.random.default_rng(2)
    A = np.array([[0.9, -0.3], [0.3, 0.9]])
    now = rng.normal(size=(200, 2))
    lib = lambda s: polynomial_library(s, ["x", "y"], 1)[0]  # noqa: E731
    nxt = now @ A.T
    assert closure_residual(lib(now), lib(nxt), lib(now[:50]), lib(nxt[:50])) < 1e-20
    edmd = EDMD().fit(lib(now), lib(nxt), now)
    pred = edmd.predict(lib(now[:5]), 3)
    np.testing.assert_allclose(pred[:, 2], now[:5] @ np.linalg.matrix_power(A, 3).T, atol=1e-10)
    assert relative_prediction_error(pred, pred) == 0.0
