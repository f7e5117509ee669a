"""Print the composed config as a rich tree, one branch per config group."""

from __future__ import annotations

import rich
import rich.syntax
import rich.tree
from omegaconf import DictConfig, OmegaConf

from reprolab.loggers import redact

ORDER = ("data", "model", "task", "optimizer", "scheduler", "trainer", "device", "logger", "callbacks", "paths")


def print_config_tree(cfg: DictConfig, resolve: bool = True) -> None:
    tree = rich.tree.Tree("CONFIG", style="dim", guide_style="dim")
    container = redact(OmegaConf.to_container(cfg, resolve=resolve, throw_on_missing=False))
    keys = [k for k in ORDER if k in container] + [k for k in container if k not in ORDER]
    for key in keys:
        branch = tree.add(str(key), style="bold", guide_style="dim")
        value = container[key]
        text = OmegaConf.to_yaml(value) if isinstance(value, dict | list) else str(value)
        branch.add(rich.syntax.Syntax(text, "yaml"))
    rich.print(tree)
