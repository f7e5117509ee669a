"""`reprolab-eval ckpt_path=<run>/checkpoints/<file>.ckpt [key=value | group=option ...]`, a Hydra app (conf/eval.yaml).

The run's saved config (`<run>/.hydra/config.yaml`) is the base. The command line is composed as training
composes it, after the run's own overrides (so a preset's keys exist), and each key it names replaces the
saved one: `device=cpu` swaps the whole group, `data.batch_size=64` one value. The run is built by the same
`build_run` as training, the checkpoint tested, and `<run>/eval/<ckpt stem>/metrics.json` written (with
`eval.log` and `.hydra/` beside it), one folder per checkpoint. No logger runs, no checkpoint is written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.cli.errors import ConfigError, ReprolabError, one_line
from reprolab.cli.override_hints import argument_error_line, override_error_line
from reprolab.cli.train import check_config
from reprolab.config.compose import CONF_DIR, compose
from reprolab.config.paths import other_checkout_warning
from reprolab.config.print_tree import print_config_tree
from reprolab.run.build import build_run
from reprolab.run.folder import as_floats, merge_results, write_metrics
from reprolab.run.job_logging import silence_checkpoint_dirpath_warning
from reprolab.run.safe_load import check_checkpoint

USAGE = "usage: reprolab-eval ckpt_path=<run>/checkpoints/<name>.ckpt [overrides]"


def run_dir_of(ckpt_path: str | Path) -> Path:
    for folder in Path(ckpt_path).resolve().parents:
        if (folder / ".hydra" / "config.yaml").exists():
            return folder
    raise ConfigError(f"no .hydra/config.yaml above '{ckpt_path}'; evaluate a checkpoint inside its run folder")


def eval_dir(ckpt_path: str) -> str:
    """`<run>/eval/<ckpt stem>`: each checkpoint's own output folder."""
    return str(run_dir_of(ckpt_path) / "eval" / Path(ckpt_path).stem)


OmegaConf.register_new_resolver("eval_dir", eval_dir, replace=True)


def run_overrides(run_dir: Path) -> list[str]:
    """The overrides the run was composed with (its preset, its sweep values), from `<run>/.hydra/overrides.yaml`."""
    path = run_dir / ".hydra" / "overrides.yaml"
    return [str(o) for o in OmegaConf.load(path)] if path.exists() else []


_ABSENT = object()


def _raw_node(cfg: DictConfig, path: str):
    """The value at `path` with its interpolations unresolved (they resolve against the merged config), or _ABSENT."""
    parent_path, _, leaf = path.rpartition(".")
    parent = OmegaConf.select(cfg, parent_path) if parent_path else cfg
    if isinstance(parent, ListConfig) and leaf.isdigit() and int(leaf) < len(parent):
        return OmegaConf.to_container(parent, resolve=False)[int(leaf)]
    if isinstance(parent, DictConfig) and leaf in parent:
        return OmegaConf.to_container(parent, resolve=False)[leaf]
    return _ABSENT


def apply_overrides(saved: DictConfig, composed: DictConfig, overrides: list[str]) -> DictConfig:
    """`saved` with every key the `overrides` name (a group swap names its whole group) taken from `composed`."""
    for override in OverridesParser.create().parse_overrides(overrides):
        key = override.key_or_group
        if key == "hydra" or key.startswith("hydra."):
            continue
        path = key.replace("/", ".")
        parent_path, _, leaf = path.rpartition(".")
        if override.is_delete():
            parent = OmegaConf.select(saved, parent_path) if parent_path else saved
            if isinstance(parent, DictConfig) and leaf in parent:
                parent.pop(leaf)
            continue
        value = _raw_node(composed, path)
        if value is _ABSENT:
            raise ConfigError(f"'{key}' is not a key of the composed config (a preset such as experiment=… sets many); "
                              "reprolab-eval keeps the run's own: override single groups or keys")
        OmegaConf.update(saved, path, value, merge=False, force_add=True)
    return saved


def eval_config(ckpt_path: str, composed: DictConfig, overrides: list[str]) -> DictConfig:
    """The run's saved config with the command-line `overrides` (composed into `composed`) applied, set up to
    test `ckpt_path` into its own folder."""
    run_dir = run_dir_of(ckpt_path)
    cfg = apply_overrides(OmegaConf.load(run_dir / ".hydra" / "config.yaml"), composed, overrides)
    cfg.ckpt_path = str(ckpt_path)
    cfg.paths.output_dir = eval_dir(ckpt_path)
    cfg.logger = None
    return cfg


def load_eval_config(ckpt_path: str, overrides: list[str]) -> DictConfig:
    """`eval_config` composed in-process (tests, notebooks), as the command line would."""
    if not Path(ckpt_path).is_file():
        raise ConfigError(f"checkpoint '{ckpt_path}' does not exist")
    composed = compose([*run_overrides(run_dir_of(ckpt_path)), f"ckpt_path={ckpt_path}", *overrides],
                       output_dir=eval_dir(ckpt_path), config_name="eval")
    return eval_config(ckpt_path, composed, overrides)


def evaluate(cfg: DictConfig) -> dict[str, float]:
    silence_checkpoint_dirpath_warning()
    datamodule, task, trainer = build_run(cfg)
    results = trainer.test(task, datamodule=datamodule, ckpt_path=cfg.ckpt_path, weights_only=True)
    metrics = as_floats(merge_results(results))
    if trainer.is_global_zero:
        write_metrics(cfg.paths.output_dir, {**metrics, "ckpt_path": cfg.ckpt_path})
        print(f"metrics written to {Path(cfg.paths.output_dir) / 'metrics.json'}: {metrics}")
    return metrics


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="eval")
def hydra_main(composed: DictConfig) -> None:
    from_run = set(run_overrides(run_dir_of(composed.ckpt_path)))
    overrides = [o for o in HydraConfig.get().overrides.task if o not in from_run]  # the user's (a run's own are in the saved config)
    try:
        cfg = eval_config(composed.ckpt_path, composed, overrides)
        check_config(cfg)
        if cfg.get("print_config", True):
            print_config_tree(cfg)
        evaluate(cfg)
    except ReprolabError as err:
        exit_with_one_line(err)


def exit_with_one_line(err: ReprolabError) -> None:
    print(f"error: {one_line(err)}", file=sys.stderr)
    sys.exit(err.exit_code)


def with_run_overrides(args: list[str]) -> list[str]:
    """The command line with the run's own overrides placed before the user's first override (the user's win);
    those already there (a DDP worker, which Lightning starts with this command line) are not added twice."""
    ckpt = [a.partition("=")[2] for a in args if a.startswith("ckpt_path=")]
    if not ckpt and any(a.startswith("-") for a in args):
        return args  # Hydra's own flags (--help, --info) without a run
    if not ckpt:
        raise ConfigError(USAGE)
    check_checkpoint(ckpt[-1])  # before anything is built: refuse a pickle that asks to run code
    first = next((i for i, a in enumerate(args) if "=" in a and not a.startswith("-")), len(args))
    missing = [o for o in run_overrides(run_dir_of(ckpt[-1])) if o not in args]
    return [*args[:first], *missing, *args[first:]]


def config_error_line(err: Exception) -> str:
    if isinstance(err, MissingConfigException) and err.missing_cfg_file and err.options:
        group, _, option = err.missing_cfg_file.rpartition("/")
        return f"'{option}' is not an option of group '{group}'; choose one of {sorted(err.options)}"
    return " ".join(str(err).split("Config search path")[0].split())


@quiet_on_closed_stdout
def main(argv: list[str] | None = None) -> None:
    """Bad input (a missing or unsafe checkpoint, an unknown option, a rejected value) ends with one line and
    exit 2; `HYDRA_FULL_ERROR=1` shows Hydra's tracebacks."""
    args = sys.argv[1:] if argv is None else argv
    wrong = argument_error_line(args, "reprolab-eval", presets=False)
    if wrong:
        print(f"error: {wrong}; see `reprolab-eval --help`", file=sys.stderr)
        sys.exit(2)
    elsewhere = other_checkout_warning("reprolab-eval")
    if elsewhere:
        print(elsewhere, file=sys.stderr)
    saved_argv, full_error = sys.argv, os.environ.get("HYDRA_FULL_ERROR")
    try:
        sys.argv = [saved_argv[0], *with_run_overrides(args)]
        os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra's exceptions reach us instead of being printed
        hydra_main()
    except ReprolabError as err:
        exit_with_one_line(err)
    except (HydraException, OmegaConfBaseException, ValueError) as err:
        hint = override_error_line(err, args)
        if full_error == "1" or (isinstance(err, ValueError) and hint is None):
            raise
        print(f"error: {hint or config_error_line(err)}", file=sys.stderr)
        sys.exit(2)
    finally:
        sys.argv = saved_argv
        if full_error is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)


if __name__ == "__main__":
    main()
