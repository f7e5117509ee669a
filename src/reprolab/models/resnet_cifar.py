"""CIFAR ResNets (He et al., 2016): 3×3 stem, no max-pool, so 32×32 inputs keep their resolution.

`resnet18` is the ResNet-18 used in CIFAR-10 optimizer papers (11.2M parameters); `small` is a
narrow, shallow variant that trains in minutes on two CPU cores.
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class CifarResNet(nn.Module):
    def __init__(self, blocks: tuple[int, ...] = (2, 2, 2, 2), width: int = 64, num_classes: int = 10,
                 in_channels: int = 3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_channels, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        layers, c_in = [], width
        for stage, n in enumerate(blocks):
            c_out = width * 2**stage
            for i in range(n):
                layers.append(BasicBlock(c_in, c_out, stride=2 if (i == 0 and stage > 0) else 1))
                c_in = c_out
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(c_in, num_classes)

    def features(self, x):
        return F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1).flatten(1)

    def forward(self, x):
        return self.head(self.features(x))
