"""The language model as the scaffolds see it: text prompts in, answer text out, every token counted.

Tokens spent by one call = prompt tokens + generated tokens (what an API bills and what the authors' token-ratio
table sums: input + output of every LM call). A scaffold that re-reads a growing context pays for it on each call.
Generation goes through `reprolab.lm.sampling.sample_completions` (the small LM's forward loop, or
`model.generate` for a Hugging Face model), so the toy and Qwen3 share this path.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from reprolab.lm.sampling import sample_completions


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: int       # prompt + generated


class TextReader:
    """`complete(prompts, temperature)`: one completion per prompt, in batches of `batch_size` (padding is hidden)."""

    def __init__(self, model, tokenizer, max_new_tokens: int = 4, batch_size: int = 64):
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size

    def encode(self, prompt: str) -> list[int]:
        bos = [self.tokenizer.bos_id] if self.tokenizer.bos_id is not None else []
        return bos + self.tokenizer.encode(prompt)

    @torch.no_grad()
    def complete(self, prompts: list[str], temperature: float = 0.0) -> list[Completion]:
        out = []
        for start in range(0, len(prompts), self.batch_size):
            contexts = [self.encode(p) for p in prompts[start:start + self.batch_size]]
            new = sample_completions(self.model, contexts, self.max_new_tokens, temperature, self.tokenizer.eos_id,
                                     self.tokenizer.pad_id)
            out += [Completion(self.tokenizer.decode(ids), len(c) + len(ids)) for c, ids in zip(contexts, new, strict=True)]
        return out
