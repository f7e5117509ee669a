"""The depth super-resolution datamodule: random HR/LR patches for training, whole images for val/test.

Each set is a small spec in the config, so the same class serves the NYU v2 protocol and the CPU claim
split:
    {name: lu, kind: lu, path: depth-sr/Lu}
    {name: middlebury_train, kind: middlebury, path: depth-sr/Middlebury, exclude: [1, 2, 6]}
    {name: nyu_train, kind: nyu_npy, path: nyuv2-dsr, split: train, span: [1, 950]}
`kind` is one of middlebury, lu, nyu, rgbdd, rgbdd_real (DCTNet folders) or nyu_npy (DKN/SGNet arrays);
it also fixes the RMSE convention (`degrade.CONVENTION_OF_KIND`). `path` is relative to `data_dir`.
Degradations (scale, noise_std): by default one, (`scale`, `noise_std`). `train_degradations` mixes several in
training (one per batch, `degrade.MixedPatchDataset`); `test_degradations` repeats every test set under each,
named `<set>_x<scale>_n<noise>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import ConcatDataset, DataLoader

from experiments.degbins.degrade import (
    CONVENTION_OF_KIND,
    EpochPatchSampler,
    ImageDataset,
    MixedPatchDataset,
    PatchDataset,
    make_sample,
)
from experiments.degbins.sets import DepthPair, read_folder_set, read_nyu_arrays
from reprolab.data.fake import random_image, real_setup

# kind -> (H, W, depth range, depth already min-max normalised); the release's sizes (Middlebury's vary ~370 x 413-465)
FAKE_KINDS = {"nyu_npy": (480, 640, 1.0, True), "nyu": (480, 640, 10.0, False), "middlebury": (370, 427, 232.0, False),
              "lu": (480, 640, 255.0, False), "rgbdd": (384, 512, 3400.0, False), "rgbdd_real": (384, 512, 3400.0, False)}
FAKE_PAIRS = 2  # pairs per set: patches and epochs keep their configured sizes


def fake_pairs(spec: dict) -> list[DepthPair]:
    """Random RGB + depth pairs of one set spec's kind (a real low-res map for rgbdd_real, minmax for NYU test)."""
    h, w, top, normalised = FAKE_KINDS[spec["kind"]]
    pairs = []
    for i in range(FAKE_PAIRS):
        g = torch.Generator().manual_seed(i)
        depth = (torch.rand(h, w, generator=g) * 0.9 + 0.05).numpy() * top
        lr = (torch.rand(144, 192, generator=g).numpy() * top).astype(np.float32) if spec["kind"] == "rgbdd_real" else None
        minmax = (10.0, 0.5) if normalised and spec.get("split", "test") == "test" else None
        pairs.append(DepthPair(f"fake_{spec['kind']}/{i}", random_image(g, h, w), depth.astype(np.float32), lr, minmax))
    return pairs


def read_spec(data_dir: Path, spec: dict):
    """The raw pairs a set spec names."""
    kind = spec["kind"]
    if kind not in CONVENTION_OF_KIND:
        raise ValueError(f"set '{spec.get('name')}': unknown kind '{kind}'; choose one of {', '.join(CONVENTION_OF_KIND)}")
    include = spec.get("include")
    if spec.get("span") is not None:
        first, last = spec["span"]
        include = [i for i in range(first, last + 1) if include is None or i in include]
    if kind == "nyu_npy":
        return read_nyu_arrays(data_dir / spec["path"], spec.get("split", "test"), include, spec.get("exclude"))
    return read_folder_set(data_dir / spec["path"], kind, include, spec.get("exclude"))


class DepthSRDataModule(L.LightningDataModule):
    """Guided DSR data at one scale; `noise_std` adds Gaussian noise to LR maps (the noisy variant)."""

    def __init__(self, data_dir: str, scale: int = 4, train_sets: Sequence[dict] = (), val_sets: Sequence[dict] = (),
                 test_sets: Sequence[dict] = (), patch_size: int = 256, batch_size: int = 8,
                 patches_per_epoch: int = 8000, noise_std: float = 0.0, num_workers: int = 0, seed: int = 0,
                 min_edge: float = 0.0, train_degradations: Sequence[Sequence[float]] | None = None,
                 test_degradations: Sequence[Sequence[float]] | None = None):
        super().__init__()
        self.train_degradations = _degradations(train_degradations, scale, noise_std)
        self.test_degradations = None if test_degradations is None else _degradations(test_degradations, scale, noise_std)
        for s, _ in [(scale, noise_std), *self.train_degradations, *(self.test_degradations or [])]:
            if s not in (2, 4, 8, 16):
                raise ValueError(f"scale must be 2, 4, 8 or 16; got {s}")
        self.data_dir = Path(data_dir)
        self.scale, self.patch_size, self.batch_size = scale, patch_size, batch_size
        self.train_specs, self.val_specs, self.test_specs = list(train_sets), list(val_sets), list(test_sets)
        self.patches_per_epoch, self.noise_std = patches_per_epoch, noise_std
        self.num_workers, self.seed = num_workers, seed
        self.min_edge = min_edge  # > 0: redraw training patches whose depth range is below it (normalised units)
        self.train_set = None
        self.val_sets: list[ImageDataset] = []
        self.test_sets: list[ImageDataset] = []

    def conventions(self, stage: str) -> list[tuple[str, str]]:
        """(set name, RMSE convention) per val or test set, in `set_index` order."""
        if stage == "val":
            return [(s["name"], CONVENTION_OF_KIND[s["kind"]]) for s in self.val_specs]
        return [(name, CONVENTION_OF_KIND[spec["kind"]]) for name, spec, _ in self._test_entries()]

    def _test_entries(self) -> list[tuple[str, dict, tuple[int, float]]]:
        if self.test_degradations is None:
            return [(s["name"], s, (self.scale, self.noise_std)) for s in self.test_specs]
        return [(f"{spec['name']}_x{s}_n{n:g}", spec, (s, n)) for spec in self.test_specs
                for s, n in self.test_degradations]

    def _samples(self, spec: dict, salt: int, scale: int | None = None, noise_std: float | None = None) -> list[dict]:
        convention = CONVENTION_OF_KIND[spec["kind"]]
        scale = self.scale if scale is None else scale
        noise_std = self.noise_std if noise_std is None else noise_std
        rng = np.random.default_rng((self.seed, salt))  # fixed noise on evaluation images
        return [make_sample(p, scale, convention, noise_std, rng) for p in self.read_pairs(spec)]

    def read_pairs(self, spec: dict) -> list[DepthPair]:
        return read_spec(self.data_dir, spec)

    def fake_setup(self, stage: str | None = None) -> None:
        """Each set as FAKE_PAIRS random pairs at its kind's resolution and depth range (reprolab.data.fake)."""
        self.read_pairs = fake_pairs
        real_setup(self, stage)

    def _train_set(self):
        if len(self.train_degradations) == 1:
            scale, noise_std = self.train_degradations[0]
            samples = [s for i, spec in enumerate(self.train_specs) for s in self._samples(spec, 100 + i, scale, noise_std)]
            return PatchDataset(samples, scale, self.patch_size, self.patches_per_epoch, self.seed, min_edge=self.min_edge)
        pools = {}
        for scale in sorted({s for s, _ in self.train_degradations}):
            samples = [s for i, spec in enumerate(self.train_specs) for s in self._samples(spec, 100 + i, scale, 0.0)]
            pools[scale] = PatchDataset(samples, scale, self.patch_size, self.patches_per_epoch, self.seed,
                                        min_edge=self.min_edge)
        return MixedPatchDataset(pools, self.train_degradations, self.batch_size, self.seed)

    def setup(self, stage: str | None = None) -> None:
        if stage in (None, "fit") and self.train_set is None and self.train_specs:
            self.train_set = self._train_set()
        if stage in (None, "fit", "validate") and not self.val_sets:
            self.val_sets = [ImageDataset(self._samples(s, 200 + i), i) for i, s in enumerate(self.val_specs)]
        if stage in (None, "test") and not self.test_sets:
            self.test_sets = [ImageDataset(self._samples(spec, 300 + i, *degradation), i)
                              for i, (_, spec, degradation) in enumerate(self._test_entries())]

    def train_dataloader(self) -> DataLoader:
        if self.train_set is None:
            raise ValueError("no train_sets configured (data.train_sets is empty)")
        sampler = EpochPatchSampler(len(self.train_set), self.seed)  # new patches every epoch
        return DataLoader(self.train_set, batch_size=self.batch_size, sampler=sampler, drop_last=True,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)

    # One loader over all sets (each sample carries `set_index`): the RMSE of every set then arrives in
    # one metrics dict, however many sets there are.
    def val_dataloader(self) -> DataLoader:
        return DataLoader(ConcatDataset(self.val_sets), batch_size=1, num_workers=self.num_workers)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(ConcatDataset(self.test_sets), batch_size=1, num_workers=self.num_workers)


def _degradations(given: Sequence[Sequence[float]] | None, scale: int, noise_std: float) -> list[tuple[int, float]]:
    """[(scale, noise_std), ...] from a config list of pairs; None means the one (scale, noise_std)."""
    if given is None:
        return [(int(scale), float(noise_std))]
    pairs = [tuple(d) for d in given]
    if not pairs or any(len(d) != 2 for d in pairs):
        raise ValueError(f"degradations must be a non-empty list of [scale, noise_std] pairs; got {given}")
    return [(int(s), float(n)) for s, n in pairs]
