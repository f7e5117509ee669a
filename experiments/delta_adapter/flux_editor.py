"""Paper scale, the frozen editor: a FLUX.1-Kontext-class transformer through diffusers, with decoupled
cross-attention from diffusers' own `FluxIPAdapterAttnProcessor` on every dual-stream block.

Kontext's conditioning: the noisy target's packed 2 x 2 patch tokens are followed by the context image's,
whose rotary position ids carry 1 in their first axis (the target's carry 0). No text: the text stream is
one zero token and a zero pooled vector (the method uses no prompt). The IP processors project the
adapter's K edit tokens to keys and values, Z = Attn(Q, K, V) + lambda Attn(Q, K', V') (IP-Adapter eq. 5);
their value projections start at zero, and they are the only trainable part of the editor
(`requires_grad`), everything else frozen. `pretrained` names a hub repo with `transformer/` and `vae/`
subfolders (default black-forest-labs/FLUX.1-Kontext-dev): the flow then runs in the VAE's latent space
(`encode` / `decode`). `pretrained: null` builds the same class from `config` with random weights and runs
in pixel space (3 channels packed 2 x 2 = 12 input channels), for offline tests and `+data/fake=on` runs.
"""

from __future__ import annotations

import torch
from torch import nn

from reprolab.config.extras import require
from reprolab.models.hub import from_hub

TINY_FLUX = {"patch_size": 1, "in_channels": 12, "num_layers": 1, "num_single_layers": 1, "attention_head_dim": 16,
             "num_attention_heads": 2, "joint_attention_dim": 32, "pooled_projection_dim": 32,
             "guidance_embeds": True, "axes_dims_rope": (4, 6, 6)}


def pack(x: torch.Tensor) -> torch.Tensor:
    """(B, C, H, W) -> (B, HW/4, 4C): FLUX's 2 x 2 packing."""
    b, c, h, w = x.shape
    return x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(b, (h // 2) * (w // 2), 4 * c)


def unpack(tokens: torch.Tensor, channels: int, height: int, width: int) -> torch.Tensor:
    b = len(tokens)
    x = tokens.view(b, height // 2, width // 2, channels, 2, 2).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(b, channels, height, width)


def position_ids(height: int, width: int, role: int) -> torch.Tensor:
    """(HW/4, 3) rotary ids (role, row, column) of a packed image; role 1 marks Kontext's context image."""
    rows, cols = torch.meshgrid(torch.arange(height // 2), torch.arange(width // 2), indexing="ij")
    return torch.stack([torch.full_like(rows, role), rows, cols], dim=-1).view(-1, 3).float()


class FluxKontextEditor(nn.Module):
    def __init__(self, token_dim: int, num_tokens: int, pretrained: str | None = "black-forest-labs/FLUX.1-Kontext-dev",
                 config: dict | None = None, guidance: float = 2.5):
        super().__init__()
        diffusers = require("diffusers", "delta_adapter")
        from diffusers.models.transformers.transformer_flux import (
            FluxAttnProcessor,
            FluxIPAdapterAttnProcessor,
        )

        if pretrained:
            with from_hub(pretrained, "task.editor.pretrained"):
                self.transformer = diffusers.FluxTransformer2DModel.from_pretrained(pretrained, subfolder="transformer")
                self.vae = diffusers.AutoencoderKL.from_pretrained(pretrained, subfolder="vae")
        else:
            self.transformer = diffusers.FluxTransformer2DModel(**(config or TINY_FLUX))
            self.vae = None
        self.requires_grad_(False)
        cfg = self.transformer.config
        inner = cfg.num_attention_heads * cfg.attention_head_dim
        self.injection = nn.ModuleList(FluxIPAdapterAttnProcessor(inner, token_dim, num_tokens)
                                       for _ in self.transformer.transformer_blocks)
        for processor in self.injection:
            nn.init.zeros_(processor.to_v_ip[0].weight)
            nn.init.zeros_(processor.to_v_ip[0].bias)
        processors = {}
        for name in self.transformer.attn_processors:
            block = int(name.split(".")[1])
            processors[name] = self.injection[block] if name.startswith("transformer_blocks.") else FluxAttnProcessor()
        self.transformer.set_attn_processor(processors)
        self.injection_shape = ("tokens", token_dim)
        self.guidance = guidance
        self.channels = cfg.in_channels // 4

    def encode(self, images: torch.Tensor) -> torch.Tensor:
        """Images in [0, 1] -> the flow's space: FLUX VAE latents (shifted, scaled), or the pixels themselves."""
        if self.vae is None:
            return 2 * images - 1
        latents = self.vae.encode(2 * images - 1).latent_dist.mode()
        return (latents - self.vae.config.shift_factor) * self.vae.config.scaling_factor

    def decode(self, latents: torch.Tensor) -> torch.Tensor:
        if self.vae is None:
            return (latents + 1) / 2
        latents = latents / self.vae.config.scaling_factor + self.vae.config.shift_factor
        return (self.vae.decode(latents).sample + 1) / 2

    def forward(self, x_t: torch.Tensor, t: torch.Tensor, context: torch.Tensor, ip: torch.Tensor | None = None,
                ip_scale: float = 1.0) -> torch.Tensor:
        """The velocity of x_t (the flow's space) given the context (already `encode`d) and K edit tokens."""
        b, c, h, w = x_t.shape
        cfg = self.transformer.config
        tokens = torch.cat([pack(x_t), pack(context)], dim=1)
        ids = torch.cat([position_ids(h, w, 0), position_ids(h, w, 1)]).to(x_t)
        text = x_t.new_zeros(b, 1, cfg.joint_attention_dim)
        for processor in self.injection:
            processor.scale = [ip_scale if ip is not None else 0.0]
        edit = ip if ip is not None else x_t.new_zeros(b, 1, self.injection[0].cross_attention_dim)
        out = self.transformer(hidden_states=tokens, encoder_hidden_states=text,
                               pooled_projections=x_t.new_zeros(b, cfg.pooled_projection_dim), timestep=t,
                               img_ids=ids, txt_ids=x_t.new_zeros(1, 3),
                               guidance=x_t.new_full((b,), self.guidance) if cfg.guidance_embeds else None,
                               joint_attention_kwargs={"ip_hidden_states": [edit]}, return_dict=False)[0]
        return unpack(out[:, : (h // 2) * (w // 2)], c, h, w)
