"""DeltaMomentum fidelity (issue 14 §3): accurate λ̂max, the η·λmax clip, κ's unit gain, Nesterov, warnings."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from reprolab.optim.delta import DeltaAdamW, DeltaSGD
from reprolab.optim.key_hooks import KeyCovariance, top_eigenvalue


def spd_gram(d, n, seed):
    """Random Wishart Gram XᵀX/N with anisotropic keys (like layer inputs), and its exact λmax."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g, dtype=torch.float64) * torch.logspace(0, -1, d, dtype=torch.float64)
    cov = x.T @ x / n
    return cov, torch.linalg.eigvalsh(cov)[-1]


@pytest.mark.parametrize("d", [16, 64, 300])
@pytest.mark.parametrize("tol", [1e-2, 1e-3])
def test_power_iteration_reaches_the_tolerance_on_random_grams(d, tol):
    model = nn.Linear(d, 2)
    opt = DeltaAdamW(model, power_iters=2000, power_tol=tol, exact_eig_max_dim=0)
    for seed in range(3):
        cov, true = spd_gram(d, 4 * d, seed)
        gram = KeyCovariance(d)
        estimate = opt.lambda_max(gram, cov)
        assert abs(float(estimate) - float(true)) <= tol * float(true)


def test_one_warm_power_step_underestimates_and_the_old_default_is_gone():
    """The pre-fix estimator (1 mat-vec from a cold start) is far off on a 16-key Gram; the new one is not."""
    cov, true = spd_gram(16, 64, 0)
    v = torch.randn(16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    one_step, _ = top_eigenvalue(cov, v / v.norm(), 1)
    assert float(one_step) < 0.9 * float(true)
    opt = DeltaAdamW(nn.Linear(16, 2))
    assert opt.exact_eig_max_dim >= 16 and opt.power_iters > 1


def test_power_iteration_by_hand():
    """C = diag(3, 1), v₀ = (1, 1)/√2: λ₁ = v₀ᵀCv₀ = 2, v₁ = (3, 1)/√10; λ₂ = 28/10, v₂ = (9, 1)/√82.
    At step 2 the residual ‖Cv₁ − λ₂v₁‖ = 0.6 = 0.214·λ₂: a check every 2 stops there for tol 0.3, not 0.2."""
    cov = torch.diag(torch.tensor([3.0, 1.0], dtype=torch.float64))
    v0 = torch.tensor([1.0, 1.0], dtype=torch.float64) / 2 ** 0.5
    lam, v = top_eigenvalue(cov, v0, 1)
    assert float(lam) == pytest.approx(2.0) and torch.allclose(v, torch.tensor([3.0, 1.0], dtype=torch.float64) / 10 ** 0.5)
    lam, v = top_eigenvalue(cov, v0, 2)
    v2 = torch.tensor([9.0, 1.0], dtype=torch.float64) / 82 ** 0.5
    assert float(lam) == pytest.approx(2.8) and torch.allclose(v, v2)
    lam, v = top_eigenvalue(cov, v0, 50, tol=0.3, check_every=2)
    assert float(lam) == pytest.approx(2.8) and torch.allclose(v, v2)
    lam, _ = top_eigenvalue(cov, v0, 50, tol=0.2, check_every=2)
    assert float(lam) > 2.9


@pytest.mark.parametrize("d", [16, 48])
def test_exact_path_equals_eigvalsh_through_the_optimizer(d):
    torch.manual_seed(0)
    layer = nn.Linear(d, 3)
    opt = DeltaAdamW(layer, eta_scale="lmax")  # d ≤ exact_eig_max_dim (256): eigvalsh
    for step in range(3):
        x = torch.randn(16, d) * torch.linspace(0.1, 2.0, d)  # a 16-key layer at d = 16
        layer(x).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
        assert torch.equal(opt.key_scales[""], torch.linalg.eigvalsh(x.T @ x / len(x))[-1]), step


def test_max_eta_lambda_clips_the_applied_coefficient():
    """Raw C (eta_scale none) with λmax ≫ 1: the applied η·clip·λmax is exactly max_eta_lambda."""
    torch.manual_seed(0)
    x = torch.randn(32, 4) * torch.tensor([5.0, 1.0, 0.5, 0.1])
    lam = float(torch.linalg.eigvalsh(x.T @ x / 32)[-1])
    beta, eta, cap = 0.9, 0.5, 0.8
    m0 = torch.randn(2, 4)
    buffers = {}
    for limit in (None, cap):
        layer = nn.Linear(4, 2, bias=False)
        opt = DeltaSGD(layer, lr=0.0, momentum=beta, eta=eta, eta_scale="none", max_eta_lambda=limit)
        layer(x).pow(2).mean().backward()
        opt.step()  # creates the buffer
        opt.state[layer.weight]["momentum_buffer"].copy_(m0)
        opt.zero_grad()
        layer(x).pow(2).mean().backward()
        opt.step()
        buffers[limit] = opt.state[layer.weight]["momentum_buffer"] - beta * m0 - layer.weight.grad
    cov = x.T @ x / 32
    torch.testing.assert_close(buffers[None], -eta * m0 @ cov)
    torch.testing.assert_close(buffers[cap], -(cap / lam) * m0 @ cov)
    with pytest.raises(ValueError, match="max_eta_lambda must be positive"):
        DeltaSGD(nn.Linear(2, 2), max_eta_lambda=0.0)


@pytest.mark.parametrize("gated", [False, True])
def test_kappa_one_minus_beta_plus_eta_has_unit_stationary_gain(gated):
    """Keys with C = I (λ = 1 everywhere): M → κ·G/((1−β) + η_eff) = G for κ = 1 − β + η_eff (eq. 2)."""
    layer = nn.Linear(4, 2, bias=False)
    x, y = 2.0 * torch.eye(4), torch.randn(4, 2)  # XᵀX / N = I
    opt = DeltaSGD(layer, lr=0.0, momentum=0.9, eta=0.5, kappa="1-beta+eta", gated=gated, eta_scale="none")
    for _ in range(400):
        F.mse_loss(layer(x), y).backward()
        opt.step()
        grad = layer.weight.grad.clone()
        opt.zero_grad()
    gain = opt.state[layer.weight]["momentum_buffer"].norm() / grad.norm()
    assert float(gain) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("foreach", [False, True])
def test_nesterov_looks_ahead_with_the_delta_term(foreach, gated):
    """W ← W − lr·(G + β·M − η_eff·M·Ĉ) with M the new buffer; η_eff = η, or β·η in the gated form (1')."""
    torch.manual_seed(0)
    layer = nn.Linear(4, 3, bias=False)
    x, y = torch.randn(8, 4), torch.randn(8, 3)
    beta, eta, lr = 0.8, 0.4, 0.1
    eta_eff = beta * eta if gated else eta
    opt = DeltaSGD(layer, lr=lr, momentum=beta, eta=eta, nesterov=True, gated=gated, eta_scale="none",
                   foreach=foreach)
    F.mse_loss(layer(x), y).backward()
    opt.step()
    opt.zero_grad()
    m_old, w_old = opt.state[layer.weight]["momentum_buffer"].clone(), layer.weight.detach().clone()
    F.mse_loss(layer(x), y).backward()
    g = layer.weight.grad.clone()
    opt.step()
    cov = x.T @ x / len(x)
    m = beta * m_old - eta_eff * m_old @ cov + g  # eq. (1) / (1'), κ = 1
    torch.testing.assert_close(opt.state[layer.weight]["momentum_buffer"], m)
    torch.testing.assert_close(layer.weight.detach(), w_old - lr * (g + beta * m - eta_eff * m @ cov))


def test_unkeyable_convs_warn_once_at_construction():
    model = nn.Sequential(nn.Conv2d(4, 4, 3, groups=2), nn.Conv2d(4, 4, 3, padding="same"),
                          nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect"), nn.Conv2d(4, 4, 3))
    with pytest.warns(RuntimeWarning, match="keeps the plain EMA") as record:
        opt = DeltaSGD(model)
    messages = [str(r.message) for r in record]
    assert len(messages) == 3 and all(s in " ".join(messages) for s in ("groups=2", "'same'", "'reflect'"))
    assert list(opt.keys.layers) == [model[3].weight]


def test_keyed_weight_without_keys_warns_once():
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
    opt = DeltaAdamW(model, exclude=())
    model.eval()  # e.g. a dropout-free model left in eval mode: no keys are captured
    with pytest.warns(RuntimeWarning, match="no keys this step") as record:
        for _ in range(2):
            model(torch.randn(8, 4)).sum().backward()
            opt.step()
            opt.zero_grad()
    assert sorted(str(r.message).split("'")[1] for r in record) == ["0", "1"]  # once per weight
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model(torch.randn(8, 4)).sum().backward()
        opt.step()


def test_eta_zero_does_no_hook_work():
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Flatten(), nn.Linear(27, 2))
    opt = DeltaSGD(model, eta=0.0)
    model(torch.randn(4, 2, 5, 5)).sum().backward()
    assert all(layer.own.sum is None and layer.source is None for layer in opt.keys.layers.values())
    opt.step()
    opt.param_groups[0]["eta"] = 0.3  # switched on later (e.g. a schedule): the hooks capture again
    model(torch.randn(4, 2, 5, 5)).sum().backward()
    assert all(layer.own.count == 4 * 9 or layer.own.count == 4 for layer in opt.keys.layers.values())
