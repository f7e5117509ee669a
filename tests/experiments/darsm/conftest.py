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
