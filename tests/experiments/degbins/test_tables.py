"""The DegBins table plugin: RMSE gain over the bicubic input, per test set."""

from __future__ import annotations

import pytest

from experiments.degbins.tables import derive_metrics
from reprolab.results.runs import find_runs
from tests.core.results.run_folders import make_run


def test_gain_over_bicubic_per_test_set(tmp_path):
    metrics = {"test/rmse_lu": 4.2, "test/rmse_bicubic_lu": 4.5, "test/rmse_middlebury": 3.0,
               "test/rmse_bicubic_middlebury": 2.5, "test/rmse_bicubic_nyu": 9.0}
    make_run(tmp_path / "0", {"paper": "degbins", "seed": 0}, metrics)
    (run,) = find_runs([tmp_path])
    derive_metrics([run])
    assert run.metrics["test/gain_lu"] == pytest.approx(0.3)
    assert run.metrics["test/gain_middlebury"] == pytest.approx(-0.5)  # worse than its own input
    assert "test/gain_nyu" not in run.metrics  # no model RMSE for that set
