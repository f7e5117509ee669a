"""Mean AUROC of a group of monitors, each a digit set scored one-vs-rest against the digit labels.

The metric the transfer, oracle and source arms all log (`<prefix>auroc_covered`, `<prefix>auroc_uncovered`):
column j of the predictions is monitor j's score, covered monitors first (the order `MonitorTransfer` uses).
"""

from __future__ import annotations

import torch
from torchmetrics import Metric, MetricCollection
from torchmetrics.functional.classification import binary_auroc


class MeanMonitorAUROC(Metric):
    """mean_j AUROC(scores[:, columns[j]], label ∈ monitors[j]) over the whole epoch."""

    def __init__(self, monitors, first_column: int = 0):
        super().__init__()
        self.monitors, self.first_column = [list(m) for m in monitors], first_column
        self.add_state("scores", default=[], dist_reduce_fx="cat")
        self.add_state("labels", default=[], dist_reduce_fx="cat")

    def update(self, scores: torch.Tensor, labels: torch.Tensor) -> None:
        self.scores.append(scores[:, self.first_column: self.first_column + len(self.monitors)].float())
        self.labels.append(labels.long())

    def compute(self) -> torch.Tensor:
        scores, labels = torch.cat(self.scores), torch.cat(self.labels)
        return torch.stack([binary_auroc(scores[:, j], torch.isin(labels, torch.as_tensor(m)).long())
                            for j, m in enumerate(self.monitors)]).mean()


def MonitorAUROCs(prefix: str, covered_monitors, uncovered_monitors) -> MetricCollection:
    """Keys `<prefix>auroc_covered` and `<prefix>auroc_uncovered`."""
    return MetricCollection({
        "auroc_covered": MeanMonitorAUROC(covered_monitors),
        "auroc_uncovered": MeanMonitorAUROC(uncovered_monitors, first_column=len(covered_monitors)),
    }, prefix=prefix)
