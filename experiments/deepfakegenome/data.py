"""The DeepfakeGenome datamodule: one interface over a real DFG tree, DF40, and the offline forgery zoo.

Algorithm-wise protocol splits come from config: ``unseen`` algorithms never appear in training (they are
the open-set unknowns and the generalisation targets of binary detection); ``distractors`` (a subset of
``unseen``) are never registered in the retrieval protocol's blacklist. Every other algorithm is "seen".
Image-level train/val/test splits come from the tree (see ``tree.py``).

A batch is a dict: ``image`` [B,3,S,S] in [0,1], ``fake`` (0 real / 1 fake), ``label`` (closed-set class
of a seen algorithm, -1 otherwise), ``algorithm`` (index into ``algorithms``, -1 for real), ``family``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import lightning as L
import numpy as np
import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

from experiments.deepfakegenome.tree import REAL, read_df40, read_dfg_tree
from experiments.deepfakegenome.zoo import FAMILIES
from experiments.deepfakegenome.zoo_build import build_zoo
from reprolab.cli.errors import ConfigError, CorruptDataError
from reprolab.data.decoded_cache import decoded_stack
from reprolab.data.fake import real_setup

# DeepfakeGenome's size (README: 100 algorithms in five families, 2M images): our split of it for `+data/fake=on`
DFG_FAKES_PER_ALGORITHM, DFG_REALS = 18_000, 200_000
DECODER = "ForgeryImages._load: RGB, bicubic resize"  # names the decoding in the decoded-cache key: change it with _load


def fake_forgery_table(algorithms: list[str], fractions, seed: int = 0) -> pd.DataFrame:
    """A DFG table (path, source, algorithm, family, id, split) with integer ids as paths: DFG_FAKES_PER_ALGORITHM
    images per algorithm (families in turn) and DFG_REALS reals, split at random by `fractions`."""
    names = np.repeat(np.array([*algorithms, REAL], dtype=object), [DFG_FAKES_PER_ALGORITHM] * len(algorithms) + [DFG_REALS])
    family_of = {a: FAMILIES[i % len(FAMILIES)] for i, a in enumerate(algorithms)} | {REAL: REAL}
    ids = np.arange(len(names))
    u = np.random.default_rng(seed).random(len(names))
    split = np.where(u < fractions[0], "train", np.where(u < fractions[0] + fractions[1], "val", "test"))
    return pd.DataFrame({"path": ids, "source": "fake", "algorithm": names,
                         "family": [family_of[a] for a in names], "id": ids, "split": split})


def fake_image_loader(size: int):
    """`ForgeryImages._load` for integer paths: a random (3, size, size) uint8 image seeded by the path."""
    return lambda path: torch.randint(0, 256, (3, size, size), generator=torch.Generator().manual_seed(int(path)),
                                      dtype=torch.uint8)


@dataclass
class ProtocolSplit:
    """Which algorithms are seen / unseen / registered, as indices into the sorted algorithm list."""

    algorithms: list[str]
    families: list[str]          # family of each algorithm
    seen: list[int]
    unseen: list[int]
    distractors: list[int]

    @property
    def registered(self) -> list[int]:
        return [a for a in range(len(self.algorithms)) if a not in set(self.distractors)]


class ForgeryImages(Dataset):
    """Images of one split as dict samples; decoded lazily, or all at once with ``in_memory`` (and then kept
    decoded under ``cache_dir`` for the next run, when given)."""

    def __init__(self, table, image_size: int, hflip: bool, in_memory: bool, cache_dir: str | None = None):
        self.paths = list(table["path"])
        self.targets = {k: torch.as_tensor(np.asarray(table[k]).copy(), dtype=torch.long)
                        for k in ("fake", "label", "algorithm", "family")}
        self.image_size, self.hflip = image_size, hflip
        self.cache = (decoded_stack(self.paths, self._load, f"{DECODER} {image_size}px", cache_dir)
                      if in_memory and self.paths else None)

    def _load(self, path: str) -> torch.Tensor:
        try:
            with Image.open(path) as im:
                image = im.convert("RGB")
                if image.size != (self.image_size, self.image_size):
                    image = image.resize((self.image_size, self.image_size), Image.BICUBIC)
                array = np.asarray(image).copy()
        except OSError as err:
            raise CorruptDataError(f"cannot read image '{path}': {err}; delete or replace it") from err
        return torch.from_numpy(array).permute(2, 0, 1)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        image = (self.cache[i] if self.cache is not None else self._load(self.paths[i])).float() / 255
        if self.hflip and torch.rand(1).item() < 0.5:
            image = image.flip(-1)
        return {"image": image, **{k: v[i] for k, v in self.targets.items()}}

    def __getitems__(self, indices: list[int]) -> dict:
        """A whole batch in one gather (the DataLoader's batched fetch): `default_collate([self[i] for i in
        indices])`, with the same flips (one draw of torch's global RNG per image, in order) at a fraction of the
        Python cost. The loaders pass it through with `collate_batch`."""
        index = torch.as_tensor(indices, dtype=torch.long)
        images = self.cache[index] if self.cache is not None else torch.stack([self._load(self.paths[i]) for i in indices])
        images = images.float() / 255
        if self.hflip:
            flip = torch.rand(len(indices)) < 0.5
            images = torch.where(flip[:, None, None, None], images.flip(-1), images)
        return {"image": images, **{k: v[index] for k, v in self.targets.items()}}


def collate_batch(batch: dict) -> dict:
    """The collate of a batch `ForgeryImages.__getitems__` already gathered: nothing left to stack."""
    return batch


class DeepfakeDataModule(L.LightningDataModule):
    def __init__(self, data_dir: str, layout: str = "dfg", root: str = "DeepfakeGenome", unseen=(),
                 distractors=(), num_seen_algorithms: int | None = None, train_reals: bool = True,
                 balance_real_fake: bool = True, fractions=(0.6, 0.15, 0.25), split_salt: int = 0,
                 image_size: int = 32, hflip: bool = True, batch_size: int = 64, eval_batch_size: int = 256,
                 num_workers: int = 0, in_memory: bool = False, zoo: dict | None = None,
                 df40_families: dict | None = None, df40_real_dirs=("real", "original", "youtube", "celeb-real"),
                 num_classes: int | None = None, seed: int = 0, zoo_dir: str | None = None,
                 decoded_cache_dir: str | None = None):
        super().__init__()
        if layout not in ("dfg", "df40", "zoo"):
            raise ConfigError(f"data.layout must be dfg, df40 or zoo, got {layout!r}")
        self.data_dir, self.layout, self.root = Path(data_dir), layout, root
        self.unseen_names, self.distractor_names = list(unseen), list(distractors)
        self.num_seen_algorithms = num_seen_algorithms
        self.train_reals, self.balance_real_fake = train_reals, balance_real_fake
        self.fractions, self.split_salt = tuple(fractions), split_salt
        self.image_size, self.hflip, self.in_memory = image_size, hflip, in_memory
        self.decoded_cache_dir = decoded_cache_dir  # in_memory: decoded stacks kept there (reprolab.data.decoded_cache)
        self.batch_size, self.eval_batch_size, self.num_workers = batch_size, eval_batch_size, num_workers
        self.zoo, self.df40_families, self.df40_real_dirs = dict(zoo or {}), df40_families, tuple(df40_real_dirs)
        self.seed = seed
        self.zoo_dir = Path(zoo_dir) if zoo_dir else None  # the generated zoo's home (data_dir may be read-only)
        self.split: ProtocolSplit | None = None

    # -- loading -------------------------------------------------------------------------------------
    def read_table(self):
        root = self.data_dir / self.root
        if self.layout == "zoo":
            root = self.zoo_dir or root
            zoo = dict(self.zoo)
            photos = zoo.pop("photos_dir", "auto")
            if photos == "auto":  # the shared CIFAR subset when it is there, else scikit-learn's photos
                candidate = self.data_dir / "cifar10-jpeg-subset"
                photos = candidate if candidate.is_dir() else None
            root = build_zoo(root, photos, fractions=self.fractions, split_salt=self.split_salt,
                             image_size=self.image_size, **zoo)
            return read_dfg_tree(root, self.fractions, self.split_salt)
        if self.layout == "df40":
            return read_df40(root, self.df40_real_dirs, self.df40_families, self.fractions, self.split_salt)
        return read_dfg_tree(root, self.fractions, self.split_salt)

    def protocol_split(self, table) -> ProtocolSplit:
        algorithms = sorted(set(table["algorithm"]) - {REAL})
        unknown = sorted(set(self.unseen_names + self.distractor_names) - set(algorithms))
        if unknown:
            raise ConfigError(f"data.unseen/data.distractors name algorithms not in the data: {unknown}; "
                              f"available: {algorithms}")
        if not set(self.distractor_names) <= set(self.unseen_names):
            raise ConfigError("every data.distractors algorithm must also be in data.unseen")
        index = {a: i for i, a in enumerate(algorithms)}
        family_of = dict(zip(table["algorithm"], table["family"], strict=True))
        seen = [i for a, i in index.items() if a not in set(self.unseen_names)]
        if self.num_seen_algorithms is not None and len(seen) != self.num_seen_algorithms:
            raise ConfigError(f"the split leaves {len(seen)} seen algorithms but data.num_seen_algorithms is "
                              f"{self.num_seen_algorithms}; set it to {len(seen)}")
        return ProtocolSplit(algorithms, [family_of[a] for a in algorithms], seen,
                             [index[a] for a in self.unseen_names], [index[a] for a in self.distractor_names])

    def setup(self, stage: str | None = None):
        if self.split is not None:
            return
        table = self.read_table()
        self.split = split = self.protocol_split(table)
        index = {a: i for i, a in enumerate(split.algorithms)}
        class_of = {a: c for c, a in enumerate(split.seen)}
        families = sorted(set(split.families))
        table["algorithm"] = [index.get(a, -1) for a in table["algorithm"]]
        table["fake"] = (table["algorithm"] >= 0).astype(int)
        table["label"] = [class_of.get(a, -1) for a in table["algorithm"]]
        table["family"] = [families.index(f) if f in families else -1 for f in table["family"]]
        self.family_names = families
        seen_or_real = table["label"] >= 0
        if self.train_reals:
            seen_or_real |= table["fake"] == 0
        make = lambda rows, flip: ForgeryImages(rows, self.image_size, flip, self.in_memory, self.decoded_cache_dir)
        self.train_set = make(table[(table["split"] == "train") & seen_or_real], self.hflip)
        self.val_set = make(table[(table["split"] == "val") & seen_or_real], False)
        # shuffled once (fixed seed) so that any prefix of the test loader mixes reals and algorithms
        self.test_set = make(table[table["split"] == "test"].sample(frac=1.0, random_state=0), False)
        if len(self.train_set) == 0 or len(self.test_set) == 0:
            raise CorruptDataError(f"the {self.layout} data under '{self.data_dir / self.root}' leaves an empty "
                                   "train or test split; check data.fractions and data.unseen")

    def fake_setup(self, stage: str | None = None):
        """DFG-sized generated data (reprolab.data.fake): the configured unseen algorithms plus enough seen ones
        for `num_seen_algorithms` (100 in all by default), random pixels at `image_size`."""
        n_seen = self.num_seen_algorithms if self.num_seen_algorithms is not None else 100 - len(self.unseen_names)
        algorithms = sorted(self.unseen_names + [f"alg{i:03d}" for i in range(n_seen)])
        self.read_table = lambda: fake_forgery_table(algorithms, self.fractions, self.split_salt)
        self.in_memory = False
        real_setup(self, stage)
        for images in (self.train_set, self.val_set, self.test_set):
            images._load = fake_image_loader(self.image_size)

    # -- loaders -------------------------------------------------------------------------------------
    def train_dataloader(self):
        sampler = None
        fake = self.train_set.targets["fake"]
        if self.train_reals and self.balance_real_fake and 0 < int(fake.sum()) < len(fake):
            weights = torch.where(fake == 1, 0.5 / fake.sum(), 0.5 / (len(fake) - fake.sum())).double()
            sampler = WeightedRandomSampler(weights, len(fake), generator=torch.Generator().manual_seed(self.seed))
        return DataLoader(self.train_set, self.batch_size, shuffle=sampler is None, sampler=sampler,
                          num_workers=self.num_workers, drop_last=len(self.train_set) > self.batch_size,
                          collate_fn=collate_batch)

    def val_dataloader(self):
        return DataLoader(self.val_set, self.eval_batch_size, num_workers=self.num_workers, collate_fn=collate_batch)

    def test_dataloader(self):
        return DataLoader(self.test_set, self.eval_batch_size, num_workers=self.num_workers, collate_fn=collate_batch)
