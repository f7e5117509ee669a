"""Rewrite each run folder's `config_hash` from the config it ran, the way this reprolab hashes, so that a rerun
sweep skips it: after an upgrade that changed `sweep.config_hash`, or for runs copied in from another checkout.

    python -m reprolab.sweeps.rehash logs/claims/degradequery [more folders] [--assume model.new_key=old_behaviour ...]

The config it ran is the one Hydra saved in the run's `.hydra/config.yaml` when the job started; its `${hydra:…}`
values are read from the `.hydra/hydra.yaml` beside it. Folders set aside (`replaced-*`) are left alone. A key added
to the config tree since, whose default reproduces what the runs did, is given with `--assume key=value`: it is set
where the saved config lacks it (never changed where present), so the runs skip under the new tree.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml
from omegaconf import DictConfig, OmegaConf

import reprolab.config.compose  # noqa: F401  (registers the config tree's resolvers)
import reprolab.config.paths  # noqa: F401
from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.results.runs import in_set_aside
from reprolab.sweeps.config_hash import HASH_FILE, config_hash

_HYDRA_VALUE = re.compile(r"\$\{hydra:([^}]+)\}")
_ABSENT = object()


def stored_config(run_dir: Path, assume: dict | None = None) -> DictConfig | None:
    """The run's saved config with its `${hydra:…}` values filled in from its saved Hydra node, and each `assume`
    key it lacks set to its value; None if absent."""
    config, hydra = run_dir / ".hydra" / "config.yaml", run_dir / ".hydra" / "hydra.yaml"
    if not (config.is_file() and hydra.is_file()):
        return None
    return saved_config(config.read_text(), hydra.read_text(), assume)


def saved_config(config_text: str, hydra_text: str, assume: dict | None = None) -> DictConfig:
    """`stored_config` from the texts of a run's `.hydra/config.yaml` and `.hydra/hydra.yaml`."""
    node = OmegaConf.create(hydra_text).hydra
    text = _HYDRA_VALUE.sub(lambda m: str(OmegaConf.select(node, m.group(1), default=m.group(0))), config_text)
    cfg = OmegaConf.create(text)
    for key, value in (assume or {}).items():
        if OmegaConf.select(cfg, key, default=_ABSENT) is _ABSENT:
            OmegaConf.update(cfg, key, value, force_add=True)
    return cfg


def _masked(tree) -> bool:
    if isinstance(tree, dict):
        return any(_masked(v) for v in tree.values())
    if isinstance(tree, list):
        return any(_masked(v) for v in tree)
    return isinstance(tree, str) and "***" in tree


def rehash(run_dir: Path, assume: dict | None = None) -> str:
    """'rewritten', 'unchanged', 'no saved config' or 'masked' (a value was saved as `***`, so the config it ran
    cannot be hashed again: its hash is left as it is) for one run folder holding a `config_hash`."""
    cfg = stored_config(run_dir, assume)
    if cfg is None:
        return "no saved config"
    if _masked(OmegaConf.to_container(cfg, resolve=False)):
        return "masked"
    new, hash_file = config_hash(cfg), run_dir / HASH_FILE
    if hash_file.read_text().strip() == new:
        return "unchanged"
    hash_file.write_text(new + "\n")
    return "rewritten"


@quiet_on_closed_stdout
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reprolab.sweeps.rehash", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="run or sweep folders, searched recursively")
    parser.add_argument("--assume", action="append", default=[], metavar="KEY=VALUE",
                        help="a key added to the tree since, with the value that reproduces these runs (repeatable)")
    args = parser.parse_args(argv)
    if any("=" not in a for a in args.assume):
        print("error: --assume takes KEY=VALUE, e.g. --assume model.position_input=r_over_s", file=sys.stderr)
        return 2
    assume = {k: yaml.safe_load(v) for k, v in (a.split("=", 1) for a in args.assume)}
    missing = [str(f) for f in args.folders if not f.is_dir()]
    if missing:
        print(f"error: not a folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    counts: dict[str, int] = {}
    for folder in args.folders:
        for hash_file in sorted(folder.rglob(HASH_FILE)):
            if not in_set_aside(hash_file, folder):
                outcome = rehash(hash_file.parent, assume)
                counts[outcome] = counts.get(outcome, 0) + 1
    print(", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "no run folders with a config_hash")
    return 0


if __name__ == "__main__":
    sys.exit(main())
