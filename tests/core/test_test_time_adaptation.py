"""reprolab.tasks.test_time_adaptation: the per-item fine-tune moves only the chosen parameters, lowers the item's
loss, and `restored` puts every value back."""

import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.tasks.test_time_adaptation import adapt, adaptable_parameters, restored


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    net[0].bias.requires_grad_(False)   # frozen: never adaptable
    return net


def test_adapt_lowers_the_items_loss_and_restored_puts_the_weights_back():
    net, x, y = model(), torch.randn(8, 3), torch.randn(8, 1)
    loss = lambda: torch.nn.functional.mse_loss(net(x), y)  # noqa: E731
    params = adaptable_parameters(net, None)
    before = {n: p.detach().clone() for n, p in net.named_parameters()}
    start = loss().item()
    with restored(params):
        adapt(loss, params, steps=50, lr=1e-2)
        assert loss().item() < 0.5 * start
    for name, value in net.named_parameters():
        assert torch.equal(value, before[name]), name


def test_only_the_named_prefixes_move():
    net = model()
    params = adaptable_parameters(net, ["1"])
    assert sorted(params) == ["1.bias", "1.weight"]
    first = net[0].weight.detach().clone()
    adapt(lambda: net(torch.ones(2, 3)).sum(), params, steps=3, lr=0.1)
    assert torch.equal(net[0].weight, first)
    assert "0.bias" not in adaptable_parameters(net, None)   # frozen parameters are never adapted


def test_zero_steps_or_zero_lr_change_nothing():
    net = model()
    before = [p.detach().clone() for p in net.parameters()]
    for steps, lr in ((0, 1e-2), (5, 0.0)):
        adapt(lambda: net(torch.ones(2, 3)).sum(), adaptable_parameters(net, None), steps=steps, lr=lr)
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters(), strict=True))


def test_a_prefix_that_names_nothing_is_one_line_naming_the_key():
    with pytest.raises(ConfigError, match=r"task\.tta_params=\['encoder'\].*names no trainable parameter"):
        adaptable_parameters(model(), ["encoder"])
