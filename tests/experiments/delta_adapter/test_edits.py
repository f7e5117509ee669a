"""The exact edits: hand-worked values, locality of the local edits, and the seen / unseen split's errors."""

import pytest
import torch

from experiments.delta_adapter.edits import DEFAULT_UNSEEN, EDITS, apply_edit, split_edits
from reprolab.cli.errors import ConfigError


def image(r, g, b, size=4):
    return torch.tensor([r, g, b]).view(1, 3, 1, 1).expand(1, 3, size, size).clone()


def test_grayscale_of_pure_red_is_its_luminance_and_half_strength_is_halfway():
    red = image(1.0, 0.0, 0.0)
    assert torch.allclose(apply_edit("grayscale", red, torch.ones(1))[0, :, 0, 0], torch.full((3,), 0.299))
    half = apply_edit("grayscale", red, torch.full((1,), 0.5))[0, :, 0, 0]
    assert torch.allclose(half, torch.tensor([0.6495, 0.1495, 0.1495]))


def test_tints_and_tone_edits_clamp_to_the_unit_range():
    grey = image(0.9, 0.5, 0.1)
    assert torch.allclose(apply_edit("red_tint", grey, torch.ones(1))[0, :, 0, 0], torch.tensor([1.0, 0.5, 0.1]))
    assert torch.allclose(apply_edit("darken", grey, torch.ones(1))[0, :, 0, 0], torch.tensor([0.6, 0.2, 0.0]))
    assert torch.allclose(apply_edit("invert", grey, torch.ones(1)), 1 - grey)


def test_contrast_scales_the_deviation_from_the_image_mean():
    x = torch.zeros(1, 3, 2, 2)
    x[..., 0, 0] = 0.6
    x[..., 1, 1] = 0.2          # mean 0.2
    out = apply_edit("contrast", x, torch.full((1,), 0.5))
    assert torch.allclose(out[0, 0], torch.tensor([[0.8, 0.0], [0.0, 0.2]]))   # 0.2 + 1.5 (x - 0.2), clamped at 0
    assert torch.allclose(out[0, 0], out[0, 2])


def test_local_edits_change_only_their_region():
    x = torch.rand(2, 3, 8, 8, generator=torch.Generator().manual_seed(0)) * 0.5 + 0.45
    left = apply_edit("half_dark_left", x, torch.ones(2))
    assert torch.equal(left[..., 4:], x[..., 4:]) and torch.allclose(left[..., :4], x[..., :4] - 0.4)
    top = apply_edit("half_dark_top", x, torch.ones(2))
    assert torch.equal(top[..., 4:, :], x[..., 4:, :]) and not torch.equal(top[..., :4, :], x[..., :4, :])
    patch = apply_edit("patch_red", x, torch.ones(2))
    assert torch.equal(patch[..., 4:, :], x[..., 4:, :]) and torch.equal(patch[:, 1:], x[:, 1:])


def test_flips_are_involutions_and_blur_keeps_a_flat_image():
    x = torch.rand(1, 3, 6, 6)
    assert torch.equal(apply_edit("hflip", apply_edit("hflip", x, torch.ones(1)), torch.ones(1)), x)
    assert torch.equal(apply_edit("vflip", x, torch.ones(1)), x.flip(-2))
    flat = image(0.3, 0.3, 0.3, 6)
    assert torch.allclose(apply_edit("box_blur", flat, torch.ones(1)), flat)


def test_the_default_held_out_types_cover_four_families_and_leave_every_family_seen():
    families = [EDITS[name][0] for name in DEFAULT_UNSEEN]
    assert sorted(families) == ["colour", "geometric", "local", "tone"]
    seen = [n for n in EDITS if n not in DEFAULT_UNSEEN]
    assert {EDITS[n][0] for n in seen} == {"colour", "tone", "blur", "geometric", "local"}


def test_split_errors_are_one_line():
    with pytest.raises(ConfigError, match="both seen and unseen"):
        split_edits(["vflip", "hflip"], ["vflip"])
    with pytest.raises(ConfigError, match="unknown edit type"):
        split_edits(["rotate"], ["vflip"])
    with pytest.raises(ConfigError, match="at least one"):
        split_edits([], ["vflip"])
