"""Beat classification over segments: class-weighted cross-entropy on the scored beats, and the test scores of
`metrics.beat_scores` over the whole test set (one held-out record, or DS2) at the epoch's end."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from experiments.deeparrhythmia.data import batch_dict
from experiments.deeparrhythmia.metrics import beat_scores
from experiments.deeparrhythmia.records import class_names
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task


def balanced_weights(counts: torch.Tensor) -> torch.Tensor:
    """w_c = n / (C * n_c) (scikit-learn's 'balanced'); a class absent from training gets weight 0."""
    counts = counts.float()
    weights = counts.sum() / (len(counts) * counts.clamp_min(1))
    return torch.where(counts > 0, weights, torch.zeros_like(weights))


class BeatTask(Task):
    def __init__(self, model, optimizer, scheduler=None, classes: str = "pvc", class_weight: str = "balanced",
                 macro_classes: list | None = None):
        super().__init__(model, optimizer, scheduler)
        if class_weight not in ("balanced", "none"):
            raise ConfigError(f"task.class_weight must be 'balanced' or 'none'; got {class_weight!r}")
        names = class_names(classes)
        self.classes, self.class_weight, self.v_class = classes, class_weight, names.index("V")
        unknown = [c for c in (macro_classes or []) if c not in names]
        if unknown:
            raise ConfigError(f"task.macro_classes {unknown} are not classes of {classes} ({', '.join(names)})")
        self.macro_classes = None if not macro_classes else [names.index(c) for c in macro_classes]
        self.register_buffer("weights", torch.ones(len(names)))
        self.outputs: dict[str, list] = {"val": [], "test": []}

    def on_fit_start(self) -> None:
        counts = getattr(self.trainer.datamodule, "class_counts", None)
        if self.class_weight == "balanced" and counts is not None:
            self.weights.copy_(balanced_weights(counts).to(self.weights))

    def loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), weight=self.weights, ignore_index=-1)

    def training_step(self, batch, batch_idx):
        batch = batch_dict(batch)
        loss = self.loss(self.model(batch), batch["labels"])
        self.log("train/loss", loss, on_step=True, on_epoch=True)
        return loss

    def predict_batch(self, batch: dict) -> torch.Tensor:
        return self.model(batch).argmax(-1)

    def _collect(self, batch, stage: str) -> None:
        batch = batch_dict(batch)
        pred = self.predict_batch(batch)
        self.outputs[stage].append({k: v.detach().cpu() for k, v in
                                    (("pred", pred), *((f, batch[f]) for f in ("labels", "group", "atrial")))})

    def validation_step(self, batch, batch_idx):
        self._collect(batch, "val")

    def test_step(self, batch, batch_idx):
        self._collect(batch, "test")

    def scores(self, stage: str) -> dict[str, float]:
        parts = self.outputs[stage]
        self.outputs[stage] = []
        arrays = {k: torch.cat([p[k] for p in parts]).reshape(-1).numpy() for k in parts[0]}
        return beat_scores(arrays["pred"], arrays["labels"], arrays["group"], arrays["atrial"].astype(bool),
                           self.v_class, self.macro_classes)

    def on_validation_epoch_end(self) -> None:
        if self.outputs["val"]:
            self.log("val/macro_f1", self.scores("val")["macro_f1"])  # in-sample: training records

    def on_test_epoch_end(self) -> None:
        for key, value in self.scores("test").items():
            if np.isfinite(value):
                self.log(f"test/{key}", value)
