"""Stages 1 and 2 as trainer tasks: the frozen parts, each pre-trained in its own preset.

`EncoderPretrainTask` trains the SigLIP stand-in with the pairwise sigmoid loss between two views of each
image (encoder.py) and tests view retrieval (is each view's nearest other view its own image?).
`EditorPretrainTask` trains the DiT editor by rectified flow (flow.py) as an identity, instruction-free
editor: the context is the clean image and the target is the same image, so the editor learns to
reproduce its context; it tests the PSNR of an Euler-sampled reconstruction.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from experiments.delta_adapter.encoder import random_view, sigmoid_loss
from experiments.delta_adapter.flow import euler_sample, interpolate, velocity_target
from experiments.delta_adapter.metrics import psnr
from reprolab.tasks.base import Task


class EncoderPretrainTask(Task):
    def __init__(self, model, optimizer, scheduler=None, max_shift: int = 2, noise: float = 0.03):
        super().__init__(model, optimizer, scheduler)
        self.max_shift, self.noise = max_shift, noise
        self.views = torch.Generator().manual_seed(0)

    def _views(self, images: torch.Tensor, generator: torch.Generator):
        return [self.model.pooled(random_view(images, generator, self.max_shift, self.noise)) for _ in range(2)]

    def training_step(self, batch, batch_idx):
        x, y = self._views(batch[0], self.views)
        loss = sigmoid_loss(x, y, self.model.logit_scale, self.model.logit_bias)
        self.log("train/loss", loss, on_step=True, prog_bar=True)
        return loss

    def test_step(self, batch, batch_idx):
        x, y = self._views(batch[0], torch.Generator().manual_seed(batch_idx))
        size = len(x)
        self.log("test/siglip_loss", sigmoid_loss(x, y, self.model.logit_scale, self.model.logit_bias), batch_size=size)
        retrieved = (x @ y.T).argmax(1) == torch.arange(size, device=x.device)
        self.log("test/view_retrieval", retrieved.float().mean(), batch_size=size)


class EditorPretrainTask(Task):
    def __init__(self, model, optimizer, scheduler=None, sample_steps: int = 8):
        super().__init__(model, optimizer, scheduler)
        self.sample_steps = sample_steps

    def training_step(self, batch, batch_idx):
        images = batch[0]
        noise, t = torch.randn_like(images), torch.rand(len(images), device=images.device)
        velocity = self.model(interpolate(images, noise, t), t, images)
        loss = F.mse_loss(velocity, velocity_target(images, noise))
        self.log("train/loss", loss, on_step=True, prog_bar=True)
        return loss

    def test_step(self, batch, batch_idx):
        images = batch[0]
        noise = torch.randn(images.shape, generator=torch.Generator().manual_seed(batch_idx)).to(images)
        out = euler_sample(lambda x, t: self.model(x, t, images), noise, self.sample_steps).clamp(0, 1)
        self.log("test/identity_psnr", psnr(out, images).mean(), batch_size=len(images))
