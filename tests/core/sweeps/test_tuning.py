"""`reprolab.sweeps.tuning`: a fixed Optuna budget filled once, and the best trial's parameters handed to a command."""

from __future__ import annotations

import json
import sys

import optuna
import pytest

from reprolab.cli.tune import main
from reprolab.sweeps.tuning import TuningError, best_overrides, fill_overrides, finished_trials

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _study(path, losses, fail_at=(), running=0):
    """A study whose trial i has lr 10^-(i+1), warm-up i and the given loss (minimised); `fail_at`: failed trials."""
    study = optuna.create_study(study_name="s", storage=f"sqlite:///{path}", direction="minimize")
    for i, loss in enumerate(losses):
        trial = study.ask()
        trial.suggest_float("optimizer.lr", 1e-6, 1.0, log=True)
        trial.suggest_categorical("scheduler.warmup_steps", [0, 1, 2, 3, 4])
        study.tell(trial, state=optuna.trial.TrialState.FAIL) if i in fail_at else study.tell(trial, loss)
    for _ in range(running):
        study.ask()  # a trial a killed search left running
    return study


def test_fill_runs_what_the_budget_still_lacks(tmp_path):
    db = tmp_path / "tune" / "study.db"
    assert finished_trials(db) == 0
    assert fill_overrides(db, 5) == [f"hydra.sweeper.storage=sqlite:///{db}", "hydra.sweeper.n_trials=5",
                                     f"hydra.sweep.dir={db.parent / 'trials_000'}"]
    db.parent.mkdir()
    _study(db, [2.0, 1.0, 3.0], fail_at=(2,), running=1)
    assert finished_trials(db) == 3  # the failed one counts, the running one does not
    assert fill_overrides(db, 5)[1:] == ["hydra.sweeper.n_trials=2", f"hydra.sweep.dir={db.parent / 'trials_003'}"]
    assert fill_overrides(db, 3) == []
    with pytest.raises(TuningError, match="more than the budget of 2"):
        fill_overrides(db, 2)


def test_best_is_the_lowest_completed_trial_once_the_budget_is_spent(tmp_path):
    db = tmp_path / "study.db"
    study = _study(db, [2.0, 1.0, 0.5], fail_at=(2,))  # trial 2 failed: its 0.5 is never told
    params = study.trials[1].params
    assert best_overrides(db, 3) == [f"optimizer.lr={params['optimizer.lr']!r}",
                                     f"scheduler.warmup_steps={params['scheduler.warmup_steps']!r}"]
    with pytest.raises(TuningError, match="holds 3 finished trials, the budget is 4"):
        best_overrides(db, 4)
    with pytest.raises(TuningError, match="no study at"):
        best_overrides(tmp_path / "absent.db", 3)


def test_best_refuses_a_study_without_a_completed_trial(tmp_path):
    db = tmp_path / "study.db"
    _study(db, [1.0, 1.0], fail_at=(0, 1))
    with pytest.raises(TuningError, match="no trial completed"):
        best_overrides(db, 2)


def test_main_appends_the_overrides_to_the_command(tmp_path, capsys):
    db, out = tmp_path / "study.db", tmp_path / "argv.json"
    _study(db, [2.0, 1.0])
    record = f"import json, sys; json.dump(sys.argv[1:], open({str(out)!r}, 'w'))"
    assert main(["best", str(db), "--trials", "2", "--", sys.executable, "-c", record, "seed=0,1"]) == 0
    assert json.loads(out.read_text()) == ["seed=0,1", *best_overrides(db, 2)]
    assert main(["fill", str(db), "--trials", "2", "--", "false"]) == 0  # nothing left: the command is not run
    assert "2 of 2 trials finished" in capsys.readouterr().out
    assert main(["best", str(db), "--trials", "3", "--", "true"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
