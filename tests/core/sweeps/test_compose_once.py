"""A `-m` sweep composes each job's config once (the batch check's config goes to the launcher), and the
jobs see the same configs as when each is composed twice."""

from __future__ import annotations

import yaml
from hydra._internal.config_loader_impl import ConfigLoaderImpl

from tests.core.sweeps.fake_train import run_train_cli


def sweep(tmp_path, monkeypatch, name: str) -> tuple[int, dict]:
    calls = []
    original = ConfigLoaderImpl._load_configuration_impl

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ConfigLoaderImpl, "_load_configuration_impl", counting)
    args = ["-m", "experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            "optimizer.lr=0.01,0.1", "seed=0,1", f"hydra.sweep.dir={tmp_path / name}"]
    assert run_train_cli(monkeypatch, *args) == 0
    configs = {p.parent.parent.name: yaml.safe_load(p.read_text()) for p in (tmp_path / name).glob("*/.hydra/config.yaml")}
    monkeypatch.undo()
    return len(calls), configs


def test_each_job_is_composed_once_and_configs_are_unchanged(tmp_path, monkeypatch):
    import reprolab.cli.train as train

    n_once, once = sweep(tmp_path, monkeypatch, "once")
    assert n_once == 2 + 4  # Hydra's two compositions of the master config, then each of the 4 jobs once

    def no_memo(self, batch):  # the sweeper's check without the hand-over: the launcher composes again
        for overrides in batch:
            self.hydra_context.config_loader.load_sweep_config(master_config=self.config, sweep_overrides=list(overrides))

    from hydra.plugins.sweeper import Sweeper
    assert getattr(Sweeper.validate_batch_is_legal, "__wrapped__", None) is not None
    monkeypatch.setattr(train, "compose_once", lambda: None)
    monkeypatch.setattr(ConfigLoaderImpl, "load_sweep_config", ConfigLoaderImpl.load_sweep_config.__wrapped__)
    monkeypatch.setattr(Sweeper, "validate_batch_is_legal", no_memo)
    n_twice, twice = sweep(tmp_path, monkeypatch, "twice")
    assert n_twice == 2 + 8  # as Hydra does alone: each job composed by the check and again by the launcher
    strip = lambda c: {k: v for k, v in c.items() if k != "paths"}  # noqa: E731 — output dirs differ by sweep dir
    assert sorted(once) == sorted(twice) == ["0", "1", "2", "3"]
    assert all(strip(once[k]) == strip(twice[k]) for k in once)
