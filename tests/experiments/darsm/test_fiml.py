"""The FIML arm: beta = 1 is the baseline ARSM bit for bit, the beta gradient is the finite-difference one, the
inversion lowers the training error, the regression fits a known function, and the two stages chain through runs."""

from __future__ import annotations

import math

import pytest
import torch

from experiments.darsm import fiml_task
from experiments.darsm.adjoint import attach_fixed_point, central_difference
from experiments.darsm.channel import Channel, ImplicitARSM
from experiments.darsm.duct import Duct
from experiments.darsm.fiml import BetaFields, BetaNet, ProductionMultiplier, baseline_arsm
from experiments.darsm.model import NeuralARSM
from experiments.darsm.solver import newton_solve
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import compose

pytestmark = pytest.mark.usefixtures("float64_default")
TINY = ["data.n=16", "data.train_re_tau=[180.0]", "data.test_re_tau=[360.0]", "data.stretch=2.5", "logger=none",
        "print_config=false"]


def _ones(f):
    return torch.ones_like(f["k"])


@pytest.mark.parametrize("source", ["omega", "k"])
def test_beta_one_is_the_baseline_arsm_exactly(source):
    """The residual with beta = 1 on either production term equals the baseline ARSM's (the untrained DARSM network)
    bit for bit, on the channel and the duct, and the channel's converged solve is the same state."""
    untrained = ImplicitARSM(NeuralARSM())
    fiml = ProductionMultiplier(baseline_arsm(), _ones, source)
    channel, duct = Channel(180.0, n=16, stretch=2.5), Duct(180.0, aspect=2.0, ny=6, nz=6)
    for geometry in (channel, duct):
        q = geometry.initial_state() * (1.0 + 0.1 * torch.rand(geometry.initial_state().shape))
        assert torch.equal(geometry.residual(q, fiml), geometry.residual(q, untrained))
    solved = [newton_solve(lambda q, c=c: channel.residual(q, c), channel.initial_state())[0] for c in (fiml, untrained)]
    assert torch.equal(*solved)


def test_beta_changes_only_its_own_production_term():
    """beta = 2 on the omega production adds exactly alpha omega/k P to the omega equation's unscaled residual: so the
    k rows are unchanged and the omega rows move (the field reaches the term it names and no other)."""
    channel = Channel(180.0, n=16, stretch=2.5)
    q = channel.initial_state()
    twice = ProductionMultiplier(baseline_arsm(), lambda f: 2.0 * torch.ones_like(f["k"]), "omega")
    base, doubled = channel.residual(q, baseline_arsm()), channel.residual(q, twice)
    n = channel.n
    assert torch.equal(base[:2 * n], doubled[:2 * n]) and (doubled[2 * n:] - base[2 * n:]).abs().max() > 1e-3


def test_beta_gradient_matches_central_differences():
    """dL/dbeta by the discrete adjoint equals central differences along random directions of the 16-node field."""
    channel = Channel(180.0, n=16, stretch=2.5)
    fields = BetaFields(cases=["c"], shape=[channel.n])
    with torch.no_grad():
        fields.fields["c"].add_(0.2 * torch.sin(torch.arange(channel.n, dtype=torch.float64)))
    closure = ProductionMultiplier(baseline_arsm(), lambda f: fields.field("c", f["k"]))
    residual = lambda q: channel.residual(q, closure)
    target = channel.initial_state()[: channel.n] * 0.9
    loss = lambda U: (channel.weight * (U - target) ** 2).sum() / (channel.weight * target ** 2).sum()
    q_star, _ = newton_solve(residual, channel.initial_state(), tol=1e-13)
    loss(channel.split(attach_fixed_point(residual, q_star))[0]).backward()
    adjoint = fields.fields["c"].grad.clone()
    assert adjoint.abs().max() > 0
    evaluate = lambda: loss(channel.split(newton_solve(residual, q_star, tol=1e-13)[0])[0])
    gen = torch.Generator().manual_seed(0)
    for _ in range(3):
        v = torch.randn(channel.n, generator=gen, dtype=torch.float64)
        v /= v.norm()
        fd = central_difference([fields.fields["c"]], v, 1e-6, evaluate)
        assert abs(float(adjoint @ v) - fd) < 1e-4 * max(abs(fd), 1e-3 * float(adjoint.norm())), (float(adjoint @ v), fd)


def _known_pairs(n=400):
    gen = torch.Generator().manual_seed(3)
    x = 2.0 * torch.rand(n, 3, generator=gen, dtype=torch.float64)
    return x, 0.5 * torch.sin(2.0 * x[:, 0]) - 0.3 * x[:, 2]


def test_fiml_stages_chain_through_runs(tmp_path):
    """Stage 1 (the trainer's run) lowers the training case's error against the baseline ARSM; stage 2 reads that
    run's fields, and its predicted solves converge on the training and the unseen Re_tau."""
    base = run(compose(["experiment=darsm/channel_baseline_cpu", *TINY], output_dir=tmp_path / "base"))
    inverted = run(compose(["experiment=darsm/channel_fiml_invert_cpu", "trainer.max_epochs=8", *TINY],
                           output_dir=tmp_path / "invert"))
    assert inverted["test/u_rel_l2_train"] < 0.7 * base["test/u_rel_l2_train"]
    assert inverted["test/u_rel_l2_unseen"] == pytest.approx(base["test/u_rel_l2_unseen"], rel=1e-9)  # no field: beta 1
    learned = run(compose(["experiment=darsm/channel_fiml_cpu", "trainer.max_epochs=20", *TINY,
                           f"task.inversion_run={tmp_path / 'invert'}"], output_dir=tmp_path / "learn"))
    assert learned["test/solve_residual_max"] < 1e-10
    assert all(math.isfinite(learned[f"test/u_rel_l2_{g}"]) for g in ("train", "unseen"))


def test_regression_stage_fits_a_known_function(tmp_path, monkeypatch):
    """Given pairs log beta = 0.5 sin(2 x0) - 0.3 x2, the learn stage's trainer run fits them (held-out RMS error
    below a tenth of the target's spread)."""
    tasks = []

    def pairs(self, fields):
        tasks.append(self)
        return _known_pairs()

    monkeypatch.setattr(fiml_task.Fiml, "regression_pairs", pairs)
    monkeypatch.setattr(fiml_task, "inverted_fields", lambda run_dir: {})
    run(compose(["experiment=darsm/channel_fiml_cpu", "trainer.max_epochs=600", "optimizer.lr=2e-2", *TINY,
                 "task.inversion_run=unused"], output_dir=tmp_path))
    x, target = _known_pairs(200)
    x = x + 0.01           # held-out points
    target = 0.5 * torch.sin(2.0 * x[:, 0]) - 0.3 * x[:, 2]
    with torch.no_grad():
        error = (tasks[0].model.log_beta(x) - target).pow(2).mean().sqrt()
    assert error < 0.1 * target.std(), float(error)


@pytest.mark.parametrize("preset, overrides, error, message", [
    ("channel_fiml_cpu", ["task.inversion_run=null"], ConfigError, "needs task.inversion_run"),
    ("channel_fiml_cpu", ["task.inversion_run=/nonexistent/run"], DatasetNotFoundError, "run the inversion stage first"),
    ("channel_fiml_invert_cpu", ["task.stage=learn"], ConfigError, "needs model BetaNet"),
    ("channel_fiml_invert_cpu", ["task.source=epsilon"], ConfigError, "task.source 'epsilon' unknown"),
    ("channel_fiml_invert_cpu", ["task.prior_weight=-1"], ConfigError, "prior_weight must be >= 0"),
    ("channel_fiml_invert_cpu", ["model.cases=[550.0]"], ConfigError, "do not fit training case 're180'"),
])
def test_bad_fiml_settings_are_one_line_errors(tmp_path, preset, overrides, error, message):
    cfg = compose([f"experiment=darsm/{preset}", *TINY, *overrides], output_dir=tmp_path)
    with pytest.raises(error, match=message):
        run(cfg)


def test_beta_net_is_bounded_and_positive():
    net = BetaNet(hidden=4, depth=1, max_log_beta=1.5)
    with torch.no_grad():
        net.head.bias.fill_(100.0)
    f = {"s": torch.ones(3), "re_t": torch.ones(3)}
    assert torch.allclose(net(f), torch.full((3,), math.exp(1.5)))
