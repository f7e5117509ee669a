"""Lightning's per-run set-up without rescanning the installed packages.

Every `Trainer(...)` looks for callbacks other packages register (the `lightning.pytorch.callbacks_factory` entry
points) by reading the metadata of every installed distribution (`importlib.metadata.entry_points`): ~5 ms a run,
most of a Trainer's construction on CPU, paid by every job of a sweep. The installed packages do not change
while a process runs, so `install` keeps the scan's answer per entry-point group; each Trainer still loads and
calls every registered factory, getting its own callbacks.
"""

from __future__ import annotations

import functools
from importlib import metadata

from lightning.fabric.utilities import registry


@functools.cache
def _group(group: str) -> metadata.EntryPoints:
    return metadata.entry_points(group=group)


def entry_points(**params):
    """`importlib.metadata.entry_points`, the answer for one `group` kept for the process."""
    if set(params) == {"group"}:
        return _group(params["group"])
    return metadata.entry_points(**params)


def install() -> None:
    """Lightning's registry (`_load_external_callbacks`) reads the kept answer (idempotent)."""
    registry.entry_points = entry_points
