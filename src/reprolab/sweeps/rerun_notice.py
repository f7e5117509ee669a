"""Why a finished sweep job re-runs when the config tree gained keys since it ran, and the command that keeps it.

A job whose saved config differs from its new one only by keys the new tree added is still re-run (the safe
default: nothing says the run was made with those values), but the sweep says so once, naming the keys with their
new values and the `python -m reprolab.sweeps.rehash … --assume key=value` that keeps the runs if they were. Hydra
overwrites a job's `.hydra/config.yaml` before the job decides (sweep.decide_job), so the saved configs are those
`finished_records` read when the sweep started.

A job that runs in its own process (submitit's local or SLURM launcher) prints its notice to its own log
(`<sweep>/.submitit/<job>/*.out`), which the sweep's terminal never shows: each notice is also appended to
`<sweep>/NOTICES_FILE` (one JSON line of added keys; removed at each sweep start), and the sweep's own process says
at its end, in the past tense, each one it did not print itself.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml
from lightning.fabric.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig

from reprolab.sweeps.config_hash import config_hash, hashed_tree
from reprolab.sweeps.finished_records import saved_record
from reprolab.sweeps.rehash import saved_config

NOTICES_FILE = ".rerun_notices"
_TOLD: set[str] = set()  # the added keys (as JSON) whose notice this process printed


def forget_notices(sweep_dir: str | Path) -> None:
    """At a sweep's start (its rank 0): nothing told yet, and no notice of an earlier sweep in the folder."""
    _TOLD.clear()
    Path(sweep_dir, NOTICES_FILE).unlink(missing_ok=True)


def added_keys(new: dict, old: dict, prefix: str = "") -> dict:
    """Each leaf of `new` (dotted key -> value) under a key `old` lacks."""
    added = {}
    for key, value in new.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value and isinstance(old.get(key, {}), dict):
            added.update(added_keys(value, old.get(key, {}), dotted + "."))
        elif key not in old:
            added[dotted] = value
    return added


def as_yaml_value(value) -> str:
    """`value` written so that rehash's `yaml.safe_load` reads it back unchanged (`1e-05` → `1.0e-05`)."""
    if isinstance(value, float) and "e" in repr(value) and "." not in repr(value).split("e")[0]:
        mantissa, exponent = repr(value).split("e")
        return f"{mantissa}.0e{exponent}"
    text = value if isinstance(value, str) else json.dumps(value)
    return text if yaml.safe_load(text) == value else json.dumps(value)


def rehash_command(sweep_dir: str | Path, added: dict) -> str:
    here, folder = Path.cwd().resolve(), Path(sweep_dir).resolve()
    folder = folder.relative_to(here) if folder.is_relative_to(here) else folder
    flags = " ".join(f"--assume {shlex.quote(f'{key}={as_yaml_value(value)}')}" for key, value in sorted(added.items()))
    return f"python -m reprolab.sweeps.rehash {shlex.quote(str(folder))} {flags}"


def rerun_notice(cfg: DictConfig, run_dir: str | Path, sweep_dir: str | Path, resolved: dict | None = None) -> str | None:
    """The line to print when the finished run in `run_dir` is re-run although its saved config differs from `cfg`
    only by added keys; None otherwise, and when this process already printed it in this sweep. Rank 0 only
    appends it to the sweep's notices file."""
    record = saved_record(run_dir, sweep_dir)
    if record is None:
        return None
    texts = (record["config.yaml"], record["hydra.yaml"])
    try:
        old = saved_config(*texts)
        added = added_keys(hashed_tree(cfg, resolved), hashed_tree(old))
        same = bool(added) and config_hash(saved_config(*texts, assume=added)) == config_hash(cfg, resolved)
    except Exception:  # noqa: BLE001 - a saved config this tree cannot read: no notice, the job re-runs as before
        return None
    told = json.dumps(added, sort_keys=True, default=str)
    if not same or told in _TOLD:
        return None
    _TOLD.add(told)
    if rank_zero_only.rank == 0:
        with open(Path(sweep_dir, NOTICES_FILE), "a") as notices:
            notices.write(told + "\n")
    return (f"note: finished runs in {sweep_dir} are re-run because their saved config lacks keys added since "
            f"({key_values(added)}); if they were made with these values, keep them: stop this sweep (Ctrl-C), run "
            f"`{rehash_command(sweep_dir, added)}` and rerun this command")


def key_values(added: dict) -> str:
    return ", ".join(f"{key}={as_yaml_value(value)}" for key, value in sorted(added.items()))


def notices_after(sweep_dir: str | Path) -> list[str]:
    """At the sweep's end, in its own process: the notices its jobs appended that this process did not print."""
    path, lines = Path(sweep_dir, NOTICES_FILE), []
    for told in dict.fromkeys(path.read_text().splitlines() if path.is_file() else []):
        try:
            added = json.loads(told)
        except ValueError:  # a line two jobs on a network file system appended at once
            continue
        if isinstance(added, dict) and added and told not in _TOLD:
            _TOLD.add(told)
            lines.append(f"note: finished runs in {sweep_dir} were re-run because their saved config lacked keys "
                         f"added since ({key_values(added)}); their jobs ran in other processes, so this comes only "
                         f"now, and the earlier runs are in each job's replaced-*/ folder. If such runs were made "
                         f"with these values, run `{rehash_command(sweep_dir, added)}` before the next sweep over them")
    return lines
