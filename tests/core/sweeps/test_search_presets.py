"""Every `conf/hparams_search/<paper>_optuna.yaml` composes with every preset of its paper, searches
keys that exist there, and optimises the preset's monitor in its direction."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from reprolab.config.compose import CONF_DIR
from reprolab.results import find_runs
from tests.core.sweeps.fake_train import run_train_cli

SEARCHES = sorted(p.stem for p in (CONF_DIR / "hparams_search").glob("*_optuna.yaml"))
CASES = [(s, f"{s.removesuffix('_optuna')}/{e.stem}") for s in SEARCHES
         for e in sorted((CONF_DIR / "experiment" / s.removesuffix("_optuna")).glob("*.yaml"))]


def compose_sweep(*overrides: str):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose("train", overrides=list(overrides), return_hydra_config=True)


def test_every_paper_search_has_presets_to_run_on():
    assert "cifar10_optuna" in SEARCHES
    assert {s for s, _ in CASES} == set(SEARCHES), "a <paper>_optuna.yaml whose paper has no conf/experiment/<paper>/"


@pytest.mark.parametrize(("search", "experiment"), CASES)
def test_search_space_keys_exist_in_the_preset(search, experiment):
    cfg = compose_sweep(f"hparams_search={search}", f"experiment={experiment}")
    if cfg.get("optimizer") is None:
        pytest.skip(f"{experiment} trains no network (a scikit-learn estimator): the optimizer search does not apply")
    sweeper = cfg.hydra.sweeper
    assert sweeper._target_.endswith("OptunaSweeper") and cfg.hydra.mode.name == "MULTIRUN"
    assert sweeper.direction == {"max": "maximize", "min": "minimize"}[cfg.monitor.mode]
    assert cfg.optimized_metric == cfg.monitor.metric
    assert sweeper.storage.startswith("sqlite:///") and sweeper.storage.endswith("/optuna/study.db")
    assert sweeper.params, f"{search} searches nothing"
    for key in sweeper.params:
        assert OmegaConf.select(cfg, key, default="<absent>") != "<absent>", f"{search}: '{key}' not in {experiment}"


@pytest.mark.slow  # ~5-12 s on a loaded machine; the preset mechanics are covered by test_multirun's Optuna test
def test_generic_optuna_preset_takes_its_space_from_the_command_line(tmp_path, monkeypatch):
    code = run_train_cli(monkeypatch, "experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}",
                         "print_config=false", f"hydra.sweep.dir={tmp_path / 'sweep'}", "hparams_search=optuna",
                         "hydra.sweeper.n_trials=2", "optimizer.lr=interval(0.01, 0.02)", "optimizer.momentum=choice(0.5)")
    assert code == 0
    runs = find_runs([tmp_path / "sweep"])
    assert len(runs) == 2 and all(0.01 <= r.config["optimizer.lr"] <= 0.02 for r in runs)
    assert all(r.config["optimizer.momentum"] == 0.5 for r in runs)
