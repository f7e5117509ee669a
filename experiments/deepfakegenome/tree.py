"""Reading forgery datasets into one table of images: DFG trees, DF40's release layout, image-level splits.

DFG layout (what the benchmark and our forgery zoo write)::

    <root>/manifest.csv                     algorithm,family[,...]   one row per algorithm (and `real`)
    <root>/<source>/<algorithm>/<id>.png    <source> = the real-face set the forgery was made from
    <root>/splits.csv                       optional: id,split  (train / val / test)

DF40 layout (Yan et al., NeurIPS 2024 D&B; the pre-processed release)::

    <root>/[train|test/]<method>/<domain>/.../<video>/<frame>.png   e.g. simswap/ff/frames/000_003/000.png

with the method's family from DF40's table (face swap / reenactment / entire-face synthesis / editing;
override with ``families``) and real frames under any directory named in ``real_dirs``.

Without a split file an image's split comes from a hash of its split key (the id for DFG, the video for
DF40), so the fakes made from one photo or video share the split of its real version.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp"}
SPLITS = ("train", "val", "test")
REAL = "real"

DF40_FAMILIES = {
    **dict.fromkeys(["fsgan", "faceswap", "simswap", "inswap", "inswapper", "blendface", "uniface", "mobileswap",
                     "e4s", "facedancer", "deepfacelab"], "face_swap"),
    **dict.fromkeys(["fomm", "facevid2vid", "fs_vid2vid", "wav2lip", "mraa", "one_shot_free", "oneshot",
                     "pirender", "tpsm", "lia", "dagan", "danet", "sadtalker", "mcnet", "hyperreenact", "heygen"],
                    "face_reenactment"),
    **dict.fromkeys(["vqgan", "stylegan2", "stylegan3", "styleganxl", "stylegan-xl", "sd2.1", "ddim", "ddpm", "rddm",
                     "pixart", "dit", "sit", "midjourney", "midjourney6", "whichisreal"], "entire_face_synthesis"),
    **dict.fromkeys(["collabdiff", "e4e", "stargan", "starganv2", "styleclip"], "face_editing"),
}


def split_of(key: str, fractions: tuple[float, float, float], salt: int = 0) -> str:
    """Deterministic train/val/test assignment of a split key from its md5 hash."""
    u = int(hashlib.md5(f"{salt}:{key}".encode()).hexdigest()[:8], 16) / 2**32
    train, val, _ = fractions
    return "train" if u < train else "val" if u < train + val else "test"


def _images_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())


def read_dfg_tree(root: Path, fractions=(0.6, 0.15, 0.25), salt: int = 0) -> pd.DataFrame:
    """Table (path, source, algorithm, family, id, split) of a DFG-layout tree; raises a clear error if broken."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetNotFoundError(
            f"no DFG tree at '{root}': place DeepfakeGenome under paths.data_dir (layout "
            "<source>/<algorithm>/<id>.png + manifest.csv), or use data=forgery_zoo for the offline stand-in"
        )
    manifest_path = root / "manifest.csv"
    if not manifest_path.is_file():
        raise DatasetNotFoundError(f"'{root}' has no manifest.csv (columns algorithm,family); add one")
    try:
        manifest = pd.read_csv(manifest_path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise CorruptDataError(f"cannot parse '{manifest_path}': {err}") from err
    if not {"algorithm", "family"} <= set(manifest.columns):
        raise CorruptDataError(f"'{manifest_path}' needs columns algorithm,family; has {list(manifest.columns)}")
    family_of = dict(zip(manifest.algorithm, manifest.family, strict=True))
    family_of.setdefault(REAL, REAL)
    rows = []
    for source_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for algorithm_dir in sorted(p for p in source_dir.iterdir() if p.is_dir()):
            algorithm = algorithm_dir.name
            if algorithm not in family_of:
                raise CorruptDataError(
                    f"algorithm '{algorithm}' in '{source_dir}' is not in {manifest_path}; add its family there"
                )
            for path in _images_under(algorithm_dir):
                rows.append((str(path), source_dir.name, algorithm, family_of[algorithm], path.stem))
    table = pd.DataFrame(rows, columns=["path", "source", "algorithm", "family", "id"])
    if table.empty:
        raise DatasetNotFoundError(f"the DFG tree at '{root}' holds no images under <source>/<algorithm>/")
    return _with_splits(table, root / "splits.csv", table["id"], fractions, salt)


def read_df40(root: Path, real_dirs=("real", "original", "youtube", "celeb-real"), families: dict | None = None,
              fractions=(0.6, 0.15, 0.25), salt: int = 0) -> pd.DataFrame:
    """Table of a DF40 release tree; split from its train/ and test/ folders when present, else by video."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetNotFoundError(
            f"no DF40 tree at '{root}': download DF40 (github.com/YZY-stack/DF40) under paths.data_dir"
        )
    family_of = {**DF40_FAMILIES, **{k.lower(): v for k, v in (families or {}).items()}}
    real_names = {r.lower() for r in real_dirs}
    split_dirs = [d for d in ("train", "val", "test") if (root / d).is_dir()]
    bases = [(root / d, d) for d in split_dirs] or [(root, None)]
    rows = []
    for base, split in bases:
        for method_dir in sorted(p for p in base.iterdir() if p.is_dir()):
            name = method_dir.name.lower()
            if name in real_names:
                algorithm, family = REAL, REAL
            elif name in family_of:
                algorithm, family = name, family_of[name]
            else:
                raise CorruptDataError(
                    f"DF40 method '{method_dir.name}' has no known family; set data.df40_families."
                    f"{method_dir.name}=<face_swap|face_reenactment|entire_face_synthesis|face_editing>"
                )
            for path in _images_under(method_dir):
                rel = path.relative_to(method_dir)
                video = rel.parent.as_posix() or path.stem
                rows.append((str(path), rel.parts[0] if len(rel.parts) > 1 else "", algorithm, family,
                             rel.with_suffix("").as_posix(), video, split))
    table = pd.DataFrame(rows, columns=["path", "source", "algorithm", "family", "id", "video", "given_split"])
    if table.empty:
        raise DatasetNotFoundError(f"the DF40 tree at '{root}' holds no images")
    table = _with_splits(table, root / "splits.csv", table["video"], fractions, salt)
    if split_dirs:  # the release's own train/test folders win; val is carved from train by hash
        given = table.pop("given_split")
        table["split"] = [("val" if s == "val" else "train") if g == "train" else g
                          for g, s in zip(given, table["split"], strict=True)]
    else:
        table = table.drop(columns="given_split")
    return table.drop(columns="video")


def _with_splits(table, split_file: Path, keys, fractions, salt) -> pd.DataFrame:
    if split_file.is_file():
        given = pd.read_csv(split_file, dtype=str).set_index("id")["split"]
        table["split"] = table["id"].map(given)
        if table["split"].isna().any() or not set(table["split"]) <= set(SPLITS):
            bad = table.loc[~table["split"].isin(SPLITS), "id"].iloc[0]
            raise CorruptDataError(f"'{split_file}' gives no valid split (train/val/test) for id '{bad}'")
    else:
        table["split"] = [split_of(k, tuple(fractions), salt) for k in keys]
    return table
