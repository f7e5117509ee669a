"""Hydra's per-composition copy of its config repository, made only when the composition changes the repository.

Every composition (each job of a `-m` sweep) wraps the repository in a `CachingConfigRepository`, which deep-copies
it first (~3 ms: the sources, and the ConfigStore's structured configs with them) so that `initialize_sources` (a
`hydra.searchpath` in the primary config or the overrides) cannot change the shared one. Nothing else it does
writes to the repository, so here the copy is made when `initialize_sources` is called, and compositions without
a search path of their own read the shared repository directly. `REPROLAB_COMPOSE_CACHE=0` turns it off too.
"""

from __future__ import annotations

import copy
import functools
import os

from hydra._internal.config_repository import CachingConfigRepository


def install_lazy_repo_copy() -> None:
    """Defer `CachingConfigRepository`'s deep copy to its first `initialize_sources` (idempotent)."""
    if getattr(CachingConfigRepository.__init__, "reprolab_lazy", False):
        return
    init, initialize = CachingConfigRepository.__init__, CachingConfigRepository.initialize_sources

    @functools.wraps(init)
    def __init__(self, delegate):
        if os.environ.get("REPROLAB_COMPOSE_CACHE", "1") == "0":
            init(self, delegate)
            self._reprolab_shared = False
            return
        self.delegate, self.cache, self._reprolab_shared = delegate, {}, True

    @functools.wraps(initialize)
    def initialize_sources(self, config_search_path):
        if getattr(self, "_reprolab_shared", False):
            self.delegate, self._reprolab_shared = copy.deepcopy(self.delegate), False
        return initialize(self, config_search_path)

    __init__.reprolab_lazy = True
    CachingConfigRepository.__init__ = __init__
    CachingConfigRepository.initialize_sources = initialize_sources
