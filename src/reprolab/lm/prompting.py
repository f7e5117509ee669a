"""A language model asked a question in text: a model built on first use, a chat prompt, one completion.

Used where an LM is not the policy but a part of the environment (a judge, a rubric writer, a simulated user or
tool). The model is any policy reprolab.lm.sampling samples from (`HuggingFaceCausalLM`, or a plain
`model(tokens, attention_mask) -> logits` network); the tokenizer any of reprolab.lm.tokenizer's (or a paper's
with the same interface).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from reprolab.lm.sampling import sample_completions


class LazyModel:
    """A model factory (a Hydra partial) built once, in eval mode, on the first call."""

    def __init__(self, factory: Callable[[], torch.nn.Module]):
        self.factory, self.model = factory, None

    def get(self) -> torch.nn.Module:
        if self.model is None:
            self.model = self.factory().eval().requires_grad_(False)
        return self.model


def chat_text(tokenizer, message: str, thinking: bool = False) -> str:
    """`message` as one user turn in the tokenizer's chat template, ready for the assistant's answer (Qwen3: with
    `enable_thinking=thinking`, so no <think> block by default); a tokenizer without a template gets
    `message` + "\\nAnswer:"."""
    hf = getattr(tokenizer, "tokenizer", None)
    if getattr(hf, "chat_template", None):
        return hf.apply_chat_template([{"role": "user", "content": message}], tokenize=False,
                                      add_generation_prompt=True, enable_thinking=thinking)
    return f"{message}\nAnswer:"


def generate_text(model, tokenizer, text: str, max_new_tokens: int, temperature: float = 0.0,
                  max_prompt_tokens: int | None = None) -> str:
    """One completion of `text` (greedy at temperature 0), special tokens dropped; a prompt longer than
    `max_prompt_tokens` keeps its last tokens. The model answers in eval mode (its mode is restored after)."""
    context = ([tokenizer.bos_id] if tokenizer.bos_id is not None else []) + tokenizer.encode(text)
    if max_prompt_tokens is not None:
        context = context[-max_prompt_tokens:]
    was_training = model.training
    model.eval()
    try:
        ids = sample_completions(model, [context], max_new_tokens, temperature, tokenizer.eos_id, tokenizer.pad_id)[0]
    finally:
        model.train(was_training)
    return tokenizer.decode([i for i in ids if i != tokenizer.eos_id])
