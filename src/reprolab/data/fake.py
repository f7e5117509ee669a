"""Generated stand-ins at the paper's data shapes: `reprolab-train experiment=<paper preset> +data/fake=on`.

The switch keeps the preset's own datamodule class and arguments and replaces only where the data comes
from: the datamodule becomes a subclass of itself whose `setup` calls the class's `fake_setup(stage)`,
which fills the same splits with random samples of the real shapes, dtypes, label ranges, sequence
lengths and split sizes (samples are drawn lazily, per index, so a split keeps its real length and an
epoch its real number of steps). Everything else (loaders, collate, batch sizes, the attributes a task
reads) is the real class's. A datamodule without `fake_setup` generates its data already and runs its own
`setup`. Samples are described by a `TensorSpec` tree, or drawn by a function of a `torch.Generator`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import lightning as L
import numpy as np
import torch
from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf, open_dict
from torch.utils.data import Dataset, Subset

from reprolab.cli.errors import ConfigError

FAKE_TARGET = "reprolab.data.fake.fake_datamodule"


@dataclass(frozen=True)
class TensorSpec:
    """One tensor of a sample: floats uniform in [low, high), integers uniform in [low, high)."""

    shape: tuple[int, ...]
    dtype: torch.dtype = torch.float32
    low: float = 0.0
    high: float = 1.0

    def sample(self, generator: torch.Generator) -> torch.Tensor:
        if self.dtype.is_floating_point:
            return torch.rand(self.shape, generator=generator, dtype=self.dtype) * (self.high - self.low) + self.low
        return torch.randint(int(self.low), int(self.high), self.shape, generator=generator, dtype=self.dtype)


def draw(spec, generator: torch.Generator):
    """A sample of the same structure as `spec` (dicts, tuples and lists of `TensorSpec`)."""
    if isinstance(spec, TensorSpec):
        return spec.sample(generator)
    if isinstance(spec, dict):
        return {k: draw(v, generator) for k, v in spec.items()}
    if isinstance(spec, (tuple, list)):
        return type(spec)(draw(v, generator) for v in spec)
    raise TypeError(f"a sample spec holds TensorSpec, dict, tuple or list; got {type(spec).__name__}")


class FakeSamples(Dataset):
    """`length` samples, sample i drawn from a generator seeded by (seed, i): lazy, reproducible, any length.

    `spec` is a `TensorSpec` tree or a function `generator -> sample` (for samples whose fields depend on
    each other, e.g. a label that is -1 exactly when the image is real)."""

    def __init__(self, spec, length: int, seed: int = 0):
        self.make = spec if callable(spec) else (lambda g: draw(spec, g))
        self.length, self.seed = int(length), seed

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):
        if not isinstance(i, int) and not (torch.is_tensor(i) and i.ndim == 0):  # a list of indices: a subset
            return Subset(self, [int(j) for j in (range(self.length)[i] if isinstance(i, slice) else i)])
        if not 0 <= i < self.length:
            raise IndexError(i)
        return self.make(torch.Generator().manual_seed(self.seed * 1_000_003 + int(i)))


def real_setup(datamodule: L.LightningDataModule, stage: str | None = None) -> None:
    """The real class's `setup` of a faked datamodule (for a `fake_setup` that only swaps the raw reader)."""
    type(datamodule).real_class.setup(datamodule, stage)


def _fake_setup(self, stage: str | None = None) -> None:
    if hasattr(self, "fake_setup"):
        self.fake_setup(stage)
    else:  # a datamodule that generates its own data, or wraps faked ones
        real_setup(self, stage)


_FAKE_CLASSES: dict[type, type] = {}


def fake_class(cls: type) -> type:
    """`cls` with `setup` drawing generated data (`fake_setup`) and no download step."""
    if getattr(cls, "is_fake", False):
        return cls
    if cls not in _FAKE_CLASSES:
        _FAKE_CLASSES[cls] = type(f"Fake{cls.__name__}", (cls,), {
            "setup": _fake_setup, "prepare_data": lambda self: None, "is_fake": True, "real_class": cls,
            "__module__": cls.__module__, "__doc__": f"{cls.__name__} on generated data (reprolab.data.fake)."})
    return _FAKE_CLASSES[cls]


def as_fake(datamodule: L.LightningDataModule) -> L.LightningDataModule:
    """Turn a datamodule (and any datamodule it holds, e.g. a wrapped base) into its fake, in place."""
    datamodule.__class__ = fake_class(type(datamodule))
    for value in vars(datamodule).values():
        if isinstance(value, L.LightningDataModule) and not getattr(value, "is_fake", False):
            as_fake(value)
    return datamodule


def real_target(real: str) -> str:
    """A datamodule class path, or a `data` group option whose `_target_` names one."""
    if "." in real:
        return real
    from reprolab.config.compose import CONF_DIR

    path = Path(CONF_DIR) / "data" / f"{real}.yaml"
    if not path.is_file():
        raise ConfigError(f"data.real={real!r} is neither a class path nor a data option (no {path})")
    target = OmegaConf.load(path).get("_target_")
    if not target:
        raise ConfigError(f"{path} has no _target_; give data.real=<datamodule class path>")
    return target


def fake_datamodule(real: str, **kwargs) -> L.LightningDataModule:
    """The `_target_` behind `+data/fake=on`: the real datamodule `real` built from `kwargs`, made fake."""
    cls = get_class(real_target(real))
    if not issubclass(cls, L.LightningDataModule):
        raise ConfigError(f"data.real={real!r} is not a LightningDataModule")
    return as_fake(cls(**kwargs))


def fake_config(cfg: DictConfig) -> DictConfig:
    """`cfg` with its datamodule faked (what `+data/fake=on` does on the command line), in place."""
    if cfg.data.get("_target_") != FAKE_TARGET:
        with open_dict(cfg):
            cfg.data.real = cfg.data._target_
            cfg.data._target_ = FAKE_TARGET
    return cfg


def compose_preset(overrides: list[str]) -> DictConfig:
    """The training config for `overrides`, inside a running `reprolab-train` (Hydra's app) or outside it."""
    from hydra import compose as hydra_compose
    from hydra.core.global_hydra import GlobalHydra

    from reprolab.config.compose import compose

    if GlobalHydra.instance().is_initialized():
        return hydra_compose(config_name="train", overrides=overrides)
    return compose(overrides)


def set_batch_size(data: DictConfig, size: int) -> None:
    """A data config (and any datamodule config nested in it) at batches of `size`, no workers, no download."""
    for key in ("batch_size", "eval_batch_size"):
        if isinstance(data.get(key), int):
            data[key] = size
    for key, value in (("num_workers", 0), ("download", False)):
        if key in data:
            data[key] = value
    for value in data.values():
        if isinstance(value, DictConfig) and "_target_" in value:
            set_batch_size(value, size)


class FakeTokens:
    """A token stream of `length` ids in [0, vocab), generated per slice (a memmapped shard's stand-in)."""

    def __init__(self, length: int, vocab: int, seed: int = 0):
        self.length, self.vocab, self.seed = int(length), int(vocab), seed

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, window: slice) -> np.ndarray:
        start, stop, _ = window.indices(self.length)
        rng = np.random.default_rng((self.seed, start))
        return rng.integers(0, self.vocab, max(stop - start, 0), dtype=np.int64)


def random_image(generator: torch.Generator, height: int, width: int, channels: int = 3) -> np.ndarray:
    """An (H, W, C) uint8 image of random pixels, as a decoded file would arrive."""
    return torch.randint(0, 256, (height, width, channels), generator=generator, dtype=torch.uint8).numpy()
