"""APT: off == plain optimizer; the signal lowers β when momentum opposes the gradient; preservation holds."""

import pytest
import torch
from torch import nn

from reprolab.optim.apt import APTAdamW, APTMuon, mix_coefficients
from reprolab.optim.muon import MuonAdamW
from tests.core.optim.test_muon import assert_same_trajectory


def _grads(params, seed, sign=1.0):
    g = torch.Generator().manual_seed(seed)
    for p in params:
        p.grad = sign * torch.randn(p.shape, generator=g)


def _pair(n=2):
    torch.manual_seed(0)
    a = [nn.Parameter(torch.randn(6, 4)), nn.Parameter(torch.randn(4))][:n]
    return a, [nn.Parameter(p.detach().clone()) for p in a]


def test_disabled_apt_adamw_is_torch_adamw():
    a, b = _pair()
    ours = APTAdamW(params=a, lr=1e-2, weight_decay=0.01, enabled=False)
    ref = torch.optim.AdamW(b, lr=1e-2, weight_decay=0.01)
    for step in range(5):
        _grads(a, step)
        _grads(b, step)
        ours.set_task_conflict(0.9)  # ignored when disabled
        ours.step()
        ref.step()
    for p, q in zip(a, b, strict=True):
        assert torch.allclose(p, q, atol=1e-6)


def test_disabled_apt_muon_is_muon_adamw():
    a, b = _pair()
    assert_same_trajectory(APTMuon(params=a, enabled=False), a, MuonAdamW(params=b), b)


def test_reversed_gradient_drops_beta_to_beta_min_and_raises_the_share():
    a, _ = _pair(1)
    opt = APTAdamW(params=a, betas=(0.9, 0.999), beta_min=0.3, conflict_weight=0.0)
    _grads(a, 0)
    opt.step()
    assert opt.betas_now[id(opt.param_groups[0])] == pytest.approx(0.9)  # no momentum yet: signal 0
    _grads(a, 0, sign=-1.0)  # the exact opposite of the momentum: cos = −1 → signal 1
    opt.step()
    assert opt.signal == pytest.approx(1.0)
    assert opt.betas_now[id(opt.param_groups[0])] == pytest.approx(0.3)
    # m_{t−1} = 0.1 g0, d = −g0: momentum-input share = 0.7·1 / (0.7·1 + 0.3·0.1)
    assert opt.momentum_input_share == pytest.approx(0.7 / (0.7 + 0.03), rel=1e-5)


def test_conflict_signal_lowers_beta_linearly():
    a, _ = _pair(1)
    opt = APTMuon(params=a, momentum=0.95, beta_min=0.55, align_weight=0.0)
    _grads(a, 0)
    opt.set_task_conflict(0.5)
    opt.step()
    assert opt.betas_now[id(opt.param_groups[0])] == pytest.approx(0.95 - 0.4 * 0.5)


def test_project_preservation_never_opposes_the_current_gradient():
    a, b = _pair(1)
    apt = APTMuon(params=a, beta_min=0.94, preserve="project", align_weight=0.0, conflict_weight=0.0)
    plain = MuonAdamW(params=b)
    for opt, params in ((apt, a), (plain, b)):
        for _ in range(5):
            _grads(params, 0)
            opt.step()
    _grads(a, 1, sign=1.0)
    g = a[0].grad.clone()
    before = a[0].detach().clone()
    apt.step()
    assert float(torch.sum((before - a[0].detach()) * g)) >= -1e-5  # the step does not ascend along g
    buf = apt.state[a[0]]["momentum_buffer"]
    update = apt.finish_muon_update(apt.orthogonalize(-buf * 10 + 0 * g, apt.param_groups[0]), g, apt.param_groups[0])
    assert float(torch.sum(update * g)) >= -1e-4


def test_mix_coefficients():
    assert mix_coefficients(0.9, False) == (pytest.approx(0.1), 0.9)
    a_g, a_m = mix_coefficients(0.95, True)
    assert a_g == pytest.approx(0.0975) and a_m == pytest.approx(0.9025)


def test_bad_options():
    with pytest.raises(ValueError, match="preserve"):
        APTMuon(params=[nn.Parameter(torch.zeros(2, 2))], preserve="keep")
    with pytest.raises(ValueError, match="beta_min"):
        APTAdamW(params=[nn.Parameter(torch.zeros(2))], beta_min=1.5)
