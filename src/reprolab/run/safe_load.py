"""Load checkpoints with `torch.load(weights_only=True)` only: a pickle that asks to run code is refused.

The project's own checkpoints need a few plain types beyond tensors (hparams saved from the Hydra config,
paths, numpy scalars); they are allow-listed here, once, for every loader (Lightning's and ours).
"""

from __future__ import annotations

import collections
import pathlib
import pickle
import re
import typing
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, ListConfig, base, nodes
from omegaconf.base import ContainerMetadata, Metadata

from reprolab.cli.errors import CheckpointError

SAFE_GLOBALS = [
    DictConfig, ListConfig, ContainerMetadata, Metadata, base.Node, nodes.AnyNode, nodes.ValueNode,
    nodes.StringNode, nodes.IntegerNode, nodes.FloatNode, nodes.BooleanNode, nodes.EnumNode,
    pathlib.Path, pathlib.PosixPath, pathlib.WindowsPath, pathlib.PurePosixPath, pathlib.PureWindowsPath,
    np.dtype, *(type(np.dtype(t)) for t in (np.float32, np.float64, np.int64, np.int32, np.uint32, np.bool_)),
    np.float32, np.float64, np.int64, np.int32, np.uint32, np.bool_,
    typing.Any, collections.defaultdict, dict, list, tuple, int, float, str, bool,  # omegaconf node metadata
]
torch.serialization.add_safe_globals(SAFE_GLOBALS)

_GLOBAL = re.compile(r"(?:GLOBAL|global) ([\w.]+)")


def check_checkpoint(path: str | Path) -> None:
    """Raise CheckpointError (one line) unless `path` is a readable checkpoint made only of allowed types."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint '{path}' does not exist; pass ckpt_path=<run>/checkpoints/<name>.ckpt")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except pickle.UnpicklingError as err:
        found = _GLOBAL.search(str(err))
        what = found.group(1) if found else str(err).splitlines()[0][:120]
        raise CheckpointError(f"{path} is not a plain checkpoint (it asks to run code: {what}); refused, not loaded — "
                              "use a checkpoint written by reprolab-train") from None
    except Exception as err:  # noqa: BLE001 — torch raises RuntimeError/EOFError/ValueError for damaged files
        raise CheckpointError(f"{path} is not a readable checkpoint (truncated or not a torch file: "
                              f"{type(err).__name__}); point ckpt_path at a complete .ckpt file from a finished run") from None
    if not isinstance(state, dict) or "state_dict" not in state:
        raise CheckpointError(f"{path} holds no 'state_dict'; it is not a Lightning checkpoint from reprolab-train")
