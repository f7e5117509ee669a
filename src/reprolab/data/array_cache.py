"""Arrays computed once and kept under `paths.cache_dir`, one `.npy` per input set, named by a hash of the inputs.

The caller passes every input that decides the array (e.g. SMILES, radius, bit count, library version), so a change
of any of them reads another file. Writes go to a temporary file renamed into place (a reader never sees half a
file); a file that does not load is recomputed with a one-line warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

FOLDER = "arrays"


def cache_path(cache_dir: str | Path, name: str, inputs: dict) -> Path:
    """`<cache_dir>/arrays/<name>-<sha256 of the inputs as sorted JSON, 24 hex>.npy`."""
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:24]
    return Path(cache_dir) / FOLDER / f"{name}-{digest}.npy"


def load_array(path: Path) -> np.ndarray | None:
    """The array at `path`; None when there is none or it does not load (warned, one line)."""
    if not path.is_file():
        return None
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        warnings.warn(f"cache file {path} is unreadable ({type(err).__name__}: {err}); recomputing it", stacklevel=2)
        return None


def save_array(path: Path, array: np.ndarray) -> None:
    """Write `array` to `path` atomically (a temporary file in the same folder, then a rename); a folder that cannot
    be written is warned about, not fatal."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        warnings.warn(f"cannot write cache file {path} ({err}); continuing without it", stacklevel=2)


def cached_array(cache_dir: str | Path | None, name: str, inputs: dict, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """`compute()`, read from the cache when an earlier call with the same `inputs` stored it (no cache: `cache_dir`
    None)."""
    if cache_dir is None:
        return compute()
    path = cache_path(cache_dir, name, inputs)
    array = load_array(path)
    if array is None:
        array = compute()
        save_array(path, array)
    return array
