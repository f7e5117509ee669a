"""What a run leaves in its folder besides checkpoints and logs (`metrics.json` or `error.txt`, written
atomically), and the folder's lock, taken before Hydra writes into the folder."""

from __future__ import annotations

import fcntl
import json
import math
import os
import sys
from pathlib import Path
from typing import IO

import torch
from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from lightning.fabric.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig, OmegaConf, read_write

from reprolab.cli.errors import ReprolabError, RunFolderBusyError, from_os_error
from reprolab.run.loggers import SECRET_MARKERS, mask_text, redact

METRICS_FILE = "metrics.json"
ERROR_FILE = "error.txt"
LOCK_FILE = ".lock"


def as_floats(metrics: dict) -> dict[str, float]:
    out = {}
    for key, value in metrics.items():
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = float(value)
    return out


def merge_results(results: list[dict]) -> dict:
    """One dict from `trainer.test`'s list (one per test loader; Lightning suffixes keys by loader index)."""
    return {key: value for result in results for key, value in result.items()}


def write_atomic(path: str | Path, text: str | bytes) -> Path:
    """Write `text` (or bytes) to a temporary file beside `path`, then rename it over `path`: a crash or a full disk
    leaves the old file or none, never a half one (the temporary file is removed on failure)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb" if isinstance(text, bytes) else "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, OSError) and err.filename == str(tmp):
            err.filename = str(path)  # the user's file, not our temporary name
        raise
    return path


def write_metrics(output_dir: str | Path, metrics: dict) -> Path:
    clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in metrics.items()}
    return write_atomic(Path(output_dir) / METRICS_FILE, json.dumps(redact(clean), indent=2, sort_keys=True))


def run_checkpoint(run_dir: str | Path) -> Path:
    """The checkpoint a finished run tested: `best_ckpt` of its metrics.json looked up by name in the run's own
    `checkpoints/` first (metrics.json records an absolute path, stale once the folder is moved or copied), then at
    the recorded path; without one, `checkpoints/last.ckpt`. The path may not exist: the caller says what to run."""
    run_dir = Path(run_dir)
    metrics = run_dir / METRICS_FILE
    best = json.loads(metrics.read_text()).get("best_ckpt") if metrics.is_file() else None
    here = run_dir / "checkpoints" / (Path(best).name if best else "last.ckpt")
    return Path(best) if best and not here.is_file() and Path(best).is_file() else here


def write_error(output_dir: str | Path, message: str) -> bool:
    """`error.txt`, atomically; False when it cannot be written (e.g. a full disk: the line on stderr remains)."""
    try:
        write_atomic(Path(output_dir) / ERROR_FILE, mask_text(message) + "\n")
    except OSError:
        return False
    return True


_HELD: dict[str, IO] = {}  # run folder (real path) → the lock file this process holds on it


def lock_run_folder(output_dir: str | Path) -> IO:
    """Hold an exclusive lock on `<run>/.lock` (released when the returned file closes or the process ends);
    a folder another live run (or this process) holds is refused."""
    path = Path(output_dir) / LOCK_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 — held open for the whole run
    except OSError as err:
        raise from_os_error(err) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "?"
        handle.close()
        raise RunFolderBusyError(f"run folder '{output_dir}' is in use by another run (pid {owner}); "
                                 "wait for it to finish or choose another hydra.run.dir") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _is_locked(output_dir: str | Path) -> bool:
    """Whether a live run holds the folder's lock (the lock file's content is left as it is)."""
    with open(Path(output_dir) / LOCK_FILE, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


def held_lock(output_dir: str | Path) -> IO | None:
    """The lock `RunFolderLock` took on this folder before Hydra wrote into it, if any (the caller closes it)."""
    return _HELD.pop(os.path.realpath(output_dir), None)


def release_locks() -> None:
    """Close every lock this process still holds (an in-process caller that ran `reprolab-train` ends with none)."""
    while _HELD:
        _HELD.popitem()[1].close()


class RunFolderLock(Callback):
    """Locks the run folder (a multirun: the sweep's folder) before Hydra writes `.hydra/` and its log there,
    so a second run into a busy folder is refused before it touches anything. The folder's `${now:}` is
    pinned first, so Hydra's job resolves the same path. A single run into a folder that holds a finished
    run (`metrics.json`) is refused too, unless `keep_finished` is false (an evaluation redoes its own);
    a `-m` sweep decides per job instead (skip, resume or start: reprolab.sweeps.callback)."""

    folder: str | None = None

    def __init__(self, keep_finished: bool = True):
        self.keep_finished = keep_finished

    def _lock(self, config: DictConfig, key: str, refuse_finished: bool = False) -> None:
        """Hydra turns a callback's exception into a warning, so a refusal ends the process here, with one line.
        A DDP rank > 0 (launched into rank 0's folder) runs under rank 0's lock."""
        if rank_zero_only.rank != 0:
            return
        HydraConfig.instance().set_config(config)  # `${hydra:...}` in the folder's name resolves as in the job
        self.folder = str(OmegaConf.select(config, key))
        parent, name = key.rsplit(".", 1)
        with read_write(OmegaConf.select(config, parent)):
            OmegaConf.select(config, parent)[name] = self.folder
        try:
            if refuse_finished and (Path(self.folder) / METRICS_FILE).is_file() and not _is_locked(self.folder):
                raise RunFolderBusyError(f"{self.folder} holds a finished run ({METRICS_FILE}), which is never "
                                         "written over; leave hydra.run.dir out (a new dated folder) or name another, "
                                         "or move that folder away to rerun it")
            _HELD[os.path.realpath(self.folder)] = lock_run_folder(self.folder)
        except ReprolabError as err:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(err.exit_code)

    def _release(self) -> None:
        handle = held_lock(self.folder) if self.folder else None
        if handle is not None:
            handle.close()

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        self._lock(config, "hydra.run.dir", refuse_finished=self.keep_finished)

    def on_run_end(self, config: DictConfig, **kwargs) -> None:
        self._release()

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        self._lock(config, "hydra.sweep.dir")

    def on_multirun_end(self, config: DictConfig, **kwargs) -> None:
        self._release()


def mask_saved_config(config_dir: str | Path) -> None:
    """Rewrite Hydra's saved `config.yaml`, `hydra.yaml`, `overrides.yaml` with secret-looking values masked
    (a file whose text names no secret marker is left unparsed: nothing in it can be masked)."""
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        path = Path(config_dir) / name
        if not path.is_file() or not any(marker in path.read_text().lower() for marker in SECRET_MARKERS):
            continue
        saved = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
        masked = redact(saved)
        if masked != saved:
            tmp = path.with_suffix(".yaml.tmp")
            OmegaConf.save(OmegaConf.create(masked), tmp)
            tmp.replace(path)
