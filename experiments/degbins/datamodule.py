"""The depth super-resolution datamodule: random HR/LR patches for training, whole images for val/test.

Each set is a small spec in the config, so the same class serves the NYU v2 protocol and the CPU claim
split:
    {name: lu, kind: lu, path: depth-sr/Lu}
    {name: middlebury_train, kind: middlebury, path: depth-sr/Middlebury, exclude: [1, 2, 6]}
    {name: nyu_train, kind: nyu_npy, path: nyuv2-dsr, split: train, span: [1, 950]}
`kind` is one of middlebury, lu, nyu, rgbdd, rgbdd_real (DCTNet folders) or nyu_npy (DKN/SGNet arrays);
it also fixes the RMSE convention (`degrade.CONVENTION_OF_KIND`). `path` is relative to `data_dir`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import lightning as L
import numpy as np
from torch.utils.data import ConcatDataset, DataLoader

from experiments.degbins.degrade import (
    CONVENTION_OF_KIND,
    EpochPatchSampler,
    ImageDataset,
    PatchDataset,
    make_sample,
)
from experiments.degbins.sets import read_folder_set, read_nyu_arrays


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
                 min_edge: float = 0.0):
        super().__init__()
        if scale not in (2, 4, 8, 16):
            raise ValueError(f"scale must be 2, 4, 8 or 16; got {scale}")
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
        specs = self.val_specs if stage == "val" else self.test_specs
        return [(s["name"], CONVENTION_OF_KIND[s["kind"]]) for s in specs]

    def _samples(self, spec: dict, salt: int) -> list[dict]:
        convention = CONVENTION_OF_KIND[spec["kind"]]
        rng = np.random.default_rng((self.seed, salt))  # fixed noise on evaluation images
        return [make_sample(p, self.scale, convention, self.noise_std, rng) for p in read_spec(self.data_dir, spec)]

    def setup(self, stage: str | None = None) -> None:
        if stage in (None, "fit") and self.train_set is None and self.train_specs:
            samples = [s for i, spec in enumerate(self.train_specs) for s in self._samples(spec, 100 + i)]
            self.train_set = PatchDataset(samples, self.scale, self.patch_size, self.patches_per_epoch, self.seed,
                                          min_edge=self.min_edge)
        if stage in (None, "fit", "validate") and not self.val_sets:
            self.val_sets = [ImageDataset(self._samples(s, 200 + i), i) for i, s in enumerate(self.val_specs)]
        if stage in (None, "test") and not self.test_sets:
            self.test_sets = [ImageDataset(self._samples(s, 300 + i), i) for i, s in enumerate(self.test_specs)]

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
