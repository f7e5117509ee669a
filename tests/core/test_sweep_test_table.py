"""A single run prints Lightning's "Test metric" table and where its metrics.json is; each job of a `-m` sweep prints one `test: …` line instead
(48 tables flood a sweep; the sweep report only counts runs), with the values its metrics.json holds, and
Lightning's info lines go to the job's log only."""

from __future__ import annotations

import json

from tests.core.cli import run_cli

TINY = ["experiment=deltamomentum/regression_sgdm", "trainer.max_steps=3", "logger=none"]


def test_a_single_run_prints_the_table(tmp_path):
    result = run_cli("reprolab-train", *TINY, f"paths.root_dir={tmp_path}", f"hydra.run.dir={tmp_path / 'run'}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Test metric" in result.stdout and "test/excess_risk" in result.stdout and "Seed set to 0" in result.stdout
    assert not [line for line in result.stdout.splitlines() if line.startswith("test: ")]
    assert result.stdout.splitlines()[-1] == f"metrics written to {tmp_path / 'run' / 'metrics.json'}"


def test_a_sweep_job_prints_one_line_of_its_test_metrics(tmp_path):
    sweep = tmp_path / "sweep"
    result = run_cli("reprolab-train", "-m", *TINY, "seed=0,1", f"paths.root_dir={tmp_path}", f"hydra.sweep.dir={sweep}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Test metric" not in result.stdout and "metrics written to" not in result.stdout
    assert "Seed set to" not in result.stdout + result.stderr  # Lightning's info lines: in each job's log only
    assert "Seed set to 1" in (sweep / "1" / "train.log").read_text()
    lines = [line for line in result.stdout.splitlines() if line.startswith("test: ")]
    expected = []
    for job in ("0", "1"):
        metrics = json.loads((sweep / job / "metrics.json").read_text())
        tested = sorted((k, v) for k, v in metrics.items() if k.startswith("test/"))
        expected.append("test: " + ", ".join(f"{k} {v:.4g}" for k, v in tested))
    assert lines == expected and len(tested) == 3
