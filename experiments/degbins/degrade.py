"""Turning an RGB + depth pair into a network sample: normalise, degrade (bicubic down-sampling, optional
noise, or a real low-res capture), and crop training patches.

Normalisation follows the conventions the RMSE undoes (`metrics.dsr_rmse`):
- 8-bit sets (Middlebury, Lu): d / 255, minmax = (255, 0);
- NYU v2: per-image min/max of the HR map (DKN/SGNet arrays already hold it; `test_minmax.npy`);
- RGB-D-D: per-image min/max of the LR map, real or synthetic (SGNet's `rgbdd_dataloader.py` normalises the LR
  map by its own range and de-normalises the prediction with it; we normalise the HR map by the same range, so
  train and test agree; SGNet's training normalises its HR target by the HR range instead).
Every sample carries `degradation` = (scale, noise_std), the code the model may be conditioned on.
LR maps are made with PIL's bicubic resize of the normalised float map to (W//s, H//s) after cropping
H and W to multiples of s (DCTNet/SGNet `modcrop`).
"""

from __future__ import annotations

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset

from experiments.degbins.sets import DepthPair
from reprolab.data.samplers import EpochShuffleSampler

CONVENTION_OF_KIND = {"middlebury": "middlebury", "lu": "lu", "nyu": "nyu", "nyu_npy": "nyu",
                      "rgbdd": "rgbdd", "rgbdd_real": "rgbdd"}


def bicubic_resize(depth: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    """PIL bicubic resize of a float32 map (mode 'F'), the down-sampler of the DSR protocol."""
    return np.asarray(Image.fromarray(depth.astype(np.float32)).resize(size_wh, Image.BICUBIC))


def normalise(pair: DepthPair, convention: str, lr_raw: np.ndarray | None) -> tuple[np.ndarray, tuple[float, float]]:
    """(normalised HR depth, (max, min)) under the convention; `lr_raw` (the LR map in raw units) supplies the
    RGB-D-D range."""
    if pair.minmax is not None:  # arrays that arrive already normalised (NYU v2 .npy)
        return pair.depth.astype(np.float32), pair.minmax
    if convention in ("middlebury", "lu"):
        hi, lo = 255.0, 0.0
    elif convention == "nyu":
        hi, lo = float(pair.depth.max()), float(pair.depth.min())
    elif convention == "rgbdd":
        if lr_raw is None:
            raise ValueError(f"{pair.name}: the RGB-D-D convention needs the LR map's range")
        hi, lo = float(lr_raw.max()), float(lr_raw.min())
    else:
        raise ValueError(f"unknown DSR convention '{convention}'")
    if hi <= lo:
        raise ValueError(f"{pair.name}: depth is constant ({hi}); cannot normalise")
    return ((pair.depth - lo) / (hi - lo)).astype(np.float32), (hi, lo)


def make_sample(pair: DepthPair, scale: int, convention: str, noise_std: float = 0.0,
                rng: np.random.Generator | None = None) -> dict:
    """A full-image sample: rgb (3,H,W) in [0,1], lr (1,H/s,W/s), gt (1,H,W), minmax (2,), name."""
    h, w = pair.depth.shape
    h, w = h - h % scale, w - w % scale
    rgb, depth = pair.rgb[:h, :w], pair.depth[:h, :w]
    size = (w // scale, h // scale)
    real_lr = None if pair.lr_depth is None else bicubic_resize(pair.lr_depth, size)  # SGNet's real-LR resize
    lr_raw = real_lr
    if lr_raw is None and convention == "rgbdd" and pair.minmax is None:
        lr_raw = bicubic_resize(depth, size)  # synthetic RGB-D-D: the range of the degraded map (SGNet)
    gt, (hi, lo) = normalise(DepthPair(pair.name, rgb, depth, minmax=pair.minmax), convention, lr_raw)
    lr = (real_lr - lo) / (hi - lo) if real_lr is not None else bicubic_resize(gt, size)
    if noise_std > 0:
        rng = rng or np.random.default_rng(0)
        lr = lr + rng.normal(0.0, noise_std, size=lr.shape)
    return {
        "rgb": torch.from_numpy(np.ascontiguousarray(rgb.transpose(2, 0, 1))).float() / 255.0,
        "lr": torch.from_numpy(np.array(lr, dtype=np.float32)).unsqueeze(0),
        "gt": torch.from_numpy(np.ascontiguousarray(gt)).unsqueeze(0),
        "minmax": torch.tensor([hi, lo], dtype=torch.float64),
        "degradation": torch.tensor([float(scale), float(noise_std)]),
        "name": pair.name,
    }


def random_patch(sample: dict, scale: int, patch: int, rng: np.random.Generator, augment: bool = True) -> dict:
    """An aligned HR patch (patch x patch) and its LR patch; random flips/90-degree turns when augment."""
    if patch % scale:
        raise ValueError(f"patch size {patch} must be a multiple of the scale {scale}")
    _, h, w = sample["gt"].shape
    if h < patch or w < patch:
        raise ValueError(f"{sample['name']}: image {h}x{w} is smaller than the {patch}px patch")
    y = int(rng.integers(0, (h - patch) // scale + 1)) * scale
    x = int(rng.integers(0, (w - patch) // scale + 1)) * scale
    ly, lx, lp = y // scale, x // scale, patch // scale
    out = {
        "rgb": sample["rgb"][:, y:y + patch, x:x + patch],
        "gt": sample["gt"][:, y:y + patch, x:x + patch],
        "lr": sample["lr"][:, ly:ly + lp, lx:lx + lp],
    }
    if augment:
        k = int(rng.integers(0, 4))
        flip = bool(rng.integers(0, 2))
        for key, value in out.items():
            value = torch.rot90(value, k, dims=(1, 2))
            out[key] = torch.flip(value, dims=(2,)) if flip else value
    out = {k: v.contiguous() for k, v in out.items()}
    out["minmax"], out["name"] = sample["minmax"], sample["name"]
    if "degradation" in sample:
        out["degradation"] = sample["degradation"]
    return out


class PatchDataset(Dataset):
    """Random training patches from a list of full-image samples; `length` patches per epoch.

    The patch for index i is drawn from a generator seeded by (seed, epoch, i), so a run is
    reproducible. Fresh patches each epoch: index it with `EpochPatchSampler` (index e·length + i is patch i of
    epoch e, also inside worker processes). `min_edge` > 0 redraws (up to
    `tries` times) patches whose HR depth range is below it: flat patches teach the residual nothing,
    and small patches (the CPU claim check) are mostly flat.
    """

    def __init__(self, samples: list[dict], scale: int, patch: int, length: int, seed: int = 0,
                 augment: bool = True, min_edge: float = 0.0, tries: int = 10):
        if not samples:
            raise ValueError("PatchDataset needs at least one sample")
        self.samples, self.scale, self.patch = samples, scale, patch
        self.length, self.seed, self.augment = length, seed, augment
        self.min_edge, self.tries = min_edge, tries

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> dict:
        epoch, index = divmod(index, self.length)  # indices past `length` (EpochPatchSampler) are later epochs
        rng = np.random.default_rng((self.seed, epoch, index))
        for _ in range(self.tries):
            sample = self.samples[int(rng.integers(0, len(self.samples)))]
            patch = random_patch(sample, self.scale, self.patch, rng, self.augment)
            if self.min_edge <= 0 or float(patch["gt"].max() - patch["gt"].min()) >= self.min_edge:
                break
        return patch


class MixedPatchDataset(Dataset):
    """Training patches under mixed degradations: each run of `group` consecutive indices (one batch, with the
    sequential `EpochPatchSampler`) draws one (scale, noise_std) and takes its patch from the pool at that scale
    (clean LR maps), then adds Gaussian noise of that std to the LR patch. One degradation per batch keeps LR
    patches of one size; single-process only (a strided DDP sampler would mix groups across batches)."""

    def __init__(self, pools: dict[int, PatchDataset], degradations: list[tuple[int, float]], group: int,
                 seed: int = 0):
        missing = {int(s) for s, _ in degradations} - set(pools)
        if missing:
            raise ValueError(f"no patch pool for scale(s) {sorted(missing)}")
        self.pools, self.degradations, self.group, self.seed = pools, degradations, group, seed
        self.length = next(iter(pools.values())).length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> dict:
        epoch, i = divmod(index, self.length)
        pick = np.random.default_rng((self.seed, epoch, i // self.group, 7))
        scale, noise_std = self.degradations[int(pick.integers(0, len(self.degradations)))]
        patch = dict(self.pools[int(scale)][index])
        if noise_std > 0:
            noise = np.random.default_rng((self.seed, epoch, i, 11)).normal(0.0, noise_std, size=patch["lr"].shape)
            patch["lr"] = patch["lr"] + torch.from_numpy(noise).float()
        patch["degradation"] = torch.tensor([float(scale), float(noise_std)])
        return patch


class ImageDataset(Dataset):
    """Whole evaluation images (batch size 1: sizes differ across Middlebury), tagged with the index of
    their set so one dataloader can carry several test sets."""

    def __init__(self, samples: list[dict], set_index: int = 0):
        self.samples, self.set_index = samples, set_index

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> dict:
        return {**self.samples[index], "set_index": self.set_index}


class EpochPatchSampler(EpochShuffleSampler):
    """Yields e·length + i in epoch e (Lightning calls `set_epoch`), so `PatchDataset` draws new patches every
    epoch; under DDP each rank takes its own stride, as `EpochShuffleSampler` does."""

    def __init__(self, length: int, seed: int = 0):
        super().__init__(length, seed, shuffle=False)

    def __iter__(self):
        return (self.epoch * self.length + i for i in super().__iter__())
