"""The closed-form baselines (SINDy, EDMD) on hand-worked numbers, against PySINDy, and their bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from experiments.koopman.closed_form import ClosedFormTask
from experiments.koopman.data import KoopmanDataModule
from experiments.koopman.dictionary import polynomial_library, stlsq
from experiments.koopman.edmd import EDMD, EDMDDynamics
from experiments.koopman.model import DeepKoopman, MLPNet
from experiments.koopman.sindy import SINDy, finite_difference
from reprolab.cli.errors import ConfigError
from reprolab.config.compose import compose

pytest.importorskip("pysindy", reason="the SINDy arm needs pysindy (pip install -e '.[koopman]')")


def lorenz_data(**kw) -> KoopmanDataModule:
    dm = KoopmanDataModule("lorenz", 3, **{"n_trajectories": 6, "steps": 300, "burn_in": 500, "window": 5,
                                           "val_trajectories": 1, "test_trajectories": 1, "seed": 0, **kw})
    dm.setup("fit")
    return dm


def test_stlsq_ridge_shrinks_before_the_cut_then_refits_unbiased():
    # Θ = I, y = (2, 0.1): ridge α 0.05 gives y / 1.05 = (1.905, 0.0952); at threshold 0.1 the 0.0952 is cut and
    # the kept term is refitted without ridge (2); at threshold 0.09 both stay, refitted to (2, 0.1).
    lib, y = np.eye(2), np.array([[2.0], [0.1]])
    np.testing.assert_allclose(stlsq(lib, y, threshold=0.1).ravel(), [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(stlsq(lib, y, threshold=0.09).ravel(), [2.0, 0.1], atol=1e-12)


def test_finite_difference_is_exact_on_quadratics_and_centred_inside():
    t = np.arange(5) * 0.5
    orbits = np.stack([t**2, t**3], axis=-1)[None]                      # one orbit, two coordinates
    d = finite_difference(orbits, 0.5)[0]
    np.testing.assert_allclose(d[:, 0], 2 * t, atol=1e-12)             # second order: exact on t², ends included
    np.testing.assert_allclose(d[1:-1, 1], 3 * t[1:-1] ** 2 + 0.25)    # ((t+h)³ − (t−h)³)/2h = 3t² + h²


def test_sindy_recovers_the_lorenz_field_and_its_dictionary():
    model = SINDy(3, ["x", "y", "z"], dt=0.01).fit(lorenz_data())
    coef = dict(zip(model.names, model.coef.numpy(), strict=True))
    truth = {"x": [-10, 28, 0], "y": [10, -1, 0], "z": [0, 0, -8 / 3], "xy": [0, 0, 1], "xz": [0, -1, 0]}
    for name, row in coef.items():
        np.testing.assert_allclose(row, truth.get(name, [0, 0, 0]), rtol=0.01, atol=0.05, err_msg=name)  # O(dt²) derivatives
    assert sorted(model.active_terms()) == sorted(["x", "y", "z", "xy", "xz"])


def test_sindy_matches_pysindy_on_the_same_orbits():
    ps = pytest.importorskip("pysindy")
    dm = lorenz_data(seed=3)
    ours = SINDy(3, ["x", "y", "z"], dt=0.01).fit(dm).coef.numpy()
    theirs = ps.SINDy(optimizer=ps.STLSQ(threshold=0.1, alpha=0.05, max_iter=20),
                      feature_library=ps.PolynomialLibrary(degree=2),
                      differentiation_method=ps.FiniteDifference(order=2))
    theirs.fit(list(dm.orbits["train"]), t=0.01)
    np.testing.assert_allclose(ours, theirs.coefficients().T, rtol=1e-8, atol=1e-10)


def test_relifted_edmd_is_exact_where_the_lift_is_not_closed():
    # x' = 0.5x + 0.25x² lies in span{1, x, x²}, but x'² (degree 4) does not: one step is exact either way, the
    # second step only when the decoded state is lifted again.
    step = lambda x: 0.5 * x + 0.25 * x**2  # noqa: E731
    lift = lambda f: polynomial_library(f, ["x"], 2)[0]  # noqa: E731
    now = np.linspace(0, 1, 200)[:, None]
    edmd = EDMD().fit(lift(now), lift(step(now)), now)
    x0 = np.array([[0.8]])
    truth = [step(x0), step(step(x0)), step(step(step(x0)))]
    relifted, linear = edmd.predict(lift(x0), 3, relift=lift), edmd.predict(lift(x0), 3)
    np.testing.assert_allclose(relifted[0, :, 0], np.ravel(truth), atol=1e-10)
    assert abs(linear[0, 0, 0] - truth[0].item()) < 1e-10 and abs(linear[0, 2, 0] - truth[2].item()) > 1e-4


def test_closed_form_models_take_and_return_the_deep_models_inputs():
    dm = lorenz_data()
    model = SINDy(3, ["x", "y", "z"], dt=0.01).fit(dm)
    orbit = dm.orbits["test"][0]
    pred = model(torch.from_numpy(dm.features(orbit[:1])).float(), 3)
    assert pred.shape == (1, 3, 3) and pred.dtype == torch.float32
    np.testing.assert_allclose(pred[0].numpy(), dm.features(orbit[1:4]), atol=1e-3)


def test_baseline_presets_read_the_kan_arms_orbits_and_library():
    kan = compose(["experiment=koopman/lorenz_kan_cpu"])
    for name in ("lorenz_sindy_cpu", "lorenz_edmd_cpu", "lorenz_edmd_linear_cpu"):
        cfg = compose([f"experiment=koopman/{name}"])
        assert cfg.data == kan.data and cfg.readout == kan.readout and cfg.task.pred_steps == kan.task.pred_steps, name
    assert compose(["experiment=koopman/lorenz_edmd_linear_cpu"]).model.relift is False


def test_bad_input_is_one_clear_error():
    with pytest.raises(ConfigError, match="closed-form model"):
        ClosedFormTask(DeepKoopman(MLPNet, 3, 5, 8))
    with pytest.raises(ConfigError, match="without an optimizer"):
        ClosedFormTask(EDMDDynamics(3, ["x", "y", "z"]), optimizer=torch.optim.Adam)
    with pytest.raises(ConfigError, match="must name the 3 state coordinates"):
        SINDy(3, ["x", "y"], dt=0.01)
    cat = KoopmanDataModule("cat", 4, n_trajectories=4, steps=20, burn_in=5, window=2, val_trajectories=1,
                            test_trajectories=1)
    cat.setup("fit")
    with pytest.raises(ConfigError, match="lives on a torus"):
        EDMDDynamics(2, ["x", "y"]).fit(cat)
