"""Compose the jobs of a `-m` sweep from one composition per set of config-group choices.

Most jobs of a sweep differ from an earlier one only in values (`seed=1`, `task.weighting=pcgrad`), yet Hydra
builds each job's defaults list and merges its config files anew (~0.15-0.25 s a job). Here Hydra's
`_load_configuration_impl` still runs for every job (parsing, the value overrides applied by Hydra's own
`_apply_overrides_to_config`, `hydra.overrides`, `hydra.runtime.choices`, `hydra.job.override_dirname`,
`env_set`, `cwd`), and only its two steps that depend on nothing but the group choices are kept:

- the defaults list (`create_defaults_list`), a function of the search path, the config name and the
  overrides Hydra's `Overrides` reads as group overrides (the key names a config group and the value is not
  a dict; sweep overrides count too). The other overrides (`key=v`, `+key=v`, `++key=v`, `~key`, `hydra.*`
  values) only ride along in its `config_overrides`, which get this job's;
- the config merged along that list (`_compose_config_from_defaults_list`), handed out as a deep copy.

Anything else (another group choice, another search path) composes the normal way. The cache works only
inside one `@hydra.main` call (one `reprolab-train` run or sweep; Hydra's own compositions of the master config,
to read `hydra.mode` and to start the sweep, share one), or one `--next` chain of them while no config file
changed (mtime and size, checked between calls; a later `hydra.compose` reads the files again), and empties when
anything is stored in Hydra's ConfigStore.
`REPROLAB_COMPOSE_CACHE=0` turns it off.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
from importlib import import_module

from hydra._internal import config_loader_impl
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.config_store import ConfigStore

ENV = "REPROLAB_COMPOSE_CACHE"
stats = {"composed": 0, "reused": 0}  # configs merged from files / handed out as copies since reset()
_defaults: dict[tuple, object] = {}  # (sources, config name, group overrides, flags) → DefaultsList, value overrides left out
_composed: dict[tuple, object] = {}  # (sources, defaults list) → the merged config before any value override
loaded: dict[tuple, object] = {}  # (sources, config path) → a config file as loaded (compose_repo), handed out as copies
_depth = [0]  # how many `active()` contexts are open
_kept: dict = {"depth": 0, "signature": None}  # open `kept()` contexts; the config files as the last call left them


def enabled() -> bool:
    return _depth[0] > 0 and os.environ.get(ENV, "1") != "0"


def reset() -> None:
    _defaults.clear()
    _composed.clear()
    loaded.clear()


def file_signature() -> tuple:
    """(folder, file, mtime, size) of every file under the cached compositions' file sources (the conf tree)."""
    folders = {path for key in (*_defaults, *_composed, *loaded) for _, path in key[0]
               if os.path.isabs(path) and os.path.isdir(path)}
    return tuple((root, name, stat.st_mtime_ns, stat.st_size) for folder in sorted(folders)
                 for root, _, names in sorted(os.walk(folder)) for name in sorted(names)
                 for stat in [os.stat(os.path.join(root, name))])


@contextlib.contextmanager
def active():
    """The cache at work, empty at the start (`stats` counted from here) and emptied at the end; inside `kept()`
    it starts with what the previous call left while no config file changed since."""
    if _depth[0] == 0:
        if not (_kept["depth"] and _kept["signature"] == file_signature()):
            reset()
        stats.update(composed=0, reused=0)
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if _depth[0] == 0:
            if _kept["depth"]:
                _kept["signature"] = file_signature()
            else:
                reset()


@contextlib.contextmanager
def kept():
    """Several `@hydra.main` calls of one command (a `--next` chain) share the cache: each call composes the master
    config and the group choices an earlier call composed from the files only if a file changed in between."""
    _kept["depth"] += 1
    try:
        yield
    finally:
        _kept["depth"] -= 1
        if _kept["depth"] == 0:
            _kept["signature"] = None
            reset()


def sources(repo) -> tuple:
    return tuple((source.provider, source.path) for source in repo.get_sources())


def _split(repo, overrides) -> tuple[tuple, list]:
    """(the input lines that shape the defaults list, the value overrides), as Hydra's `Overrides` splits them."""
    shaping, values = [], []
    for override in overrides:
        if override.is_sweep_override():
            shaping.append(override.input_line)
        elif isinstance(override.value(), dict) or not repo.group_exists(override.key_or_group):
            values.append(override)
        else:
            shaping.append(override.input_line)
    return tuple(shaping), values


def _cached_defaults_list(create):
    @functools.wraps(create)
    def create_defaults_list(repo, config_name, overrides_list, prepend_hydra, skip_missing):
        if not enabled():
            return create(repo, config_name, overrides_list, prepend_hydra, skip_missing)
        shaping, values = _split(repo, overrides_list)
        key = (sources(repo), config_name, shaping, prepend_hydra, skip_missing)
        if key not in _defaults:
            made = create(repo, config_name, overrides_list, prepend_hydra, skip_missing)
            kept = copy.copy(made)
            kept.config_overrides, kept.overrides = [], copy.copy(made.overrides)
            kept.overrides.config_overrides = []
            _defaults[key] = copy.deepcopy(kept)
            return made
        made = copy.deepcopy(_defaults[key])
        made.config_overrides = made.overrides.config_overrides = values
        return made

    return create_defaults_list


def _cached_compose(compose):
    @functools.wraps(compose)
    def _compose_config_from_defaults_list(self, defaults, repo):
        if not enabled():
            return compose(self, defaults=defaults, repo=repo)
        key = (sources(repo), tuple((d.config_path, d.package, d.primary) for d in defaults))
        if key in _composed:
            stats["reused"] += 1
            return copy.deepcopy(_composed[key])
        cfg = compose(self, defaults=defaults, repo=repo)
        _composed[key] = copy.deepcopy(cfg)
        stats["composed"] += 1
        return cfg

    return _compose_config_from_defaults_list


def _within(run_hydra):
    @functools.wraps(run_hydra)
    def wrapped(*args, **kwargs):
        with active():
            return run_hydra(*args, **kwargs)

    return wrapped


def _emptying_store(store):
    @functools.wraps(store)
    def wrapped(*args, **kwargs):
        reset()
        return store(*args, **kwargs)

    return wrapped


def install_compose_cache() -> None:
    """Wrap Hydra's two steps and what `@hydra.main` runs (idempotent)."""
    if getattr(ConfigLoaderImpl._compose_config_from_defaults_list, "reprolab_cache", False):
        return
    config_loader_impl.create_defaults_list = _cached_defaults_list(config_loader_impl.create_defaults_list)
    ConfigLoaderImpl._compose_config_from_defaults_list = _cached_compose(ConfigLoaderImpl._compose_config_from_defaults_list)
    ConfigLoaderImpl._compose_config_from_defaults_list.reprolab_cache = True
    ConfigStore.store = _emptying_store(ConfigStore.store)
    main_module = import_module("hydra.main")  # the module: `hydra.main` is also the decorator's name
    main_module._run_hydra = _within(main_module._run_hydra)
