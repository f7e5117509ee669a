"""A Hugging Face `transformers` causal LM as a policy: `forward(tokens, attention_mask) -> logits`, sampling
through `model.generate`, LoRA through `peft` as an option.

`pretrained` is a Hub name (downloaded once into the HF cache) or a local folder, e.g. Qwen/Qwen3-8B; `config`
instead builds the architecture with random weights from a config dict (`model_type: qwen3`, the small dims of
an offline test). `dtype` is the weights' dtype (bfloat16 at paper scale). `lora` holds `peft.LoraConfig`
keys; the base weights are then frozen and the model with its adapters switched off is the frozen reference
policy (`adapters_disabled`), so KL to π_ref needs no second copy.
"""

from __future__ import annotations

from contextlib import contextmanager

import torch
from torch import nn

from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require
from reprolab.lm.sampling import left_pad, until_eos
from reprolab.models.hub import from_hub


class HuggingFaceCausalLM(nn.Module):
    def __init__(self, pretrained: str | None = None, config: dict | None = None, dtype: str = "float32",
                 lora: dict | None = None, gradient_checkpointing: bool = False, attn_implementation: str = "sdpa",
                 revision: str | None = None):
        super().__init__()
        if (pretrained is None) == (config is None):
            raise ConfigError("model: give exactly one of model.pretrained (a Hub name or a local folder) and "
                              "model.config (a transformers config dict with model_type)")
        require("transformers", "lm")
        from transformers import AutoConfig, AutoModelForCausalLM

        torch_dtype = getattr(torch, dtype, None)
        if not isinstance(torch_dtype, torch.dtype):
            raise ConfigError(f"model.dtype={dtype!r} is not a torch dtype (float32, bfloat16, float16)")
        if pretrained is not None:
            with from_hub(pretrained, "model.pretrained"):
                self.model = AutoModelForCausalLM.from_pretrained(pretrained, revision=revision, dtype=torch_dtype,
                                                                  attn_implementation=attn_implementation)
        else:
            settings = dict(config)
            self.model = AutoModelForCausalLM.from_config(AutoConfig.for_model(settings.pop("model_type"), **settings),
                                                          dtype=torch_dtype, attn_implementation=attn_implementation)
        if gradient_checkpointing:
            self.model.gradient_checkpointing_enable()
        self.has_adapters = bool(lora)
        if lora:
            peft = require("peft", "lm")
            self.model = peft.get_peft_model(self.model, peft.LoraConfig(**lora))

    def forward(self, tokens: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        positions = None if attention_mask is None else (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        return self.model(input_ids=tokens, attention_mask=attention_mask, position_ids=positions,
                          use_cache=False).logits

    @torch.no_grad()
    def generate_completions(self, contexts: list[list[int]], max_new_tokens: int, temperature: float, eos_id: int,
                             pad_id: int) -> list[list[int]]:
        """`model.generate` on the left-padded contexts: plain sampling at `temperature` (no top-k/top-p, so the
        samples come from the π_θ the objective scores), greedy at 0; completions cut after their first EOS."""
        tokens, mask = left_pad(contexts, pad_id, next(self.parameters()).device)
        sampling = {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0} if temperature > 0 \
            else {"do_sample": False}
        out = self.model.generate(input_ids=tokens, attention_mask=mask, max_new_tokens=max_new_tokens,
                                  eos_token_id=eos_id, pad_token_id=pad_id, **sampling)
        return [until_eos(row, eos_id) for row in out[:, tokens.shape[1]:].tolist()]

    @contextmanager
    def adapters_disabled(self):
        """The base model alone (LoRA off): the frozen reference policy."""
        with self.model.disable_adapter():
            yield
