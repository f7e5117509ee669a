"""The Llama LM (moved from experiments/deltamomentum: DeltaMomentum's LM and the policy task's small LM) and the
next-token task; the attention mask makes a left-padded row give the logits it gives alone."""

from __future__ import annotations

import pytest
import torch

from reprolab.cli.errors import ConfigError
from reprolab.models.llama import LlamaLM
from reprolab.optim.delta import DeltaAdamW
from reprolab.tasks.language_model import LanguageModelTask


def test_llama_is_causal_and_shapes_are_right():
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=50, d_model=32, n_layer=2, n_head=4, max_seq_len=16).eval()
    x = torch.randint(0, 50, (2, 16))
    y = x.clone()
    y[:, 10:] = (y[:, 10:] + 1) % 50
    a, b = model(x), model(y)
    assert a.shape == (2, 16, 50)
    torch.testing.assert_close(a[:, :10], b[:, :10])
    assert not torch.allclose(a[:, 10:], b[:, 10:])
    with pytest.raises(ValueError, match="exceeds max_seq_len"):
        model(torch.zeros(1, 17, dtype=torch.long))


def test_llama_67m_preset_has_67m_parameters_and_qkv_share_a_gram():
    with torch.device("meta"):
        assert LlamaLM(vocab_size=50304, d_model=512, n_layer=5, n_head=8).num_params() == pytest.approx(67.6e6, rel=0.01)
        assert LlamaLM(vocab_size=50304, d_model=1024, n_layer=21, n_head=16).num_params() == pytest.approx(368.7e6, rel=0.01)
    model = LlamaLM(vocab_size=50, d_model=32, n_layer=3, n_head=4, max_seq_len=8)
    opt = DeltaAdamW(model)
    model(torch.randint(0, 50, (1, 8))).sum().backward()
    assert len(opt.keys.grams()) == 3 * 4  # per block: QKV, O, gate/up, down
    assert model.lm_head.weight not in opt.keys.layers  # the head keeps the plain EMA


def test_mup_keeps_hidden_updates_and_logits_width_stable():
    """μP: at 4x width the effective weight c·w moves by lr·c under Adam, and logits keep their scale."""
    out = {}
    for d in (32, 128):
        torch.manual_seed(0)
        model = LlamaLM(vocab_size=40, d_model=d, n_layer=1, n_head=4, max_seq_len=8, mup_base_width=32)
        w = model.blocks[0].mlp.up
        before = (w.weight * w.multiplier).detach().clone()
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        model(torch.randint(0, 40, (4, 8))).pow(2).mean().backward()
        opt.step()
        out[d] = ((w.weight * w.multiplier - before).abs().mean().item(), w.multiplier)
    assert out[128][0] == pytest.approx(out[32][0] / 4, rel=0.05)


def test_lm_task_rejects_wrong_batches_and_trains_with_delta_adamw():
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=20, d_model=16, n_layer=1, n_head=2, max_seq_len=8)
    task = LanguageModelTask(model, optimizer=lambda model: DeltaAdamW(model, lr=1e-2))
    with pytest.raises(ConfigError, match="tokens"):
        task._loss((torch.zeros(2, 8, dtype=torch.long), torch.zeros(2, 7, dtype=torch.long)))
    opt = DeltaAdamW(model, lr=1e-2)
    x = torch.randint(0, 20, (8, 8))
    losses = []
    for _ in range(30):
        loss = task._loss((x, x.roll(1, 1)))
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_attention_mask_makes_a_left_padded_row_give_its_unpadded_logits():
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=30, d_model=32, n_layer=2, n_head=4, max_seq_len=16).eval()
    short, long = torch.randint(0, 30, (1, 5)), torch.randint(0, 30, (1, 9))
    padded = torch.cat([torch.full((1, 4), 29), short], 1)
    tokens, mask = torch.cat([padded, long]), torch.tensor([[0] * 4 + [1] * 5, [1] * 9])
    out = model(tokens, attention_mask=mask)
    torch.testing.assert_close(out[0, 4:], model(short)[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out[1], model(long)[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(model(long, attention_mask=torch.ones(1, 9, dtype=torch.long)), model(long))
