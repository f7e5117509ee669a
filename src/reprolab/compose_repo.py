"""Hydra's config repository per composition: copied only when the composition changes it, and each config file
loaded once per `-m` sweep.

Every composition (each job of a sweep) wraps the repository in a `CachingConfigRepository`, which deep-copies it
first (~3 ms: the sources, and the ConfigStore's structured configs with them) so that `initialize_sources` (a
`hydra.searchpath` in the primary config or the overrides) cannot change the shared one. Nothing else it does
writes to the repository, so here the copy is made when `initialize_sources` is called. Its cache of loaded files
also lives one composition, so every job parsed `train.yaml` again (~4 ms) to look for a search path; inside the
compose cache's scope (one `@hydra.main` call, `compose_cache.active`) a file is loaded once per set of sources and
each composition gets its own deep copy (~0.3 ms). `REPROLAB_COMPOSE_CACHE=0` turns both off.
"""

from __future__ import annotations

import copy
import functools
import os

from hydra._internal.config_repository import CachingConfigRepository

from reprolab import compose_cache


def install_lazy_repo_copy() -> None:
    """Defer `CachingConfigRepository`'s deep copy to its first `initialize_sources`, and share loaded files inside
    the compose cache's scope (idempotent)."""
    if getattr(CachingConfigRepository.__init__, "reprolab_lazy", False):
        return
    init, initialize, load = (CachingConfigRepository.__init__, CachingConfigRepository.initialize_sources,
                              CachingConfigRepository.load_config)

    @functools.wraps(init)
    def __init__(self, delegate):
        if os.environ.get(compose_cache.ENV, "1") == "0":
            init(self, delegate)
            self._reprolab_shared = False
            return
        self.delegate, self.cache, self._reprolab_shared = delegate, {}, True

    @functools.wraps(initialize)
    def initialize_sources(self, config_search_path):
        if getattr(self, "_reprolab_shared", False):
            self.delegate, self._reprolab_shared = copy.deepcopy(self.delegate), False
        return initialize(self, config_search_path)

    @functools.wraps(load)
    def load_config(self, config_path):
        key = f"config_path={config_path}"
        if key in self.cache or not compose_cache.enabled():
            return load(self, config_path)
        shared = (compose_cache.sources(self.delegate), config_path)
        if shared not in compose_cache.loaded:
            compose_cache.loaded[shared] = copy.deepcopy(self.delegate.load_config(config_path=config_path))
        self.cache[key] = result = copy.deepcopy(compose_cache.loaded[shared])
        return result

    __init__.reprolab_lazy = True
    CachingConfigRepository.__init__ = __init__
    CachingConfigRepository.initialize_sources = initialize_sources
    CachingConfigRepository.load_config = load_config
