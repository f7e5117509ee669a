"""Backbones, the ArcFace head and the SupCon loss."""

from __future__ import annotations

import math

import pytest
import torch

from experiments.deepfakegenome.models import (
    ArcFaceHead,
    DeepfakeNet,
    SmallCNN,
    SpectrumBackbone,
    _dct_matrix,
    supcon_loss,
    torchvision_backbone,
)
from reprolab.cli.errors import ConfigError, DatasetNotFoundError


@pytest.mark.parametrize("backbone", [SmallCNN(8), SpectrumBackbone("fft", 32, pool=8, hidden=16),
                                      SpectrumBackbone("dct", 32, pool=8, hidden=16)])
@pytest.mark.parametrize("head", ["linear", "arcface"])
def test_deepfake_net_shapes(backbone, head):
    net = DeepfakeNet(backbone, num_classes=5, embed_dim=12, head=head)
    x = torch.rand(3, 3, 32, 32)
    assert net(x).shape == (3, 5) and net(x, torch.tensor([0, 1, 2])).shape == (3, 5)
    assert torch.allclose(net.embed(x).norm(dim=1), torch.ones(3), atol=1e-5)


def test_wrong_inputs_raise_clear_errors():
    net = DeepfakeNet(SmallCNN(8), num_classes=2)
    with pytest.raises(ConfigError, match=r"\[B, C, H, W\]"):
        net(torch.rand(3, 32, 32))
    with pytest.raises(ConfigError, match="head"):
        DeepfakeNet(SmallCNN(8), num_classes=2, head="cosface")
    with pytest.raises(ConfigError, match="image_size"):
        SpectrumBackbone("dct", 32)(torch.rand(1, 3, 16, 16))


def test_dct_matrix_is_orthonormal_and_spectrum_sees_checkerboards():
    d = _dct_matrix(16)
    assert torch.allclose(d @ d.T, torch.eye(16), atol=1e-5)
    spec = SpectrumBackbone("fft", 16, pool=16)
    checker = (torch.arange(16)[:, None] + torch.arange(16)[None]) % 2
    flat, board = torch.full((1, 3, 16, 16), 0.5), 0.5 + 0.1 * checker.float().expand(1, 3, 16, 16)
    # the Nyquist corner (index 0 after fftshift) lights up only for the checkerboard
    assert spec.spectrum(board)[0, 0, 0, 0] > spec.spectrum(flat)[0, 0, 0, 0] + 1


def test_arcface_margin_lowers_only_the_true_class_logit():
    head = ArcFaceHead(4, 3, scale=10.0, margin=0.3)
    emb = torch.randn(5, 4)
    plain, margin = head(emb), head(emb, torch.tensor([0, 1, 2, 0, 1]))
    true = torch.nn.functional.one_hot(torch.tensor([0, 1, 2, 0, 1]), 3).bool()
    assert torch.allclose(plain[~true], margin[~true])
    theta = torch.acos((plain[true] / 10).clamp(-1, 1))
    assert torch.allclose(margin[true], 10 * torch.cos(theta + 0.3), atol=1e-4)


def test_supcon_hand_case():
    # two pairs of identical unit vectors, orthogonal across pairs: for each anchor, the positive has
    # similarity 1/τ and the two negatives 0 -> loss = -log(e^{1/τ} / (e^{1/τ} + 2))
    z = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    tau = 0.5
    expected = -math.log(math.exp(1 / tau) / (math.exp(1 / tau) + 2))
    assert supcon_loss(z, torch.tensor([0, 0, 1, 1]), tau).item() == pytest.approx(expected, rel=1e-5)
    assert supcon_loss(z, torch.tensor([0, 1, 2, 3]), tau).item() == 0.0  # no positives at all


def test_torchvision_backbones_and_local_weights(tmp_path):
    net = torchvision_backbone("resnet18")
    assert net.eval()(torch.rand(1, 3, 32, 32)).shape == (1, net.out_features) == (1, 512)
    assert torchvision_backbone("efficientnet_b0").out_features == 1280
    state = torchvision_backbone("resnet18").state_dict()
    torch.save(state, tmp_path / "r18.pt")
    loaded = torchvision_backbone("resnet18", str(tmp_path / "r18.pt"))
    assert torch.equal(loaded.conv1.weight, state["conv1.weight"])
    with pytest.raises(DatasetNotFoundError, match="weights_path"):
        torchvision_backbone("resnet18", str(tmp_path / "missing.pt"))
    torch.save({"conv1.weight": state["conv1.weight"]}, tmp_path / "partial.pt")
    with pytest.raises(ConfigError, match="not a torchvision"):
        torchvision_backbone("resnet18", str(tmp_path / "partial.pt"))
    with pytest.raises(ConfigError, match="unsupported"):
        torchvision_backbone("vit_b_16")


@pytest.mark.slow
def test_resnet50_backbone_builds():
    assert torchvision_backbone("resnet50").out_features == 2048
