"""metrics.json: every test loader's results kept, non-finite values written as null, tensors as floats."""

from __future__ import annotations

import json
import math

import torch

from reprolab.run.folder import as_floats, merge_results, write_metrics


def test_results_of_every_test_loader_are_kept():
    results = [{"test/rmse/dataloader_idx_0": 1.0}, {"test/rmse/dataloader_idx_1": 2.0}]
    assert merge_results(results) == {"test/rmse/dataloader_idx_0": 1.0, "test/rmse/dataloader_idx_1": 2.0}
    assert merge_results([]) == {}


def test_write_metrics_is_valid_json_with_null_for_nan(tmp_path):
    metrics = as_floats({"a": torch.tensor(0.5), "b": float("nan"), "flag": True, "name": "x", "n": 3})
    assert set(metrics) == {"a", "b", "n"} and metrics["a"] == 0.5 and metrics["n"] == 3.0
    assert math.isnan(metrics["b"])
    path = write_metrics(tmp_path, {**metrics, "best_ckpt": None})
    assert json.loads(path.read_text()) == {"a": 0.5, "b": None, "n": 3.0, "best_ckpt": None}
    assert not list(tmp_path.glob("*.tmp"))
