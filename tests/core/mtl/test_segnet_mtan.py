"""SegNet-MTAN: output shapes, unit normals, and a shared/specific split that covers every parameter once."""

import pytest
import torch

from reprolab.mtl.schedules import step_decay
from reprolab.mtl.segnet_mtan import SegNetMTAN


def test_outputs_and_parameter_split():
    torch.manual_seed(0)
    model = SegNetMTAN(filters=(4, 8, 8, 16, 16))
    seg, depth, normal = model(torch.randn(2, 3, 32, 64))
    assert seg.shape == (2, 13, 32, 64) and depth.shape == (2, 1, 32, 64) and normal.shape == (2, 3, 32, 64)
    assert torch.allclose(normal.norm(dim=1), torch.ones(2, 32, 64), atol=1e-5)
    shared, specific = model.shared_parameters(), model.task_specific_parameters()
    assert len(shared) + len(specific) == len(list(model.parameters()))
    assert not {id(p) for p in shared} & {id(p) for p in specific}


def test_paper_size_and_cityscapes_tasks():
    with torch.device("meta"):  # count without allocating or initialising 44 M weights
        full = SegNetMTAN()
    assert sum(p.numel() for p in full.parameters()) == pytest.approx(44.4e6, rel=0.01)
    seg, depth = SegNetMTAN(tasks=("seg", "depth"), num_classes=7, filters=(4, 4, 8, 8, 8))(torch.randn(1, 3, 32, 32))
    assert seg.shape[1] == 7 and depth.shape[1] == 1
    with pytest.raises(ValueError, match="unknown"):
        SegNetMTAN(tasks=("edges",))


def test_step_decay_halves_at_the_boundary():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = step_decay(opt, total_steps=10, at_fraction=0.5, gamma=0.5)
    lrs = []
    for _ in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == [1.0] * 5 + [0.5] * 5
