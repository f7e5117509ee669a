"""The networks and the flow: SigLIP's loss on a hand example, rectified-flow identities, the adapter's
LayerNorm difference and zero-init injection, and one-line errors for bad settings."""

import math

import pytest
import torch
import torch.nn.functional as F

from experiments.delta_adapter.adapter import DeltaAdapter
from experiments.delta_adapter.editor import TinyFlowEditor
from experiments.delta_adapter.encoder import TinyImageEncoder, sigmoid_loss
from experiments.delta_adapter.flow import clean_estimate, euler_sample, interpolate, velocity_target
from experiments.delta_adapter.metrics import leakage, psnr
from reprolab.cli.errors import ConfigError

torch.manual_seed(0)


def test_sigmoid_loss_matches_the_formula_on_two_pairs():
    x = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    y = torch.tensor([[0.6, 0.8], [0.0, 1.0]])
    t, b = torch.tensor(math.log(10.0)), torch.tensor(-10.0 + 5)
    logits = 10 * (x @ y.T) - 5   # [[1, -5], [3, 5]]
    z = torch.tensor([[1.0, -1.0], [-1.0, 1.0]])
    expected = -F.logsigmoid(z * logits).sum() / 2
    assert torch.isclose(sigmoid_loss(x, y, t, b), expected)
    assert torch.isclose(expected, (F.softplus(-torch.tensor(1.0)) + F.softplus(torch.tensor(-5.0))
                                    + F.softplus(torch.tensor(3.0)) + F.softplus(torch.tensor(-5.0))) / 2)


def test_rectified_flow_identities():
    x0, noise, t = torch.rand(3, 3, 4, 4), torch.randn(3, 3, 4, 4), torch.tensor([0.0, 0.3, 1.0])
    x_t = interpolate(x0, noise, t)
    assert torch.equal(x_t[0], x0[0]) and torch.equal(x_t[2], noise[2])
    assert torch.allclose(clean_estimate(x_t, t, velocity_target(x0, noise)), x0, atol=1e-6)
    # the exact velocity field of a single data point transports any noise onto it in one Euler step
    target = torch.rand(2, 3, 4, 4)
    out = euler_sample(lambda x, t: (x - target) / t.view(-1, 1, 1, 1), torch.randn(2, 3, 4, 4), steps=1)
    assert torch.allclose(out, target, atol=1e-6)


def adapter(**kw):
    return DeltaAdapter(encoder_width=8, editor_width=16, editor_depth=2, editor_heads=2, width=16, **kw)


def test_the_delta_is_the_difference_of_per_token_layernorms():
    a = adapter()
    src = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(a.delta(src, 3 * src + 1), torch.zeros(2, 5, 8), atol=1e-4)   # LN removes scale/shift
    raw = adapter(layernorm=False)
    assert torch.allclose(raw.delta(src, 3 * src + 1), 2 * src + 1, atol=1e-6)   # (3s+1)-s rounds where 2s+1 is near 0
    assert torch.allclose(adapter(delta_input="target").delta(src, src + 1), F.layer_norm(src + 1, (8,)))


def test_the_untrained_adapter_leaves_the_editor_unchanged_and_k_sets_the_token_count():
    editor = TinyFlowEditor(image_size=8, patch=2, width=16, depth=2, heads=2)
    for p in editor.parameters():     # a non-trivial editor: its zero-initialised heads randomised
        torch.nn.init.normal_(p, std=0.2)
    a = adapter(num_tokens=3)
    assert float(a.gate) == 0.0
    x, t, ctx = torch.rand(2, 3, 8, 8), torch.rand(2), torch.rand(2, 3, 8, 8)
    ip = a(torch.randn(2, 5, 8), torch.randn(2, 5, 8))
    assert len(ip) == 2 and ip[0][0].shape == (2, 2, 3, 8)
    assert torch.allclose(editor(x, t, ctx, ip), editor(x, t, ctx), atol=1e-6)
    torch.nn.init.normal_(a.to_v[0].weight)
    assert not torch.allclose(editor(x, t, ctx, a(torch.randn(2, 5, 8), torch.randn(2, 5, 8))), editor(x, t, ctx))
    tokens = adapter(num_tokens=7, injection="tokens")(torch.randn(2, 5, 8), torch.randn(2, 5, 8))
    assert tokens.shape == (2, 7, 16)


def test_both_context_modes_give_a_velocity_of_the_image_shape():
    for mode in ("channel", "sequence"):
        editor = TinyFlowEditor(image_size=8, patch=2, width=16, depth=1, heads=2, context_mode=mode)
        assert editor(torch.rand(2, 3, 8, 8), torch.rand(2), torch.rand(2, 3, 8, 8)).shape == (2, 3, 8, 8)
    assert TinyImageEncoder(image_size=8, patch=4, width=16, heads=2)(torch.rand(2, 3, 8, 8)).shape == (2, 4, 16)


def test_metrics_on_hand_examples():
    x = torch.zeros(1, 3, 2, 2)
    assert torch.isclose(psnr(x, x + 0.1), torch.tensor(20.0))
    out, ex, truth = torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 0.0]]), torch.tensor([[0.0, 1.0]])
    assert torch.equal(leakage(out, ex, truth), torch.tensor([1.0]))


def test_bad_adapter_settings_are_one_line():
    with pytest.raises(ConfigError, match="model.delta_input"):
        adapter(delta_input="sum")
    with pytest.raises(ConfigError, match="model.num_tokens"):
        adapter(num_tokens=0)
    with pytest.raises(ConfigError, match="model.injection"):
        adapter(injection="concat")
    with pytest.raises(ConfigError, match="model.encoder_width"):
        adapter().delta(torch.randn(1, 4, 6), torch.randn(1, 4, 6))
    with pytest.raises(ConfigError, match="model.context_mode"):
        TinyFlowEditor(context_mode="film")
