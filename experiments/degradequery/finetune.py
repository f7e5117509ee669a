"""Fine-tuning for high/low degradation (plain PyTorch), model selection on validation AUROC.

`fit_classifier` trains the degradation head (and the encoder) with binary cross-entropy and keeps
the weights of the epoch with the best validation AUROC (early stopping after `patience` epochs
without improvement). `self_training` is the pseudo-label baseline: a teacher trained this way
labels the unlabeled records it is most confident about, and a fresh student is trained on the
union. The same loop adapts a trained model to a few labelled records of a new target (few-shot).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torchmetrics.functional.classification import binary_auroc

from .inputs import TupleInputs


@dataclass
class FitConfig:
    epochs: int = 60
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-2
    patience: int = 12


@torch.no_grad()
def predict(model, inputs: TupleInputs, tuples: np.ndarray, batch_size: int = 1024) -> np.ndarray:
    """Probability of high degradation for each tuple."""
    model.eval()
    out = [torch.sigmoid(model(**inputs(tuples[i:i + batch_size]))) for i in range(0, len(tuples), batch_size)]
    return torch.cat(out).numpy() if out else np.zeros(0, dtype=np.float32)


def val_auroc(model, inputs, tuples, labels) -> float:
    return binary_auroc(torch.from_numpy(predict(model, inputs, tuples)), torch.as_tensor(labels).long()).item()


def fit_classifier(model, inputs: TupleInputs, train: tuple[np.ndarray, np.ndarray], val: tuple[np.ndarray, np.ndarray],
                   cfg: FitConfig, seed: int = 0) -> dict:
    """Train on `train` = (tuples [n,3], labels [n]); restore the best-validation-AUROC epoch."""
    tuples, labels = train
    y = torch.tensor(np.asarray(labels), dtype=torch.float32)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    best, best_state, since, history = -1.0, None, 0, []
    for _epoch in range(cfg.epochs):
        model.train()
        for idx in torch.randperm(len(tuples), generator=gen).split(cfg.batch_size):
            loss = F.binary_cross_entropy_with_logits(model(**inputs(tuples[idx.numpy()])), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        score = val_auroc(model, inputs, *val)
        history.append(score)
        if score > best:
            best, best_state, since = score, copy.deepcopy(model.state_dict()), 0
        else:
            since += 1
            if since >= cfg.patience:
                break
    model.load_state_dict(best_state)
    return {"val_auroc": best, "epochs": len(history), "best_epoch": int(np.argmax(history)) + 1}


def pseudo_labels(probs: np.ndarray, confidence: float, max_ratio: float, n_labelled: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and hard labels of predictions with max(p, 1-p) >= confidence, at most max_ratio*n_labelled."""
    conf = np.maximum(probs, 1 - probs)
    idx = np.flatnonzero(conf >= confidence)
    idx = idx[np.argsort(-conf[idx], kind="stable")][: int(max_ratio * n_labelled)]
    return idx, (probs[idx] >= 0.5).astype(np.int64)


def self_training(make_model, inputs, train, val, unlabeled: np.ndarray, cfg: FitConfig, seed: int = 0,
                  confidence: float = 0.9, max_ratio: float = 1.0):
    """Teacher -> confident pseudo-labels on `unlabeled` tuples -> student trained on labels + pseudo-labels."""
    torch.manual_seed(seed)
    teacher = make_model()
    fit_classifier(teacher, inputs, train, val, cfg, seed)
    idx, pseudo = pseudo_labels(predict(teacher, inputs, unlabeled), confidence, max_ratio, len(train[1]))
    torch.manual_seed(seed + 1)
    student = make_model()
    augmented = (np.concatenate([train[0], unlabeled[idx]]), np.concatenate([train[1], pseudo]))
    info = fit_classifier(student, inputs, augmented, val, cfg, seed + 1)
    return student, {**info, "pseudo_labels": len(idx), "pseudo_positive": int(pseudo.sum())}
