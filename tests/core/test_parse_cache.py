"""`reprolab.parse_cache`: each interpolation string is parsed once, and every config resolves as OmegaConf's own
parsing resolves it."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf, grammar_parser
from omegaconf.errors import GrammarParseError, OmegaConfBaseException

from reprolab import parse_cache
from reprolab.config import CONF_DIR
from tests.core.test_fast_yaml import ONE_PER_PAPER

UNCACHED = getattr(grammar_parser.parse, "__wrapped__", grammar_parser.parse)


def resolved(cfg):
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:  # an interpolation only the running job resolves: compare the error
        return repr(err)


def test_presets_resolve_alike_and_each_string_is_parsed_once(monkeypatch, tmp_path):
    parse_cache.install()
    cached = grammar_parser.parse
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        configs = [compose("train", overrides=[f"experiment={p}", f"paths.output_dir={tmp_path}"]) for p in ONE_PER_PAPER]
    cached.cache_clear()
    with_cache = [resolved(cfg) for cfg in configs]
    first = cached.cache_info()
    assert first.misses > len(configs) and [resolved(cfg) for cfg in configs] == with_cache
    assert cached.cache_info().misses == first.misses  # resolved again: nothing parsed again
    for module in parse_cache._MODULES:
        monkeypatch.setattr(module, "parse", UNCACHED)
    assert [resolved(cfg) for cfg in configs] == with_cache


def test_one_tree_resolves_in_each_config_to_that_configs_value():
    parse_cache.install()
    one, two = OmegaConf.create({"a": 1, "b": "${a}"}), OmegaConf.create({"a": 2, "b": "${a}", "c": "${oc.select:a,0}"})
    assert (one.b, two.b, two.c) == (1, 2, 2)
    two.a = 5
    assert (one.b, two.b, two.c) == (1, 5, 5)


def test_a_string_that_does_not_parse_raises_every_time():
    parse_cache.install()
    size = grammar_parser.parse.cache_info().currsize
    for _ in range(2):
        with pytest.raises(GrammarParseError):
            OmegaConf.create({"x": "${oc.env:"})  # OmegaConf checks the syntax of a new value
    assert grammar_parser.parse.cache_info().currsize == size


def test_turned_off_leaves_omegaconfs_parser(monkeypatch):
    for module in parse_cache._MODULES:
        monkeypatch.setattr(module, "parse", UNCACHED)
    monkeypatch.setenv("REPROLAB_PARSE_CACHE", "0")
    parse_cache.install()
    assert grammar_parser.parse is UNCACHED
