"""OmegaConf's interpolation parse trees, parsed once per string.

OmegaConf parses an interpolation (`${paths.output_dir}`, `${oc.env:X,y}`) with its ANTLR grammar each time it
resolves it, and every job of a sweep resolves its config several times (the checks, `instantiate` of each group,
the loggers' hyper-parameters): on APT's claim sweep ~64 parses a job of the same few dozen strings, ~0.5 ms each.
The tree only describes the string (resolving it reads the config it is resolved in, and the visitor that walks it
writes nothing to it), so `install` keeps the trees of the last 4096 distinct (string, rule, lexer mode); a string
that does not parse raises as before and is not kept. `REPROLAB_PARSE_CACHE=0` leaves OmegaConf's own in place.
"""

from __future__ import annotations

import functools
import os

from omegaconf import _utils, base, grammar_parser
from omegaconf.resolvers import oc

_MODULES = (grammar_parser, base, _utils, oc)  # each imported `parse` by name


def install() -> None:
    """Put the cached `parse` wherever OmegaConf calls it (idempotent)."""
    if os.environ.get("REPROLAB_PARSE_CACHE", "1") == "0" or hasattr(grammar_parser.parse, "cache_info"):
        return
    cached = functools.lru_cache(maxsize=4096)(grammar_parser.parse)
    for module in _MODULES:
        module.parse = cached
