"""The leak count on the reader preset's own batches: no evaluation fact with the guard, some without it."""

from __future__ import annotations

from experiments.dolores.leakage import leak_counts


def test_the_reader_preset_draws_no_evaluation_fact_and_would_without_its_guard():
    counts = leak_counts(["seed=3", "data.batch_size=8"], batches=20)
    assert counts["facts"] > 1000 and counts["guarded"] == 0 and counts["unguarded"] > 0
