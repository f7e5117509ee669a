"""Through Lightning with accumulate_grad_batches=2, DeltaAdamW sees the keys of both micro-batches."""

from __future__ import annotations

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from reprolab.models.llama import LlamaLM
from reprolab.optim.delta import DeltaAdamW
from reprolab.tasks.language_model import LanguageModelTask


class RecordKeyCounts(L.Callback):
    def __init__(self):
        self.counts = []

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        qkv = optimizer.keys.layers[pl_module.model.blocks[0].attn.q.weight]
        self.counts.append(qkv.source.count)


def test_lightning_accumulation_feeds_both_micro_batches_to_one_step(tmp_path):
    torch.manual_seed(0)
    tokens = torch.randint(0, 30, (16, 9))
    loader = DataLoader(TensorDataset(tokens[:, :-1], tokens[:, 1:]), batch_size=2)
    task = LanguageModelTask(LlamaLM(30, 16, 1, 2, max_seq_len=8), optimizer=lambda model: DeltaAdamW(model))
    record = RecordKeyCounts()
    trainer = L.Trainer(max_steps=3, accumulate_grad_batches=2, callbacks=[record], logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        accelerator="cpu", default_root_dir=tmp_path)
    trainer.fit(task, loader)
    assert record.counts == [2 * 2 * 8] * 3  # 2 micro-batches × 2 sequences × 8 tokens, reset after each step
