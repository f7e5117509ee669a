"""`-m experiment=a,b` with an override of a key only the swept presets bring: Hydra composes the first config
without the sweep, so the plain form fails there, and `++key=` (set, adding where missing) works; `+key=` would fail in the jobs
whose preset already has the key."""

from __future__ import annotations

from omegaconf import OmegaConf

from tests.core.sweeps.fake_train import run_train_cli

ARMS = "experiment=deltamomentum/lm_tiny_adamw,deltamomentum/lm_tiny_delta"


def sweep(tmp_path, *extra: str) -> list[str]:
    return ["-m", ARMS, f"paths.root_dir={tmp_path}", "print_config=false", "logger=none",
            f"hydra.sweep.dir={tmp_path / 'sweep'}", *extra]


def test_plus_plus_override_reaches_every_swept_preset(tmp_path, monkeypatch):
    assert run_train_cli(monkeypatch, *sweep(tmp_path, "++data.seq_len=64")) == 0
    configs = sorted((tmp_path / "sweep").glob("*/.hydra/config.yaml"))
    loaded = [OmegaConf.load(c) for c in configs]
    assert [c.setting for c in loaded] == ["lm_tiny_adamw", "lm_tiny_delta"]
    assert all(c.data.seq_len == 64 for c in loaded)


def test_plain_override_of_a_preset_only_key_fails_in_one_line(tmp_path, monkeypatch, capsys):
    assert run_train_cli(monkeypatch, *sweep(tmp_path, "data.seq_len=64")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: 'data.seq_len' is not a key of 'data'") and "++data.seq_len=… would add" in err[-1]


def test_single_plus_fails_in_the_jobs_whose_preset_has_the_key(tmp_path, monkeypatch):
    assert run_train_cli(monkeypatch, *sweep(tmp_path, "+data.seq_len=64")) != 0
    assert not list((tmp_path / "sweep").glob("*/metrics.json"))
