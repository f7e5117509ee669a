"""`reprolab.hydra_config_share`: HydraConfig holds the job config's own `hydra` node, and reads the same as Hydra's
deep copy (values, `${hydra:...}` interpolations, read-only), with `REPROLAB_HYDRA_CONFIG_SHARE=0` restoring Hydra's."""

from __future__ import annotations

import copy

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf, open_dict, read_write
from omegaconf.errors import ReadonlyConfigError

from reprolab import hydra_config_share
from reprolab.config import CONF_DIR


@pytest.fixture
def job_config(tmp_path):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("train", overrides=["experiment=apt/claim_enb", f"paths.output_dir={tmp_path}"],
                      return_hydra_config=True)
    with read_write(cfg.hydra.runtime), open_dict(cfg):
        cfg.hydra.runtime.output_dir = str(tmp_path / "job")
        cfg.echo = "${hydra:runtime.output_dir}"
    saved = HydraConfig.instance().cfg
    yield cfg
    HydraConfig.instance().cfg = saved


def _reading(cfg) -> tuple:
    held = HydraConfig.instance().cfg
    return (OmegaConf.to_yaml(held), OmegaConf.to_yaml(copy.deepcopy(held)), HydraConfig.get().job.name,
            HydraConfig.get().runtime.choices.optimizer, cfg.echo)


def test_shared_node_reads_as_hydras_copy(job_config, monkeypatch):
    hydra_config_share.install()
    monkeypatch.setenv(hydra_config_share.ENV, "0")
    HydraConfig.instance().set_config(job_config)
    hydras = _reading(job_config)
    assert HydraConfig.get() is not job_config.hydra  # Hydra's own: a copy
    monkeypatch.delenv(hydra_config_share.ENV)
    HydraConfig.instance().set_config(job_config)
    assert _reading(job_config) == hydras and hydras[-1].endswith("/job")
    assert HydraConfig.get() is job_config.hydra and HydraConfig.get()._get_parent() is job_config
    with pytest.raises(ReadonlyConfigError):
        HydraConfig.get().job.name = "other"


def test_a_later_change_of_the_node_is_what_hydra_reads_after_its_second_set_config(job_config):
    """run_job sets the output dir between its two set_config calls; either way the second call reads it."""
    hydra_config_share.install()
    HydraConfig.instance().set_config(job_config)
    with read_write(job_config.hydra.runtime):
        job_config.hydra.runtime.output_dir = "/elsewhere"
    HydraConfig.instance().set_config(job_config)
    assert HydraConfig.get().runtime.output_dir == "/elsewhere" == job_config.echo
