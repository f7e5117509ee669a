"""Compose each job of a `-m` sweep once, not twice.

Hydra's basic sweeper composes every job's config to check the batch before launching it, and its launcher
composes the same overrides again to run it (~0.2 s a job: a fifth of a small claim job). `compose_once`
keeps each config the check composed and hands it, once, to the launcher; the early check of the whole
batch stays, and every other caller (another sweeper, a repeated job) composes as before. It also installs
`compose_cache` (a job whose group choices an earlier job of the sweep had reuses that composition) and
`compose_repo` (Hydra's repository copied for a composition only when that composition changes it).
"""

from __future__ import annotations

import functools

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.plugins.sweeper import Sweeper

from reprolab.compose_cache import install_compose_cache
from reprolab.compose_repo import install_lazy_repo_copy


def compose_once() -> None:
    """Install the hand-over on Hydra's config loader and sweeper (idempotent), the compose cache, and the
    repository copy made only when needed."""
    install_compose_cache()
    install_lazy_repo_copy()
    if getattr(ConfigLoaderImpl.load_sweep_config, "reprolab_once", False):
        return
    load, validate = ConfigLoaderImpl.load_sweep_config, Sweeper.validate_batch_is_legal
    checked: dict[tuple, object] = {}  # (master config, overrides) → the config the batch check composed
    checking = [False]

    @functools.wraps(load)
    def load_sweep_config(self, master_config, sweep_overrides):
        key = (id(master_config), tuple(sweep_overrides))
        if not checking[0] and key in checked:
            return checked.pop(key)
        config = load(self, master_config, sweep_overrides)
        if checking[0]:
            checked[key] = config
        return config

    @functools.wraps(validate)
    def validate_batch_is_legal(self, batch):
        checking[0] = True
        try:
            return validate(self, batch)
        finally:
            checking[0] = False

    load_sweep_config.reprolab_once = True
    ConfigLoaderImpl.load_sweep_config = load_sweep_config
    Sweeper.validate_batch_is_legal = validate_batch_is_legal
