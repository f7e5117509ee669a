"""The `.hydra/` record of each finished run in a sweep folder, read when the sweep starts, put back when its job
is skipped, and given to the folder a job of another config sets the run aside in (sweep.decide_job).

Hydra writes a job's `.hydra/config.yaml`, `hydra.yaml` and `overrides.yaml` before the job decides whether it is
skipped. Without this, rerunning a finished sweep would replace each skipped run's record by the new composition:
equal in hash, but not in what the hash leaves out (paths, operational callbacks) nor in keys assumed by
`python -m reprolab.sweeps.rehash --assume`, so tables would read a config the run never had; and a run set aside would
keep its metrics and checkpoints with no record of the config they came from.

The sweep's process reads the records (`remember_finished`); a job may run in another process (submitit's local or
SLURM launcher: a fresh interpreter per job), so they are also written, gzipped, to `<sweep>/RECORDS_FILE` (about
3 kB, and 0.1 kB more a run: a sweep's records differ little), which a job process reads once. Each sweep start
rewrites that file, or deletes it when no run is finished; no table, hash or report reads it (hidden, its own name).
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

from lightning.fabric.utilities.rank_zero import rank_zero_only

from reprolab.results.runs import in_set_aside
from reprolab.run.folder import METRICS_FILE, write_atomic
from reprolab.sweeps.config_hash import HASH_FILE

RECORD_FILES = ("config.yaml", "hydra.yaml", "overrides.yaml")
RECORDS_FILE = ".finished_records.json.gz"
_SAVED: dict[str, dict[str, str]] = {}  # realpath of a finished run's folder -> {file name: text}
_READ_FROM: list = [None]  # (realpath of the records file, its (mtime_ns, size) or None) that _SAVED holds


def remember_finished(sweep_dir: str | Path) -> None:
    """Keep the `.hydra/` texts of each hashed, finished run in the sweep folder (set-aside `replaced-*` ones left
    out) and write them to the records file (rank 0 only; other ranks keep nothing: they read the file); a run
    lacking config.yaml or hydra.yaml is not kept."""
    if rank_zero_only.rank != 0:
        return
    _SAVED.clear()
    root = Path(sweep_dir)
    runs = {}
    for metrics in sorted(root.rglob(METRICS_FILE)):
        run = metrics.parent
        record = {name: run / ".hydra" / name for name in RECORD_FILES}
        if (not in_set_aside(run, root) and (run / HASH_FILE).is_file() and record["config.yaml"].is_file()
                and record["hydra.yaml"].is_file()):
            runs[run.relative_to(root).as_posix()] = {name: path.read_text() for name, path in record.items()
                                                      if path.is_file()}
    _SAVED.update({os.path.realpath(root / run): record for run, record in runs.items()})
    path = root / RECORDS_FILE
    if runs:
        write_atomic(path, gzip.compress(json.dumps(runs).encode(), mtime=0))
    else:
        path.unlink(missing_ok=True)
    _READ_FROM[0] = (os.path.realpath(path), _stamp(path))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _records(sweep_dir: str | Path) -> dict[str, dict[str, str]]:
    """The records of the sweep under way: those this process kept at its start, else (a job in its own process,
    or a process that kept another sweep's) those in the sweep's records file."""
    path = Path(sweep_dir) / RECORDS_FILE
    source = (os.path.realpath(path), _stamp(path))
    if _READ_FROM[0] != source:
        _SAVED.clear()
        if source[1] is not None:
            _SAVED.update({os.path.realpath(Path(sweep_dir) / run): record for run, record in _read(path).items()})
        _READ_FROM[0] = source
    return _SAVED


def _read(path: Path) -> dict[str, dict[str, str]]:
    """The records file's runs; none (with one line on stderr) when it is unreadable: a skipped run then keeps the
    record Hydra just wrote, as before this file existed, and the job goes on."""
    try:
        runs = json.loads(gzip.decompress(path.read_bytes()))
        if isinstance(runs, dict) and all(isinstance(record, dict) for record in runs.values()):
            return runs
        problem = "not a mapping of run folders to records"
    except (OSError, EOFError, ValueError, gzip.BadGzipFile) as err:
        problem = f"{type(err).__name__}: {err}"
    print(f"warning: {path} is unreadable ({problem}); skipped runs keep the .hydra/ record this sweep wrote. "
          "Rerunning the sweep rewrites the file", file=sys.stderr)
    return {}


def saved_record(run_dir: str | Path, sweep_dir: str | Path) -> dict[str, str] | None:
    """{file name: text} of the run in `run_dir` as the sweep in `sweep_dir` found it, or None when it was not a
    finished run there."""
    return _records(sweep_dir).get(os.path.realpath(run_dir))


def restore_record(run_dir: str | Path, sweep_dir: str | Path) -> bool:
    """Write the skipped run's `.hydra/` files back as they were when the sweep started; False when none were kept."""
    record = saved_record(run_dir, sweep_dir)
    if record is None:
        return False
    for name, text in record.items():
        Path(run_dir, ".hydra", name).write_text(text)
    return True
