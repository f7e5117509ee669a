"""The DeepfakeGenome table plugin: seen → unseen gap, positive when unseen generators are harder."""

from __future__ import annotations

import pytest

from experiments.deepfakegenome.tables import derive_metrics
from reprolab.results.runs import find_runs
from tests.core.results.run_folders import make_run


def test_gap_is_positive_when_unseen_is_worse(tmp_path):
    metrics = {"test/seen/auc": 0.98, "test/unseen/auc": 0.90, "test/seen/eer": 0.05, "test/unseen/eer": 0.10,
               "test/seen/acc": 0.9}
    make_run(tmp_path / "0", {"paper": "deepfakegenome", "seed": 0}, metrics)
    (run,) = find_runs([tmp_path])
    derive_metrics([run])
    assert run.metrics["test/gap/auc"] == pytest.approx(0.08)
    assert run.metrics["test/gap/eer"] == pytest.approx(0.05)
    assert "test/gap/acc" not in run.metrics
