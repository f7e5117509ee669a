"""Image-classification data modules: CIFAR-10 via torchvision, and any ImageFolder tree.

Both share the standard CIFAR augmentation (random crop with 4-pixel padding, horizontal flip) and
per-channel normalisation; a validation split is carved from train with a fixed seed.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import torch
from PIL import Image, UnidentifiedImageError
from torch.utils.data import DataLoader, Dataset, random_split
from torchvision import datasets, transforms

from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError, from_os_error
from reprolab.data.fake import FakeSamples, random_image, real_setup
from reprolab.data.fetch import REGISTRY, missing
from reprolab.data.samplers import EpochShuffleSampler

CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2470, 0.2435, 0.2616)


def cifar_transforms(train: bool, augment: bool = True, image_size: int = 32) -> transforms.Compose:
    steps = [transforms.Resize(image_size)] if image_size != 32 else []
    if train and augment:
        steps += [transforms.RandomCrop(image_size, padding=4), transforms.RandomHorizontalFlip()]
    steps += [transforms.ToTensor(), transforms.Normalize(CIFAR10_MEAN, CIFAR10_STD)]
    return transforms.Compose(steps)


def checked_image_loader(path: str) -> Image.Image:
    """PIL loader that names the broken file instead of failing deep inside a worker."""
    try:
        with open(path, "rb") as f:
            return Image.open(f).convert("RGB")
    except (UnidentifiedImageError, OSError) as err:
        raise CorruptDataError(
            f"cannot read image '{path}' ({err.__class__.__name__}); delete or replace it, "
            "or re-create the dataset folder"
        ) from None


class TransformedSubset(Dataset):
    """`indices` of a dataset that yields (PIL image, label), with a transform of its own."""

    def __init__(self, dataset: Dataset, indices: list[int], transform):
        self.dataset, self.indices, self.transform = dataset, indices, transform

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, i: int):
        image, label = self.dataset[self.indices[i]]
        return self.transform(image), label


class ImageClassificationDataModule(L.LightningDataModule):
    """Shared loaders; subclasses build `train_full` (to split into train/val) and `test_set`."""

    def __init__(self, data_dir: str, batch_size: int = 128, num_workers: int = 2, val_fraction: float = 0.1,
                 augment: bool = True, shuffle: bool = True, split_seed: int = 0, seed: int = 0,
                 num_classes: int = 10, eval_batch_size: int | None = None):
        super().__init__()
        self.data_dir = Path(data_dir)
        self.batch_size, self.num_workers = batch_size, num_workers
        self.eval_batch_size = eval_batch_size or batch_size
        self.val_fraction, self.augment, self.shuffle = val_fraction, augment, shuffle
        self.split_seed, self.seed, self.num_classes = split_seed, seed, num_classes

    def load(self, train: bool, transform) -> Dataset:  # pragma: no cover - abstract
        raise NotImplementedError

    def setup(self, stage: str | None = None) -> None:
        train_full = self.load(train=True, transform=None)  # read once; each split applies its own transform
        n_val = int(round(self.val_fraction * len(train_full)))
        generator = torch.Generator().manual_seed(self.split_seed)
        train_idx, val_idx = random_split(range(len(train_full)), [len(train_full) - n_val, n_val], generator)
        self.train_set = TransformedSubset(train_full, list(train_idx), cifar_transforms(True, self.augment))
        self.val_set = TransformedSubset(train_full, list(val_idx), cifar_transforms(False))
        self.test_set = self.load(train=False, transform=cifar_transforms(False))

    def fake_setup(self, stage: str | None = None) -> None:
        """CIFAR-10's 50,000 / 10,000 images of 32×32 as random pixels, through the real split and transforms."""
        def load(train: bool, transform) -> Dataset:
            def sample(g):
                image = Image.fromarray(random_image(g, 32, 32))
                return (transform(image) if transform else image), int(torch.randint(self.num_classes, (), generator=g))
            return FakeSamples(sample, 50_000 if train else 10_000, int(train))

        self.load = load
        real_setup(self, stage)

    def _loader(self, dataset: Dataset, train: bool) -> DataLoader:
        sampler = EpochShuffleSampler(len(dataset), self.seed, self.shuffle) if train else None
        return DataLoader(dataset, batch_size=self.batch_size if train else self.eval_batch_size,
                          sampler=sampler, num_workers=self.num_workers, drop_last=False,
                          persistent_workers=self.num_workers > 0, pin_memory=torch.cuda.is_available())

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_set, train=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.val_set, train=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader(self.test_set, train=False)


class CIFAR10DataModule(ImageClassificationDataModule):
    """torchvision's CIFAR-10 under `data_dir` (downloaded there when `download=true`)."""

    def __init__(self, data_dir: str, download: bool = True, **kwargs):
        super().__init__(data_dir, **kwargs)
        self.download = download

    def prepare_data(self) -> None:
        if self.download:
            try:
                datasets.CIFAR10(self.data_dir, train=True, download=True)
                datasets.CIFAR10(self.data_dir, train=False, download=True)
            except OSError as err:  # no network (URLError), a refused or cut download; a full disk stays exit 4
                if from_os_error(err) is not err:
                    raise
                raise DatasetNotFoundError(
                    f"could not download CIFAR-10 into data_dir '{self.data_dir}' ({type(err).__name__}: {err}); "
                    "without network, copy a cifar-10-batches-py folder there from a machine that has it "
                    "('make data-cifar10' makes one), or set paths.data_dir") from err

    def load(self, train: bool, transform) -> Dataset:
        try:
            return datasets.CIFAR10(self.data_dir, train=train, transform=transform, download=False)
        except RuntimeError:
            raise DatasetNotFoundError(
                f"data_dir '{self.data_dir}' has no CIFAR-10; run 'make data-cifar10' (downloads it there), "
                "pass data.download=true, or set paths.data_dir"
            ) from None


class ImageFolderDataModule(ImageClassificationDataModule):
    """An ImageFolder tree `data_dir/{train,test}/<class>/<image>`, e.g. `make data-cifar10-jpeg-subset`'s."""

    def load(self, train: bool, transform) -> Dataset:
        root = self.data_dir / ("train" if train else "test")
        if not root.is_dir() or not any(root.iterdir()):
            if self.data_dir.name in REGISTRY:  # a registered subset: name its make target
                raise missing(self.data_dir.name, self.data_dir, f"ImageFolder tree ('{root.name}/<class>/<image>')")
            raise DatasetNotFoundError(
                f"data_dir '{self.data_dir}' has no ImageFolder tree ('{root.name}/<class>/<image>'); set "
                "data.data_dir to one, e.g. ${paths.data_dir}/cifar10-jpeg-subset (make data-cifar10-jpeg-subset), "
                "or use data=cifar10 to download CIFAR-10"
            )
        dataset = datasets.ImageFolder(root, transform=transform, loader=checked_image_loader)
        if len(dataset.classes) != self.num_classes:
            raise DatasetNotFoundError(
                f"'{root}' has {len(dataset.classes)} class folders, the config expects {self.num_classes}; "
                "set data.num_classes or point paths.data_dir at the right tree"
            )
        return dataset
