"""FAMO's "after" losses through the trainer: `same_batch` re-evaluates each batch once after its update (the
authors' trainer), `next_batch` never does."""

import pytest

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.mtl.weightings import FAMO

ORIGINAL = FAMO.observe_after


@pytest.mark.parametrize("after, calls", [("same_batch", 3), ("next_batch", 0)])
def test_famo_after_losses_come_from_the_same_batch_or_the_next(after, calls, tmp_path, monkeypatch):
    seen = []

    def recording(self, losses):
        seen.append(losses.clone())
        ORIGINAL(self, losses)

    monkeypatch.setattr(FAMO, "observe_after", recording)
    cfg = compose(["experiment=apt/claim_synthetic", "print_config=false", "task.weighting=famo", "optimizer=adam",
                   f"+task.weighting_kwargs.after={after}", "trainer.max_steps=3", "logger=csv"], output_dir=tmp_path)
    run(cfg)
    assert len(seen) == calls and all(s.shape == (2,) for s in seen)
