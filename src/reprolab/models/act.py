"""ACT, Action Chunking with Transformers (Zhao, Kumar, Levine, Finn 2023, "Learning Fine-Grained Bimanual
Manipulation with Low-Cost Hardware", §IV), on a flat observation vector instead of camera images.

A conditional VAE. Its encoder (§IV-B, a BERT-like transformer) reads a [CLS] token, the observation and the
k-step action chunk and gives the mean and log-variance of a style variable z; the policy (the CVAE decoder)
reads the observation and z with a transformer encoder and predicts the whole chunk of k future actions with
a transformer decoder whose k queries are learned embeddings (DETR-style). Training samples z by the
reparameterisation trick; at test time z = 0, the prior's mean. The loss (L1 on the chunk + β · KL) is
`chunk_loss`, which every task training ACT calls; `executor()` is its closed-loop rule, the temporal ensemble of
overlapping chunks at rate `ensemble_m` (`temporal_ensemble.py`).

Ours, not the paper's: the observation (a vector, no images) is projected by one linear layer into
`obs_tokens` tokens where the paper has a ResNet feature map per camera plus one joint-position token; the
CVAE encoder reads those same observation tokens where the paper's reads the joint positions only.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from reprolab.models.executor import cpu_predictor
from reprolab.models.temporal_ensemble import TemporalEnsemble


def kl_divergence(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """KL(N(mu, exp(logvar)) || N(0, I)) summed over the latent dimensions, averaged over the batch:
    −½ Σ (1 + log σ² − μ² − σ²), as ACT's released `kl_divergence`."""
    return (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp())).sum(-1).mean()


def _encoder(d_model: int, heads: int, ff: int, dropout: float, layers: int) -> nn.TransformerEncoder:
    layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout, batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class ACT(nn.Module):
    """`forward(obs, actions=None, is_pad=None) -> (chunk (B, k, A), mu, logvar)`; mu and logvar are None when
    no actions are given (test time, z = 0)."""

    def __init__(self, in_features: int, num_classes: int, chunk: int = 10, d_model: int = 64, heads: int = 4,
                 enc_layers: int = 2, dec_layers: int = 2, ff: int = 256, latent: int = 32, obs_tokens: int = 4,
                 dropout: float = 0.1, ensemble_m: float = 0.01):
        super().__init__()
        if chunk < 1 or obs_tokens < 1 or d_model % heads:
            raise ValueError(f"ACT needs chunk >= 1, obs_tokens >= 1 and d_model divisible by heads; got chunk={chunk}, "
                             f"obs_tokens={obs_tokens}, d_model={d_model}, heads={heads}")
        self.in_features, self.num_classes, self.chunk = in_features, num_classes, chunk
        self.latent, self.obs_tokens, self.d_model, self.ensemble_m = latent, obs_tokens, d_model, ensemble_m
        self.obs_proj = nn.Linear(in_features, obs_tokens * d_model)
        # the CVAE encoder: [CLS], observation tokens, action tokens -> (mu, logvar) of z
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model))
        self.action_proj = nn.Linear(num_classes, d_model)
        self.style_pos = nn.Parameter(torch.randn(1, 1 + obs_tokens + chunk, d_model) * 0.02)
        self.style_encoder = _encoder(d_model, heads, ff, dropout, enc_layers)
        self.style_head = nn.Linear(d_model, 2 * latent)
        # the policy: z token + observation tokens -> encoder; k learned queries -> decoder -> k actions
        self.latent_proj = nn.Linear(latent, d_model)
        self.obs_pos = nn.Parameter(torch.randn(1, 1 + obs_tokens, d_model) * 0.02)
        self.encoder = _encoder(d_model, heads, ff, dropout, enc_layers)
        self.queries = nn.Parameter(torch.randn(1, chunk, d_model) * 0.02)
        layer = nn.TransformerDecoderLayer(d_model, heads, ff, dropout, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, dec_layers)
        self.head = nn.Linear(d_model, num_classes)

    def _obs_tokens(self, obs: torch.Tensor) -> torch.Tensor:
        return self.obs_proj(obs.flatten(1)).view(len(obs), self.obs_tokens, self.d_model)

    def encode_style(self, tokens: torch.Tensor, actions: torch.Tensor, is_pad: torch.Tensor | None):
        """(mu, logvar) of z from the observation tokens and the action chunk; padded steps are masked out."""
        b = len(tokens)
        seq = torch.cat([self.cls.expand(b, -1, -1), tokens, self.action_proj(actions)], 1) + self.style_pos
        mask = None
        if is_pad is not None:
            mask = torch.cat([torch.zeros(b, 1 + self.obs_tokens, dtype=torch.bool, device=is_pad.device), is_pad], 1)
        out = self.style_encoder(seq, src_key_padding_mask=mask)[:, 0]
        mu, logvar = self.style_head(out).chunk(2, -1)
        return mu, logvar

    def forward(self, obs: torch.Tensor, actions: torch.Tensor | None = None, is_pad: torch.Tensor | None = None):
        tokens = self._obs_tokens(obs)
        if actions is None:
            mu = logvar = None
            z = tokens.new_zeros(len(obs), self.latent)
        else:
            mu, logvar = self.encode_style(tokens, actions, is_pad)
            z = mu + (0.5 * logvar).exp() * torch.randn_like(mu)
        memory = self.encoder(torch.cat([self.latent_proj(z)[:, None], tokens], 1) + self.obs_pos)
        out = self.decoder(self.queries.expand(len(obs), -1, -1), memory)
        return self.head(out), mu, logvar

    def executor(self) -> TemporalEnsemble:
        """Closed loop (§IV-A): query the chunk at every step with z = 0 and execute the temporal ensemble."""
        return TemporalEnsemble(cpu_predictor(self, lambda obs: self(obs)[0]), self.ensemble_m)


def action_chunks(actions: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """ACT's training targets from episodes `actions` (n, T, A): at every step t the next k actions
    a_t … a_{t+k−1} as (n, T, k, A), zero past the episode's end, and `is_pad` (n, T, k), True there."""
    n, steps, _ = actions.shape
    if k < 1:
        raise ValueError(f"the chunk length k must be >= 1; got {k}")
    padded = torch.cat([actions, actions.new_zeros(n, k - 1, actions.shape[2])], 1)
    chunks = padded.unfold(1, k, 1).transpose(2, 3)
    is_pad = (torch.arange(steps)[:, None] + torch.arange(k)[None, :]) >= steps
    return chunks, is_pad.expand(n, -1, -1)


def chunk_loss(out: torch.Tensor, target: torch.Tensor, is_pad: torch.Tensor, mu: torch.Tensor, logvar: torch.Tensor,
               kl_weight: float, grip_weight: float | None = None):
    """ACT's training loss (§IV-B) on a predicted chunk `out` (B, k, A) against the demonstrated `target`:
    L1 over the chunk's real (unpadded) steps + `kl_weight` (β) · KL. Returns (loss, l1, grip). With
    `grip_weight`, the last output is a binary grip logit under BCE × grip_weight (its target 0 / 1) and the L1
    covers the others; without it (the paper) every output is under the L1 and grip is 0."""
    if grip_weight is None:
        l1 = masked_l1(out, target, is_pad)
        return l1 + kl_weight * kl_divergence(mu, logvar), l1, out.new_zeros(())
    l1 = masked_l1(out[..., :-1], target[..., :-1], is_pad)
    real = (~is_pad).to(out)
    grip = (F.binary_cross_entropy_with_logits(out[..., -1], target[..., -1], reduction="none") * real).sum() / real.sum()
    return l1 + grip_weight * grip + kl_weight * kl_divergence(mu, logvar), l1, grip


def masked_l1(out: torch.Tensor, target: torch.Tensor, is_pad: torch.Tensor) -> torch.Tensor:
    """Mean absolute error of chunks (B, k, A) over the real steps (is_pad False) and the A outputs."""
    real = (~is_pad).to(out)
    return ((out - target).abs().mean(-1) * real).sum() / real.sum()
