"""Rerunning a finished sweep leaves each skipped run's `.hydra/` record as the run wrote it: Hydra writes the new
composition there before the job decides, and the skip puts the old texts back (instant stand-in training)."""

from __future__ import annotations

import tests.core.sweeps.fake_train as fake_train
from reprolab.finished_records import RECORD_FILES
from tests.core.sweeps.test_multirun import sweep_args

GRID = ("seed=0,1",)


def test_a_skipped_run_keeps_its_own_hydra_record(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "sweep"
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    made = {}
    for run in ("0", "1"):
        for name in RECORD_FILES:
            path = folder / run / ".hydra" / name
            path.write_text(path.read_text() + f"# written by run {run}\n")  # what only the finished run's record has
            made[run, name] = path.read_text()
    capsys.readouterr()

    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    assert "sweep jobs: 2 skipped, 0 resumed, 0 started" in capsys.readouterr().out
    assert {key: (folder / key[0] / ".hydra" / key[1]).read_text() for key in made} == made


def test_a_rerun_job_gets_the_new_record(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "sweep"
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    config = folder / "0" / ".hydra" / "config.yaml"
    config.write_text(config.read_text() + "# written by run 0\n")
    (folder / "0" / "config_hash").write_text("0" * 64 + "\n")  # another config's run: set aside and re-run
    capsys.readouterr()

    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    assert "sweep jobs: 1 skipped, 0 resumed, 1 started" in capsys.readouterr().out
    assert "# written by run 0" not in config.read_text()
