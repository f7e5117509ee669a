"""Every job of this repo's real sweeps composes to the same config with `compose_cache` as without it (the
hydra node included, unresolved and resolved), a sweep over config groups composes each choice anew, and the
job-skip hash of every job is unchanged."""

from __future__ import annotations

import pytest
from hydra import initialize_config_dir
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.types import RunMode
from omegaconf import Container, DictConfig, ListConfig, OmegaConf

from reprolab import compose_cache
from reprolab.sweep import config_hash
from reprolab.train import CONF_DIR
from tests.core.sweeps.fake_train import run_train_cli

APT = ["task.weighting=ew,pcgrad", "optimizer=adam,apt_adam,muon,apt_muon", "experiment=apt/claim_enb", "seed=0,1,2",
       "print_config=false", "paths.data_dir=/tmp/no-data"]
DELTA_LM = ["experiment=deltamomentum/lm_tiny_adamw,deltamomentum/lm_tiny_delta", "optimizer.lr=1e-3,3e-2", "seed=0,1"]
DEGRADEQUERY = ["experiment=degradequery/pretrain,degradequery/main", "seed=0,1", "++data.split=scaffold,target_e3",
                "print_config=false", "hydra.sweep.subdir=${data.split}-${seed}"]
SUBDIR = ["experiment=apt/claim_synthetic", "seed=0,1,2", "+extra_tag=a,b", "~tags",
          "hydra.sweep.subdir=${setting}-${seed}"]


def compose_jobs(args: list[str], monkeypatch, cache: bool) -> list[DictConfig]:
    """Each job's config as Hydra's sweeper and launcher compose it (one master config, then one per job)."""
    compose_cache.install_compose_cache()
    GlobalHydra.instance().clear()
    monkeypatch.setenv(compose_cache.ENV, "1" if cache else "0")
    with compose_cache.active(), initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        master = loader.load_configuration("train", overrides=[*args, "hydra.sweep.dir=/tmp/sweep"],
                                           run_mode=RunMode.MULTIRUN)
        parsed = OverridesParser.create().parse_overrides(list(master.hydra.overrides.task))
        jobs = BasicSweeper.split_arguments(parsed, None)[0]
        configs = [loader.load_sweep_config(master, list(job)) for job in jobs]
    GlobalHydra.instance().clear()
    return configs


def node_kinds(node, at: str = "") -> dict:
    """Node class, struct/readonly flags and value type of every node: what `to_container` does not show."""
    kinds = {at: (type(node).__name__, node._get_flag("struct"), node._get_flag("readonly"),
                  OmegaConf.get_type(node) if isinstance(node, Container) else None)}
    if isinstance(node, DictConfig) and not node._is_none() and not node._is_missing():
        for key in node.keys():
            kinds.update(node_kinds(node._get_node(key), f"{at}.{key}"))
    elif isinstance(node, ListConfig) and not node._is_none() and not node._is_missing():
        for i in range(len(node)):
            kinds.update(node_kinds(node._get_node(i), f"{at}[{i}]"))
    return kinds


def resolved(cfg: DictConfig) -> dict:
    """The non-hydra part resolved as the job resolves it (`hydra:` interpolations read this job's hydra node)."""
    HydraConfig.instance().set_config(cfg)
    out = {}
    for key in cfg:
        if key != "hydra":
            try:
                value = cfg[key]
                out[key] = OmegaConf.to_container(value, resolve=True) if isinstance(value, Container) else value
            except Exception as err:  # noqa: BLE001 — an interpolation only the running job resolves: compare the error
                out[key] = repr(err)
    return out


# n_composed: the distinct group choices of the master config (a group's sweep left out: its default) and the jobs
@pytest.mark.parametrize("args, n_jobs, n_composed", [
    (APT, 24, 4), (DELTA_LM, 8, 3), (DEGRADEQUERY, 8, 3), (SUBDIR, 6, 1)],
    ids=["apt_claim_enb", "deltamomentum_lm_tiny", "degradequery_split", "sweep_subdir"])
def test_cached_jobs_equal_composed_jobs(monkeypatch, args, n_jobs, n_composed):
    plain = compose_jobs(args, monkeypatch, cache=False)
    assert compose_cache.stats == {"composed": 0, "reused": 0}
    cached = compose_jobs(args, monkeypatch, cache=True)
    assert len(plain) == len(cached) == n_jobs
    assert compose_cache.stats == {"composed": n_composed, "reused": 1 + n_jobs - n_composed}
    for one, other in zip(plain, cached, strict=True):
        assert OmegaConf.to_container(one, resolve=False) == OmegaConf.to_container(other, resolve=False)
        assert node_kinds(one) == node_kinds(other)
        assert resolved(one) == resolved(other)
        assert config_hash(one) == config_hash(other)
    assert len({config_hash(cfg) for cfg in cached}) == n_jobs  # each job its own config, not the first job's


def test_only_inside_hydra_main(monkeypatch):
    """Outside `@hydra.main` (`hydra.compose`, a notebook) every config is composed from the files."""
    compose_cache.install_compose_cache()
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="train"):
        loader = GlobalHydra.instance().config_loader()
        for seed in (0, 1):
            loader.load_configuration("train", overrides=[f"seed={seed}"], run_mode=RunMode.RUN)
    GlobalHydra.instance().clear()
    assert not compose_cache.enabled() and not compose_cache._composed


def test_group_sweeps_compose_each_choice(monkeypatch):
    groups = ["experiment=apt/claim_enb", "optimizer=adam,muon", "logger=csv,none", "~debug", "+dashboard=apt"]
    compose_jobs(groups, monkeypatch, cache=True)
    assert compose_cache.stats == {"composed": 1 + 4, "reused": 0}  # the master config, then each pair of choices


def test_rerun_with_cache_skips_every_job(tmp_path, monkeypatch):
    """A sweep run with the cache off, rerun with it on into the same folder: every job's config_hash is the
    same, so every job is skipped (sweep.decide_job)."""
    args = ["-m", "experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false",
            "optimizer.lr=0.01,0.1", "seed=0,1", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    hashes, decisions = {}, {}
    for switch in ("0", "1"):
        monkeypatch.setenv(compose_cache.ENV, switch)
        assert run_train_cli(monkeypatch, *args) == 0
        hashes[switch] = {p.parent.name: p.read_text() for p in (tmp_path / "sweep").glob("*/config_hash")}
        decisions[switch] = {p.parent.name: p.read_text().strip() for p in (tmp_path / "sweep").glob("*/sweep_decision")}
        # on: Hydra's two compositions of the master config and the 4 jobs share one set of group choices
        assert compose_cache.stats == ({"composed": 1, "reused": 5} if switch == "1" else {"composed": 0, "reused": 0})
    assert sorted(hashes["1"]) == ["0", "1", "2", "3"] and hashes["1"] == hashes["0"]
    assert set(decisions["0"].values()) == {"started"} and set(decisions["1"].values()) == {"skipped"}


def test_single_run_composes_once(tmp_path, monkeypatch):
    """`reprolab-train` without -m: Hydra composes the config to read `hydra.mode`, then for the run; the
    run reuses the first, and gets the same config as without the cache."""
    saved = {}
    for switch in ("0", "1"):
        monkeypatch.setenv(compose_cache.ENV, switch)
        args = ["experiment=cifar10/small_sgd_cpu", f"paths.root_dir={tmp_path}", "print_config=false", "seed=3",
                f"hydra.run.dir={tmp_path / switch}"]
        assert run_train_cli(monkeypatch, *args) == 0
        saved[switch] = (tmp_path / switch / ".hydra" / "config.yaml").read_text().replace(f"/{switch}", "/RUN")
    assert compose_cache.stats == {"composed": 1, "reused": 1}
    assert saved["0"] == saved["1"]
