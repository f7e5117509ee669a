"""Exact, programmatic image edits: the exemplar pairs and the ground truth of every query.

Each edit maps a batch of images in [0, 1], shape (B, 3, H, W), and a strength per image in [0, 1] to the
edited batch; the same edit at the same strength is applied to the exemplar's source and to the query, so
the query's true edit is known exactly. The edits come in five families (colour, tone, blur, geometric,
spatially local); `DEFAULT_UNSEEN` holds out one whole edit type of each of four families for the test
(issue 42: hold out edit types, never only images). Local edits (a tinted patch, a darkened half) change
only part of the image, so an output that copies the exemplar's target shows up in the leakage metric.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from reprolab.cli.errors import ConfigError

Edit = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _s(strength: torch.Tensor) -> torch.Tensor:
    return strength.view(-1, 1, 1, 1)


def _tint(channel: int, amount: float) -> Edit:
    def edit(x, s):
        shift = torch.zeros(1, 3, 1, 1, dtype=x.dtype, device=x.device)
        shift[0, channel] = amount
        return (x + _s(s) * shift).clamp(0, 1)
    return edit


def grayscale(x, s):
    """Mix toward the Rec. 601 luminance by the strength."""
    lum = (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).unsqueeze(1).expand_as(x)
    return x + _s(s) * (lum - x)


def _brightness(amount: float) -> Edit:
    return lambda x, s: (x + _s(s) * amount).clamp(0, 1)


def contrast(x, s):
    """Scale each image's deviation from its own mean by (1 + strength)."""
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    return (mean + (1 + _s(s)) * (x - mean)).clamp(0, 1)


def invert(x, s):
    return 1 - x


def box_blur(x, s):
    """A 3x3 box blur (replicate padding), blended with the image by the strength."""
    blurred = F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
    return x + _s(s) * (blurred - x)


def hflip(x, s):
    return x.flip(-1)


def vflip(x, s):
    return x.flip(-2)


def _region_mask(x: torch.Tensor, region: str) -> torch.Tensor:
    h, w = x.shape[-2:]
    mask = torch.zeros(1, 1, h, w, dtype=x.dtype, device=x.device)
    if region == "left":
        mask[..., : w // 2] = 1
    elif region == "top":
        mask[..., : h // 2, :] = 1
    elif region == "top_left":
        mask[..., : h // 2, : w // 2] = 1
    elif region == "centre":
        mask[..., h // 4: h - h // 4, w // 4: w - w // 4] = 1
    return mask


def _local(region: str, inner: Edit) -> Edit:
    """`inner` applied inside the region only (the rest of the image is untouched)."""
    def edit(x, s):
        mask = _region_mask(x, region)
        return mask * inner(x, s) + (1 - mask) * x
    return edit


EDITS: dict[str, tuple[str, Edit]] = {
    "red_tint": ("colour", _tint(0, 0.35)),
    "blue_tint": ("colour", _tint(2, 0.35)),
    "grayscale": ("colour", grayscale),
    "brighten": ("tone", _brightness(0.3)),
    "darken": ("tone", _brightness(-0.3)),
    "contrast": ("tone", contrast),
    "invert": ("tone", invert),
    "box_blur": ("blur", box_blur),
    "hflip": ("geometric", hflip),
    "vflip": ("geometric", vflip),
    "patch_red": ("local", _local("top_left", _tint(0, 0.5))),
    "half_dark_left": ("local", _local("left", _brightness(-0.4))),
    "half_dark_top": ("local", _local("top", _brightness(-0.4))),
    "patch_bright_centre": ("local", _local("centre", _brightness(0.4))),
}
DEFAULT_UNSEEN = ("blue_tint", "darken", "vflip", "half_dark_top")


def edit_names(names) -> list[str]:
    """Check a list of edit names against `EDITS` (an unknown one is one line listing the known ones)."""
    names = list(names)
    unknown = [n for n in names if n not in EDITS]
    if unknown:
        raise ConfigError(f"unknown edit type(s) {unknown}; known: {sorted(EDITS)}")
    return names


def split_edits(seen, unseen) -> tuple[list[str], list[str]]:
    """(seen, unseen) edit types: disjoint and non-empty, or one ConfigError saying which type is in both."""
    seen, unseen = edit_names(seen), edit_names(unseen)
    both = sorted(set(seen) & set(unseen))
    if both:
        raise ConfigError(f"edit type(s) {both} are both seen and unseen; the test holds out whole edit types")
    if not seen or not unseen:
        raise ConfigError("data.seen_edits and data.unseen_edits must each name at least one edit type")
    return seen, unseen


def apply_edit(name: str, images: torch.Tensor, strength: torch.Tensor) -> torch.Tensor:
    """Edit `name` on images (B, 3, H, W) in [0, 1] at per-image strengths (B,)."""
    return EDITS[name][1](images, strength.to(images))
