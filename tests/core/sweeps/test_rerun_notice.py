"""A finished sweep job whose saved config lacks only keys the tree added since is still re-run, and the sweep says
so in one line naming the keys, their values and the `python -m reprolab.sweeps.rehash --assume` command that keeps the
runs; that command, run as printed, makes the rerun skip them (instant stand-in training, hand-edited run folders)."""

from __future__ import annotations

import shlex

import yaml

import tests.core.sweeps.fake_train as fake_train
from reprolab.sweeps.rehash import main as rehash_main
from reprolab.sweeps.rehash import rehash
from reprolab.sweeps.rerun_notice import added_keys, as_yaml_value
from tests.core.sweeps.test_multirun import sweep_args

GRID = ("seed=0,1",)


def sweep(tmp_path, monkeypatch, capsys) -> tuple[int, list[str], str]:
    """Runs the sweep; the number of jobs that trained, the notice lines, the decisions line."""
    calls, real = [], fake_train.__dict__["fake_run"]
    monkeypatch.setattr(fake_train, "fake_run", lambda cfg: calls.append(cfg.seed) or real(cfg))
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    monkeypatch.setattr(fake_train, "fake_run", real)
    out = capsys.readouterr().out.splitlines()
    return len(calls), [ln for ln in out if ln.startswith("note:")], next(ln for ln in out if ln.startswith("sweep jobs:"))


def made_before_the_keys(run, lr: float | None = None) -> None:
    """Make `run` look finished before `optimizer.nesterov` and `scheduler.min_lr_ratio` existed (and, given `lr`,
    with another learning rate): its saved config lacks them and its hash is that config's."""
    path = run / ".hydra" / "config.yaml"
    saved = yaml.safe_load(path.read_text())
    del saved["optimizer"]["nesterov"], saved["scheduler"]["min_lr_ratio"]
    if lr is not None:
        saved["optimizer"]["lr"] = lr
    path.write_text(yaml.safe_dump(saved))
    assert rehash(run) == "rewritten"


def test_runs_lacking_only_added_keys_rerun_with_one_notice_whose_command_keeps_them(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "sweep"
    assert sweep(tmp_path, monkeypatch, capsys)[0] == 2
    for run in ("0", "1"):
        made_before_the_keys(folder / run)

    trained, notes, line = sweep(tmp_path, monkeypatch, capsys)
    assert (trained, line) == (2, "sweep jobs: 0 skipped, 0 resumed, 2 started")  # the safe default: re-run
    command = (f"python -m reprolab.sweeps.rehash {folder} --assume optimizer.nesterov=true "
               "--assume scheduler.min_lr_ratio=0.0")
    assert notes == [  # once per sweep, not once per job
        f"note: finished runs in {folder} are re-run because their saved config lacks keys added since "
        "(optimizer.nesterov=true, scheduler.min_lr_ratio=0.0); if they were made with these values, keep them: "
        f"stop this sweep (Ctrl-C), run `{command}` and rerun this command"]
    assert len(list(folder.glob("*/replaced-*/metrics.json"))) == 2

    made_before_the_keys(folder / "0", lr=0.5)  # job 0 also ran another learning rate: no key makes it this job
    made_before_the_keys(folder / "1")
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "reprolab.sweeps.rehash"] and rehash_main(argv[3:]) == 0
    trained, notes, line = sweep(tmp_path, monkeypatch, capsys)
    assert (trained, notes, line) == (1, [], "sweep jobs: 1 skipped, 0 resumed, 1 started")


def test_added_keys_are_the_new_leaves_and_values_read_back_as_yaml():
    new = {"a": 1, "m": {"head": "bins", "deep": {"x": [1, 2]}, "kept": 0}, "empty": {}}
    assert added_keys(new, {"a": 1, "m": {"kept": 0}}) == {"m.head": "bins", "m.deep.x": [1, 2], "empty": {}}
    for value in ("r_over_s", "true", "1e-3", None, True, 1e-05, 0.1, 3, [1, "b"], {}):
        assert yaml.safe_load(as_yaml_value(value)) == value
