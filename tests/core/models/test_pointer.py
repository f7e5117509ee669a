"""The copy (pointer-generator) head: hand-worked mixture probabilities, causality and padding, and the Llama LM
with it returns a distribution that a left-padded row reproduces."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from reprolab.models.llama import LlamaLM
from reprolab.models.pointer import CopyHead


def test_copy_head_mixes_the_vocabulary_and_the_copied_tokens_by_hand():
    head = CopyHead(d_model=2, vocab_size=5)
    for layer in (head.q, head.k, head.gate):
        nn.init.zeros_(layer.weight)
    nn.init.zeros_(head.gate.bias)      # q·k = 0: uniform over the visible positions; p_gen = σ(0) = 1/2
    tokens = torch.tensor([[3, 4, 3]])
    p = head(torch.ones(1, 3, 2), tokens, torch.zeros(1, 3, 5)).exp()[0]
    # position 2 sees tokens 3, 4, 3: copy {3: 2/3, 4: 1/3}; the vocabulary is uniform (1/5 each)
    assert p[2].tolist() == pytest.approx([0.1, 0.1, 0.1, 0.1 + 1 / 3, 0.1 + 1 / 6], abs=1e-6)
    assert p[0].tolist() == pytest.approx([0.1, 0.1, 0.1, 0.6, 0.1], abs=1e-6)   # position 0 sees itself only
    assert p.sum(-1).tolist() == pytest.approx([1.0, 1.0, 1.0])


def test_a_shifted_copy_head_copies_the_token_after_the_earlier_match():
    """shift 1: a key is the state one step back, so the head copies what followed an earlier match (induction)."""
    head = CopyHead(d_model=5, vocab_size=5, shift=1)
    for layer in (head.q, head.k, head.gate):
        nn.init.zeros_(layer.weight)
    nn.init.zeros_(head.gate.bias)
    tokens = torch.tensor([[3, 4, 3, 1]])
    p = head(torch.ones(1, 4, 5), tokens, torch.zeros(1, 4, 5)).exp()[0]
    # q·k = 0: position 2 sees keys 1 and 2 (copying x1 = 4 and x2 = 3); position 0 has no earlier state, only itself
    assert p[2].tolist() == pytest.approx([0.1, 0.1, 0.1, 0.35, 0.35], abs=1e-6)
    assert p[0].tolist() == pytest.approx([0.1, 0.1, 0.1, 0.6, 0.1], abs=1e-6)
    with torch.no_grad():                   # states = one-hot tokens, q = k = 10 I, gate shut: a pure copy
        head.q.weight.copy_(10 * torch.eye(5))
        head.k.weight.copy_(10 * torch.eye(5))
        head.gate.bias.fill_(-30.0)
    tokens = torch.tensor([[3, 4, 2, 3]])   # at the second 3, the earlier 3 was followed by 4
    p = head(torch.eye(5)[tokens], tokens, torch.zeros(1, 4, 5)).exp()[0]
    assert p[3].argmax() == 4 and p[3, 4] > 0.99


def test_a_two_state_key_tells_two_facts_of_one_relation_apart():
    """span 2: query and key hold the subject's and the relation's states, so `s1 r` copies s1's object, not s2's;
    with span 1 the two facts of relation r tie (the relation-only plateau of the DOLORES reader)."""
    s1, r, o1, s2, o2, q = range(6)
    tokens = torch.tensor([[s1, r, o1, s2, r, o2, q, s1, r]])
    copied = {}
    for span in (1, 2):
        head = CopyHead(d_model=6, vocab_size=6, shift=1, span=span)
        with torch.no_grad():               # states = one-hot tokens; q = k = 10 [I ... I]: the sum of the states
            head.q.weight.copy_(10 * torch.eye(6).repeat(1, span))
            head.k.weight.copy_(10 * torch.eye(6).repeat(1, span))
            nn.init.zeros_(head.gate.weight)
            head.gate.bias.fill_(-30.0)
        copied[span] = head(torch.eye(6)[tokens], tokens, torch.zeros(1, 9, 6)).exp()[0, -1].tolist()
    assert copied[2][o1] > 0.99
    assert copied[1][o1] == pytest.approx(0.5, abs=1e-3) and copied[1][o2] == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(ValueError, match="span"):
        CopyHead(d_model=6, vocab_size=6, span=0)


def test_copy_head_ignores_padded_keys():
    torch.manual_seed(0)
    head = CopyHead(d_model=4, vocab_size=6)
    h, tokens = torch.randn(1, 5, 4), torch.tensor([[5, 5, 1, 2, 3]])
    mask = torch.tensor([[0, 0, 1, 1, 1]])
    padded = head(h, tokens, torch.zeros(1, 5, 6), mask)[0, 2:]
    alone = head(h[:, 2:], tokens[:, 2:], torch.zeros(1, 3, 6))[0]
    torch.testing.assert_close(padded, alone)      # the padding token (5) is never copied
    shifted = CopyHead(d_model=4, vocab_size=6, shift=1)
    torch.testing.assert_close(shifted(h, tokens, torch.zeros(1, 5, 6), mask)[0, 2:],
                               shifted(h[:, 2:], tokens[:, 2:], torch.zeros(1, 3, 6))[0])
    spanned = CopyHead(d_model=4, vocab_size=6, shift=1, span=2)   # a padded state is never part of a key or query
    torch.testing.assert_close(spanned(h, tokens, torch.zeros(1, 5, 6), mask)[0, 2:],
                               spanned(h[:, 2:], tokens[:, 2:], torch.zeros(1, 3, 6))[0])


def test_llama_with_a_copy_head_gives_log_probabilities_and_stays_causal():
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=30, d_model=32, n_layer=2, n_head=4, max_seq_len=16, copy_head=True).eval()
    x = torch.randint(3, 30, (2, 9))
    out = model(x)
    torch.testing.assert_close(out.exp().sum(-1), torch.ones(2, 9))
    y = x.clone()
    y[:, 6:] = 0
    torch.testing.assert_close(model(y)[:, :6], out[:, :6])
    padded = torch.cat([torch.zeros(1, 3, dtype=torch.long), x[:1]], 1)
    mask = torch.tensor([[0] * 3 + [1] * 9])
    torch.testing.assert_close(model(padded, attention_mask=mask)[0, 3:], out[0], atol=1e-5, rtol=1e-5)
