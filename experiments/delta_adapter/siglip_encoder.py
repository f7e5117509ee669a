"""Paper scale, the frozen vision encoder: SigLIP through transformers (`SiglipVisionModel`).

The same interface as the CPU stand-in (encoder.py): `forward(images)` gives the token feature map
(B, N, hidden) of images in [0, 1] (resized to the model's input size, normalised by SigLIP's mean 0.5 and
std 0.5), `pooled(images)` the unit-norm pooled embedding, `width` the feature size. `pretrained` names a
hub checkpoint (default google/siglip-so400m-patch14-384); `pretrained: null` builds the same class from
`config` with random weights (offline tests and `+data/fake=on` runs).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from reprolab.config.extras import require
from reprolab.models.hub import from_hub

TINY_SIGLIP = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
               "image_size": 32, "patch_size": 8}


class SiglipFeatureEncoder(nn.Module):
    def __init__(self, pretrained: str | None = "google/siglip-so400m-patch14-384", config: dict | None = None):
        super().__init__()
        transformers = require("transformers", "delta_adapter")
        if pretrained:
            with from_hub(pretrained, "task.encoder.pretrained"):
                self.vision = transformers.SiglipVisionModel.from_pretrained(pretrained)
        else:
            self.vision = transformers.SiglipVisionModel(transformers.SiglipVisionConfig(**(config or TINY_SIGLIP)))
        self.image_size = self.vision.config.image_size
        self.width = self.vision.config.hidden_size

    def _outputs(self, images: torch.Tensor):
        if images.shape[-1] != self.image_size:
            images = F.interpolate(images, size=self.image_size, mode="bilinear", antialias=True, align_corners=False)
        return self.vision(pixel_values=(images - 0.5) / 0.5)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self._outputs(images).last_hidden_state

    def pooled(self, images: torch.Tensor) -> torch.Tensor:
        return F.normalize(self._outputs(images).pooler_output, dim=-1)
