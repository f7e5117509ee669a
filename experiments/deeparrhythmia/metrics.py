"""Beat-level scores of one test set: macro-F1 over the classes (never accuracy: V is ~8 % of the beats), the V
class's F1, sensitivity and positive predictive value, and the two premature-but-not-V sets: the spliced
early-normal confounders (group 1) and the real A beats, each as the fraction not called V."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import f1_score, precision_score, recall_score


def beat_scores(pred: np.ndarray, labels: np.ndarray, group: np.ndarray, atrial: np.ndarray, v_class: int,
                macro_classes: list[int] | None = None) -> dict[str, float]:
    """Scores over the scored beats (label >= 0). Macro-F1 averages the classes of `macro_classes` (default: all)
    that occur in the truth or the predictions of the real beats; a class absent from both is left out, not
    counted as 0 or 1."""
    scored = labels >= 0
    real = scored & (group == 0)
    spliced = scored & (group == 1)
    y, p = labels[real], pred[real]
    present = sorted(set(y.tolist()) | set(p.tolist()))
    if macro_classes is not None:
        present = [c for c in present if c in macro_classes]
    out = {
        "macro_f1": float(f1_score(y, p, labels=present, average="macro", zero_division=0)) if present else float("nan"),
        "v_f1": float(f1_score(y, p, labels=[v_class], average="macro", zero_division=0)),
        "v_sensitivity": float(recall_score(y, p, labels=[v_class], average="macro", zero_division=0)),
        "v_ppv": float(precision_score(y, p, labels=[v_class], average="macro", zero_division=0)),
        "beats": float(real.sum()),
        "v_beats": float((y == v_class).sum()),
    }
    if spliced.any():
        out["confounder_not_v"] = float((pred[spliced] != v_class).mean())
        out["confounder_beats"] = float(spliced.sum())
    a = real & atrial
    if a.any():
        out["atrial_not_v"] = float((pred[a] != v_class).mean())
        out["atrial_beats"] = float(a.sum())
    return out
