"""Reading the guided depth super-resolution test/train sets from disk into RGB + depth pairs.

Two layouts are read:
- the DCTNet `RawDatasets/` folders (Middlebury, Lu, NYUDepthv2_Test, RGBDD, RGBDD_Test_Realscene),
  which `../shared/data/depth-sr/` mirrors (with `RGBDD_subset` holding 45 of the 405 RGB-D-D pairs);
- the DKN/SGNet NYU v2 arrays (`train_images_split.npy`, `train_depth_split.npy`, `test_images_v2.npy`,
  `test_depth.npy`, `test_minmax.npy`) that `scripts/data/prepare_depth_sr.py` writes from the
  labelled `nyu_depth_v2_labeled.mat` (images 1-1000 train, 1001-1449 test).
Depth is kept in the set's raw unit (metres, millimetres or 8-bit levels); `degrade.py` normalises it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError

DOWNLOAD_HINT = ("run 'make data-depth-sr' (the claim's test sets) or 'make data-nyuv2-dsr' (paper scale), or set "
                 "REPROLAB_DATA or paths.data_dir")


@dataclass
class DepthPair:
    """One guide image and its depth map; `lr_depth` is a real low-res capture (RGB-D-D real scenes)."""

    name: str
    rgb: np.ndarray  # (H, W, 3) uint8
    depth: np.ndarray  # (H, W) float32 in the set's raw unit
    lr_depth: np.ndarray | None = None
    minmax: tuple[float, float] | None = None  # (max, min) when `depth` arrives already normalised


@dataclass(frozen=True)
class FolderLayout:
    """Where one DCTNet-style set keeps its files and how an RGB name pairs with a depth name."""

    rgb_suffix: str
    depth_suffix: str
    lr_suffix: str | None = None


# kind -> layout; file stems are <key><suffix> in RGB/, Depth/ (and DepthLR/).
LAYOUTS = {
    "middlebury": FolderLayout("_output_color.png", "_output_depth.png"),
    "lu": FolderLayout("_ouput_color.png", "_output_depth.png"),  # "ouput" is the release's spelling
    "nyu": FolderLayout(".jpg", ".npy"),
    "rgbdd": FolderLayout("_RGB.jpg", "_HR_gt.png"),
    "rgbdd_real": FolderLayout("_RGB.jpg", "_HR_gt.png", "_LR_fill_depth.png"),
}


def read_folder_set(folder: Path, kind: str, include: Sequence[int] | None = None,
                    exclude: Sequence[int] | None = None) -> list[DepthPair]:
    """Pairs of a DCTNet-style folder, sorted by name; include/exclude pick 1-based positions."""
    if kind not in LAYOUTS:
        raise ValueError(f"unknown depth-SR set kind '{kind}'; choose one of {', '.join(LAYOUTS)}")
    layout = LAYOUTS[kind]
    depth_dir = folder / "Depth"
    if not depth_dir.is_dir():
        raise DatasetNotFoundError(f"no {kind} depth maps at '{depth_dir}'; {DOWNLOAD_HINT}")
    keys = sorted(p.name[: -len(layout.depth_suffix)] for p in depth_dir.glob(f"*{layout.depth_suffix}"))
    if not keys:
        raise DatasetNotFoundError(f"'{depth_dir}' holds no *{layout.depth_suffix} files; {DOWNLOAD_HINT}")
    chosen = _select(keys, include, exclude)
    pairs = []
    for key in chosen:
        rgb = _read_rgb(folder / "RGB" / f"{key}{layout.rgb_suffix}")
        depth = _read_depth(depth_dir / f"{key}{layout.depth_suffix}")
        lr = _read_depth(folder / "DepthLR" / f"{key}{layout.lr_suffix}") if layout.lr_suffix else None
        if rgb.shape[:2] != depth.shape:
            raise CorruptDataError(f"{kind} '{key}': RGB {rgb.shape[:2]} and depth {depth.shape} sizes differ")
        pairs.append(DepthPair(name=f"{kind}/{key}", rgb=rgb, depth=depth, lr_depth=lr))
    return pairs


NYU_ARRAYS = {
    "train": ("train_images_split.npy", "train_depth_split.npy", None),
    "test": ("test_images_v2.npy", "test_depth.npy", "test_minmax.npy"),
}


def read_nyu_arrays(folder: Path, split: str, include: Sequence[int] | None = None,
                    exclude: Sequence[int] | None = None) -> list[DepthPair]:
    """NYU v2 pairs from the DKN/SGNet arrays: depth per-image min/max normalised, minmax rows (max, min).

    include/exclude pick 1-based positions within the split (e.g. a validation tail of the 1000).
    """
    if split not in NYU_ARRAYS:
        raise ValueError(f"NYU v2 split must be one of {', '.join(NYU_ARRAYS)}; got '{split}'")
    img_name, depth_name, minmax_name = NYU_ARRAYS[split]
    for name in (img_name, depth_name) + ((minmax_name,) if minmax_name else ()):
        if not (folder / name).is_file():
            raise DatasetNotFoundError(f"NYU v2 array '{folder / name}' is missing; {DOWNLOAD_HINT}")
    images = _load_npy(folder / img_name, mmap=True)
    depths = _load_npy(folder / depth_name, mmap=True)
    minmax = _load_npy(folder / minmax_name) if minmax_name else None
    if images.shape[0] != depths.shape[0] or images.shape[1:3] != depths.shape[1:3]:
        raise CorruptDataError(f"NYU v2 {split}: images {images.shape} do not match depths {depths.shape}")
    if minmax is not None and minmax.shape != (2, depths.shape[0]):
        raise CorruptDataError(f"'{folder / minmax_name}' must be (2, {depths.shape[0]}); got {minmax.shape}")
    chosen = _select(list(range(depths.shape[0])), include, exclude)
    return [
        DepthPair(name=f"nyu_{split}/{i}", rgb=np.asarray(images[i], dtype=np.uint8),
                  depth=np.asarray(depths[i], dtype=np.float32),
                  minmax=None if minmax is None else (float(minmax[0, i]), float(minmax[1, i])))
        for i in chosen
    ]


def _select(keys: list[str], include, exclude) -> list[str]:
    positions = range(1, len(keys) + 1)
    wanted = set(include) if include is not None else set(positions)
    wanted -= set(exclude or ())
    bad = wanted - set(positions)
    if bad:
        raise ValueError(f"positions {sorted(bad)} are outside 1..{len(keys)}")
    return [k for i, k in zip(positions, keys, strict=True) if i in wanted]


def _read_rgb(path: Path) -> np.ndarray:
    try:
        with Image.open(path) as im:
            return np.asarray(im.convert("RGB"), dtype=np.uint8)
    except FileNotFoundError as err:
        raise DatasetNotFoundError(f"guide image '{path}' is missing; {DOWNLOAD_HINT}") from err
    except (UnidentifiedImageError, OSError) as err:
        raise CorruptDataError(f"cannot read guide image '{path}' ({err}); re-download it") from err


def _read_depth(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        return _load_npy(path).astype(np.float32)
    try:
        with Image.open(path) as im:
            return np.asarray(im, dtype=np.float32)
    except FileNotFoundError as err:
        raise DatasetNotFoundError(f"depth map '{path}' is missing; {DOWNLOAD_HINT}") from err
    except (UnidentifiedImageError, OSError) as err:
        raise CorruptDataError(f"cannot read depth map '{path}' ({err}); re-download it") from err


def _load_npy(path: Path, mmap: bool = False) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False, mmap_mode="r" if mmap else None)
    except FileNotFoundError as err:
        raise DatasetNotFoundError(f"'{path}' is missing; {DOWNLOAD_HINT}") from err
    except (ValueError, OSError, EOFError) as err:
        raise CorruptDataError(f"cannot read '{path}' ({err}); re-run the preparation step") from err
