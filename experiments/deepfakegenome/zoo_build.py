"""Write the forgery zoo to disk as a DFG-layout tree, once per configuration (a cache keyed by its settings).

Real photos come from an image folder (the shared CIFAR-10 JPEG subset, 32x32) or, with no folder at hand,
from 32x32 crops of scikit-learn's two bundled sample photographs. Reals are the untouched photos;
every algorithm forges its own random draw of photos in each split, so a photo's fakes share its split.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from experiments.deepfakegenome.families import forge
from experiments.deepfakegenome.tree import IMAGE_SUFFIXES, REAL, split_of
from experiments.deepfakegenome.zoo import AlgorithmSpec, sample_specs
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError

ZOO_VERSION = 1


def load_photos(photos_dir: str | Path | None, image_size: int = 32) -> tuple[str, list[str], torch.Tensor]:
    """(source name, ids, photos [N, 3, S, S] in [0, 1]) from a folder of images, or sklearn's samples.

    ``photos_dir=None`` uses scikit-learn's bundled photographs (china.jpg, flower.jpg): each is shrunk
    4x and cut into overlapping crops (stride 8), plus their mirror images.
    """
    if photos_dir is None:
        from sklearn.datasets import load_sample_images

        bunch = load_sample_images()
        ids, crops = [], []
        for name, image in zip(bunch.filenames, bunch.images, strict=True):
            stem = Path(name).stem
            small = F.interpolate(torch.from_numpy(image.copy()).permute(2, 0, 1)[None].float() / 255, scale_factor=0.25,
                                  mode="area")[0]
            for top in range(0, small.shape[1] - image_size + 1, 8):
                for left in range(0, small.shape[2] - image_size + 1, 8):
                    crop = small[:, top:top + image_size, left:left + image_size]
                    crops += [crop, crop.flip(-1)]
                    ids += [f"{stem}_{top}_{left}", f"{stem}_{top}_{left}_m"]
        return "sklearn_samples", ids, torch.stack(crops)
    folder = Path(photos_dir)
    paths = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES) if folder.is_dir() else []
    if not paths:
        raise DatasetNotFoundError(
            f"no photos under '{folder}': point data.zoo.photos_dir at an image folder (e.g. "
            "${paths.data_dir}/cifar10-jpeg-subset, make data-cifar10-jpeg-subset) or set data.zoo.photos_dir=null "
            "for scikit-learn's sample images"
        )
    ids, images = [], []
    for path in paths:
        try:
            with Image.open(path) as im:
                image = im.convert("RGB").resize((image_size, image_size), Image.BICUBIC)
        except OSError as err:
            raise CorruptDataError(f"cannot read photo '{path}': {err}") from err
        ids.append(path.relative_to(folder).with_suffix("").as_posix().replace("/", "_"))
        images.append(torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1))
    return folder.name.split("-")[0], ids, torch.stack(images).float() / 255


def _to_uint8(image: torch.Tensor) -> np.ndarray:
    return (image.clamp(0, 1) * 255).round().byte().permute(1, 2, 0).numpy()


def _save_png(array: np.ndarray, path: Path, jpeg_quality: int | None = None) -> None:
    """Save as PNG; with ``jpeg_quality`` the pixels first go through a JPEG round trip (re-compression)."""
    image = Image.fromarray(array)
    if jpeg_quality:
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=int(jpeg_quality))
        image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    image.save(path, format="PNG")


def build_zoo(out_dir: str | Path, photos_dir: str | Path | None, num_algorithms: int = 36, seed: int = 0,
              per_algorithm: dict | None = None, fractions=(0.6, 0.15, 0.25), split_salt: int = 0,
              image_size: int = 32) -> Path:
    """Build (or reuse) the zoo tree in a folder of ``out_dir`` named by its settings; returns that root.
    Deterministic in all arguments. One folder per setting, built under a name of this process's and renamed
    into place: the jobs of a sweep over zoo settings, side by side, never rebuild a tree another job reads."""
    per_algorithm = dict(per_algorithm or {"train": 64, "val": 16, "test": 40})
    key = {"version": ZOO_VERSION, "photos": str(photos_dir), "num_algorithms": num_algorithms, "seed": seed,
           "per_algorithm": per_algorithm, "fractions": list(fractions), "split_salt": split_salt,
           "image_size": image_size}
    root = Path(out_dir) / hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    stamp = root / "zoo.json"
    if stamp.is_file() and json.loads(stamp.read_text()) == key:
        return root
    source, ids, photos = load_photos(photos_dir, image_size)
    splits = np.array([split_of(i, tuple(fractions), split_salt) for i in ids])
    specs = sample_specs(num_algorithms, seed)
    tmp = root.with_name(f"{root.name}.partial-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / source / REAL).mkdir(parents=True)
    for i, image_id in enumerate(ids):
        _save_png(_to_uint8(photos[i]), tmp / source / REAL / f"{image_id}.png")
    for a, spec in enumerate(specs):
        _write_algorithm(tmp / source / spec.name, spec, ids, photos, splits, per_algorithm, seed * 1000 + a)
    rows = ["algorithm,family"] + [f"{s.name},{s.family}" for s in specs] + [f"{REAL},{REAL}"]
    (tmp / "manifest.csv").write_text("\n".join(rows) + "\n")
    (tmp / "algorithms.json").write_text(json.dumps([s.as_row() for s in specs], indent=1))
    (tmp / "zoo.json").write_text(json.dumps(key))
    try:
        tmp.rename(root)
    except OSError:  # a folder is there: another job's identical zoo (keep it), or a damaged one (replace it)
        if stamp.is_file():
            shutil.rmtree(tmp)
        else:
            shutil.rmtree(root)
            tmp.rename(root)
    return root


def _write_algorithm(folder: Path, spec: AlgorithmSpec, ids, photos, splits, per_algorithm, image_seed) -> None:
    rng = np.random.default_rng(image_seed)
    chosen, donor_index = [], []
    for split, count in per_algorithm.items():
        pool = np.flatnonzero(splits == split)
        if len(pool) < count:
            raise CorruptDataError(f"only {len(pool)} photos fall in split '{split}' but the zoo asks for {count} "
                                   "per algorithm; lower data.zoo.per_algorithm or use a bigger photo folder")
        chosen.append(rng.choice(pool, size=count, replace=False))
        donor_index.append(rng.choice(pool, size=count, replace=False))  # face-swap donors: same split
    index = np.concatenate(chosen)
    fakes = forge(photos[index], photos[np.concatenate(donor_index)], spec, image_seed)
    folder.mkdir(parents=True)
    for k, i in enumerate(index):
        _save_png(_to_uint8(fakes[k]), folder / f"{ids[i]}.png", spec.jpeg_quality)
