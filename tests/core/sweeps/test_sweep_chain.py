"""`reprolab-train -m … --next -m …` runs several sweeps in one process, each as its own call would; a later part
reuses the compositions of an earlier one while no config file changed."""

from __future__ import annotations

import json

import pytest
import yaml

import reprolab.train as train
from reprolab import compose_cache
from reprolab.sweep_chain import split_calls
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


def test_a_later_part_reuses_the_compositions_of_an_earlier_one(tmp_path, monkeypatch):
    monkeypatch.setenv(compose_cache.ENV, "1")
    assert run_train_cli(monkeypatch, *sweep_args(tmp_path, "alone", "2")) == 0
    alone = dict(compose_cache.stats)
    chained = [*sweep_args(tmp_path, "a", "0"), "--next", *sweep_args(tmp_path, "b", "2")]
    assert run_train_cli(monkeypatch, *chained) == 0
    assert alone["composed"] >= 1 and compose_cache.stats == {"composed": 0, "reused": alone["reused"] + alone["composed"]}
    assert runs(tmp_path / "b") == runs(tmp_path / "alone")
    assert not compose_cache._composed  # emptied when the chain ended


def test_a_changed_config_file_between_parts_empties_the_cache(tmp_path):
    (tmp_path / "group").mkdir()
    (tmp_path / "group" / "option.yaml").write_text("x: 1\n")
    key = ((("main", str(tmp_path)), ("hydra", "hydra.conf")), ())
    with compose_cache.kept():
        with compose_cache.active():
            compose_cache._composed[key] = "composed from the files"
        with compose_cache.active():  # nothing changed: kept
            assert compose_cache._composed == {key: "composed from the files"}
        (tmp_path / "group" / "option.yaml").write_text("x: 22\n")
        with compose_cache.active():
            assert not compose_cache._composed
            compose_cache._composed[key] = "composed again"
        (tmp_path / "group" / "new.yaml").write_text("y: 1\n")
        with compose_cache.active():
            assert not compose_cache._composed
    with compose_cache.active():  # outside a chain: every call starts empty
        compose_cache._composed[key] = "one call"
    with compose_cache.active():
        assert not compose_cache._composed
