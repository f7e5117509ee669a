"""Binary-classification metrics (torchmetrics), shared by any paper that scores a positive class.

`binary_metrics` evaluates a finished set of predictions in one call (claim scripts, baselines);
`BinaryMetrics` is the same set as a `MetricCollection` for a LightningModule to update per batch.
Both take probabilities of the positive class and threshold them at `threshold` for the
label-based metrics; macro-F1 is the mean of the F1 of the positive and of the negative class.
"""

from __future__ import annotations

import numpy as np
import torch
from torchmetrics import Metric, MetricCollection
from torchmetrics.classification import (
    BinaryAccuracy,
    BinaryAUROC,
    BinaryPrecision,
    BinaryRecall,
    MulticlassF1Score,
)
from torchmetrics.functional.classification import (
    binary_accuracy,
    binary_auroc,
    binary_precision,
    binary_recall,
    multiclass_f1_score,
)

METRIC_NAMES = ("auroc", "accuracy", "f1_macro", "precision", "recall")


def _as_tensors(probs, labels) -> tuple[torch.Tensor, torch.Tensor]:
    probs = torch.tensor(np.array(probs, dtype=np.float32)).flatten()
    labels = torch.tensor(np.array(labels, dtype=np.int64)).flatten()
    if probs.shape != labels.shape:
        raise ValueError(f"probs has {probs.numel()} entries but labels has {labels.numel()}")
    if probs.numel() == 0:
        raise ValueError("cannot score an empty prediction set")
    if ((probs < 0) | (probs > 1)).any():
        raise ValueError("probs must be probabilities in [0, 1]; apply a sigmoid to logits first")
    if not torch.isin(labels, torch.tensor([0, 1])).all():
        raise ValueError("labels must be 0 or 1")
    return probs, labels


def binary_metrics(probs, labels, threshold: float = 0.5) -> dict[str, float]:
    """AUROC, accuracy, macro-F1, precision and recall (positive class) of one prediction set.

    AUROC is NaN when `labels` holds a single class (it is undefined there).
    """
    probs, labels = _as_tensors(probs, labels)
    one_class = labels.unique().numel() < 2
    pred = (probs >= threshold).long()
    return {
        "auroc": float("nan") if one_class else binary_auroc(probs, labels).item(),
        "accuracy": binary_accuracy(probs, labels, threshold=threshold).item(),
        "f1_macro": multiclass_f1_score(pred, labels, num_classes=2, average="macro").item(),
        "precision": binary_precision(probs, labels, threshold=threshold).item(),
        "recall": binary_recall(probs, labels, threshold=threshold).item(),
    }


class BinaryMacroF1(Metric):
    """Macro-F1 over {negative, positive} from positive-class probabilities."""

    full_state_update = False

    def __init__(self, threshold: float = 0.5):
        super().__init__()
        self.threshold = threshold
        self.f1 = MulticlassF1Score(num_classes=2, average="macro")

    def update(self, probs: torch.Tensor, labels: torch.Tensor) -> None:
        self.f1.update((probs >= self.threshold).long(), labels.long())

    def compute(self) -> torch.Tensor:
        return self.f1.compute()

    def reset(self) -> None:
        super().reset()
        self.f1.reset()


def BinaryMetrics(prefix: str = "", threshold: float = 0.5) -> MetricCollection:
    """The `binary_metrics` set as a MetricCollection, keys `<prefix>auroc`, `<prefix>accuracy`, ..."""
    return MetricCollection(
        {
            "auroc": BinaryAUROC(),
            "accuracy": BinaryAccuracy(threshold=threshold),
            "f1_macro": BinaryMacroF1(threshold=threshold),
            "precision": BinaryPrecision(threshold=threshold),
            "recall": BinaryRecall(threshold=threshold),
        },
        prefix=prefix,
    )
