"""A copy (pointer) head for a causal LM: the pointer-generator of See et al. 2017 (§2.2, eq. 9), the copying of
extractive readers (pointer networks, Vinyals et al. 2015; CopyNet, Gu et al. 2016).

At position t one attention head scores the earlier positions j <= t of the same sequence, a_tj = softmax_j(q_t·k_j
/ √d); the copy distribution puts a_tj on token x_j (summed over repeats). A gate p_gen = σ(w·h_t) mixes it with the
LM head's vocabulary distribution: P(v) = p_gen P_vocab(v) + (1 − p_gen) Σ_{j: x_j = v} a_tj. The head returns
log P, which a cross-entropy and a sampler read as logits (softmax(log P) = P), so a task and `sample_completions`
use it unchanged. An answer that stands in the context is then one attention step away instead of being routed
through the residual stream to the vocabulary.

`shift` = 1 keys position j by the state one step earlier, k_j = W_k h_{j-1}, and still copies x_j: the head finds
an earlier place whose state matches the present one and copies the token that came next there, as an induction
head does (Olsson et al. 2022). A reader asked `Q s r` then matches the `s r` of the fact `s r o` and copies `o`:
query and key are both "token r after token s", the same previous-token feature at both ends.

`span` = n > 1 forms query and key from n consecutive states: q_t = W_q [h_t; h_{t-1}; …; h_{t-n+1}] and
k_j = W_k [h_{j-shift}; …; h_{j-shift-n+1}] (states before the row or on padding are zeros). With shift 1 and span 2
the query `Q s r` and the key of the fact's `o` both hold the embeddings of s and r themselves, so the subject is
matched from the first step instead of waiting for a layer to learn to move s into r's state (the previous-token
head of an induction circuit, Olsson et al. 2022, whose late and seed-dependent formation is the plateau of the
protocol-3 reader: experiments/dolores/README.md). It is the n-gram key of an n-gram induction head (Akyürek et al.
2024, "In-context language learning: architectures and algorithms"), written into the copy head.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

FLOOR = 1e-9  # copy probability of a token absent from the context: keeps log P finite and its gradient zero


class CopyHead(nn.Module):
    def __init__(self, d_model: int, vocab_size: int, shift: int = 0, span: int = 1):
        super().__init__()
        if shift < 0 or span < 1:
            raise ValueError(f"copy shift={shift} must be >= 0 and span={span} >= 1")
        self.vocab_size, self.shift, self.span = vocab_size, shift, span
        self.q = nn.Linear(d_model * span, d_model, bias=False)
        self.k = nn.Linear(d_model * span, d_model, bias=False)
        self.gate = nn.Linear(d_model, 1)

    def forward(self, h: torch.Tensor, tokens: torch.Tensor, logits: torch.Tensor,
                attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """h [B, T, d] (the final normalised states), tokens [B, T], logits [B, T, V] -> log P [B, T, V]."""
        T, s = tokens.shape[1], self.shift
        stacked = self.stack(h, attention_mask)
        keys = F.pad(self.k(stacked), (0, 0, s, 0))[:, :T]
        scores = self.q(stacked) @ keys.transpose(1, 2) / math.sqrt(h.shape[-1])
        visible = torch.ones(T, T, dtype=torch.bool, device=h.device).tril()
        visible[:, :s] = False                                    # no key state before the row starts
        if attention_mask is not None:  # padded keys hidden (and keys whose state is padding)
            real = attention_mask.long()
            visible = visible & (real * F.pad(real, (s, 0))[:, :T]).bool()[:, None, :]
        visible = visible | torch.eye(T, dtype=torch.bool, device=h.device)   # a row always sees itself
        attention = torch.softmax(scores.float().masked_fill(~visible, float("-inf")), -1)
        copy = attention @ F.one_hot(tokens, self.vocab_size).float()
        gate = self.gate(h).float()
        return torch.logaddexp(F.logsigmoid(gate) + F.log_softmax(logits.float(), -1),
                               F.logsigmoid(-gate) + copy.clamp_min(FLOOR).log())

    def stack(self, h: torch.Tensor, attention_mask: torch.Tensor | None) -> torch.Tensor:
        """[h_t; h_{t-1}; …; h_{t-span+1}] per position [B, T, span·d]; earlier states on padding or before the row: 0."""
        if self.span == 1:
            return h
        earlier = h if attention_mask is None else h * attention_mask[..., None].to(h.dtype)
        T = h.shape[1]
        return torch.cat([h, *(F.pad(earlier, (0, 0, i, 0))[:, :T] for i in range(1, self.span))], -1)
