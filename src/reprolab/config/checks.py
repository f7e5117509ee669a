"""Config values checked before anything is printed or built: common numeric keys by name, and every
`_target_` node's keys against its constructor's signature (a typo like `+optimizer.lrr=0.1` fails here,
not as a TypeError deep inside `trainer.fit`)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator

from hydra.utils import get_object
from omegaconf import DictConfig, OmegaConf

from reprolab.cli.errors import ConfigError

HYDRA_KEYS = {"_target_", "_partial_", "_recursive_", "_convert_", "_args_"}


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _integer(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _fraction_or_count(v) -> bool:
    return (_integer(v) and v >= 0) or (_number(v) and 0.0 <= v <= 1.0)


# key name → (what it must be, test); None is always allowed (an unset optional value).
RULES: dict[str, tuple[str, Callable]] = {
    "lr": ("a number ≥ 0", lambda v: _number(v) and v >= 0),
    "weight_decay": ("a number ≥ 0", lambda v: _number(v) and v >= 0),
    "momentum": ("a number ≥ 0", lambda v: _number(v) and v >= 0),
    "eps": ("a number ≥ 0", lambda v: _number(v) and v >= 0),
    "dropout": ("a number in [0, 1]", lambda v: _number(v) and 0 <= v <= 1),
    "betas": ("two numbers in [0, 1), e.g. [0.9,0.999]",
              lambda v: isinstance(v, list | tuple) and len(v) == 2 and all(_number(b) and 0 <= b < 1 for b in v)),
    "gradient_clip_val": ("a number ≥ 0", lambda v: _number(v) and v >= 0),
    "batch_size": ("an integer ≥ 1", lambda v: _integer(v) and v >= 1),
    "accumulate_grad_batches": ("an integer ≥ 1", lambda v: _integer(v) and v >= 1),
    "check_val_every_n_epoch": ("an integer ≥ 1", lambda v: _integer(v) and v >= 1),
    "num_workers": ("an integer in [0, 1024] (DataLoader worker processes)", lambda v: _integer(v) and 0 <= v <= 1024),
    "warmup_steps": ("an integer ≥ 0", lambda v: _integer(v) and v >= 0),
    "seed": ("an integer in [0, 2³²)", lambda v: _integer(v) and 0 <= v < 2**32),
    "max_epochs": ("an integer ≥ -1 (-1: no limit)", lambda v: _integer(v) and v >= -1),
    "max_steps": ("an integer ≥ -1 (-1: no limit)", lambda v: _integer(v) and v >= -1),
    "min_epochs": ("an integer ≥ 0", lambda v: _integer(v) and v >= 0),
    "limit_train_batches": ("a batch count ≥ 0 or a fraction in [0, 1]", _fraction_or_count),
    "limit_val_batches": ("a batch count ≥ 0 or a fraction in [0, 1]", _fraction_or_count),
    "limit_test_batches": ("a batch count ≥ 0 or a fraction in [0, 1]", _fraction_or_count),
    "val_check_interval": ("a batch count ≥ 1 or a fraction in (0, 1]",
                           lambda v: (_integer(v) and v >= 1) or (_number(v) and 0 < v <= 1)),
}


def _leaves(node, path: str = "") -> Iterator[tuple[str, str, object]]:
    """(dotted path, key, value) of every entry of a resolved container, depth first."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            yield where, str(key), value
            yield from _leaves(value, where)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, f"{path}[{i}]")


def check_values(cfg: DictConfig, resolved: dict | None = None) -> None:
    """Every key named in RULES holds a value of the right type and range (or null); `resolved`: `cfg` already
    resolved to a container (not resolved again)."""
    tree = OmegaConf.to_container(cfg, resolve=True) if resolved is None else resolved
    tree = {key: value for key, value in tree.items() if key != "hydra"}
    for where, key, value in _leaves(tree):
        rule = RULES.get(key)
        if rule is None or value is None or rule[1](value):
            continue
        raise ConfigError(f"{where}={value!r} is not valid: it must be {rule[0]}; "
                          f"fix it on the command line ({where}=...) or in the preset")


def _target_nodes(node, path: str = "") -> Iterator[tuple[str, dict]]:
    """Every mapping with a `_target_` in the unresolved container of the config, with its dotted path."""
    if isinstance(node, dict):
        if "_target_" in node:
            yield path, node
        for key, value in node.items():
            yield from _target_nodes(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _target_nodes(value, f"{path}[{i}]")


def _params(fn) -> tuple[set[str], bool] | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind == p.VAR_KEYWORD for p in params)


def _accepted(target) -> tuple[set[str], bool]:
    """The keyword names `target` accepts, and whether it takes any (**kwargs not handed on to a base class
    whose signature is known). A class's `**kwargs` is followed up its bases' `__init__`s."""
    if not inspect.isclass(target):
        found = _params(target)
        return found if found is not None else (set(), True)
    names: set[str] = set()
    for cls in target.__mro__:
        if "__init__" not in vars(cls) or cls is object:
            continue
        found = _params(vars(cls)["__init__"])
        if found is None:
            return names, True
        names |= found[0] - {"self"}
        if not found[1]:
            return names, False
    return names, True


def check_targets(cfg: DictConfig) -> None:
    """Each `_target_` imports, and each of its node's keys is an argument its constructor takes."""
    for where, node in _target_nodes(OmegaConf.to_container(cfg, resolve=False)):
        if where == "hydra" or where.startswith("hydra."):
            continue
        name = node["_target_"]
        try:
            target = get_object(str(name))
        except (ImportError, AttributeError, ValueError) as err:
            raise ConfigError(f"{where}._target_ '{name}' cannot be imported ({str(err).splitlines()[0]}); "
                              "fix the name, or install the paper's extra (pip install -e '.[<paper>]')") from None
        accepted, anything = _accepted(target)
        unknown = [k for k in node if k not in HYDRA_KEYS and k not in accepted]
        if unknown and not anything:
            key = unknown[0]
            raise ConfigError(f"{where}.{key}: {name} takes no argument '{key}' (it takes: {', '.join(sorted(accepted))}); "
                              f"fix the name, or drop it with ~{where}.{key}")
