"""Completions from a causal LM: a model's own `generate_completions` (Hugging Face: `model.generate`) or, for a
plain `model(tokens, attention_mask) -> logits` network, the reference loop below (one full forward per token).

Contexts of different lengths are left-padded; the attention mask hides the padding and positions count real
tokens only, so a context's logits do not depend on its batch. A completion ends at EOS (kept: the policy
learns to stop) or after `max_new_tokens`. `temperature=0` is greedy.
"""

from __future__ import annotations

import torch


def left_pad(contexts: list[list[int]], pad_id: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens [B, T], attention_mask [B, T]) with each context flush right."""
    width = max(len(c) for c in contexts)
    tokens = torch.full((len(contexts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(contexts), width), dtype=torch.long)
    for i, context in enumerate(contexts):
        tokens[i, width - len(context):] = torch.as_tensor(context, dtype=torch.long)
        mask[i, width - len(context):] = 1
    return tokens.to(device), mask.to(device)


def right_pad(sequences: list[list[int]], pad_id: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens [B, T], attention_mask [B, T]) with each sequence flush left."""
    width = max(len(s) for s in sequences)
    tokens = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for i, sequence in enumerate(sequences):
        tokens[i, :len(sequence)] = torch.as_tensor(sequence, dtype=torch.long)
        mask[i, :len(sequence)] = 1
    return tokens.to(device), mask.to(device)


def until_eos(ids: list[int], eos_id: int) -> list[int]:
    """`ids` up to and including the first EOS."""
    return ids[:ids.index(eos_id) + 1] if eos_id in ids else ids


def next_token(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    if temperature == 0:
        return logits.argmax(-1)
    return torch.multinomial(torch.softmax(logits.float() / temperature, -1), 1).squeeze(1)


@torch.no_grad()
def sample_completions(model, contexts: list[list[int]], max_new_tokens: int, temperature: float, eos_id: int,
                       pad_id: int) -> list[list[int]]:
    """One completion per context (token ids, EOS included when emitted)."""
    if hasattr(model, "generate_completions"):
        return model.generate_completions(contexts, max_new_tokens, temperature, eos_id, pad_id)
    return sample_by_forward(model, contexts, max_new_tokens, temperature, eos_id, pad_id)


@torch.no_grad()
def sample_by_forward(model, contexts: list[list[int]], max_new_tokens: int, temperature: float, eos_id: int,
                      pad_id: int) -> list[list[int]]:
    """The reference loop: a full `model(tokens, attention_mask)` forward per new token (no KV cache)."""
    device = next(model.parameters()).device
    tokens, mask = left_pad(contexts, pad_id, device)
    alive = torch.ones(len(contexts), dtype=torch.bool, device=device)
    new = []
    for _ in range(max_new_tokens):
        token = next_token(model(tokens, attention_mask=mask)[:, -1], temperature)
        token = torch.where(alive, token, torch.full_like(token, pad_id))
        new.append(token)
        tokens, mask = torch.cat([tokens, token[:, None]], 1), torch.cat([mask, alive[:, None].long()], 1)
        alive &= token != eos_id
        if not alive.any():
            break
    if not new:
        return [[] for _ in contexts]
    rows = torch.stack(new, 1).tolist()
    return [until_eos(row, eos_id) for row in rows]
