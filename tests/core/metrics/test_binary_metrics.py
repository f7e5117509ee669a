"""reprolab.metrics.binary: values against scikit-learn, the Lightning collection against the function, errors."""

import math

import numpy as np
import pytest
import torch
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score, roc_auc_score

from reprolab.metrics.binary import BinaryMetrics, binary_metrics


def test_binary_metrics_match_sklearn():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200)
    probs = np.clip(labels * 0.3 + rng.random(200) * 0.7, 0, 1)
    pred = (probs >= 0.5).astype(int)
    got = binary_metrics(probs, labels)
    assert got["auroc"] == pytest.approx(roc_auc_score(labels, probs), abs=1e-6)
    assert got["accuracy"] == pytest.approx(accuracy_score(labels, pred), abs=1e-6)
    assert got["f1_macro"] == pytest.approx(f1_score(labels, pred, average="macro"), abs=1e-6)
    assert got["precision"] == pytest.approx(precision_score(labels, pred), abs=1e-6)
    assert got["recall"] == pytest.approx(recall_score(labels, pred), abs=1e-6)


def test_collection_equals_function_over_batches():
    rng = np.random.default_rng(1)
    labels, probs = rng.integers(0, 2, 90), rng.random(90)
    collection = BinaryMetrics("test/")
    for i in range(0, 90, 32):
        collection.update(torch.tensor(probs[i:i + 32], dtype=torch.float32), torch.tensor(labels[i:i + 32]))
    batched = {k.removeprefix("test/"): v.item() for k, v in collection.compute().items()}
    whole = binary_metrics(probs, labels)
    assert batched == pytest.approx(whole, abs=1e-6)


def test_single_class_auroc_is_nan_and_bad_inputs_raise():
    assert math.isnan(binary_metrics([0.2, 0.9], [1, 1])["auroc"])
    with pytest.raises(ValueError, match="entries"):
        binary_metrics([0.1, 0.2], [1])
    with pytest.raises(ValueError, match="sigmoid"):
        binary_metrics([1.5, -0.2], [1, 0])
    with pytest.raises(ValueError, match="0 or 1"):
        binary_metrics([0.5, 0.2], [2, 0])
