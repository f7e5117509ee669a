"""The arms' networks. Each reads the evidence blocks it is given (`inputs`) from a segment batch and returns
per-beat logits [S, L, C]:

- `EvidenceNet`: every beat on its own: a small 1-D CNN over the waveform channels (`beat`, `context`), its
  pooled features concatenated with the scalar blocks (`rr`, `rhythm`, the context scalars), an MLP head.
  inputs [beat] is the isolated-beat CNN; [beat, rr] the de Chazal-style arm (morphology + RR intervals,
  de Chazal et al. 2004); [rr] alone the minimal evidence; [rr, context] the rich evidence.
- `SegmentGRU`: the same per-beat encoder, then a bidirectional GRU over the L beats of the segment, so a beat's
  label reads its neighbours' morphology and timing.
"""

from __future__ import annotations

import torch
from torch import nn

from experiments.deeparrhythmia.features import CONTEXT_SCALARS, RHYTHM_FEATURES, RR_FEATURES
from reprolab.cli.errors import ConfigError

WAVE_FIELD = {"beat": "beats", "context": "context"}  # block -> batch field
SCALAR_WIDTH = {"rr": RR_FEATURES, "rhythm": RHYTHM_FEATURES, "context": CONTEXT_SCALARS}
BLOCKS = ("beat", "rr", "rhythm", "context")


def check_inputs(inputs) -> tuple[str, ...]:
    inputs = tuple(inputs)
    unknown = [b for b in inputs if b not in BLOCKS]
    if not inputs or unknown:
        raise ConfigError(f"model.inputs must be a non-empty list of {', '.join(BLOCKS)}; got {list(inputs)}")
    return inputs


class BeatEncoder(nn.Module):
    """Per beat: conv(k7, stride 2) -> ReLU -> conv(k5, stride 2) -> ReLU -> global mean and max pooling over time,
    concatenated with the scalar blocks; `out_features` wide."""

    def __init__(self, inputs, channels: int = 16, hidden: int = 32):
        super().__init__()
        self.inputs = check_inputs(inputs)
        self.waves = [b for b in self.inputs if b in WAVE_FIELD]
        self.scalars = [b for b in self.inputs if b in SCALAR_WIDTH]
        width = sum(SCALAR_WIDTH[b] for b in self.scalars)
        self.conv = None
        if self.waves:
            self.conv = nn.Sequential(
                nn.Conv1d(len(self.waves), channels // 2, 7, stride=2, padding=3), nn.ReLU(),
                nn.Conv1d(channels // 2, channels, 5, stride=2, padding=2), nn.ReLU())
            width += 2 * channels
        self.mlp = nn.Sequential(nn.Linear(width, hidden), nn.ReLU())
        self.out_features = hidden

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        parts = []
        shape = batch["rr"].shape[:2]
        if self.conv is not None:
            waves = torch.stack([batch[WAVE_FIELD[b]] for b in self.waves], dim=2)          # [S, L, W, T]
            h = self.conv(waves.flatten(0, 1))                                   # [S*L, C, T']
            parts.append(torch.cat([h.mean(-1), h.amax(-1)], dim=-1).view(*shape, -1))
        for b in self.scalars:
            parts.append(batch["context_scalars"] if b == "context" else batch[b])
        return self.mlp(torch.cat(parts, dim=-1))


class EvidenceNet(nn.Module):
    def __init__(self, inputs, num_classes: int = 2, channels: int = 16, hidden: int = 32):
        super().__init__()
        self.encoder = BeatEncoder(inputs, channels, hidden)
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.encoder(batch))


class SegmentGRU(nn.Module):
    def __init__(self, inputs, num_classes: int = 2, channels: int = 16, hidden: int = 32, gru_hidden: int = 32):
        super().__init__()
        self.encoder = BeatEncoder(inputs, channels, hidden)
        self.gru = nn.GRU(hidden, gru_hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * gru_hidden, num_classes)

    def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        h, _ = self.gru(self.encoder(batch))
        return self.head(h)
