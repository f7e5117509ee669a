"""Selective evidence: a segment-level confidence routes each segment between minimal evidence (RR intervals) and
rich evidence (RR + morphology against the segment's own median beat), because richer evidence is not uniformly
useful (the paper's abstract).

The confidence of a segment is the least confident of its scored beats under the minimal model,
c(s) = min_i max_k p_min(k | beat i); a segment with c(s) < tau goes to the rich model. tau is chosen on inner folds
of the training records only: the model holds K + 1 copies of both networks, copy k < K trained without inner fold k
(records dealt round-robin, `data.inner_folds`), copy K on every training record. Validation scores each training
segment by the copies that never saw its record (out of fold) and picks the tau in {0} U quantiles(c) U {1+} with the
best out-of-fold macro-F1 (ties: the smallest, i.e. the least rich evidence); the test record is routed by copy K.
The oracle router picks, per segment, whichever model gets more of its beats right: a ceiling, not a method.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from experiments.deeparrhythmia.data import batch_dict
from experiments.deeparrhythmia.metrics import beat_scores
from experiments.deeparrhythmia.model import EvidenceNet
from experiments.deeparrhythmia.task import BeatTask
from reprolab.cli.errors import ConfigError

ROUTES = ("confidence", "minimal", "rich", "oracle")


class RoutedEvidence(nn.Module):
    """K + 1 copies of the minimal and the rich `EvidenceNet`."""

    def __init__(self, minimal_inputs, rich_inputs, inner_folds: int = 3, num_classes: int = 2, channels: int = 16,
                 hidden: int = 32):
        super().__init__()
        if inner_folds < 2:
            raise ConfigError(f"the router chooses its threshold on >= 2 inner folds; got data.inner_folds={inner_folds}")
        self.inner_folds = inner_folds
        self.minimal = nn.ModuleList(EvidenceNet(minimal_inputs, num_classes, channels, hidden)
                                     for _ in range(inner_folds + 1))
        self.rich = nn.ModuleList(EvidenceNet(rich_inputs, num_classes, channels, hidden)
                                  for _ in range(inner_folds + 1))

    def forward(self, batch: dict, copy: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
        return self.minimal[copy](batch), self.rich[copy](batch)


def segment_confidence(probs: torch.Tensor, scored: torch.Tensor) -> torch.Tensor:
    """c(s) = min over the scored beats of max_k p(k); 1 for a segment with no scored beat. [S, L, C] -> [S]."""
    top = probs.amax(-1).masked_fill(~scored, 1.0)
    return top.amin(-1)


def routed(min_pred: torch.Tensor, rich_pred: torch.Tensor, confidence: torch.Tensor, tau: float) -> torch.Tensor:
    """Per segment, the rich prediction where c(s) < tau, else the minimal one."""
    return torch.where((confidence < tau)[:, None], rich_pred, min_pred)


def oracle(min_pred: torch.Tensor, rich_pred: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Per segment, the model with more correctly labelled scored beats (ties: minimal)."""
    scored = labels >= 0
    min_right = ((min_pred == labels) & scored).sum(-1)
    rich_right = ((rich_pred == labels) & scored).sum(-1)
    return torch.where((rich_right > min_right)[:, None], rich_pred, min_pred)


def threshold_candidates(confidence: np.ndarray, quantiles: int = 50) -> np.ndarray:
    qs = np.quantile(confidence, np.linspace(0, 1, quantiles + 1)) if len(confidence) else np.array([])
    return np.unique(np.concatenate([[0.0], qs, [1.0 + 1e-6]]))


class RouterTask(BeatTask):
    def __init__(self, model, optimizer, scheduler=None, classes: str = "pvc", class_weight: str = "balanced",
                 macro_classes: list | None = None, route: str = "confidence", quantiles: int = 50):
        super().__init__(model, optimizer, scheduler, classes, class_weight, macro_classes)
        if route not in ROUTES:
            raise ConfigError(f"task.route must be one of {', '.join(ROUTES)}; got {route!r}")
        self.route, self.quantiles = route, quantiles
        self.register_buffer("threshold", torch.tensor(float("nan")))

    def training_step(self, batch, batch_idx):
        batch = batch_dict(batch)
        labels, fold, total = batch["labels"], batch["inner_fold"], 0.0
        for k in range(self.model.inner_folds + 1):
            keep = (fold != k) if k < self.model.inner_folds else torch.ones_like(fold, dtype=torch.bool)
            masked = labels.masked_fill(~keep[:, None], -1)
            if (masked >= 0).any():
                minimal, rich = self.model(batch, k)
                total = total + self.loss(minimal, masked) + self.loss(rich, masked)
        self.log("train/loss", total, on_step=True, on_epoch=True)
        return total

    def _both(self, batch: dict, out_of_fold: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """Softmax probabilities [S, L, C] of minimal and rich: by each segment's out-of-fold copy, or by copy K."""
        if not out_of_fold:
            minimal, rich = self.model(batch, -1)
            return minimal.softmax(-1), rich.softmax(-1)
        fold = batch["inner_fold"]
        outs = [self.model(batch, k) for k in range(self.model.inner_folds)]
        pick = lambda i: torch.stack([o[i] for o in outs])[fold, torch.arange(len(fold))].softmax(-1)  # noqa: E731
        return pick(0), pick(1)

    def _collect(self, batch, stage: str) -> None:
        batch = batch_dict(batch)
        minimal, rich = self._both(batch, out_of_fold=stage == "val")
        self.outputs[stage].append({"minimal": minimal.cpu(), "rich": rich.cpu(),
                                    **{f: batch[f].cpu() for f in ("labels", "group", "atrial")}})

    def _gather(self, stage: str) -> dict[str, torch.Tensor]:
        parts, self.outputs[stage] = self.outputs[stage], []
        return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}

    def _score(self, pred: torch.Tensor, out: dict) -> dict[str, float]:
        return beat_scores(pred.reshape(-1).numpy(), out["labels"].reshape(-1).numpy(), out["group"].reshape(-1).numpy(),
                           out["atrial"].reshape(-1).numpy().astype(bool), self.v_class, self.macro_classes)

    def on_validation_epoch_end(self) -> None:
        if not self.outputs["val"]:
            return
        out = self._gather("val")
        min_pred, rich_pred = out["minimal"].argmax(-1), out["rich"].argmax(-1)
        confidence = segment_confidence(out["minimal"], out["labels"] >= 0)
        best, best_f1 = 0.0, -1.0
        for tau in threshold_candidates(confidence.numpy(), self.quantiles):
            f1 = self._score(routed(min_pred, rich_pred, confidence, float(tau)), out)["macro_f1"]
            if f1 > best_f1 + 1e-12:
                best, best_f1 = float(tau), f1
        self.threshold.fill_(best)
        self.log_dict({"val/macro_f1": best_f1, "val/threshold": best,
                       "val/minimal_macro_f1": self._score(min_pred, out)["macro_f1"],
                       "val/rich_macro_f1": self._score(rich_pred, out)["macro_f1"],
                       "val/rich_fraction": float((confidence < best).float().mean())})

    def on_test_epoch_end(self) -> None:
        out = self._gather("test")
        min_pred, rich_pred = out["minimal"].argmax(-1), out["rich"].argmax(-1)
        confidence = segment_confidence(out["minimal"], out["labels"] >= 0)
        tau = float(self.threshold)
        if not np.isfinite(tau):
            raise ConfigError("the router has no threshold: its validation (the inner folds) never ran; "
                              "keep trainer.limit_val_batches > 0")
        preds = {"minimal": min_pred, "rich": rich_pred, "confidence": routed(min_pred, rich_pred, confidence, tau),
                 "oracle": oracle(min_pred, rich_pred, out["labels"])}
        for name, pred in preds.items():
            scores = self._score(pred, out)
            prefix = "test/" if name == self.route else f"test/{name}/"
            for key, value in scores.items():
                if np.isfinite(value) and (prefix == "test/" or not key.endswith("beats")):
                    self.log(f"{prefix}{key}", value)
        self.log_dict({"test/threshold": tau, "test/rich_fraction": float((confidence < tau).float().mean())})
