"""The `.hydra/` record of each finished run in a sweep folder, read when the sweep starts and put back when its
job is skipped.

Hydra writes a job's `.hydra/config.yaml`, `hydra.yaml` and `overrides.yaml` before the job decides whether it is
skipped (sweep.decide_job). Without this, rerunning a finished sweep would replace each skipped run's record by the
new composition: equal in hash, but not in what the hash leaves out (paths, operational callbacks) nor in keys
assumed by `python -m reprolab.rehash --assume`, so tables would read a config the run never had.
"""

from __future__ import annotations

import os
from pathlib import Path

from reprolab.run_folder import METRICS_FILE
from reprolab.sweep import HASH_FILE

RECORD_FILES = ("config.yaml", "hydra.yaml", "overrides.yaml")
_SAVED: dict[str, dict[str, str]] = {}  # realpath of a finished run's folder -> {file name: text}


def remember_finished(sweep_dir: str | Path) -> None:
    """Keep the `.hydra/` texts of each hashed, finished run in the sweep folder (set-aside `replaced-*` ones left
    out); a run lacking config.yaml or hydra.yaml is not kept."""
    _SAVED.clear()
    root = Path(sweep_dir)
    for metrics in root.rglob(METRICS_FILE):
        run = metrics.parent
        if any(part.startswith("replaced-") for part in run.relative_to(root).parts):
            continue
        record = {name: run / ".hydra" / name for name in RECORD_FILES}
        if (run / HASH_FILE).is_file() and record["config.yaml"].is_file() and record["hydra.yaml"].is_file():
            _SAVED[os.path.realpath(run)] = {name: path.read_text() for name, path in record.items() if path.is_file()}


def saved_record(run_dir: str | Path) -> dict[str, str] | None:
    """{file name: text} of the run in `run_dir` as the sweep found it, or None when it was not a finished run."""
    return _SAVED.get(os.path.realpath(run_dir))


def restore_record(run_dir: str | Path) -> bool:
    """Write the skipped run's `.hydra/` files back as they were when the sweep started; False when none were kept."""
    record = saved_record(run_dir)
    if record is None:
        return False
    for name, text in record.items():
        Path(run_dir, ".hydra", name).write_text(text)
    return True
