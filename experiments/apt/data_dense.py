"""NYUv2 and Cityscapes in MTAN's pre-processed .npy layout (Liu et al. 2019; used by CAGrad, Nash-MTL, FAMO).

Layout under `data_dir`: `<split>/{image,label|label_7,depth,normal}/<i>.npy` with split ∈ {train, val}
(the protocol tests on `val`; we hold out `val_fraction` of train for model selection, see README).
NYUv2: 795 train / 654 val, 288×384, 13 classes, seg + depth + normal. Cityscapes: 2,975 / 500, 128×256,
7 classes, seg + depth. `python scripts/data/prepare_nyuv2_mtl.py` (or `prepare_cityscapes_mtl.py`) says
where to download, unpacks, checks file counts and writes `MANIFEST.sha256`, which `setup()` verifies.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset, Subset

from experiments.apt.loaders import SplitDataModule, image_loader
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.data.fake import FakeSamples, TensorSpec
from reprolab.data.fetch import sha256_file

SPEC = {
    "nyuv2": {"tasks": {"seg": "label", "depth": "depth", "normal": "normal"}, "counts": {"train": 795, "val": 654},
              "size": (288, 384), "classes": 13},
    "cityscapes": {"tasks": {"seg": "label_7", "depth": "depth"}, "counts": {"train": 2975, "val": 500},
                   "size": (128, 256), "classes": 7},
}


def manifest_lines(root: Path) -> list[str]:
    """'sha256  relative/path' for every .npy under root, sorted (what MANIFEST.sha256 holds)."""
    lines = []
    for path in sorted(root.rglob("*.npy")):
        lines.append(f"{sha256_file(path)}  {path.relative_to(root)}")
    return lines


def check_layout(root: Path, name: str, verify_checksums: bool = False) -> None:
    spec = SPEC[name]
    script = f"scripts/data/prepare_{name}_mtl.py"
    if not root.is_dir():
        raise DatasetNotFoundError(f"no {name} data at '{root}'; run 'python {script} --data-dir {root.parent}' "
                                   "or set paths.data_dir")
    for split, count in spec["counts"].items():
        for folder in ("image", *spec["tasks"].values()):
            d = root / split / folder
            found = len(list(d.glob("*.npy"))) if d.is_dir() else 0
            if found != count:
                raise CorruptDataError(f"'{d}' holds {found} .npy files, expected {count}; re-run 'python {script}'")
    manifest = root / "MANIFEST.sha256"
    if verify_checksums and manifest.is_file():
        expected = manifest.read_text().splitlines()
        if manifest_lines(root) != expected:
            raise CorruptDataError(f"files under '{root}' do not match {manifest.name}; re-run 'python {script}'")


class DenseMTLDataset(Dataset):
    """Returns (image [3,H,W], {task: target}); seg [H,W] long (−1 ignored), depth [1,H,W], normal [3,H,W]."""

    def __init__(self, root: Path, split: str, tasks: dict[str, str], augment: bool = False):
        self.root, self.split, self.tasks, self.augment = root, split, tasks, augment
        self.length = len(list((root / split / "image").glob("*.npy")))

    def __len__(self) -> int:
        return self.length

    def _load(self, folder: str, index: int) -> torch.Tensor:
        path = self.root / self.split / folder / f"{index}.npy"
        try:
            return torch.from_numpy(np.load(path).astype(np.float32))
        except (OSError, ValueError) as err:
            raise CorruptDataError(f"cannot read '{path}': {err}") from err

    def __getitem__(self, index: int):
        image = self._load("image", index).permute(2, 0, 1)
        targets = {}
        for task, folder in self.tasks.items():
            t = self._load(folder, index)
            targets[task] = t.long() if task == "seg" else (t.permute(2, 0, 1) if t.ndim == 3 else t[None])
        if self.augment:
            image, targets = random_scale_crop(image, targets)
        return image, targets


def random_scale_crop(image, targets, scales=(1.0, 1.2, 1.5)):
    """MTAN / Nash-MTL augmentation: crop a 1/s window, resize back to full size, divide depth by s."""
    h, w = image.shape[-2:]
    s = scales[int(torch.randint(len(scales), ()))]
    ch, cw = int(h / s), int(w / s)
    i, j = int(torch.randint(h - ch + 1, ())), int(torch.randint(w - cw + 1, ()))

    def crop(x, mode):
        x = x[..., i:i + ch, j:j + cw]
        return F.interpolate(x[None].float(), size=(h, w), mode=mode, **({} if mode == "nearest" else {"align_corners": True}))[0]

    image = crop(image, "bilinear")
    out = {}
    for task, t in targets.items():
        if task == "seg":
            out[task] = crop(t[None], "nearest")[0].long()
        elif task == "depth":
            out[task] = crop(t, "nearest") / s
        else:
            out[task] = crop(t, "nearest")
    return image, out


class DenseMTLDataModule(SplitDataModule):
    def __init__(self, data_dir: str, name: str = "nyuv2", batch_size: int = 2, eval_batch_size: int | None = None,
                 num_workers: int = 4, augment: bool = True, val_fraction: float = 0.0, verify_checksums: bool = False,
                 limit: int | None = None, seed: int = 0):
        super().__init__()
        if name not in SPEC:
            raise ValueError(f"dense MTL dataset {name!r} unknown; use {sorted(SPEC)}")
        self.root = Path(data_dir) / name
        self.name, self.batch_size = name, batch_size
        self.eval_batch_size = eval_batch_size or batch_size
        self.num_workers, self.augment, self.val_fraction = num_workers, augment, val_fraction
        self.verify_checksums, self.limit, self.seed = verify_checksums, limit, seed

    def setup(self, stage: str | None = None) -> None:
        check_layout(self.root, self.name, self.verify_checksums)
        tasks = SPEC[self.name]["tasks"]
        train = DenseMTLDataset(self.root, "train", tasks, self.augment)
        test = DenseMTLDataset(self.root, "val", tasks)
        if self.val_fraction > 0:  # hold out part of train for model selection
            perm = torch.randperm(len(train), generator=torch.Generator().manual_seed(self.seed)).tolist()
            k = int(self.val_fraction * len(train))
            self.val = Subset(DenseMTLDataset(self.root, "train", tasks), perm[:k])
            self.train = Subset(train, perm[k:])
        else:  # the MTAN / Nash-MTL protocol: no validation split, the test split is monitored
            self.train, self.val = train, test
        self.test = test
        self.sets = {"train": self.train, "val": self.val, "test": self.test}
        if self.limit:
            self.sets = {k: Subset(d, range(min(self.limit, len(d)))) for k, d in self.sets.items()}

    def fake_setup(self, stage: str | None = None) -> None:
        """Random samples of the dataset's resolution, classes and split sizes (reprolab.data.fake); no augmentation."""
        spec = SPEC[self.name]
        h, w = spec["size"]
        targets = {"seg": TensorSpec((h, w), torch.long, -1, spec["classes"]), "depth": TensorSpec((1, h, w), high=10.0),
                   "normal": TensorSpec((3, h, w), low=-1.0)}
        sample = (TensorSpec((3, h, w)), {task: targets[task] for task in spec["tasks"]})
        n_train, n_test = spec["counts"]["train"], spec["counts"]["val"]
        n_val = int(self.val_fraction * n_train) or n_test
        self.sets = {"train": FakeSamples(sample, n_train - int(self.val_fraction * n_train), 1),
                     "val": FakeSamples(sample, n_val, 2), "test": FakeSamples(sample, n_test, 3)}

    def make_loader(self, dataset, shuffle: bool):
        return image_loader(dataset, self.batch_size if shuffle else self.eval_batch_size, shuffle, self.num_workers)


NYUV2_URL = "https://www.dropbox.com/sh/86nssgwm6hm3vkb/AACrnUQ4GxpdrBbLjb6n-mWNa?dl=1"  # Nash-MTL README


def prepare(name: str, data_dir: str | Path, archive: str | None = None, url: str | None = None) -> Path:
    """Unpack MTAN's pre-processed archive into `data_dir/<name>`, check the layout, write MANIFEST.sha256."""
    import shutil
    import tempfile

    from torchvision.datasets.utils import download_url

    root = Path(data_dir) / name
    if archive is None:
        if url is None:
            raise DatasetNotFoundError(f"give --archive (the zip from the MTAN / Nash-MTL README) or --url for {name}")
        folder = tempfile.mkdtemp()
        download_url(url, folder, f"{name}.zip")
        archive = str(Path(folder) / f"{name}.zip")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.unpack_archive(archive, tmp)
        inner = next((p.parent for p in Path(tmp).rglob("image") if p.parent.name == "train"), None)
        if inner is None:
            raise CorruptDataError(f"'{archive}' holds no train/image folder: is it MTAN's pre-processed {name}?")
        root.mkdir(parents=True, exist_ok=True)
        for split in ("train", "val"):
            shutil.copytree(inner.parent / split, root / split, dirs_exist_ok=True)
    check_layout(root, name)
    (root / "MANIFEST.sha256").write_text("\n".join(manifest_lines(root)) + "\n")
    print(f"{name} ready under {root} ({SPEC[name]['counts']}); MANIFEST.sha256 written")
    return root
