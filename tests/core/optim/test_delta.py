"""DeltaSGD / DeltaAdamW: the batch delta rule, the η = 0 limit, the fixed point, Gram sharing, foreach."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from reprolab.optim.build import param_groups
from reprolab.optim.delta import DeltaAdamW, DeltaSGD, resolve_kappa
from reprolab.optim.key_hooks import conv_keys


class Block(nn.Module):
    """Q/K/V read the same input (one shared Gram), plus a conv, a norm, an embedding and a head."""

    def __init__(self, d=6):
        super().__init__()
        self.embed = nn.Embedding(10, d)
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.norm = nn.LayerNorm(d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, 4)
        self.out = nn.Linear(d + 4 + 3, 5)
        self.lm_head = nn.Linear(5, 3)

    def forward(self, tokens, images):
        h = self.norm(self.embed(tokens).mean(1))
        q, k, v = self.q(h), self.k(h), self.v(h)
        c = self.conv(images).mean((2, 3))
        return self.lm_head(torch.tanh(self.out(torch.cat([q * k, v, c], 1))))


def batch(seed, n=8):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(0, 10, (n, 5), generator=g), torch.randn(n, 2, 5, 5, generator=g),
            torch.randn(n, 3, generator=g))


def train(model, opt, steps=4, accumulate=1):
    for s in range(steps):
        tokens, images, y = batch(s)
        for t, i, yy in zip(tokens.chunk(accumulate), images.chunk(accumulate), y.chunk(accumulate),
                            strict=True):
            (F.mse_loss(model(t, i), yy) / accumulate).backward()
        opt.step()
        opt.zero_grad()
    return model


def make(seed=0):
    torch.manual_seed(seed)
    return Block()


def assert_same_params(a, b, atol=1e-6):
    for (name, p), q in zip(a.named_parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(p, q, atol=atol, rtol=1e-5, msg=name)


@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("kappa", ["1-beta", "1-beta+eta", "1"])
def test_batch_update_is_mean_of_per_sample_delta_rule_updates(kappa, gated):
    torch.manual_seed(0)
    layer = nn.Linear(4, 3, bias=False)
    opt = DeltaSGD(layer, lr=0.0, momentum=0.8, eta=0.3, kappa=kappa, gated=gated, eta_scale="none")
    x, y = torch.randn(6, 4), torch.randn(6, 3)
    F.mse_loss(layer(x), y).backward()
    opt.step()  # creates the buffer
    opt.zero_grad()
    m0 = torch.randn(3, 4)
    opt.state[layer.weight]["momentum_buffer"].copy_(m0)
    F.mse_loss(layer(x), y, reduction="none").sum(1).mean().backward()
    opt.step()
    beta, eta = 0.8, 0.3 * (0.8 if gated else 1.0)
    k = resolve_kappa(kappa, 0.8, eta)  # κ = 1 − β + η_eff in both forms
    per_sample = []
    for xn, yn in zip(x, y, strict=True):  # g_n = δ_n x_nᵀ, M_n = βM − η(M x_n)x_nᵀ + κ g_n
        delta = 2 * (layer.weight @ xn - yn)
        per_sample.append(beta * m0 - eta * torch.outer(m0 @ xn, xn) + k * torch.outer(delta, xn))
    torch.testing.assert_close(opt.state[layer.weight]["momentum_buffer"], torch.stack(per_sample).mean(0))


@pytest.mark.parametrize("foreach", [False, True])
def test_eta_zero_is_torch_adamw_step_for_step(foreach):
    a, b = make(), make()
    ours = DeltaAdamW(a, lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1, eta=0.0, foreach=foreach)
    ref = torch.optim.AdamW(param_groups(b), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1, foreach=foreach)
    for s in range(5):
        train(a, ours, steps=1), train(b, ref, steps=1)
        assert_same_params(a, b, atol=1e-7), s


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("foreach", [False, True])
def test_eta_zero_is_torch_sgd_momentum_step_for_step(nesterov, foreach):
    a, b = make(), make()
    ours = DeltaSGD(a, lr=0.05, momentum=0.9, weight_decay=1e-3, nesterov=nesterov, eta=0.0, foreach=foreach)
    ref = torch.optim.SGD(param_groups(b), lr=0.05, momentum=0.9, weight_decay=1e-3, nesterov=nesterov)
    for _ in range(5):
        train(a, ours, steps=1), train(b, ref, steps=1)
        assert_same_params(a, b, atol=1e-7)


@pytest.mark.parametrize("cls", [DeltaSGD, DeltaAdamW])
def test_stationary_regression_converges_to_wiener_fixed_point(cls):
    """Fixed W, fixed batch: M → κ·G·((1−β)I + ηC)⁻¹ (eq. 2), with anisotropic keys."""
    torch.manual_seed(0)
    layer = nn.Linear(4, 2, bias=False)
    x = torch.randn(64, 4) * torch.tensor([3.0, 1.0, 0.3, 0.05])
    y = torch.randn(64, 2)
    beta, eta = 0.9, 0.05
    kw = dict(betas=(beta, 0.999)) if cls is DeltaAdamW else dict(momentum=beta, kappa="1-beta")
    opt = cls(layer, lr=0.0, eta=eta, eta_scale="none", **kw)
    for _ in range(300):
        F.mse_loss(layer(x), y).backward()
        opt.step()
        grad = layer.weight.grad.clone()
        opt.zero_grad()
    memory = opt.state[layer.weight]["exp_avg" if cls is DeltaAdamW else "momentum_buffer"]
    cov = x.T @ x / len(x)
    expected = (1 - beta) * grad @ torch.linalg.inv((1 - beta) * torch.eye(4) + eta * cov)
    torch.testing.assert_close(memory, expected, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("cls", [DeltaSGD, DeltaAdamW])
def test_shared_gram_reuse_changes_nothing(cls):
    a, b = make(), make()
    shared, separate = cls(a, eta=0.7, share_grams=True), cls(b, eta=0.7, share_grams=False)
    train(a, shared), train(b, separate)
    assert_same_params(a, b)
    allocated = lambda opt: sum(layer.own.sum is not None for layer in opt.keys.layers.values())
    assert allocated(shared) == allocated(separate) - 2  # Q, K, V: one Gram instead of three


@pytest.mark.parametrize("eta_scale", ["lmax", "trace", "none"])
@pytest.mark.parametrize("cls", [DeltaSGD, DeltaAdamW])
def test_foreach_matches_reference(cls, eta_scale):
    a, b = make(), make()
    kw = dict(eta=0.6, eta_scale=eta_scale, weight_decay=0.01)
    train(a, cls(a, foreach=True, **kw), steps=5), train(b, cls(b, foreach=False, **kw), steps=5)
    assert_same_params(a, b)


@pytest.mark.parametrize("cls", [DeltaSGD, DeltaAdamW])
def test_gradient_accumulation_accumulates_keys_with_gradients(cls):
    a, b = make(), make()
    train(a, cls(a, eta=0.8), steps=3), train(b, cls(b, eta=0.8), steps=3, accumulate=2)
    assert_same_params(a, b, atol=1e-5)


def test_only_linear_and_conv_weights_hold_keys_and_the_head_is_excluded():
    a, b = make(), make()
    opt = DeltaAdamW(a, eta=0.9)
    train(a, opt), train(b, DeltaAdamW(b, eta=0.0))
    assert set(opt.keys.layers) == {a.conv.weight, a.q.weight, a.k.weight, a.v.weight, a.out.weight}
    assert not torch.allclose(a.q.weight, b.q.weight)


def test_eval_and_no_grad_forwards_are_not_captured():
    model = make()
    opt = DeltaAdamW(model)
    tokens, images, _ = batch(0)
    with torch.no_grad():
        model(tokens, images)
    model.eval()
    model(tokens, images)
    assert all(layer.own.count == 0 for layer in opt.keys.layers.values())


def test_lmax_estimate_tracks_top_eigenvalue():
    torch.manual_seed(0)
    layer = nn.Linear(8, 2)
    opt = DeltaAdamW(layer, eta_scale="lmax")
    x = torch.randn(256, 8) * torch.linspace(0.1, 2.0, 8)
    for _ in range(3):
        layer(x).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
    true = torch.linalg.eigvalsh(x.T @ x / len(x))[-1]
    assert float(opt.key_scales[""]) == pytest.approx(float(true), rel=1e-3)  # "" = the root module


def test_conv_keys_are_im2col_rows_of_the_flattened_filter():
    conv = nn.Conv2d(2, 3, 3, stride=2, padding=1)
    x = torch.randn(2, 2, 7, 7)
    keys = conv_keys(x, conv)
    out = (keys @ conv.weight.view(3, -1).T + conv.bias).view(2, -1, 3).transpose(1, 2)
    torch.testing.assert_close(out.reshape(2, 3, 4, 4), conv(x))


def test_bad_options_say_what_is_allowed():
    with pytest.raises(ValueError, match="eta_scale must be one of"):
        DeltaAdamW(make(), eta_scale="spectral")
    with pytest.raises(ValueError, match="kappa must be"):
        DeltaSGD(make(), kappa="beta")
    with pytest.raises(TypeError, match="needs the model"):
        DeltaAdamW(list(make().parameters()))


def test_max_keys_subsamples_whole_images_for_convs_and_rows_for_linears():
    from reprolab.optim.key_hooks import conv_positions

    conv = nn.Conv2d(2, 3, 3, stride=2, padding=1)
    assert conv_positions(torch.zeros(1, 2, 7, 7), conv) == 16
    model = nn.Sequential(conv, nn.Flatten(), nn.Linear(48, 2))
    opt = DeltaSGD(model, max_keys=40)
    model(torch.randn(10, 2, 7, 7)).sum().backward()
    counts = {layer.name: layer.own.count for layer in opt.keys.layers.values()}
    assert counts == {"0": 3 * 16, "2": 10}  # ceil(40 / 16) = 3 images; 10 rows ≤ 40 kept
