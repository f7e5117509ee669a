"""Rerunning a finished sweep leaves each skipped run's `.hydra/` record as the run wrote it: Hydra writes the new
composition there before the job decides, and the skip puts the old texts back; a run set aside for another config
takes its record along, and tables, reports and rehash leave it out (instant stand-in training)."""

from __future__ import annotations

import tests.core.sweeps.fake_train as fake_train
from reprolab.results import find_runs
from reprolab.results.curves import logged_frames
from reprolab.results.sweep_report import build_report
from reprolab.sweeps.callback import decide_job
from reprolab.sweeps.finished_records import RECORD_FILES
from reprolab.sweeps.rehash import main as rehash_main
from tests.core.sweeps.test_multirun import sweep_args
from tests.core.sweeps.test_resume import job_at

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


def test_a_set_aside_run_keeps_the_record_it_ran_with_and_stays_out_of_tables(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "sweep"
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    made = {}
    for name in RECORD_FILES:
        path = folder / "0" / ".hydra" / name
        path.write_text(path.read_text() + "# written by run 0\n")
        made[name] = path.read_text()
    (folder / "0" / "config_hash").write_text("0" * 64 + "\n")  # another config's run: set aside and re-run
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    assert "sweep jobs: 1 skipped, 0 resumed, 1 started" in capsys.readouterr().out

    (aside,) = (folder / "0").glob("replaced-000000000000-*")
    assert {name: (aside / ".hydra" / name).read_text() for name in RECORD_FILES} == made
    assert "# written by run 0" not in (folder / "0" / ".hydra" / "config.yaml").read_text()
    runs = find_runs([folder])  # reprolab-table, the sweep report and rehash read the two runs, not the set-aside one
    assert [run.path for run in runs] == [folder / "0", folder / "1"]
    assert [len(list(logged_frames(run))) for run in runs] == [1, 1]  # run 0's curve only, not also the old one's
    assert build_report(folder)["n_runs"] == 2
    assert rehash_main([str(folder)]) == 0 and capsys.readouterr().out == "2 unchanged\n"
    assert [run.path for run in find_runs([aside])] == [aside]  # named, it is one run again


def test_only_a_finished_runs_record_goes_aside(tmp_path):
    cfg, run = job_at("/x"), tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "last.ckpt").write_text("killed run of another config")
    (run / "config_hash").write_text("1" * 64 + "\n")
    assert decide_job(cfg, run) == ("started", None)
    (aside,) = run.glob("replaced-111111111111-*")
    assert (aside / "checkpoints" / "last.ckpt").is_file() and not (aside / ".hydra").exists()

    (run / "metrics.json").write_text("{}")
    (run / "config_hash").write_text("2" * 64 + "\n")
    record = {"config.yaml": "seed: 0\n", "hydra.yaml": "hydra: {}\n"}
    assert decide_job(cfg, run, record=record) == ("started", None)
    (aside,) = run.glob("replaced-222222222222-*")
    assert {p.name: p.read_text() for p in (aside / ".hydra").iterdir()} == record
