"""MTLTask logs its per-step diagnostics only on the steps Lightning writes: the same CSV rows, fewer `self.log` calls."""

import csv

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.mtl.task import MTLTask

ORIGINAL_LOG_STEP = MTLTask._log_step


def test_on_step_metrics_land_on_every_written_step_and_the_last(data_dir, tmp_path, monkeypatch):
    steps = []

    def recording(self, *args):
        steps.append(self.global_step)
        ORIGINAL_LOG_STEP(self, *args)

    monkeypatch.setattr(MTLTask, "_log_step", recording)
    cfg = compose(["experiment=apt/claim_enb", f"paths.data_dir={data_dir}", "print_config=false", "optimizer=apt_adam",
                   "trainer.max_steps=25", "trainer.log_every_n_steps=10", "logger=csv"], output_dir=tmp_path)
    metrics = run(cfg)
    with open(next(tmp_path.rglob("metrics.csv"))) as f:
        written = sorted({int(r["step"]) for r in csv.DictReader(f) if r.get("train/loss")})
    assert written == [9, 19]  # Lightning's rows: every 10th step (0-based step index)
    assert steps == [10, 20, 25]  # global_step after the update: the written steps, then the last one
    assert 0.0 < metrics["train/momentum_input_share"] <= 1.0 and -1.0 <= metrics["train/update_share"] <= 1.0 and "train/weight_heating" in metrics
