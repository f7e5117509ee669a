"""A small image set decoded once: its uint8 stack saved on disk for every later run that reads the same files.

A datamodule holding a small image set in memory decodes every file at each run's set-up, so a claim sweep pays
the decoding once per job. `decoded_stack` saves the stack under `cache_dir` the first time, named by a key of
the files (path, size, modification time) and the decoder's settings, and later runs load it in milliseconds. A
changed file changes the key; an unreadable cache file is decoded again and an unwritable `cache_dir` only costs
the decoding (both warned, as `reprolab.data.array_cache` does). The pixels are the decoder's, bit for bit.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from reprolab.data.array_cache import cached_array


def files_key(paths: Sequence[str | Path], settings: str) -> str:
    """A hash of the files' paths, sizes and modification times, in order, and of the decoder's `settings`."""
    digest = hashlib.sha256(settings.encode())
    for path in paths:
        stat = os.stat(path)
        digest.update(f"\0{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:32]


def decoded_stack(paths: Sequence[str | Path], decode: Callable[[str | Path], torch.Tensor], settings: str,
                  cache_dir: str | Path | None) -> torch.Tensor:
    """`torch.stack([decode(p) for p in paths])`, loaded from `cache_dir` (reprolab.data.array_cache) when a run already
    decoded these files with these `settings` (e.g. the image size and resampling `decode` uses); no cache when
    `cache_dir` is None."""
    def decode_all() -> torch.Tensor:
        return torch.stack([decode(p) for p in paths])

    if cache_dir is None or not paths:
        return decode_all()
    key = {"files": files_key(paths, settings)}
    return torch.from_numpy(cached_array(cache_dir, "decoded", key, lambda: decode_all().numpy()))
