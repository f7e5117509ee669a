"""SegNet-MTAN (Liu, Johns & Davison, "End-to-End Multi-Task Learning with Attention", CVPR 2019, §3–4).

A shared SegNet (VGG-style encoder with max-pool indices, mirrored decoder with max-unpooling) plus, per
task, soft-attention modules at every encoder and decoder stage: mask = σ(BN(1×1 conv(ReLU(BN(1×1 conv(·))))))
applied elementwise to the shared features (eqs. 1–2). The attention stages feed each other through a shared
3×3 conv per stage (`encoder_block_att`, `decoder_block_att`). Heads: 3×3 conv then 1×1 conv; segmentation
logits, depth, unit surface normals. `filters` defaults to the paper's [64, 128, 256, 512, 512].
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from reprolab.mtl.architectures import MTLArchitecture


def conv_bn(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True))


def attention(c_in: int, c_mid: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_mid, 1), nn.BatchNorm2d(c_mid), nn.ReLU(inplace=True),
                         nn.Conv2d(c_mid, c_out, 1), nn.BatchNorm2d(c_out), nn.Sigmoid())


def head(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_in, 3, padding=1), nn.Conv2d(c_in, c_out, 1))


TASK_CHANNELS = {"seg": None, "depth": 1, "normal": 3}


class SegNetMTAN(MTLArchitecture):
    def __init__(self, tasks: Sequence[str] = ("seg", "depth", "normal"), num_classes: int = 13,
                 filters: Sequence[int] = (64, 128, 256, 512, 512)):
        super().__init__()
        f = list(filters)
        self.tasks = list(tasks)
        n = len(f)
        self.encoder_block = nn.ModuleList([conv_bn(3 if i == 0 else f[i - 1], f[i]) for i in range(n)])
        self.conv_block_enc = nn.ModuleList(
            [conv_bn(f[i], f[i]) if i == 0 else nn.Sequential(conv_bn(f[i], f[i]), conv_bn(f[i], f[i])) for i in range(n)])
        up = [f[max(k - 1, 0)] for k in range(n)]  # decoder stage k maps f[k] → f[k−1] (f0 at k = 0)
        self.decoder_block = nn.ModuleList([conv_bn(f[k], up[k]) for k in range(n)])
        self.conv_block_dec = nn.ModuleList(
            [conv_bn(up[k], up[k]) if k == 0 else nn.Sequential(conv_bn(up[k], up[k]), conv_bn(up[k], up[k])) for k in range(n)])
        self.encoder_block_att = nn.ModuleList([conv_bn(f[i], f[min(i + 1, n - 1)]) for i in range(n)])
        self.decoder_block_att = nn.ModuleList([conv_bn(f[k], up[k]) for k in range(n)])
        self.encoder_att = nn.ModuleList([nn.ModuleList(
            [attention(f[0], f[0], f[0]) if i == 0 else attention(2 * f[i], f[i], f[i]) for i in range(n)])
            for _ in self.tasks])
        self.decoder_att = nn.ModuleList([nn.ModuleList(
            [attention(f[k] + up[k], up[k], up[k]) for k in range(n)]) for _ in self.tasks])
        unknown = [t for t in self.tasks if t not in TASK_CHANNELS]
        if unknown:
            raise ValueError(f"SegNet-MTAN tasks {unknown} unknown; use {sorted(TASK_CHANNELS)}")
        self.heads = nn.ModuleList([head(f[0], TASK_CHANNELS[t] or num_classes) for t in self.tasks])

    def forward(self, x: Tensor) -> list[Tensor]:
        n = len(self.encoder_block)
        enc0, enc1, indices = [], [], []
        h = x
        for i in range(n):
            a = self.encoder_block[i](h)
            b = self.conv_block_enc[i](a)
            h, idx = F.max_pool2d(b, 2, 2, return_indices=True)
            enc0.append(a), enc1.append(b), indices.append(idx)
        ups, dec = [], []
        for i in range(n):
            k = n - 1 - i
            u = F.max_unpool2d(h, indices[k], 2, 2, output_size=enc1[k].shape[-2:])
            h = self.conv_block_dec[k](self.decoder_block[k](u))
            ups.append(u), dec.append(h)
        outputs = []
        for j, task in enumerate(self.tasks):
            a = None
            for i in range(n):
                inp = enc0[i] if i == 0 else torch.cat([enc0[i], a], 1)
                mask = self.encoder_att[j][i](inp)
                a = F.max_pool2d(self.encoder_block_att[i](mask * enc1[i]), 2, 2)
            for i in range(n):
                k = n - 1 - i
                a = F.interpolate(a, size=ups[i].shape[-2:], mode="bilinear", align_corners=True)
                a = self.decoder_block_att[k](a)
                a = self.decoder_att[j][k](torch.cat([ups[i], a], 1)) * dec[i]
            out = self.heads[j](a)
            outputs.append(F.normalize(out, dim=1) if task == "normal" else out)
        return outputs

    def task_specific_parameters(self) -> list[nn.Parameter]:
        return [*self.encoder_att.parameters(), *self.decoder_att.parameters(), *self.heads.parameters()]

    def shared_parameters(self) -> list[nn.Parameter]:
        specific = {id(p) for p in self.task_specific_parameters()}
        return [p for p in self.parameters() if id(p) not in specific]
