"""`reprolab-train -m … --next -m …` runs several sweeps in one process, each as its own call would; a later part
reuses the compositions of an earlier one while no config file changed."""

from __future__ import annotations

import json

import pytest
import yaml

import reprolab.cli.train as train
from reprolab.sweeps.chain import split_calls
from tests.core.sweeps.fake_train import FAIL_SEED_REPROLAB, run_train_cli


def sweep_args(tmp_path, name: str, seeds: str) -> list[str]:
    return ["-m", "experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            "optimizer.lr=0.01,0.1", f"seed={seeds}", f"hydra.sweep.dir={tmp_path / name}"]


def runs(root) -> dict[str, tuple[dict, dict]]:
    """Each job folder's composed config (output places left out) and metrics."""
    out = {}
    for config in sorted(root.glob("*/.hydra/config.yaml")):
        job = config.parent.parent
        cfg = {k: v for k, v in yaml.safe_load(config.read_text()).items() if k != "paths"}
        out[job.name] = (cfg, json.loads((job / "metrics.json").read_text()))
    return out


def test_chained_sweeps_run_in_one_process_as_separate_calls_would(tmp_path, monkeypatch):
    calls = []
    one = train.main_one
    monkeypatch.setattr(train, "main_one", lambda: calls.append(1) or one())
    chained = [*sweep_args(tmp_path, "a", "0,1"), "--next", *sweep_args(tmp_path, "b", "2")]
    assert run_train_cli(monkeypatch, *chained) == 0
    assert len(calls) == 2  # one Hydra call per part, in this one process
    for name, seeds in (("a", "0,1"), ("b", "2")):
        assert run_train_cli(monkeypatch, *sweep_args(tmp_path, f"alone_{name}", seeds)) == 0
        assert runs(tmp_path / name) == runs(tmp_path / f"alone_{name}")
    assert len(runs(tmp_path / "a")) == 4 and len(runs(tmp_path / "b")) == 2


def test_a_failed_part_does_not_stop_the_next_and_sets_the_exit_code(tmp_path, monkeypatch):
    bad = ["-m", "experiment=no/such_preset", f"hydra.sweep.dir={tmp_path / 'bad'}"]
    code = run_train_cli(monkeypatch, *bad, "--next", *sweep_args(tmp_path, "b", f"2,{FAIL_SEED_REPROLAB}"))
    assert code == 2  # the bad preset's exit code, the first failure
    assert len(list((tmp_path / "b").glob("*/metrics.json"))) == 2  # the second part still ran its good jobs


@pytest.mark.parametrize("args", [["--next", "a=1"], ["a=1", "--next"], ["a=1", "--next", "--next", "b=2"]])
def test_an_empty_part_is_refused(args):
    with pytest.raises(ValueError, match="--next"):
        split_calls(args)


def test_every_call_runs_under_the_first_calls_launcher_unless_it_names_its_own():
    calls = split_calls(["hydra/launcher=parallel", "hydra.launcher.n_jobs=2", "-m", "seed=0,1", "--next", "-m", "seed=2",
                         "--next", "-m", "hydra/launcher=basic", "seed=3"])
    assert calls == [["hydra/launcher=parallel", "hydra.launcher.n_jobs=2", "-m", "seed=0,1"],
                     ["hydra/launcher=parallel", "hydra.launcher.n_jobs=2", "-m", "seed=2"],
                     ["-m", "hydra/launcher=basic", "seed=3"]]
