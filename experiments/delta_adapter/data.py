"""Exemplar-edit data on CIFAR-10 images: plain images for the frozen parts, exemplar pairs for the adapter.

The images come from an image-classification datamodule (`data.source`: the shared 3,000-JPEG ImageFolder
subset, or torchvision's CIFAR-10 with its download step at paper scale), resized to `image_size` and held
in memory. `mode: images` yields image batches (B, 3, H, W) in [0, 1] (stages 1 and 2). `mode: pairs`
yields dicts with the exemplar's source and target, the query, the query's exact edit, the edit id and
whether the edit type is held out (stage 3). Training pairs use seen edit types on the first
`n_train_images` train images; the query is the exemplar's own source (`protocol: single_pair`, the
paper's single-pair supervision) or another image under the same edit (`pair_of_pairs`), drawn from the
same images over the same number of steps (equal images and steps). Test pairs use test images only,
exemplar and query always different images, `n_test` per split (seen / unseen edit types), fixed by
`test_seed` so every arm and seed scores the same pairs.
"""

from __future__ import annotations

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

from experiments.delta_adapter.edits import DEFAULT_UNSEEN, EDITS, apply_edit, split_edits
from reprolab.cli.errors import ConfigError
from reprolab.data.fake import random_image

PROTOCOLS = ("single_pair", "pair_of_pairs")
MODES = ("images", "pairs")


def to_tensor_batch(images, image_size: int) -> torch.Tensor:
    """PIL images / uint8 arrays (H, W, 3) -> float (N, 3, S, S) in [0, 1], resized to `image_size` (area
    averaging down, bicubic up)."""
    array = np.stack([np.asarray(im, dtype=np.uint8) for im in images])
    x = torch.from_numpy(array).permute(0, 3, 1, 2).float() / 255
    if x.shape[-1] > image_size:
        return F.interpolate(x, size=image_size, mode="area")
    if x.shape[-1] < image_size:
        return F.interpolate(x, size=image_size, mode="bicubic", align_corners=False).clamp(0, 1)
    return x


class ExemplarPairs(Dataset):
    """Pairs drawn per index from a generator seeded by (seed, index): reproducible, no pair repeats."""

    def __init__(self, images: torch.Tensor, edits: list[str], length: int, seed: int, protocol: str,
                 unseen: bool = False):
        self.images, self.edits, self.length = images, edits, int(length)
        self.seed, self.protocol, self.unseen = seed, protocol, unseen

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + int(i))
        edit = int(torch.randint(len(self.edits), (), generator=g))
        strength = 0.5 + 0.5 * torch.rand(1, generator=g)
        a, b = torch.randperm(len(self.images), generator=g)[:2].tolist()
        if self.protocol == "single_pair":
            b = a
        pair = torch.stack([self.images[a], self.images[b]])
        edited = apply_edit(self.edits[edit], pair, strength.expand(2))
        return {"ex_src": pair[0], "ex_tgt": edited[0], "query": pair[1], "query_tgt": edited[1],
                "edit": torch.tensor(list(EDITS).index(self.edits[edit])), "unseen": torch.tensor(self.unseen)}


class DeltaEditDataModule(L.LightningDataModule):
    def __init__(self, source, mode: str = "pairs", image_size: int = 16, protocol: str = "single_pair",
                 n_train_images: int = 2000, train_pairs: int = 100_000, n_test: int = 256,
                 seen_edits=None, unseen_edits=DEFAULT_UNSEEN, batch_size: int = 32, eval_batch_size: int = 128,
                 seed: int = 0, test_seed: int = 2026, num_workers: int = 0):
        super().__init__()
        if mode not in MODES:
            raise ConfigError(f"data.mode={mode!r}; choose one of {MODES}")
        if protocol not in PROTOCOLS:
            raise ConfigError(f"data.protocol={protocol!r}; choose one of {PROTOCOLS}")
        unseen = list(unseen_edits)
        seen = [n for n in EDITS if n not in unseen] if seen_edits is None else list(seen_edits)
        self.seen_edits, self.unseen_edits = split_edits(seen, unseen)
        self.source, self.mode, self.image_size, self.protocol = source, mode, image_size, protocol
        self.n_train_images, self.train_pairs, self.n_test = n_train_images, train_pairs, n_test
        self.batch_size, self.eval_batch_size, self.num_workers = batch_size, eval_batch_size, num_workers
        self.seed, self.test_seed = seed, test_seed

    def prepare_data(self) -> None:
        self.source.prepare_data()

    def _read(self, train: bool) -> torch.Tensor:
        dataset = self.source.load(train=train, transform=None)
        return to_tensor_batch([dataset[i][0] for i in range(len(dataset))], self.image_size)

    def setup(self, stage: str | None = None) -> None:
        self._build(self._read(train=True), self._read(train=False))

    def fake_setup(self, stage: str | None = None) -> None:
        """Random 32x32 pixels in CIFAR-10's split sizes (capped: the fake run only needs a few batches)."""
        def images(n: int, offset: int) -> torch.Tensor:
            return to_tensor_batch([random_image(torch.Generator().manual_seed(offset + i), 32, 32)
                                    for i in range(n)], self.image_size)
        self._build(images(min(self.n_train_images, 512), 0), images(max(2, min(self.n_test, 256)), 10**6))

    def _build(self, train: torch.Tensor, test: torch.Tensor) -> None:
        if len(train) < 2 or len(test) < 2:
            raise ConfigError(f"need at least 2 train and 2 test images, got {len(train)} and {len(test)}")
        self.train_images = train[: self.n_train_images]
        self.test_images = test
        if self.mode == "images":
            self.train_set = TensorDataset(self.train_images)
            self.test_set = TensorDataset(self.test_images[: self.n_test])
            return
        self.train_set = ExemplarPairs(self.train_images, self.seen_edits, self.train_pairs, self.seed, self.protocol)
        self.test_sets = {
            "seen": ExemplarPairs(test, self.seen_edits, self.n_test, self.test_seed, "pair_of_pairs"),
            "unseen": ExemplarPairs(test, self.unseen_edits, self.n_test, self.test_seed + 1, "pair_of_pairs", True),
        }

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=self.mode == "images",
                          num_workers=self.num_workers, drop_last=True,
                          generator=torch.Generator().manual_seed(self.seed))

    def test_dataloader(self):
        if self.mode == "images":
            return DataLoader(self.test_set, batch_size=self.eval_batch_size, num_workers=self.num_workers)
        return [DataLoader(self.test_sets[name], batch_size=self.eval_batch_size, num_workers=self.num_workers)
                for name in ("seen", "unseen")]
