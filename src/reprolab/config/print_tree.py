"""Print the composed config as a rich tree, one branch per config group; nothing is cut: lines wrap on a
terminal, and off one (a log file) the tree is as wide as its longest line."""

from __future__ import annotations

import sys

import rich.console
import rich.syntax
import rich.text
import rich.tree
from omegaconf import DictConfig, OmegaConf

from reprolab.run.loggers import redact

ORDER = ("data", "model", "task", "optimizer", "scheduler", "trainer", "device", "logger", "callbacks", "paths")
TREE_INDENT = 8  # the guides in front of a branch's text


def print_config_tree(cfg: DictConfig, resolve: bool = True) -> None:
    terminal = sys.stdout.isatty()
    tree = rich.tree.Tree("CONFIG", style="dim", guide_style="dim")
    container = redact(OmegaConf.to_container(cfg, resolve=resolve, throw_on_missing=False))
    keys = [k for k in ORDER if k in container] + [k for k in container if k not in ORDER]
    texts = {}
    for key in keys:
        value = container[key]
        texts[key] = (OmegaConf.to_yaml(value) if isinstance(value, dict | list) else str(value)).rstrip("\n")
        text = rich.syntax.Syntax(texts[key], "yaml", word_wrap=True) if terminal else rich.text.Text(texts[key])
        tree.add(str(key), style="bold", guide_style="dim").add(text)
    widest = max((len(line) for text in texts.values() for line in text.splitlines()), default=0)
    rich.console.Console(width=None if terminal else widest + TREE_INDENT).print(tree)
