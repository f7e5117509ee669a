"""CelebA, 40 binary attributes (FAMO protocol: 64×64 aligned crops, the official train/valid/test split).

`torchvision.datasets.CelebA(download=True)` fetches from Google Drive with gdown (the 'apt' extra) and checks
every file's MD5 (the checksums ship with torchvision); `python scripts/data/prepare_celeba.py` runs it up front. Google Drive
often refuses the large image archive ("quota exceeded"): the error then says to place the files by hand.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch.utils.data import Subset

from experiments.apt.loaders import SplitDataModule, image_loader
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.config.extras import require
from reprolab.data.fake import FakeSamples, TensorSpec

CELEBA_SIZES = {"train": 162_770, "val": 19_867, "test": 19_962}  # the official split


def celeba_split(data_dir: str | Path, split: str, image_size: int = 64, download: bool = False):
    """One split; with `download`, files absent or failing their MD5 are fetched (torchvision's Google Drive
    download needs gdown, from the 'apt' extra: asked for only then, so files placed by hand need none)."""
    from torchvision import datasets, transforms

    tf = transforms.Compose([transforms.CenterCrop(178), transforms.Resize(image_size), transforms.ToTensor()])
    try:
        try:
            return datasets.CelebA(str(data_dir), split=split, target_type="attr", transform=tf)
        except RuntimeError as err:
            if not (download and _not_found(err)):
                raise
            require("gdown", "apt")
            return datasets.CelebA(str(data_dir), split=split, target_type="attr", transform=tf, download=True)
    except RuntimeError as err:
        if _not_found(err):
            raise DatasetNotFoundError(f"no CelebA under '{Path(data_dir) / 'celeba'}'; run 'python "
                                       "scripts/data/prepare_celeba.py --data-dir <dir>' or set paths.data_dir") from err
        raise CorruptDataError(f"CelebA under '{data_dir}' is unreadable: {err}") from err


def _not_found(err: RuntimeError) -> bool:
    return "not found or corrupted" in str(err) or "Dataset not found" in str(err)


class CelebADataModule(SplitDataModule):
    def __init__(self, data_dir: str, batch_size: int = 256, eval_batch_size: int = 512, num_workers: int = 8,
                 image_size: int = 64, download: bool = False, limit: int | None = None):
        super().__init__()
        self.data_dir, self.batch_size, self.eval_batch_size = data_dir, batch_size, eval_batch_size
        self.num_workers, self.image_size, self.download, self.limit = num_workers, image_size, download, limit

    def setup(self, stage: str | None = None) -> None:
        self.sets = {name: celeba_split(self.data_dir, split, self.image_size, self.download)
                     for name, split in (("train", "train"), ("val", "valid"), ("test", "test"))}
        if self.limit:
            self.sets = {k: Subset(v, range(min(self.limit, len(v)))) for k, v in self.sets.items()}

    def fake_setup(self, stage: str | None = None) -> None:
        """Random images of `image_size` and 40 binary attributes in the official split sizes (reprolab.data.fake)."""
        sample = (TensorSpec((3, self.image_size, self.image_size)), TensorSpec((40,), torch.long, 0, 2))
        self.sets = {k: FakeSamples(sample, min(self.limit or n, n), i) for i, (k, n) in enumerate(CELEBA_SIZES.items())}

    def make_loader(self, dataset, shuffle: bool):
        return image_loader(dataset, self.batch_size if shuffle else self.eval_batch_size, shuffle, self.num_workers)
