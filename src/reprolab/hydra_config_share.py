"""`HydraConfig` holds the job config's own `hydra` node, not a deep copy of it.

Hydra's `HydraConfig.set_config` deep-copies the `hydra` node (help templates, logging configs, launcher and sweeper
settings: ~3 ms on CPU) into a config of its own, then parents the copy to the job config so that `${hydra:...}`
interpolations resolve; `run_job` calls it twice a job. The node is read-only from
`set_config` on (Hydra sets the flag itself), and the copy's parent is the job config either way, so sharing the node
gives `HydraConfig.get()` the same values and the same interpolations; `run_job` still deep-copies it for
`hydra.yaml` and the job's return. `REPROLAB_HYDRA_CONFIG_SHARE=0` turns it off.
"""

from __future__ import annotations

import os

from hydra.conf import HydraConf
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, flag_override

ENV = "REPROLAB_HYDRA_CONFIG_SHARE"
_ORIGINAL: dict = {}


def set_config(self: HydraConfig, cfg: DictConfig) -> None:
    """Hydra's `set_config`, with the masked copy holding `cfg.hydra` itself."""
    if os.environ.get(ENV, "1") == "0":
        return _ORIGINAL["set_config"](self, cfg)
    assert cfg is not None
    OmegaConf.set_readonly(cfg.hydra, True)
    hydra_node_type = OmegaConf.get_type(cfg, "hydra")
    assert hydra_node_type is not None and issubclass(hydra_node_type, HydraConf)
    masked = DictConfig(content={})
    with flag_override(masked, "no_deepcopy_set_nodes", True):
        masked["hydra"] = cfg._get_node("hydra")
    masked.hydra._set_parent(cfg)
    self.cfg = masked  # type: ignore[assignment]
    return None


def install() -> None:
    """Put `set_config` on Hydra's `HydraConfig` (idempotent)."""
    if not _ORIGINAL:
        _ORIGINAL["set_config"] = HydraConfig.set_config
        HydraConfig.set_config = set_config
