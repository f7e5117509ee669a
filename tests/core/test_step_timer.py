"""StepTimer: steady-state batch time and throughput after the warm-up, in samples and (token batches) tokens."""

from __future__ import annotations

import lightning as L
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from reprolab.callbacks import StepTimer


class TinyLM(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(11, 4)

    def training_step(self, batch, batch_idx):
        (tokens,) = batch
        return self.emb(tokens).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


@pytest.mark.parametrize("warmup, expected_batches", [(2, 4), (6, 0)])
def test_step_timer_reports_after_the_warmup(warmup, expected_batches, tmp_path):
    tokens = torch.randint(0, 11, (24, 5))  # 6 batches of 4 sequences x 5 tokens
    timer = StepTimer(warmup_steps=warmup)
    trainer = L.Trainer(max_epochs=1, callbacks=[timer], logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, default_root_dir=tmp_path)
    trainer.fit(TinyLM(), DataLoader(TensorDataset(tokens), batch_size=4))
    assert len(timer.times) == expected_batches
    if expected_batches == 0:
        assert "perf/step_ms" not in trainer.callback_metrics  # nothing measured: nothing reported
        return
    step_s = float(trainer.callback_metrics["perf/step_ms"]) / 1000
    assert step_s > 0
    assert float(trainer.callback_metrics["perf/samples_per_s"]) == pytest.approx(4 / step_s, rel=1e-4)
    assert float(trainer.callback_metrics["perf/tokens_per_s"]) == pytest.approx(20 / step_s, rel=1e-4)
