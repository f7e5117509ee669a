"""What to do about an override Hydra could not apply: the nearest existing key for a typo (`trainer.max_step=5`
→ `trainer.max_steps`), `~<group>` where a config group was set to null (`scheduler=null`), one of `-m`, `--cfg`,
`--info` where several were given, and the presets near one Hydra cannot find; before Hydra parses them, an
override written as a flag (`--seed 1`) or a preset named without `experiment=`, and `-m` moved first."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from omegaconf import DictConfig

from reprolab.config.compose import CONF_DIR

_NULL_GROUP = "Config group override must be a string or a list"
_ONE_MODE = "Only one of --run, --multirun, --cfg, --info and --shell_completion can be specified"
# Hydra's own long flags, and those that take the next argument as their value (hydra/_internal/utils.py)
HYDRA_FLAGS = {"--help", "--hydra-help", "--version", "--cfg", "--resolve", "--package", "--run", "--multirun",
               "--shell-completion", "--config-path", "--config-name", "--config-dir", "--experimental-rerun", "--info",
               "--next"}  # --next: reprolab.sweeps.chain's separator
_TAKES_VALUE = {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn", "--config-dir", "-cd",
                "--experimental-rerun"}


MULTIRUN_FLAGS = ("-m", "--multirun")


def multirun_flag_first(argv: list[str]) -> list[str]:
    """`-m` moved before the overrides: Hydra's parser takes overrides on one side of it only, and `make claim-*
    JOBS=2` puts the launcher's overrides before a recipe's `-m` (`reprolab-train hydra/launcher=parallel … -m …`)."""
    if not any(a in MULTIRUN_FLAGS for a in argv[1:]):
        return argv
    return [argv[0], "-m", *(a for a in argv[1:] if a not in MULTIRUN_FLAGS)]


def argument_error_line(args: Sequence[str], prog: str, presets: bool = True) -> str | None:
    """The one line for an argument Hydra would misread, else None: `--key value` or `--key=value` (argparse would
    even take `--experiment` as its `--experimental-rerun`), or with `presets`, a preset named without `experiment=`."""
    for i, arg in enumerate(args):
        after = args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("--") and arg.split("=")[0] not in HYDRA_FLAGS:
            key, _, value = arg[2:].partition("=")
            value = value or (after if after and "=" not in after and not after.startswith("-") else "...")
            return f"{arg.split('=')[0]} is not an option of {prog}; settings are key=value overrides: {key}={value}"
        previous = args[i - 1] if i else ""
        if presets and "=" not in arg and not arg.startswith("-") and previous not in _TAKES_VALUE:
            if all((CONF_DIR / "experiment" / f"{name}.yaml").is_file() for name in arg.split(",")):
                return f"'{arg}' names {'presets' if ',' in arg else 'a preset'}; write experiment={arg}"
    return None


def override_error_line(err: BaseException, args: Sequence[str] = ()) -> str | None:
    """The one line for `err` (the exception Hydra raised while composing `args`), or None when `err` is not
    one of the override mistakes above."""
    if isinstance(err, ValueError) and _NULL_GROUP in str(err):
        groups = [a.split("=")[0] for a in args if a.endswith("=null") and (CONF_DIR / a.split("=")[0]).is_dir()]
        shown = ", ".join(f"~{g}" for g in groups) or "~<group>"
        return (f"{', '.join(f'{g}=null' for g in groups) or 'group=null'}: a config group is dropped with "
                f"`~<group>`, not set to null; write {shown}")
    if isinstance(err, ValueError) and _ONE_MODE in str(err):
        return ("-m (--multirun), --cfg and --info cannot be combined; give one of them (a sweep's config: drop -m and "
                "run --cfg job with one value per key)")
    sweep = any(a in ("-m", "--multirun") for a in args)
    return _unknown_key_line(err.__cause__, "++" if sweep else "+")


def _unknown_key_line(cause: BaseException | None, add: str = "+") -> str | None:
    """`add`: `++` in a `-m` sweep, where a key only some swept presets have must be set in every job (README)."""
    node, key, full_key = (getattr(cause, name, None) for name in ("parent_node", "key", "full_key"))
    if not isinstance(node, DictConfig) or not isinstance(key, str) or not full_key:
        return None
    siblings = [k for k in node.keys() if isinstance(k, str) and k != "hydra"]
    parent = str(full_key).rpartition(".")[0]
    prefix = f"{parent}." if parent else ""
    text = f"'{full_key}' is not a key of {f'{parent!r}' if parent else 'the config'}"
    close = difflib.get_close_matches(key, siblings, n=2, cutoff=0.75)
    if close:
        return f"{text}; did you mean {' or '.join(prefix + c for c in close)}? ({add}{full_key}=… would add a new key)"
    return f"{text} (its keys: {', '.join(siblings)}); {add}{full_key}=… would add a new key"


def preset_options(text: str) -> str:
    """For an experiment preset Hydra cannot find (it lists no options of nested folders): the preset a file path
    names (`conf/experiment/<paper>/<setting>.yaml`), the nearest name to a typo, and the paper's presets, or the
    papers when the paper's folder does not exist either."""
    found = re.search(r"Could not find 'experiment/([^']+)'", text)
    if not found:
        return ""
    root, wanted = CONF_DIR / "experiment", found.group(1)
    names = sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml"))
    as_path = wanted.removesuffix(".yaml").rpartition("experiment/")[2]
    if as_path in names:
        return f" (that is a file path: write experiment={as_path})"
    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.8)
    nearest = f"; did you mean experiment={close[0]}?" if close else ""
    paper = wanted.split("/")[0]
    if (root / paper).is_dir():
        return f"{nearest} (its presets: {', '.join(n for n in names if n.startswith(paper + '/'))})"
    return f"{nearest} (papers with presets: {', '.join(sorted(p.name for p in root.iterdir() if p.is_dir()))})"
