"""`compose_repo`: a composition copies Hydra's config repository only when it changes it (a `hydra.searchpath`),
a sweep loads each config file once, and the jobs compose the same configs as without either."""

from __future__ import annotations

import copy
import types

import pytest
from hydra import initialize_config_dir
from hydra._internal.config_repository import CachingConfigRepository, ConfigRepository
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import HydraException
from hydra.types import RunMode
from omegaconf import OmegaConf

from reprolab import compose_cache, compose_repo
from reprolab.train import CONF_DIR
from tests.core.sweeps.test_compose_cache import APT, compose_jobs


@pytest.fixture
def copies(monkeypatch) -> list:
    compose_repo.install_lazy_repo_copy()
    made = []
    def deepcopy(x):
        if isinstance(x, ConfigRepository):  # a copy of the repository, not of a loaded file
            made.append(x)
        return copy.deepcopy(x)

    monkeypatch.setattr(compose_repo, "copy", types.SimpleNamespace(deepcopy=deepcopy))
    return made


def test_sweep_jobs_compose_alike_without_copying_the_repository(monkeypatch, copies):
    copied = compose_jobs(APT, monkeypatch, cache=False)  # REPROLAB_COMPOSE_CACHE=0: Hydra's own copy each time
    assert copies == []  # Hydra's copy, not ours
    shared = compose_jobs(APT, monkeypatch, cache=True)
    assert copies == [] and len(shared) == len(copied) == 24
    for one, other in zip(copied, shared, strict=True):
        assert OmegaConf.to_container(one, resolve=False) == OmegaConf.to_container(other, resolve=False)


def test_a_search_path_gets_its_own_copy_and_leaves_the_shared_repository_alone(tmp_path, monkeypatch, copies):
    (tmp_path / "optimizer").mkdir()
    (tmp_path / "optimizer" / "extra_sgd.yaml").write_text("_target_: torch.optim.SGD\n_partial_: true\nlr: 0.123\n")
    monkeypatch.setenv("REPROLAB_COMPOSE_CACHE", "1")
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        sources = list(loader.repository.get_sources())
        cfg = loader.load_configuration("train", overrides=[f"hydra.searchpath=[file://{tmp_path}]", "optimizer=extra_sgd"],
                                        run_mode=RunMode.RUN)
        assert cfg.optimizer.lr == 0.123 and len(copies) == 1
        assert list(loader.repository.get_sources()) == sources
        with pytest.raises(HydraException, match="extra_sgd"):  # the search path did not stay in the shared repository
            loader.load_configuration("train", overrides=["optimizer=extra_sgd"], run_mode=RunMode.RUN)
    GlobalHydra.instance().clear()


def test_a_sweep_loads_each_config_file_once_and_each_composition_gets_its_own_copy(monkeypatch, copies):
    loads = []
    real = ConfigRepository.load_config
    monkeypatch.setattr(ConfigRepository, "load_config", lambda self, config_path: loads.append(config_path) or real(self, config_path))
    compose_jobs(APT, monkeypatch, cache=True)
    assert loads and len(loads) == len(set(loads))  # train.yaml and each group option once, for 24 jobs
    loads.clear()
    compose_jobs(APT, monkeypatch, cache=False)  # off: Hydra loads train.yaml for every composition
    assert loads.count("train") > 24
    GlobalHydra.instance().clear()
    with compose_cache.active(), initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        repo = GlobalHydra.instance().config_loader().repository
        monkeypatch.setenv(compose_cache.ENV, "1")
        first, second = (CachingConfigRepository(repo).load_config("train") for _ in range(2))
    GlobalHydra.instance().clear()
    assert first is not second and first.config is not second.config and first.config == second.config
