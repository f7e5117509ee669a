"""Probe families: whitening makes linear/degree-2 fits exactly invariant under affine maps; CP = full form for rank ≥ d."""

import pytest
import torch

from experiments.probes.probes import LinearProbe, QuadraticProbe
from experiments.probes.synthetic import SyntheticProbeDataModule, random_affine
from experiments.probes.whitening import FittedInputMap
from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose


def fitted_predictions(model: str, affine: bool, tmp_path, task: str = "circle") -> torch.Tensor:
    """Fit a probe through the trainer in float64 without penalty; its logits on the test split."""
    cfg = compose(["experiment=probes/synthetic_cpu", f"model={model}", f"data.task={task}", f"data.affine={affine}",
                   "model.l2=0.0", "data.n_train=400", "data.n_val=50", "data.n_test=300", "data.dtype=float64",
                   "device.precision=64-true", "logger=none", "print_config=false", "trainer.enable_progress_bar=false",
                   "trainer.max_epochs=12", "test_after_fit=false", "++optimizer.tolerance_change=0.0", "++optimizer.tolerance_grad=0.0"], output_dir=tmp_path / f"{model}_{affine}")
    from hydra.utils import instantiate

    from reprolab.cli.train import build_task
    from reprolab.run.trainer import build_trainer

    datamodule, task, trainer = instantiate(cfg.data), build_task(cfg), build_trainer(cfg)
    trainer.fit(task, datamodule=datamodule)
    return task.model(datamodule.splits["test"][0].to(torch.float64)).detach()


@pytest.mark.parametrize("model", ["probe_linear", "probe_quadratic"])
def test_whitened_probe_predictions_are_invariant_under_an_affine_map(model, tmp_path):
    plain = fitted_predictions(model, False, tmp_path)
    mixed = fitted_predictions(model, True, tmp_path)
    assert plain.abs().max() > 0.1                       # the probe learned something
    torch.testing.assert_close(mixed, plain, atol=1e-6, rtol=0)


def test_whitening_turns_an_affine_map_into_an_orthogonal_one():
    g = torch.Generator().manual_seed(0)
    z = torch.randn(500, 4, generator=g, dtype=torch.float64)
    a, b = random_affine(4, 10.0, g)
    w_z = FittedInputMap(4).double().fit(z)(z)
    w_h = FittedInputMap(4).double().fit(z @ a.T + b)(z @ a.T + b)
    rotation = torch.linalg.lstsq(w_z, w_h).solution
    torch.testing.assert_close(rotation.T @ rotation, torch.eye(4, dtype=torch.float64), atol=1e-10, rtol=0)
    torch.testing.assert_close(torch.linalg.cond(a), torch.tensor(10.0, dtype=torch.float64))


def test_cp_form_equals_full_quadratic_form_on_a_hand_example():
    """Q = [[2, 1], [1, -1]] = Σ λ_k u_k u_kᵀ with its eigenpairs (rank 2 = d); f(x) = xᵀQx + wᵀx + c."""
    full = QuadraticProbe(2, rank=None, preprocess="none")
    cp = QuadraticProbe(2, rank=2, preprocess="none")
    q = torch.tensor([[2.0, 1.0], [1.0, -1.0]])
    lam, u = torch.linalg.eigh(q)
    with torch.no_grad():
        full.quadratic.copy_(q), cp.factors.copy_(u.T), cp.coefficients.copy_(lam)
        for p in (full, cp):
            p.weight.copy_(torch.tensor([0.5, -1.0])), p.intercept.fill_(0.25)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0]])
    hand = torch.tensor([2 + 4 - 4 + 0.5 - 2 + 0.25, 2 - 1 - 0.25 - 0.5 - 0.5 + 0.25, 0.25])
    torch.testing.assert_close(full(x), hand)
    torch.testing.assert_close(cp(x), hand)
    torch.testing.assert_close(cp.quadratic_form(), q)


def test_penalty_never_touches_the_intercept():
    probe = LinearProbe(3, preprocess="none", l2=2.0, l1=1.0)
    with torch.no_grad():
        probe.weight.copy_(torch.tensor([1.0, -2.0, 0.0])), probe.intercept.fill_(100.0)
    assert probe.penalty().item() == pytest.approx(2.0 * 5 + 1.0 * 3)


def test_bad_config_values_are_one_clear_line():
    with pytest.raises(ConfigError, match="preprocess='pca'"):
        LinearProbe(3, preprocess="pca")
    with pytest.raises(ConfigError, match="model.rank=0"):
        QuadraticProbe(3, rank=0)
    with pytest.raises(ConfigError, match="data.task='moons'"):
        SyntheticProbeDataModule(task="moons")
    with pytest.raises(ConfigError, match="condition_number=0.5"):
        random_affine(3, 0.5, torch.Generator())


def test_parity_defeats_the_degree2_probe(tmp_path):
    """No degree ≤ 2 moment of sign(z₁z₂z₃) is non-zero, so even the full quadratic form stays at chance."""
    cfg = compose(["experiment=probes/synthetic_cpu", "model=probe_quadratic", "data.task=parity", "data.n_train=600",
                   "data.n_val=100", "data.n_test=2000", "logger=none", "print_config=false",
                   "trainer.enable_progress_bar=false", "trainer.max_epochs=3"], output_dir=tmp_path)
    assert abs(run(cfg)["test/auroc"] - 0.5) < 0.06
