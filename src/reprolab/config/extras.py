"""Packages only one paper needs are optional extras (pyproject.toml); importing one that is absent is one line
naming the extra to install, e.g. `rdkit is not installed; pip install -e '.[degradequery]'`."""

from __future__ import annotations

import importlib
from types import ModuleType

from reprolab.cli.errors import ReprolabError


class MissingExtraError(ReprolabError, ImportError):
    """An optional dependency of one paper is not installed; the message names its extra."""


def require(module: str, extra: str) -> ModuleType:
    """`import module`, or a MissingExtraError saying `pip install -e '.[extra]'` (`make install` installs all)."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        top = module.split(".")[0]
        if err.name is not None and err.name.split(".")[0] != top:
            raise   # the package is there but one of its own imports failed: show that
        raise MissingExtraError(f"{top} is not installed; it comes with the '{extra}' extra: "
                                f"pip install -e '.[{extra}]' (or make install, which installs every extra)") from None
