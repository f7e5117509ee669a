"""MuonAdamW: equal to torch.optim.Muon on 2-D weights (bf16 NS) and to torch.optim.AdamW on the rest."""

import pytest
import torch
from torch import nn

from reprolab.optim.muon import MuonAdamW, newton_schulz, split_muon_params


def _grads(params, seed):
    g = torch.Generator().manual_seed(seed)
    for p in params:
        p.grad = torch.randn(p.shape, generator=g)


def assert_same_trajectory(ours, a, ref, b, steps=4):
    """Step both optimizers on the same random gradients; the parameters must stay equal."""
    for step in range(steps):
        _grads(a, step)
        _grads(b, step)
        ours.step()
        ref.step()
    for p, q in zip(a, b, strict=True):
        assert torch.allclose(p, q, atol=1e-6)


def test_matches_torch_muon_on_2d_weights():
    torch.manual_seed(0)
    a = [nn.Parameter(torch.randn(6, 4)), nn.Parameter(torch.randn(3, 8))]
    b = [nn.Parameter(p.detach().clone()) for p in a]
    ours = MuonAdamW(params=a, lr=0.02, momentum=0.95, weight_decay=0.1, ns_dtype="bfloat16")
    assert_same_trajectory(ours, a, torch.optim.Muon(b, lr=0.02, momentum=0.95, weight_decay=0.1), b)


def test_use_muon_false_is_torch_adamw():
    torch.manual_seed(0)
    a = [nn.Parameter(torch.randn(5, 3)), nn.Parameter(torch.randn(3))]
    b = [nn.Parameter(p.detach().clone()) for p in a]
    ours = MuonAdamW(params=a, adamw_lr=1e-2, adamw_betas=(0.9, 0.99), adamw_weight_decay=0.01, use_muon=False)
    assert_same_trajectory(ours, a, torch.optim.AdamW(b, lr=1e-2, betas=(0.9, 0.99), weight_decay=0.01), b, 5)


def test_newton_schulz_brings_singular_values_near_one_and_handles_conv_kernels():
    torch.manual_seed(0)
    g = torch.randn(16, 32) @ torch.diag(torch.logspace(-2, 1, 32))
    s = torch.linalg.svdvals(newton_schulz(g))
    assert s.min() > 0.5 and s.max() < 1.3  # the quintic's known band, not exactly 1
    conv = torch.randn(8, 4, 3, 3)
    out = newton_schulz(conv)
    assert out.shape == conv.shape
    assert torch.allclose(out, newton_schulz(conv.reshape(8, -1)).reshape(conv.shape))


def test_split_sends_hidden_matrices_to_muon_and_heads_embeddings_biases_to_adamw():
    model = nn.ModuleDict({"embed": nn.Embedding(10, 4), "body": nn.Linear(4, 4), "conv": nn.Conv2d(2, 3, 3),
                           "head": nn.Linear(4, 2)})
    muon, adamw = split_muon_params(model)
    assert {id(p) for p in muon} == {id(model["body"].weight), id(model["conv"].weight)}
    assert len(adamw) == 5
    opt = MuonAdamW(model)
    assert [g["kind"] for g in opt.param_groups] == ["muon", "adamw"]


def test_bad_options_are_clear_errors():
    with pytest.raises(ValueError, match="needs `model`"):
        MuonAdamW()
    with pytest.raises(ValueError, match="ns_dtype"):
        MuonAdamW(params=[nn.Parameter(torch.zeros(2, 2))], ns_dtype="int8")
    with pytest.raises(ValueError, match="adjust_lr_fn"):
        MuonAdamW(params=[nn.Parameter(torch.zeros(2, 2))], adjust_lr_fn="bogus")
