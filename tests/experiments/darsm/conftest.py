"""The solver's float64 precision, for the modules that ask for it (a module-level switch leaks into every later
test of the xdist worker)."""

import pytest
import torch


@pytest.fixture
def float64_default():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(previous)


def small_net(seed: int = 0):
    """A 2-unit, 1-layer DARSM network with live (non-zero, halved) weights: the adjoint checks' closure."""
    from experiments.darsm.model import NeuralARSM

    torch.manual_seed(seed)
    net = NeuralARSM(hidden=2, depth=1, zero_init=False).double()
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(0.5)
    return net
