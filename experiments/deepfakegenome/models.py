"""Backbones and heads for detection, attribution and retrieval.

Backbones map images to a feature vector (``out_features`` says its size):
* ``torchvision_backbone`` — ResNet-50 / EfficientNet-B0..B7 from torchvision, random init; ImageNet (or any)
  weights load only from a local file the user names (``weights_path``), never downloaded.
* ``SpectrumBackbone`` — a frequency-domain detector: per-channel log-magnitude FFT or DCT-II spectrum,
  average-pooled to ``pool`` x ``pool``, then an MLP (generator artefacts are peaks in the spectrum;
  Frank et al., ICML 2020; Durall et al., CVPR 2020).
* ``SmallCNN`` — a narrow stride-free-stem CNN for 32x32 CPU runs (the claim check).

``DeepfakeNet`` = backbone → embedding (linear + BN) → head. Heads: ``linear`` (softmax classifier) or
``arcface`` (additive angular margin, Deng et al., CVPR 2019, Eq. 3: logit_y = s·cos(θ_y + m)), the
metric-learning option for retrieval. ``supcon_loss`` is the supervised contrastive loss (Khosla et al.,
NeurIPS 2020, Eq. 2) that a task may add on the normalised embeddings.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
import torch.nn.functional as F
import torchvision
from torch import nn

from reprolab.cli.errors import ConfigError, DatasetNotFoundError


class SmallCNN(nn.Module):
    """Four 3x3 conv stages (BN, ReLU), max-pool between them, global average pool; no early stride so the
    first layers see the pixel-level traces."""

    def __init__(self, width: int = 32, in_channels: int = 3):
        super().__init__()
        chans = [in_channels, width, width, 2 * width, 4 * width]
        layers = []
        for i in range(4):
            layers += [nn.Conv2d(chans[i], chans[i + 1], 3, padding=1, bias=False), nn.BatchNorm2d(chans[i + 1]),
                       nn.ReLU(inplace=True)]
            if i < 3:
                layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.out_features = chans[-1]

    def forward(self, x):
        return self.features(x)


def _dct_matrix(n: int) -> torch.Tensor:
    """Orthonormal DCT-II matrix D (n x n): the 2-D DCT of X is D X D^T."""
    k = torch.arange(n, dtype=torch.float32)[:, None]
    i = torch.arange(n, dtype=torch.float32)[None, :]
    d = torch.cos(math.pi * (2 * i + 1) * k / (2 * n)) * math.sqrt(2 / n)
    d[0] /= math.sqrt(2)
    return d


class SpectrumBackbone(nn.Module):
    """log(|FFT|) or log(|DCT|) of each colour channel → average-pool to ``pool``² → MLP features."""

    def __init__(self, transform: str = "fft", image_size: int = 32, pool: int = 16, hidden: int = 256,
                 in_channels: int = 3):
        super().__init__()
        if transform not in ("fft", "dct"):
            raise ConfigError(f"model.backbone.transform must be 'fft' or 'dct', got {transform!r}")
        self.transform = transform
        self.register_buffer("dct", _dct_matrix(image_size), persistent=False)
        self.pool = pool
        self.mlp = nn.Sequential(nn.Flatten(), nn.LayerNorm(in_channels * pool * pool),
                                 nn.Linear(in_channels * pool * pool, hidden), nn.GELU(), nn.Linear(hidden, hidden),
                                 nn.GELU())
        self.out_features = hidden

    def spectrum(self, x: torch.Tensor) -> torch.Tensor:
        if self.transform == "fft":
            mag = torch.fft.fftshift(torch.fft.fft2(x, norm="ortho"), dim=(-2, -1)).abs()
        else:
            if x.shape[-1] != self.dct.shape[0] or x.shape[-2] != self.dct.shape[0]:
                raise ConfigError(f"DCT backbone built for {self.dct.shape[0]}px images got {tuple(x.shape[-2:])}; "
                                  "set model.backbone.image_size to data.image_size")
            mag = (self.dct @ x @ self.dct.T).abs()
        return F.adaptive_avg_pool2d(torch.log(mag + 1e-4), self.pool)

    def forward(self, x):
        return self.mlp(self.spectrum(x))


def torchvision_backbone(arch: str = "resnet50", weights_path: str | None = None) -> nn.Module:
    """A torchvision classifier with its last layer removed; ``out_features`` set. Random init unless
    ``weights_path`` names a local state dict (e.g. ImageNet weights the user downloaded)."""
    if arch not in ("resnet18", "resnet50") and not arch.startswith("efficientnet_b"):
        raise ConfigError(f"model.backbone.arch {arch!r} unsupported; use resnet18, resnet50 or efficientnet_b0..b7")
    net = getattr(torchvision.models, arch)(weights=None)
    if weights_path:
        path = Path(weights_path)
        if not path.is_file():
            raise DatasetNotFoundError(f"no weights at '{path}' (model.backbone.weights_path); download the "
                                       f"torchvision {arch} state dict there, or set weights_path=null")
        state = torch.load(path, map_location="cpu", weights_only=True)
        result = net.load_state_dict(state.get("state_dict", state), strict=False)  # the head may differ
        missing = [k for k in result.missing_keys if not k.startswith(("fc.", "classifier."))]
        if missing:
            raise ConfigError(f"'{path}' is not a torchvision {arch} state dict: missing {missing[:3]} ...")
    if arch.startswith("resnet"):
        net.out_features = net.fc.in_features
        net.fc = nn.Identity()
    else:
        net.out_features = net.classifier[-1].in_features
        net.classifier = nn.Identity()
    return net


class ArcFaceHead(nn.Module):
    """Cosine classifier with additive angular margin ``m`` on the true class and scale ``s`` (ArcFace Eq. 3).
    Without labels (evaluation) it returns the plain scaled cosines ``s·cos θ_j``."""

    def __init__(self, embed_dim: int, num_classes: int, scale: float = 16.0, margin: float = 0.2):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, embed_dim) / math.sqrt(embed_dim))
        self.scale, self.margin = scale, margin

    def forward(self, embedding: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        cosine = F.normalize(embedding, dim=1) @ F.normalize(self.weight, dim=1).T
        if labels is None:
            return self.scale * cosine
        theta = torch.acos(cosine.clamp(-1 + 1e-6, 1 - 1e-6))
        target = F.one_hot(labels, cosine.shape[1]).bool()
        return self.scale * torch.where(target, torch.cos(theta + self.margin), cosine)


class DeepfakeNet(nn.Module):
    """backbone → embedding → head. ``forward(x, labels=None)`` gives logits; ``embed(x)`` the unit-norm
    embedding used for retrieval and clustering."""

    def __init__(self, backbone: nn.Module, num_classes: int, embed_dim: int = 128, head: str = "linear",
                 arcface_scale: float = 16.0, arcface_margin: float = 0.2):
        super().__init__()
        if head not in ("linear", "arcface"):
            raise ConfigError(f"model.head must be 'linear' or 'arcface', got {head!r}")
        self.backbone = backbone
        self.neck = nn.Sequential(nn.Linear(backbone.out_features, embed_dim), nn.BatchNorm1d(embed_dim))
        self.head_type = head
        self.head = (nn.Linear(embed_dim, num_classes) if head == "linear"
                     else ArcFaceHead(embed_dim, num_classes, arcface_scale, arcface_margin))
        self.num_classes = num_classes

    def features(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 4:
            raise ConfigError(f"DeepfakeNet expects images [B, C, H, W], got shape {tuple(x.shape)}")
        return self.neck(self.backbone(x))

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.features(x), dim=1)

    def logits(self, feats: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        return self.head(feats, labels) if self.head_type == "arcface" else self.head(feats)

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        return self.logits(self.features(x), labels)


def supcon_loss(embeddings: torch.Tensor, labels: torch.Tensor, temperature: float = 0.1) -> torch.Tensor:
    """Supervised contrastive loss L^sup_out (Khosla et al. 2020, Eq. 2) over one batch of unit embeddings:
    for each anchor, the mean over its positives p of -log softmax_{a != i}(z_i·z_a / τ)[p]."""
    sim = embeddings @ embeddings.T / temperature
    self_mask = torch.eye(len(labels), dtype=torch.bool, device=labels.device)
    sim = sim.masked_fill(self_mask, float("-inf"))
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    positives = (labels[:, None] == labels[None, :]) & ~self_mask
    has_positive = positives.any(dim=1)
    if not has_positive.any():
        return embeddings.sum() * 0.0
    per_anchor = -(log_prob.masked_fill(~positives, 0.0).sum(1)) / positives.sum(1).clamp(min=1)
    return per_anchor[has_positive].mean()
